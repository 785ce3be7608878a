"""crit's own Python API: typed results, template and plan reviews, errors,
Python hooks on Crit, and the `crit` command the wheel installs."""

from __future__ import annotations

import asyncio
import json
import shutil
import subprocess
import sys
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Dict, List

import pytest

import crit
from crit import (
    ConfigError,
    Crit,
    CritError,
    Finding,
    HookMatcher,
    NoBackendError,
    ReviewResult,
    ScopeError,
    TemplateResult,
    review_plan,
    review_plan_sync,
    review_template,
    review_template_sync,
)

from conftest import findings_answer, git, init_repo, user_text, write

EXAMPLES = Path(__file__).resolve().parents[3] / "examples"


def lead(tmp_path: Path, **extra: Any) -> Dict[str, Any]:
    d = tmp_path / "proj"
    write(d, "src/app.py", "print('hi')\n")
    return {"prompt": "You are the LEAD reviewer.", "allowed_tools": ["Read", "Bash"], "cwd": str(d), **extra}


def test_the_installed_crit_command_runs() -> None:
    exe = Path(sys.executable).parent / "crit"
    assert exe.is_file(), "the wheel installs the crit command next to python"
    out = subprocess.run([str(exe), "--version"], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == f"crit {crit.__version__}"
    assert shutil.which("crit") == str(exe)


def test_a_review_is_typed_and_round_trips_as_crits_json(server, tmp_path: Path) -> None:
    answer = findings_answer()
    answer["findings"][0]["file_path"] = "src/app.py"
    answer["findings"][0]["line_start"] = answer["findings"][0]["line_end"] = 1
    server.push({"json": answer, "usage": [120, 30, 0, 0]})
    result = Crit(lead(tmp_path)).review_sync("Review src/app.py")
    assert isinstance(result, ReviewResult)
    assert (result.review, result.verdict, result.passed) == ("run", "FAIL", False)
    [f] = result.findings
    assert isinstance(f, Finding)
    assert (f.severity, f.title, f.body) == ("P1", "[P1] Issue", "Details")
    assert f.location is not None and (f.location.path, f.location.line_start) == ("src/app.py", 1)
    assert f.id
    assert (result.usage.input_tokens, result.usage.output_tokens) == (120, 30)
    assert result.reviewers[0].name == "orchestrator"
    # The session keeps Reldo's files: its result.json is Reldo's shape.
    saved = json.loads(Path(result.session_log_path, "result.json").read_text())
    assert (saved["input_tokens"], saved["output_tokens"]) == (120, 30)
    assert ReviewResult.from_json(result.to_json()) == result


def test_a_python_hook_denies_a_tool(server, tmp_path: Path) -> None:
    server.push(
        {"tool_use": {"name": "Bash", "input": {"command": "git log -1"}}},
        {"json": findings_answer("PASS", [])},
    )
    calls: List[str] = []

    async def no_git(input_data, tool_use_id, context):
        calls.append(input_data["tool_input"]["command"])
        return {
            "hookSpecificOutput": {
                "hookEventName": "PreToolUse",
                "permissionDecision": "deny",
                "permissionDecisionReason": "no git in this review",
            }
        }

    # An async hook from a blocking review: it gets an event loop of its own.
    result = Crit(lead(tmp_path), hooks={"PreToolUse": [HookMatcher(matcher="Bash", hooks=[no_git])]}).review_sync(
        "Review src/app.py"
    )
    assert calls == ["git log -1"]
    assert "PreToolUse:Bash hook error: no git in this review" in user_text(server.requests()[1])
    assert result.passed


def test_a_hook_that_raises_is_reported_and_the_review_goes_on(server, tmp_path: Path) -> None:
    server.push(
        {"tool_use": {"name": "Read", "input": {"file_path": "src/app.py"}}},
        {"json": findings_answer("PASS", [])},
    )

    def broken(input_data, tool_use_id, context):
        raise RuntimeError("the audit service is down")

    config = lead(tmp_path, logging={"enabled": True, "verbose": True})
    result = Crit(config, hooks={"PreToolUse": [{"matcher": "Read", "hooks": [broken]}]}).review_sync("Review")
    assert "print('hi')" in user_text(server.requests()[1])
    transcript = Path(result.session_log_path, "transcript.log").read_text()
    assert "the audit service is down" in transcript


def test_hooks_are_checked_when_crit_is_built(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="unknown event 'OnReview'"):
        Crit(lead(tmp_path), hooks={"OnReview": [HookMatcher(hooks=[print])]})
    with pytest.raises(TypeError, match="not callable"):
        Crit(lead(tmp_path), hooks={"Stop": [HookMatcher(hooks=["print"])]})
    with pytest.raises(ConfigError, match="not a valid regex"):
        Crit(lead(tmp_path), hooks={"PreToolUse": [HookMatcher(matcher="(", hooks=[print])]})


def test_errors_are_crits_error_kinds(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    assert issubclass(ConfigError, CritError) and issubclass(NoBackendError, crit.BackendError)
    with pytest.raises(ConfigError, match="allowed_tools"):
        Crit({"prompt": "p", "allowed_tools": "Read"})
    with pytest.raises(ConfigError, match="nope.json"):
        Crit.from_config(tmp_path / "nope.json")
    # A key crit does not use is a warning, as in Reldo's loader, not an error.
    Crit({"prompt": "p", "wat": 1})
    # No backend configured anywhere: the message says how to configure one.
    with pytest.raises(NoBackendError, match="ANTHROPIC_API_KEY"):
        Crit(lead(tmp_path)).review_sync("Review")
    with pytest.raises(NoBackendError):
        asyncio.run(Crit(lead(tmp_path)).review("Review"))


def test_a_bad_range_is_a_scope_error(server, repo: Path) -> None:
    with pytest.raises(ScopeError, match="no-such-ref"):
        review_template_sync("code", cwd=repo, diff="no-such-ref..HEAD")
    assert server.requests() == []


def test_review_template_runs_a_template_with_its_inputs(server, tmp_path: Path) -> None:
    d = tmp_path / "docs"
    write(d, "hld.md", "# Architecture\n\nAll storage goes through the repository layer.\n")
    write(d, "slice.md", "# Slice\n\nThe handler reads the database directly.\n")
    server.push({"json": findings_answer("PASS", []), "usage": [10, 5, 0, 0]})
    result = asyncio.run(
        review_template("arch", cwd=d, input=str(d / "slice.md"), against=str(d / "hld.md"), log=False)
    )
    assert (result.review, result.verdict, result.passed) == ("arch", "PASS", True)
    assert result.session_log_path is None
    # The template names the documents; the reviewer reads them with its tools.
    sent = user_text(server.requests()[0])
    assert f"**Input document:** {d / 'slice.md'}" in sent
    assert str(d / "hld.md") in sent


# The review templates' markdown answer format, as their design writes it.
MARKDOWN_ANSWER = (
    "## Summary\nCONCERNS\n\nThe slice mostly fits; one boundary is crossed.\n\n## Findings\n\n"
    "### [CONCERN] Slice reaches into the storage layer\n"
    "slice.md:12 reads the users table directly instead of going through the repository.\n\n"
    "### [PASS] Dependencies point downwards\nNothing depends on the CLI.\n"
)


def test_a_template_result_has_the_review_templates_fields(server, tmp_path: Path) -> None:
    d = tmp_path / "docs"
    write(d, "arch.md", "# Architecture\n\nOnly repositories touch storage.\n")
    write(d, "slice.md", "# Slice\n\nRead users straight from the table.\n")
    server.push({"text": MARKDOWN_ANSWER})
    before = datetime.now(timezone.utc).replace(microsecond=0)
    result = review_template_sync("arch", cwd=d, input="slice.md", against="arch.md", log=False)
    assert isinstance(result, TemplateResult)
    assert result.verdict == "CONCERNS"
    assert result.template_name == "arch"
    # The template's own `cwd` input (default ".") is among them, as in the design.
    assert result.input_files == {"input": "slice.md", "against": "arch.md", "cwd": "."}
    assert isinstance(result.timestamp, datetime)
    assert result.timestamp >= before and result.timestamp.tzinfo is not None
    assert result.has_failures is False
    assert result.concern_count == 1
    # The design's parser case with a FAIL finding.
    server.push({"text": "## Summary\nFAIL\n\n## Findings\n\n### [FAIL] Wrong layer\nslice.md:3\n"})
    result = asyncio.run(review_template("arch", cwd=d, input="slice.md", against="arch.md", log=False))
    assert isinstance(result, TemplateResult)
    assert (result.verdict, result.has_failures, result.concern_count) == ("FAIL", True, 0)


def test_review_template_reviews_a_change(server, repo: Path) -> None:
    server.push({"json": findings_answer()})
    result = review_template_sync("code", cwd=repo, diff="main..HEAD")
    assert result.verdict == "FAIL" and not result.passed
    assert "+     audit(id)" in user_text(server.requests()[0])


def test_review_plan_answers_the_plans_question(tmp_path: Path) -> None:
    plan = tmp_path / "plan-session"
    shutil.copytree(EXAMPLES / "plan-session", plan)
    result = asyncio.run(review_plan(plan, answers={"decide_later": "use a 10-minute TTL"}, panel=False))
    assert (result.review, result.verdict, result.passed) == ("plan", "PASS", True)
    assert "eval(" not in (plan / "plan.md").read_text()
    # Without the answer the plan stops at its question.
    again = tmp_path / "again"
    shutil.copytree(EXAMPLES / "plan-session", again)
    result = review_plan_sync(again, panel=False)
    assert result.verdict != "PASS" and not result.passed


def test_review_plan_reports_a_missing_plan(tmp_path: Path) -> None:
    with pytest.raises(ConfigError):
        review_plan_sync(tmp_path / "nowhere", panel=False)


PANEL = (
    "reviewer_personas:\n"
    '  - name: "Dr. Ada Cache"\n'
    '    domain: "caching"\n'
    '    focus: ["invalidation"]\n'
    '  - name: "Claude"\n'
    '    domain: "anti-pattern detection"\n'
    '    focus: ["CLAUDE.md violations"]\n'
)


def test_review_plan_runs_the_panel_crit_plan_runs(server, tmp_path: Path) -> None:
    # The project at `cwd` chooses the panel's model, as `crit plan --cwd`
    # does, and the review writes the audit line `crit stats` counts.
    d = tmp_path / "project"
    write(d, ".crit/config.yaml", "model: haiku\ntimeout: 40\n")
    session = d / "plans" / "cache"
    write(session, "plan.md", "# Plan: cache profiles\n\n1. Add a cache.\n2. Invalidate on update.\n")
    write(session, "context.yaml", PANEL)
    write(session, "checks.yaml", 'checks:\n  - id: no_eval\n    pattern: "eval("\n    reason: "eval runs code"\n')
    init_repo(d)
    git(d, "add", "-A")
    git(d, "commit", "-q", "-m", "plan")
    subprocess.run(["crit", "trust", "--yes"], cwd=d, check=True, capture_output=True)
    for _ in range(2):
        server.push({"json": {"verdict": "PASS", "summary": "Sound.", "findings": []}})
    result = review_plan_sync("plans/cache", cwd=d)
    assert (result.verdict, result.passed) == ("PASS", True), result.summary
    models = [r["body"]["model"] for r in server.requests()]
    assert models == ["claude-haiku-5-5", "claude-haiku-5-5"]
    lines = [
        json.loads(line)
        for f in (tmp_path / "state" / "crit" / "audit").glob("*.jsonl")
        for line in f.read_text().splitlines()
    ]
    assert [l["review"] for l in lines] == ["plan"]
