"""mala's reviewer requirements R1–R7, through crit's AgentReviewer (and the
CommandReviewer override) from Python."""

from __future__ import annotations

import asyncio
import json
import logging
import os
import subprocess
import threading
from pathlib import Path
from typing import List, Optional, Set

import pytest

import crit
from crit.compat.mala import (
    AgentReviewer,
    AgentSDKReviewer,
    CommandReviewer,
    ReviewIssue,
    ReviewResult,
    reviewer_from_config,
)

from conftest import findings_answer, git, system_text, user_text, write

PROTOCOL = ("passed", "issues", "parse_error", "fatal_error", "review_log_path")


def run(coro):
    return asyncio.run(coro)


# ---- R1: protocol compatibility, empty diffs ----


def test_r1_a_range_review_returns_the_protocols_result(server, repo: Path, tmp_path: Path) -> None:
    ctx = write(tmp_path, "ctx.md", "Added an audit call to reads.\n")
    server.push({"json": findings_answer("PASS", [])})
    reviewer = AgentReviewer(repo)
    result = run(reviewer(diff_range="main..HEAD", context_file=str(ctx), timeout=300))
    assert isinstance(result, ReviewResult)
    for attr in PROTOCOL:
        assert hasattr(result, attr), attr
    assert result.passed is True
    assert result.issues == []
    assert result.parse_error is None
    assert result.fatal_error is False
    assert result.review_log_path and Path(result.review_log_path, "result.json").is_file()
    assert len(server.requests()) == 1


def test_r1_an_empty_range_passes_without_a_model_call(server, repo: Path) -> None:
    result = run(AgentReviewer(repo)(diff_range="HEAD..HEAD"))
    assert result.passed is True
    assert result.issues == []
    assert server.requests() == []


def test_r1_commits_without_changes_pass_without_a_model_call(server, repo: Path) -> None:
    git(repo, "commit", "-q", "--allow-empty", "-m", "nothing")
    sha = git(repo, "rev-parse", "HEAD")
    result = run(AgentReviewer(repo)(commit_shas=[sha]))
    assert result.passed is True
    assert result.issues == []
    assert server.requests() == []


# ---- R2: the agent by default, an external reviewer as the override ----


def test_r2_the_agent_reviewer_is_the_default(server, repo: Path) -> None:
    assert isinstance(reviewer_from_config(repo), AgentReviewer)
    assert reviewer_from_config(repo).kind == "agent"


def test_r2_reviewer_command_in_the_project_config_runs_the_program(
    server, repo: Path, tmp_path: Path
) -> None:
    marker = tmp_path / "ran"
    gate = write(
        tmp_path,
        "review-gate",
        "#!/bin/sh\n"
        f"echo \"$CRIT_DIFF_RANGE\" > '{marker}'\n"
        "echo '{\"verdict\": \"PASS\", \"findings\": []}'\n",
    )
    gate.chmod(0o755)
    write(repo, ".crit/config.yaml", f"reviewer: command\ncommand: ['{gate}']\n")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "use review-gate")
    # A project's reviewer program is a program the checkout names: it runs
    # only once the user trusts the setting.
    assert isinstance(reviewer_from_config(repo), AgentReviewer)
    trust = subprocess.run(["crit", "trust", "--yes"], cwd=repo, capture_output=True, text=True)
    assert trust.returncode == 0, trust.stderr
    reviewer = reviewer_from_config(repo)
    assert isinstance(reviewer, CommandReviewer)
    result = run(reviewer(diff_range="main..HEAD"))
    assert result.passed, result
    assert marker.read_text().strip() == "main..HEAD"
    assert server.requests() == []


def test_r2_mala_constructs_its_reviewer_with_its_own_prompt(
    server, repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # mala's own constructor call, keywords and all.
    monkeypatch.chdir(repo)
    reviewer = AgentReviewer(repo_path=".", review_agent_prompt="x")
    assert reviewer.kind == "agent"
    server.push({"json": findings_answer("PASS", [])})
    prompt = "MALA-REVIEW-AGENT-PROMPT: review the diff, answer in JSON."
    result = run(AgentSDKReviewer(repo, prompt)(diff_range="main..HEAD"))
    assert result.passed is True
    [req] = server.requests()
    system = system_text(req)
    assert prompt in system
    # crit's findings contract still follows mala's prompt.
    assert "line_start" in system


# ---- R3: prompt and context parity ----


def test_r3_the_code_template_and_the_diff_and_context_are_sent(
    server, repo: Path, tmp_path: Path
) -> None:
    ctx = write(tmp_path, "ctx.md", "CONTEXT-MARKER: the author's notes.\n")
    server.push({"json": findings_answer("PASS", [])})
    run(AgentReviewer(repo)(diff_range="main..HEAD", context_file=ctx))
    [req] = server.requests()
    # The CLI prints the requests its code review would send: the same
    # system prompt went to the model from mala's reviewer.
    printed = json.loads(
        subprocess.run(
            ["crit", "review", "code", "--diff", "main..HEAD", "--print-prompt", "--json"],
            cwd=repo,
            capture_output=True,
            text=True,
            check=True,
        ).stdout
    )
    template_system = printed[0]["system"][0]
    assert template_system.strip() and template_system.strip() in system_text(req)
    sent = user_text(req)
    assert "+     audit(id)" in sent, "the diff"
    assert "CONTEXT-MARKER: the author's notes." in sent, "the context file"


# ---- R4: output normalisation ----


def test_r4_the_seed_answer_becomes_mala_issues(server, repo: Path) -> None:
    server.push({"json": findings_answer()})
    result = run(AgentReviewer(repo)(diff_range="main..HEAD"))
    assert result.passed is False
    assert result.consensus_verdict == "FAIL"
    # R4's expected result, verbatim.
    assert result.issues == [
        ReviewIssue(file="src/main.py", line_start=42, line_end=42, priority=1, title="[P1] Issue", body="Details", reviewer="agent-sdk")
    ]
    assert result.parse_error is None and result.fatal_error is False


def test_r4_malformed_json_is_a_parse_error_never_a_pass(server, repo: Path) -> None:
    server.push(*[{"text": '{"verdict": "FAIL", "findings": ['}] * 4)
    result = run(AgentReviewer(repo)(diff_range="main..HEAD"))
    assert result.passed is False
    assert result.fatal_error is False
    assert result.parse_error


@pytest.mark.parametrize(
    "answer", [{"findings": []}, {"verdict": "MAYBE", "findings": []}]
)
def test_r4_missing_fields_and_bad_verdicts_fail(server, repo: Path, answer) -> None:
    server.push(*[{"json": answer}] * 4)
    result = run(AgentReviewer(repo)(diff_range="main..HEAD"))
    assert result.passed is False
    assert result.fatal_error is False
    assert result.parse_error


@pytest.mark.parametrize(
    "output, expected",
    [
        ('{"findings": []}', "missing field: verdict"),
        ('{"verdict": "MAYBE", "findings": []}', "invalid verdict: MAYBE"),
        ('{"verdict": "FAIL", "findings": [', "invalid json: "),
    ],
)
def test_r4_a_reviewer_programs_errors_are_worded_as_mala_words_them(
    repo: Path, tmp_path: Path, output: str, expected: str
) -> None:
    answer = write(tmp_path, "answer.json", output)
    result = run(CommandReviewer(["cat", str(answer)], repo)(diff_range="main..HEAD"))
    assert result.passed is False
    assert result.fatal_error is False
    assert (result.parse_error or "").startswith(expected), result.parse_error


def test_r4_an_inverted_line_range_is_a_parse_error_as_mala_reports_it(server, repo: Path) -> None:
    answer = findings_answer()
    answer["findings"][0].update(line_start=6, line_end=4)
    server.push(*[{"json": answer}] * 4)
    warnings: List[str] = []

    class Sink:
        def on_review_warning(self, message: str) -> None:
            warnings.append(message)

    result = run(AgentReviewer(repo, event_sink=Sink())(diff_range="main..HEAD"))
    assert result.passed is False
    assert result.fatal_error is False
    assert result.parse_error == "invalid field: line_end: expected at least line_start (6), got 4"
    assert warnings[0] == result.parse_error


# ---- R5: timeouts ----


def test_r5_a_stalled_model_is_a_timeout(server, repo: Path) -> None:
    server.push({"text": "Reading the diff for a long, long time", "stall_after_bytes": [200, 60000]})
    result = run(AgentReviewer(repo)(diff_range="main..HEAD", timeout=2))
    assert result.passed is False
    assert result.parse_error == "timeout"
    assert result.fatal_error is False


# ---- R6: in process ----


def _children() -> Set[str]:
    """The names of this process's child processes. A child forked but not
    yet exec'd still has the name of the thread that forked it: those are
    reported as "(forking)"."""
    names: Set[str] = set()
    threads: Set[str] = set()
    pids: List[str] = []
    for task in os.listdir("/proc/self/task"):
        try:
            with open(f"/proc/self/task/{task}/comm") as f:
                threads.add(f.read().strip())
            with open(f"/proc/self/task/{task}/children") as f:
                pids.extend(f.read().split())
        except OSError:
            continue
    for pid in pids:
        try:
            with open(f"/proc/{pid}/comm") as f:
                name = f.read().strip()
        except OSError:
            continue
        names.add("(forking)" if name in threads else name)
    return names


def test_r6_the_review_runs_in_this_process(server, repo: Path) -> None:
    server.push({"json": findings_answer("PASS", []), "delay_ms": 800})
    before = _children()  # the fake server
    seen: Set[str] = set()
    done = threading.Event()

    def watch() -> None:
        while not done.is_set():
            seen.update(_children())

    t = threading.Thread(target=watch)
    t.start()
    try:
        result = run(AgentReviewer(repo)(diff_range="main..HEAD"))
    finally:
        done.set()
        t.join()
    assert result.passed
    # git computes the change; no reviewer program, no crit, no claude.
    assert "git" in seen
    assert seen - before <= {"git", "(forking)"}, seen


# ---- R7 ----


def test_r7_reviews_switched_off_stay_off(server, repo: Path) -> None:
    assert AgentReviewer(repo).overrides_disabled_setting() is False
    assert CommandReviewer(["review-gate"], repo).overrides_disabled_setting() is False


def test_the_blocking_call_gives_the_same_result(server, repo: Path) -> None:
    server.push({"json": findings_answer()})
    result = AgentReviewer(repo).review_sync(diff_range="main..HEAD")
    assert [i.title for i in result.issues] == ["[P1] Issue"]
    assert result.result is not None and result.result.verdict == "FAIL"


# ---- Instrumentation: mala's log lines and event sink ----


class MockEventSink:
    """mala's test double for its ``MalaEventSink``: the warnings it heard."""

    def __init__(self) -> None:
        self.warnings: List[str] = []

    def on_review_warning(
        self, message: str, agent_id: Optional[str] = None, issue_id: Optional[str] = None
    ) -> None:
        self.warnings.append(message)


def mala_lines(caplog: pytest.LogCaptureFixture) -> List[tuple]:
    return [(r.name, r.levelname, r.getMessage()) for r in caplog.records if r.name.startswith("src.")]


def test_r2_the_agent_logs_as_malas_does(server, repo: Path, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO)
    server.push({"json": findings_answer("PASS", [])})
    reviewer = AgentSDKReviewer(repo)
    run(reviewer(diff_range="main..HEAD"))
    assert mala_lines(caplog) == [
        ("src.orchestration.factory", "INFO", "Initializing code reviewer: agent-sdk"),
        ("src.infra.clients.agent_sdk_review", "INFO", "Starting review for main..HEAD with agent-sdk"),
    ]
    caplog.clear()
    sha = git(repo, "rev-parse", "HEAD")
    server.push({"json": findings_answer("PASS", [])})
    reviewer.review_sync(commit_shas=[sha])
    assert mala_lines(caplog) == [
        ("src.infra.clients.agent_sdk_review", "INFO", f"Starting review for {sha} with agent-sdk"),
    ]


def test_r2_the_configured_reviewer_logs_its_type(
    server, repo: Path, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO)
    reviewer_from_config(repo)
    assert mala_lines(caplog) == [("src.orchestration.factory", "INFO", "Initializing code reviewer: agent-sdk")]
    caplog.clear()
    answer = write(tmp_path, "answer.json", '{"verdict": "PASS", "findings": []}')
    result = run(CommandReviewer(["cat", str(answer)], repo)(diff_range="main..HEAD"))
    assert result.passed
    assert mala_lines(caplog) == [
        ("src.orchestration.factory", "INFO", "Initializing code reviewer: cerberus"),
        ("src.infra.clients.cerberus_review", "INFO", "Starting review for main..HEAD with cerberus"),
    ]


def test_crits_own_reviewer_logs_nothing_of_malas(server, repo: Path, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.DEBUG)
    server.push({"json": findings_answer()})
    result = run(crit.AgentReviewer(repo)(diff_range="main..HEAD"))
    assert mala_lines(caplog) == []
    # Its issues keep the name of crit's reviewer.
    assert result.issues[0].reviewer == "code"


def test_the_event_sink_hears_timeouts_and_parse_errors(server, repo: Path) -> None:
    sink = MockEventSink()
    reviewer = AgentReviewer(repo, event_sink=sink)
    server.push({"text": "Reading the diff for a long, long time", "stall_after_bytes": [200, 60000]})
    result = run(reviewer(diff_range="main..HEAD", timeout=2))
    assert result.parse_error == "timeout"
    assert sink.warnings == ["timeout"]
    server.push(*[{"json": {"verdict": "MAYBE", "findings": []}}] * 4)
    result = reviewer.review_sync(diff_range="main..HEAD")
    assert result.passed is False and result.parse_error
    assert sink.warnings == ["timeout", result.parse_error]
    # A review that passes warns of nothing.
    server.push({"json": findings_answer("PASS", [])})
    assert run(reviewer(diff_range="main..HEAD")).passed
    assert len(sink.warnings) == 2


def test_a_reviewer_programs_bad_answer_warns_the_event_sink(repo: Path, tmp_path: Path) -> None:
    sink = MockEventSink()
    answer = write(tmp_path, "answer.json", '{"findings": []}')
    reviewer = CommandReviewer(["cat", str(answer)], repo, event_sink=sink)
    result = run(reviewer(diff_range="HEAD..HEAD"))
    assert result.passed and sink.warnings == []
    result = run(reviewer(diff_range="main..HEAD"))
    assert result.passed is False
    assert sink.warnings == [result.parse_error]
    assert sink.warnings[0].startswith("missing field: verdict")
