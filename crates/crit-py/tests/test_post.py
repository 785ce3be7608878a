"""Posting from Python: ``crit.post`` chooses the merge request from the
GitLab CI environment as ``crit review code --post gitlab`` does (the
choice is crit-post's, shared), and posts against crit-testkit's GitLab
stand-in."""

from __future__ import annotations

import asyncio

import pytest

import crit
from crit import ConfigError, ReviewResult

HEAD = "1" * 40
BASE = "0" * 40
PATCH = "@@ -1,2 +1,3 @@\n def port():\n+    return int(env['PORT'])\n     pass"


def _result() -> ReviewResult:
    return ReviewResult.from_dict(
        {
            "schema_version": 1,
            "review": "code",
            "verdict": "FAIL",
            "passed": False,
            "summary": "The port is read unchecked.",
            "findings": [
                {
                    "id": "",
                    "title": "Unchecked port",
                    "body": "A missing PORT raises KeyError.",
                    "severity": "P1",
                    "reviewer": "code",
                    "location": {"kind": "file", "path": "app.py", "line_start": 2, "line_end": 2},
                }
            ],
            "inputs": {"diff": f"{BASE}...{HEAD}"},
        }
    )


@pytest.fixture
def pipeline(server, monkeypatch):
    gl = server.gitlab(
        iid=3, head_sha=HEAD, base_sha=BASE, files=[{"path": "app.py", "patch": PATCH}]
    )
    monkeypatch.setenv("GITLAB_CI", "true")
    monkeypatch.setenv("CI_API_V4_URL", gl["api_url"])
    monkeypatch.setenv("CI_PROJECT_ID", str(gl["project_id"]))
    monkeypatch.setenv("CI_MERGE_REQUEST_IID", "3")
    monkeypatch.setenv("GITLAB_TOKEN", gl["token"])
    return server


def test_a_result_is_posted_to_the_merge_request_the_pipeline_names(pipeline) -> None:
    report = crit.post_sync(_result(), "gitlab")
    assert report.forge == "GitLab"
    assert report.complete
    assert report.inline_posted == 1
    assert report.summary_created
    notes = [d["notes"][0] for d in pipeline.discussions(3)]
    assert len(notes) == 2, notes
    assert notes[0]["type"] == "DiffNote"
    assert notes[0]["position"]["new_line"] == 2
    assert "Unchecked port" in notes[0]["body"]
    assert notes[1]["body"].startswith(f"<!-- crit:summary head={HEAD} -->")

    # Again, awaited: nothing is posted twice, the summary is edited.
    again = asyncio.run(crit.post(_result(), "gitlab"))
    assert (again.inline_posted, again.inline_kept, again.summary_created) == (0, 1, False)
    assert len(pipeline.discussions(3)) == 2


def test_without_a_merge_request_in_the_environment_nothing_is_sent(
    server, monkeypatch
) -> None:
    monkeypatch.setenv("GITLAB_TOKEN", "glpat-unused")
    monkeypatch.delenv("CI_API_V4_URL", raising=False)
    with pytest.raises(ConfigError, match="CI_API_V4_URL"):
        crit.post_sync(_result(), "gitlab")
    with pytest.raises(ConfigError, match="github"):
        crit.post_sync(_result(), "bitbucket")
