"""One project, every door: the Python package's mala reviewer reviews with
the settings `crit review code` uses — the model and timeout from mala.yaml,
the gate and limits from a trusted `.crit/config.yaml`, the user's
`templates_dir` — as the Stop gate and a library caller do (the binary's
tests/crit/settings_everywhere.rs holds those to the same)."""

from __future__ import annotations

import asyncio
import json
import subprocess
from pathlib import Path
from typing import Dict

from crit.compat.mala import AgentReviewer

from conftest import findings_answer, git, init_repo, write

KEYS = ("model", "timeout", "fail_on", "max_turns", "templates_dir", "verify_model", "rules")


def rows(session_dir: Path) -> Dict[str, str]:
    meta = json.loads((session_dir / "session.json").read_text())
    return {r["key"]: r["value"] for r in meta["config"]}


def pick(all_rows: Dict[str, str]) -> Dict[str, str]:
    return {k: all_rows.get(k, "") for k in KEYS}


def test_the_mala_reviewer_sees_what_crit_review_code_sees(server, tmp_path: Path) -> None:
    d = tmp_path / "project"
    d.mkdir()
    init_repo(d)
    templates = tmp_path / "tpl"
    templates.mkdir()
    write(tmp_path, "config/crit/config.yaml", f"templates_dir: {templates}\n")
    write(d, "mala.yaml", "agent_sdk_reviewer_model: haiku\nagent_sdk_review_timeout: 77\n")
    write(d, ".crit/config.yaml", "fail_on: p0\nmax_turns: 9\n")
    write(d, "src/app.py", "def main():\n    return 1\n")
    git(d, "add", "-A")
    git(d, "commit", "-q", "-m", "base")
    git(d, "checkout", "-q", "-b", "feature")
    write(d, "src/app.py", "def main():\n    return eval(input())\n")
    git(d, "commit", "-q", "-am", "change")
    subprocess.run(["crit", "trust", "--yes"], cwd=d, check=True, capture_output=True)

    server.push({"json": findings_answer("PASS", [])})
    out = subprocess.run(
        ["crit", "review", "code", "--diff", "main..HEAD", "--verify", "off", "--no-cache", "--json"],
        cwd=d,
        capture_output=True,
        text=True,
    )
    assert out.returncode == 0, out.stderr
    sessions = sorted((d / ".crit" / "sessions").iterdir())
    assert len(sessions) == 1
    cli = pick(rows(sessions[0]))

    server.push({"json": findings_answer("PASS", [])})
    result = asyncio.run(AgentReviewer(d)(diff_range="main..HEAD"))
    assert result.passed is True
    py = pick(rows(Path(result.review_log_path)))

    assert cli == py
    assert cli["model"] == "haiku → claude-haiku-5-5"
    assert cli["timeout"] == "77s"
    assert cli["fail_on"] == "p0"
    assert cli["max_turns"] == "9"
    assert cli["templates_dir"] == str(templates)
    assert cli["rules"] == "working tree"
    models = [r["body"]["model"] for r in server.requests()]
    assert models == ["claude-haiku-5-5", "claude-haiku-5-5"]


def test_a_stricter_project_gate_fails_a_p2_in_python_too(server, tmp_path: Path) -> None:
    # `fail_on: p2` in the project's config needs no trust (it is stricter):
    # the result's `passed` is decided at that level, as `crit review code
    # --exit-code`, `crit report` and the Stop gate decide it.
    d = tmp_path / "project"
    d.mkdir()
    init_repo(d)
    write(d, ".crit/config.yaml", "fail_on: p2\n")
    write(d, "src/main.py", "def div(a, b):\n    return a\n")
    git(d, "add", "-A")
    git(d, "commit", "-q", "-m", "base")
    git(d, "checkout", "-q", "-b", "feature")
    write(d, "src/main.py", "def div(a, b):\n    return a / b\n")
    git(d, "commit", "-q", "-am", "change")
    p2 = {
        "file_path": "src/main.py",
        "line_start": 2,
        "line_end": 2,
        "priority": 2,
        "title": "Division by zero when b is 0",
        "body": "Nothing checks b.",
    }
    server.push({"json": findings_answer("NEEDS_WORK", [p2])})
    result = asyncio.run(AgentReviewer(d)(diff_range="main..HEAD"))
    assert result.passed is False
    assert [i.priority for i in result.issues] == [2]
