"""The job queue: one job at a time, a failing job never stops the worker, clean shutdown."""

from __future__ import annotations

import asyncio
import dataclasses
import logging
from collections.abc import Sequence

import pytest

from commonplace.ask.asknote import is_ask_note
from commonplace.config import Settings
from commonplace.daemon.jobs import ChangeRouter, Job, JobQueue, describe, route_changes
from commonplace.runtime.changes import Change
from tests.faults import tantivy_panic


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
    await asyncio.wait_for(queue.join(), 60)
    assert seen == ["a", "b", "c"]
    assert queue.stats.done == 3
    await queue.stop()


async def test_a_panic_in_a_rust_library_fails_the_job_and_the_next_runs() -> None:
    """pyo3's PanicException is a BaseException: it went past `except Exception` and ended the
    lane's worker (and its supervisor), so no index or Ask job ever ran again, silently."""
    queue = JobQueue()
    ran: list[str] = []

    async def panics() -> None:
        raise tantivy_panic()

    async def fine() -> None:
        ran.append("fine")

    queue.start()
    queue.put(Job("index", "Inbox/a.md", panics))
    queue.put(Job("index", "Inbox/b.md", fine))
    await asyncio.wait_for(queue.join(), 60)
    assert ran == ["fine"]
    assert queue.stats.failed == 1 and queue.stats.done == 1
    await queue.stop()


async def test_a_failing_job_is_logged_and_the_next_runs(caplog: pytest.LogCaptureFixture) -> None:
    queue = JobQueue()
    ran: list[str] = []

    async def boom() -> None:
        raise ValueError("the model said nonsense")

    async def fine() -> None:
        ran.append("fine")

    queue.start()
    with caplog.at_level(logging.INFO, logger="commonplace.daemon.jobs"):
        queue.put(Job("tidy", "Inbox/a.md", boom))
        queue.put(Job("index", "Inbox/b.md", fine))
        await asyncio.wait_for(queue.join(), 60)
    assert ran == ["fine"]
    assert queue.stats.failed == 1 and queue.stats.done == 1
    lines = [r.getMessage() for r in caplog.records if r.name == "commonplace.daemon.jobs"]
    assert any("tidy: Inbox/a.md, FAILED: ValueError in tests/test_jobs.py:" in m for m in lines)
    # The message may quote a note: never at INFO or above, nor in the state.
    loud = [r.getMessage() for r in caplog.records if r.levelno >= logging.INFO]
    assert not any("the model said nonsense" in m for m in loud)
    assert "nonsense" not in queue.stats.last
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


async def test_a_capture_never_waits_behind_a_long_index_run() -> None:
    """The first index of a big vault takes minutes; tidy's jobs only hand captures to its own
    worker, so they run at once beside it. Ask's wait (a half-built index answers badly)."""
    queue = JobQueue()
    indexing, index_done = asyncio.Event(), asyncio.Event()
    ran: list[str] = []

    async def index_startup() -> None:
        indexing.set()
        await index_done.wait()  # minutes, on a big vault
        ran.append("index")

    async def note(name: str) -> None:
        ran.append(name)

    queue.start()
    try:
        queue.put(Job("index", "scan (start-up)", index_startup))
        queue.put(Job("ask", "scan (start-up)", lambda: note("ask")))
        await asyncio.wait_for(indexing.wait(), 30)
        queue.put(Job("tidy", "created Inbox/2026-10-20 0805.md", lambda: note("tidy")))
        async with asyncio.timeout(30):
            while "tidy" not in ran:  # noqa: ASYNC110 - polling what ran
                await asyncio.sleep(0.01)
        assert ran == ["tidy"] and queue.stats.running == "scan (start-up)"  # the index still
        index_done.set()
        await asyncio.wait_for(queue.join(), 30)
        assert ran == ["tidy", "index", "ask"]
    finally:
        index_done.set()
        await queue.stop()


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


@pytest.mark.parametrize(
    "page", ["pages/Ask___Trip to Porto.md", "pages/ask%2FTrip to Porto.md", "pages/Ask/Trip.md"]
)
def test_logseq_ask_namespace_pages_are_routed_to_ask(settings: Settings, page: str) -> None:
    """Logseq keeps the page Ask/Trip to Porto as pages/Ask___Trip to Porto.md: it is an Ask
    note like any in the Ask folder (the watcher and the ask stage say so too)."""
    logseq = dataclasses.replace(settings, flavor="logseq")
    change = Change(page, "modified")
    others = [Change("pages/Asking for help.md", "modified"), Change("pages/Trip.md", "created")]
    routed = route_changes([change, *others], logseq)
    assert routed["ask"] == [change]
    assert is_ask_note(page, logseq.folder("ask"), "logseq")


class RecordingStage:
    """A stage that records each batch it is given and takes a while over each."""

    def __init__(self) -> None:
        self.batches: list[list[Change]] = []

    async def startup(self) -> None:
        return None

    async def on_changes(self, changes: Sequence[Change]) -> None:
        self.batches.append(list(changes))
        await asyncio.sleep(0.05)


async def test_a_burst_of_batches_becomes_few_jobs(settings: Settings) -> None:
    """500 batches arriving while the stages work (a git checkout, as the watcher delivers
    it) make a handful of jobs; each stage sees every path once, with its latest kind."""
    queue = JobQueue()
    stages = {name: RecordingStage() for name in ("index", "tidy", "ask")}
    router = ChangeRouter(queue, stages, settings)
    queue.start()
    for i in range(500):
        router.put([Change(f"Projects/n{i % 200}.md", "modified"), Change("Inbox/c.md", "created")])
        if i == 250:
            router.put([Change("Inbox/c.md", "deleted")])
        if i % 50 == 0:
            await asyncio.sleep(0.01)  # the worker gets going in the middle of the burst
    await asyncio.wait_for(queue.join(), 10)
    # A few jobs per stage (tidy's run in their own lane, beside the index's).
    assert len(stages["index"].batches) <= 12 and len(stages["tidy"].batches) <= 12
    index = [c for batch in stages["index"].batches for c in batch]
    assert {c.path for c in index} == {f"Projects/n{i}.md" for i in range(200)} | {"Inbox/c.md"}
    for batch in stages["tidy"].batches:
        assert len(batch) == 1  # one path: never repeated within a job
    assert stages["tidy"].batches[-1] == [Change("Inbox/c.md", "created")]
    assert stages["ask"].batches == []
    await queue.stop()
