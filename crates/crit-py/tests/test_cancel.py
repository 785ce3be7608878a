"""Cancelling a review from Python stops it and kills its processes: an
asyncio task cancelled while a reviewer program, `claude`, or a stalled model
is at work, and Ctrl-C during a blocking call."""

from __future__ import annotations

import _thread
import asyncio
import json
import signal
import threading
from pathlib import Path
from typing import List, Tuple

import pytest

from crit import AgentReviewer, CommandReviewer, Crit

from conftest import alive, wait_for, write


def sleeper(tmp_path: Path, name: str) -> Tuple[Path, Path]:
    """A program that records its pid and a grandchild's, then waits."""
    pids = tmp_path / f"{name}.pids"
    prog = write(
        tmp_path,
        f"bin/{name}",
        "#!/bin/sh\n"
        "sleep 300 &\n"
        f"echo \"$$ $!\" > '{pids}.tmp' && mv '{pids}.tmp' '{pids}'\n"
        "wait\n",
    )
    prog.chmod(0o755)
    return prog, pids


def read_pids(pids: Path) -> List[int]:
    return [int(p) for p in pids.read_text().split()]


async def cancel_when(task: asyncio.Task, ready) -> None:
    while not ready():
        assert not task.done(), task
        await asyncio.sleep(0.02)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task


def assert_dying(pids: List[int], what: str) -> None:
    """`pids` were sent SIGKILL already: they end within moments."""
    wait_for(f"{what} to end", lambda: not any(alive(p) for p in pids), timeout=3)


def assert_gone(pids: List[int], what: str) -> None:
    wait_for(f"{what} to be killed", lambda: not any(alive(p) for p in pids), timeout=10)


def test_cancelling_kills_the_reviewer_program_and_its_children(repo: Path, tmp_path: Path) -> None:
    prog, pids = sleeper(tmp_path, "review-gate")
    reviewer = CommandReviewer([str(prog)], repo)

    async def main() -> None:
        task = asyncio.create_task(reviewer(diff_range="main..HEAD", timeout=600))
        await cancel_when(task, pids.exists)

    asyncio.run(main())
    running = read_pids(pids)
    assert len(running) == 2
    assert_gone(running, "the reviewer program and its child")


def test_cancelling_kills_claude(server, repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    prog, pids = sleeper(tmp_path, "claude")
    monkeypatch.setenv("CRIT_PROVIDER", "claude-code")
    monkeypatch.setenv("CRIT_CLAUDE_BIN", str(prog))
    reviewer = AgentReviewer(repo)

    async def main() -> None:
        task = asyncio.create_task(reviewer(diff_range="main..HEAD"))
        await cancel_when(task, pids.exists)

    asyncio.run(main())
    assert_gone(read_pids(pids), "claude and its child")
    assert server.requests() == []


def test_cancelling_a_stalled_orchestrator_keeps_what_it_had(server, tmp_path: Path) -> None:
    d = tmp_path / "proj"
    d.mkdir()
    server.push({"text": "Looking at it", "stall_after_bytes": [60, 120000]})
    crit = Crit({"prompt": "You are the LEAD reviewer.", "allowed_tools": ["Read"], "cwd": str(d)})

    async def main() -> None:
        task = asyncio.create_task(crit.review("Review everything"))
        await cancel_when(task, lambda: len(server.requests()) == 1)

    asyncio.run(main())
    # The review winds down on its own: its session is saved, as INCOMPLETE.
    results = lambda: list((d / ".crit" / "sessions").glob("*/result.json"))  # noqa: E731
    wait_for("the session's result", lambda: bool(results()))
    saved = json.loads(results()[0].read_text())
    assert saved["verdict"] == "INCOMPLETE" and saved["passed"] is False


def test_ctrl_c_during_a_blocking_review_kills_its_processes(repo: Path, tmp_path: Path) -> None:
    prog, pids = sleeper(tmp_path, "review-gate")
    reviewer = CommandReviewer([str(prog)], repo)

    def interrupt() -> None:
        wait_for("the reviewer program", pids.exists)
        _thread.interrupt_main()

    # Ctrl-C as a terminal delivers it, even when the suite was started in
    # the background, where the shell makes the process ignore SIGINT.
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        t = threading.Thread(target=interrupt)
        t.start()
        with pytest.raises(KeyboardInterrupt):
            reviewer.review_sync(diff_range="main..HEAD", timeout=600)
        t.join()
    finally:
        signal.signal(signal.SIGINT, previous)
    # Killed when the exception arrives: the call waited for that. The kernel
    # ends a killed process a moment later (at once, unless the machine is busy).
    assert_dying(read_pids(pids), "the reviewer program and its child")
