"""The job queue: the watcher puts work in, one worker runs it, one job at a time.

One at a time because the stages share one model on one computer: two tidy calls in parallel
are not faster on a laptop's GPU, and the index is simpler with one writer. A failing job is
logged and the next one runs; the worker never dies of a job. On shutdown the job in hand gets
a grace period to finish; after that it is cancelled, which is safe because every write is an
atomic rename: a cancelled job leaves the old file or the new one, never half of each.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from typing import Protocol

from commonplace.attention import Attention
from commonplace.changes import Change
from commonplace.config import Settings
from commonplace.supervise import start_supervised
from commonplace.vault import in_folder

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Job:
    """A named piece of work; `label` is what the log line shows."""

    kind: str  # "index", "tidy", "ask", "digest", ...
    label: str
    run: Callable[[], Awaitable[object]] = field(repr=False)


@dataclass
class JobStats:
    done: int = 0
    failed: int = 0
    last: str = ""  # "index: 3 changes, ok in 0.4 s"
    running: str = ""


class JobQueue:
    """An asyncio queue with one worker. Jobs queued after `stop()` are dropped."""

    def __init__(self, grace_s: float = 10.0, *, attention: Attention | None = None) -> None:
        self.attention = attention
        self._queue: asyncio.Queue[Job] = asyncio.Queue()
        self._worker: asyncio.Task[None] | None = None
        self._current: asyncio.Task[object] | None = None
        self._stopping = False
        self.grace_s = grace_s
        self.stats = JobStats()

    def start(self) -> None:
        if self._worker is None:
            self._worker = start_supervised("job queue", self._work, self.attention)

    def put(self, job: Job) -> None:
        if self._stopping:
            log.info("not queued (shutting down): %s", job.label)
            return
        self._queue.put_nowait(job)

    @property
    def pending(self) -> int:
        return self._queue.qsize()

    async def join(self) -> None:
        """Wait until every queued job has run (for tests and one-shot runs)."""
        await self._queue.join()

    async def stop(self) -> None:
        """Finish the job in hand (up to grace_s), then cancel it; drop what is still queued."""
        self._stopping = True
        dropped = 0
        while not self._queue.empty():
            self._queue.get_nowait()
            self._queue.task_done()
            dropped += 1
        if dropped:
            log.info("dropped %d queued job(s); they run again on the next start", dropped)
        current = self._current
        if current is not None and not current.done():
            log.info("waiting up to %.0f s for %s to finish", self.grace_s, self.stats.running)
            done, _ = await asyncio.wait({current}, timeout=self.grace_s)
            if not done:
                log.warning(
                    "abandoning %s (nothing half-written: writes are atomic)", self.stats.running
                )
                current.cancel()
                await asyncio.wait({current}, timeout=5)
        if self._worker is not None:
            self._worker.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._worker
            self._worker = None

    async def _work(self) -> None:
        while True:
            job = await self._queue.get()
            try:
                await self._run_one(job)
            finally:
                self._queue.task_done()

    async def _run_one(self, job: Job) -> None:
        start = time.monotonic()
        self.stats.running = job.label
        self._current = asyncio.create_task(_call(job.run), name=f"job {job.label}")
        outcome = "ok"
        try:
            await asyncio.shield(self._current)
        except asyncio.CancelledError:
            if not self._current.cancelled():
                raise  # the worker itself is being cancelled: stop() handles the job
            outcome = "abandoned"
        except Exception as exc:
            outcome = f"FAILED: {type(exc).__name__}: {exc}"
            self.stats.failed += 1
            log.debug("job %s failed", job.label, exc_info=True)
        else:
            self.stats.done += 1
        finally:
            self._current = None
            self.stats.running = ""
        line = f"{job.kind}: {job.label}, {outcome} in {time.monotonic() - start:.1f} s"
        self.stats.last = line
        (log.warning if outcome != "ok" else log.info)("job %s", line)


async def _call(run: Callable[[], Awaitable[object]]) -> object:
    return await run()


class Stage(Protocol):
    """What the daemon needs from a stage service (index, tidy, ask)."""

    async def startup(self) -> None: ...

    async def on_changes(self, changes: Sequence[Change]) -> None: ...


def route_changes(changes: Sequence[Change], settings: Settings) -> dict[str, list[Change]]:
    """Which stages a batch of changes concerns: the index sees all of them, tidy the inbox's,
    ask the Ask folder's. A stage with no changes is left out."""
    routed: dict[str, list[Change]] = {"index": list(changes)}
    inbox, ask = settings.folder("inbox"), settings.folder("ask")
    routed["tidy"] = [c for c in changes if in_folder(c.path, inbox)]
    routed["ask"] = [c for c in changes if in_folder(c.path, ask)]
    return {stage: batch for stage, batch in routed.items() if batch}


def describe(changes: Sequence[Change]) -> str:
    if len(changes) == 1:
        return f"{changes[0].kind} {changes[0].path}"
    return f"{len(changes)} changes"
