"""Many reviews at once from asyncio, and the GIL free while reviews run."""

from __future__ import annotations

import asyncio
import threading
from pathlib import Path

from crit import AgentReviewer, Crit

from conftest import findings_answer, user_text

N = 24


def test_many_concurrent_reviews_each_get_their_own_answer(server, tmp_path: Path) -> None:
    d = tmp_path / "proj"
    d.mkdir()
    for i in range(N):
        server.push(
            {"when_contains": f"REVIEW-{i}-END", "reply": {"json": {"passed": i % 2 == 0, "n": i}, "delay_ms": 400}}
        )
    schema = {"type": "object", "properties": {"passed": {"type": "boolean"}, "n": {"type": "integer"}}, "required": ["passed"]}
    crit = Crit({"prompt": "You review.", "allowed_tools": [], "output_schema": schema, "cwd": str(d)})
    ticks = 0

    async def ticker(stop: asyncio.Event) -> None:
        nonlocal ticks
        while not stop.is_set():
            ticks += 1
            await asyncio.sleep(0.01)

    async def main():
        stop = asyncio.Event()
        t = asyncio.create_task(ticker(stop))
        results = await asyncio.gather(*(crit.review(f"REVIEW-{i}-END") for i in range(N)))
        stop.set()
        await t
        return results

    results = asyncio.run(main())
    assert [r.structured_output["n"] for r in results] == list(range(N))
    assert [r.passed for r in results] == [i % 2 == 0 for i in range(N)]
    reqs = server.requests()
    assert len(reqs) == N
    # They were in flight together: the last one arrived before the first was answered.
    assert max(r["received_ms"] for r in reqs) < min(r["responded_ms"] for r in reqs)
    assert ticks > 5, "the event loop kept running while the reviews did"


def test_the_gil_is_released_while_a_blocking_review_runs(server, repo: Path) -> None:
    server.push({"json": findings_answer("PASS", []), "delay_ms": 1000})
    counted = 0
    stop = threading.Event()

    def count() -> None:
        nonlocal counted
        while not stop.is_set():
            counted += 1

    t = threading.Thread(target=count)
    t.start()
    try:
        before = counted
        result = AgentReviewer(repo).review_sync(diff_range="main..HEAD")
        during = counted - before
    finally:
        stop.set()
        t.join()
    assert result.passed
    assert during > 10_000, f"another Python thread ran only {during} steps during the review"


def test_concurrent_code_reviews_of_one_repository(server, repo: Path) -> None:
    for _ in range(8):
        server.push({"when_contains": "audit(id)", "reply": {"json": findings_answer(), "delay_ms": 200}})
        # Each blocking finding gets a second look, which confirms it.
        server.push(
            {
                "when_contains": "The finding to check",
                "reply": {"json": {"outcome": "confirmed", "reason": "real"}},
            }
        )
    reviewer = AgentReviewer(repo)

    async def main():
        return await asyncio.gather(*(reviewer(diff_range="main..HEAD") for _ in range(8)))

    results = asyncio.run(main())
    assert all(not r.passed and r.issues[0].title == "[P1] Issue" for r in results)
    assert len({r.review_log_path for r in results}) == 8, "one session each"
    reviews = [q for q in server.requests() if "The finding to check" not in user_text(q)]
    assert len(reviews) == 8
    assert all("+     audit(id)" in user_text(q) for q in reviews)
