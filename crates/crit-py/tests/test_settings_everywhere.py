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

KEYS = (
    "model",
    "timeout",
    "fail_on",
    "max_turns",
    "max_budget_usd",
    "max_cost_usd",
    "templates_dir",
    "verify_model",
    "rules",
)


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
    write(d, ".crit/config.yaml", "fail_on: p0\nmax_turns: 9\nmax_budget_usd: 3\nmax_cost_usd: 2\n")
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
    assert cli["max_budget_usd"] == "3.00"
    assert cli["max_cost_usd"] == "2.00"
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


PANEL = (
    "reviewer_personas:\n"
    '  - name: "Dr. Ada Cache"\n'
    '    domain: "caching"\n'
    '    focus: ["invalidation"]\n'
    '  - name: "Claude"\n'
    '    domain: "anti-pattern detection"\n'
    '    focus: ["CLAUDE.md violations"]\n'
)


def test_plan_review_agrees_with_crit_plan(server, tmp_path: Path) -> None:
    # The project's model, one-second timeout and budget reach the plan
    # panel from Python as they reach `crit plan` (the binary's
    # tests/crit/settings_everywhere_plan.rs holds the library to the same),
    # and `passed` is decided the same way, the command's exit code saying it.
    from crit import review_plan_sync

    d = tmp_path / "project"
    d.mkdir()
    init_repo(d)
    write(d, ".crit/config.yaml", "model: haiku\ntimeout: 1\nmax_budget_usd: 5\n")
    write(d, "plans/cache/plan.md", "# Plan: cache profiles\n\n1. Add a cache.\n2. Invalidate on update.\n")
    write(d, "plans/cache/context.yaml", PANEL)
    write(d, "plans/cache/checks.yaml", 'checks:\n  - id: no_eval\n    pattern: "eval("\n    reason: "eval runs code"\n')
    git(d, "add", "-A")
    git(d, "commit", "-q", "-m", "plan")
    subprocess.run(["crit", "trust", "--yes"], cwd=d, check=True, capture_output=True)
    p1 = {
        "file_path": "plan.md",
        "line_start": 4,
        "line_end": 4,
        "priority": 1,
        "title": "Invalidation misses other writers",
        "body": "Billing writes profiles too; its writes never invalidate.",
    }

    def script() -> None:
        server.push({"when_contains": "You are Dr. Ada Cache", "reply": {"json": findings_answer("FAIL", [p1])}})
        server.push(
            {
                "when_contains": "You are Claude",
                "reply": {"json": findings_answer("PASS", []), "delay_ms": 4000},
            }
        )

    def seen(passed: bool, reviewers: list) -> dict:
        members = sorted(
            (r["name"], r["status"], "time" in (r.get("error") or "").lower()) for r in reviewers
        )
        models = sorted({r["body"]["model"] for r in server.requests()})
        return {"passed": passed, "members": members, "models": models}

    script()
    out = subprocess.run(
        ["crit", "plan", "plans/cache", "--non-interactive", "--json"],
        cwd=d,
        capture_output=True,
        text=True,
    )
    cli_result = json.loads(out.stdout)
    cli = seen(cli_result["passed"], cli_result["reviewers"])
    assert out.returncode == (0 if cli_result["passed"] else 1), out.stderr

    script()
    result = review_plan_sync("plans/cache", cwd=d)
    py = seen(
        result.passed,
        [{"name": r.name, "status": r.status, "error": r.error} for r in result.reviewers],
    )
    assert cli == py
    assert cli["passed"] is False
    assert cli["models"] == ["claude-haiku-5-5"]
    assert [m for m in cli["members"] if "Claude" in m[0]][0][2] is True


def test_review_plan_takes_fail_on_as_crit_plan_does(server, tmp_path: Path) -> None:
    # A blocking finding fails the plan at crit's default gate; `fail_on`
    # moves the gate in Python exactly as `crit plan --fail-on` moves it.
    import pytest

    from crit import ConfigError, review_plan_sync

    d = tmp_path / "project"
    d.mkdir()
    init_repo(d)
    write(d, ".crit/config.yaml", "model: haiku\n")
    write(d, "plans/cache/plan.md", "# Plan: cache profiles\n\n1. Add a cache.\n2. Invalidate on update.\n")
    write(d, "plans/cache/context.yaml", PANEL)
    write(d, "plans/cache/checks.yaml", 'checks:\n  - id: no_eval\n    pattern: "eval("\n    reason: "eval runs code"\n')
    git(d, "add", "-A")
    git(d, "commit", "-q", "-m", "plan")
    p2 = {
        "file_path": "plan.md",
        "line_start": 4,
        "line_end": 4,
        "priority": 2,
        "title": "Invalidation misses other writers",
        "body": "Billing writes profiles too; its writes never invalidate.",
    }

    def script() -> None:
        server.push({"when_contains": "You are Dr. Ada Cache", "reply": {"json": findings_answer("NEEDS_WORK", [p2])}})
        server.push({"when_contains": "You are Claude", "reply": {"json": findings_answer("PASS", [])}})

    for level, passed in (("p3", False), ("p1", True)):
        script()
        out = subprocess.run(
            ["crit", "plan", "plans/cache", "--non-interactive", "--json", "--fail-on", level],
            cwd=d,
            capture_output=True,
            text=True,
        )
        cli = json.loads(out.stdout)
        assert cli["passed"] is passed, out.stdout
        assert out.returncode == (0 if passed else 1), out.stderr
        script()
        result = review_plan_sync("plans/cache", cwd=d, fail_on=level)
        assert result.passed is passed, level
    with pytest.raises(ConfigError, match="fail_on"):
        review_plan_sync("plans/cache", cwd=d, fail_on="p9")


def test_the_plan_budget_holds_in_python_as_in_crit_plan(server, tmp_path: Path) -> None:
    # A budget of nothing: no persona may spend, from `crit plan` or from
    # Python; both stop them at the budget and neither passes the plan.
    from crit import review_plan_sync

    d = tmp_path / "project"
    d.mkdir()
    init_repo(d)
    write(d, ".crit/config.yaml", "model: haiku\nmax_budget_usd: 0\n")
    write(d, "plans/cache/plan.md", "# Plan: cache profiles\n\n1. Add a cache.\n2. Invalidate on update.\n")
    write(d, "plans/cache/context.yaml", PANEL)
    write(d, "plans/cache/checks.yaml", 'checks:\n  - id: no_eval\n    pattern: "eval("\n    reason: "eval runs code"\n')
    git(d, "add", "-A")
    git(d, "commit", "-q", "-m", "plan")
    subprocess.run(["crit", "trust", "--yes"], cwd=d, check=True, capture_output=True)

    def seen(passed: bool, reviewers: list) -> dict:
        members = sorted(
            (r["name"], r["status"], "budget" in (r.get("error") or "").lower()) for r in reviewers
        )
        return {"passed": passed, "members": members}

    out = subprocess.run(
        ["crit", "plan", "plans/cache", "--non-interactive", "--json"],
        cwd=d,
        capture_output=True,
        text=True,
    )
    cli_result = json.loads(out.stdout)
    cli = seen(cli_result["passed"], cli_result["reviewers"])
    assert out.returncode == (0 if cli_result["passed"] else 1), out.stderr

    result = review_plan_sync("plans/cache", cwd=d)
    py = seen(
        result.passed,
        [{"name": r.name, "status": r.status, "error": r.error} for r in result.reviewers],
    )
    assert server.requests() == []
    assert cli == py
    assert cli["passed"] is False
    personas = [m for m in cli["members"] if m[0] != "checks"]
    assert len(personas) == 2 and all(m[1] == "incomplete" and m[2] for m in personas), cli
