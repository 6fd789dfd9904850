"""The job queue: one job at a time, a failing job never stops the worker, clean shutdown."""

from __future__ import annotations

import asyncio
import logging

import pytest

from commonplace.changes import Change
from commonplace.config import Settings
from commonplace.jobs import Job, JobQueue, describe, route_changes


async def test_jobs_run_one_at_a_time_in_order() -> None:
    queue = JobQueue()
    seen: list[str] = []
    running = 0

    def job(name: str) -> Job:
        async def run() -> None:
            nonlocal running
            running += 1
            assert running == 1
            await asyncio.sleep(0.01)
            seen.append(name)
            running -= 1

        return Job("test", name, run)

    queue.start()
    for name in "abc":
        queue.put(job(name))
    await asyncio.wait_for(queue.join(), 5)
    assert seen == ["a", "b", "c"]
    assert queue.stats.done == 3
    await queue.stop()


async def test_a_failing_job_is_logged_and_the_next_runs(caplog: pytest.LogCaptureFixture) -> None:
    queue = JobQueue()
    ran: list[str] = []

    async def boom() -> None:
        raise ValueError("the model said nonsense")

    async def fine() -> None:
        ran.append("fine")

    queue.start()
    with caplog.at_level(logging.INFO, logger="commonplace.jobs"):
        queue.put(Job("tidy", "Inbox/a.md", boom))
        queue.put(Job("index", "Inbox/b.md", fine))
        await asyncio.wait_for(queue.join(), 5)
    assert ran == ["fine"]
    assert queue.stats.failed == 1 and queue.stats.done == 1
    lines = [r.getMessage() for r in caplog.records if r.name == "commonplace.jobs"]
    assert any("tidy: Inbox/a.md, FAILED: ValueError: the model said nonsense" in m for m in lines)
    assert any(m.startswith("job index: Inbox/b.md, ok in") for m in lines)
    await queue.stop()


async def test_stop_lets_a_short_job_finish() -> None:
    queue = JobQueue(grace_s=5)
    finished = asyncio.Event()
    started = asyncio.Event()

    async def short() -> None:
        started.set()
        await asyncio.sleep(0.05)
        finished.set()

    queue.start()
    queue.put(Job("index", "short", short))
    await started.wait()
    await queue.stop()
    assert finished.is_set()


async def test_stop_abandons_a_job_past_the_grace_period() -> None:
    queue = JobQueue(grace_s=0.05)
    started = asyncio.Event()
    cancelled = asyncio.Event()

    async def endless() -> None:
        started.set()
        try:
            await asyncio.sleep(60)
        except asyncio.CancelledError:
            cancelled.set()
            raise

    queue.start()
    queue.put(Job("ask", "endless", endless))
    queue.put(Job("ask", "never started", endless))
    await started.wait()
    await asyncio.wait_for(queue.stop(), 5)
    assert cancelled.is_set()
    queue.put(Job("ask", "after stop", endless))
    assert queue.pending == 0


def test_changes_are_routed_to_their_stages(settings: Settings) -> None:
    changes = [
        Change("Inbox/2026-10-20 0805.md", "created"),
        Change("Ask/Questions.md", "modified"),
        Change("People/Maya Collins.md", "modified"),
    ]
    routed = route_changes(changes, settings)
    assert routed["index"] == changes
    assert routed["tidy"] == [changes[0]]
    assert routed["ask"] == [changes[1]]
    assert route_changes([changes[2]], settings) == {"index": [changes[2]]}
    assert describe([changes[0]]) == "created Inbox/2026-10-20 0805.md"
    assert describe(changes) == "3 changes"
