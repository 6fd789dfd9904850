"""The job queue: the watcher's changes go in, one supervised worker runs them, one at a time.

What runs here is each stage's handling of a batch of changes (see ChangeRouter): the index
reads and writes the changed notes, and tidy and Ask hand the paths to their own workers, which
wait for a file to settle and call the model. The model itself is used one call at a time by
its gate (llm/gate.py), whoever calls it. One job at a time keeps the index to one writer;
tidy's jobs have a lane of their own (QUICK_KINDS), so a capture never waits for the index. A
failing job is logged (its exception's type and where it was raised, never its message, which
may quote a note) and the next one runs; the worker never dies of a job, and runs supervised
(runtime/supervise.py) in case of a bug here. On shutdown the job in hand gets a grace period to
finish; after that it is cancelled, which is safe because every write is an atomic rename: a
cancelled job leaves the old file or the new one, never half of each.

A burst of file changes (a `git checkout`, a sync tool catching up) reaches the queue as many
small batches, because the watcher lets each path settle on its own. `ChangeRouter` folds every
batch into the one job per stage that is still waiting in the queue, so the burst is a few jobs
whatever its size; a stage sees each changed path once, with its latest kind.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import logging
import time
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Protocol

from commonplace.ask.asknote import ask_rule, is_ask_note
from commonplace.config import Settings
from commonplace.runtime.attention import Attention
from commonplace.runtime.changes import Change
from commonplace.runtime.supervise import start_supervised, survivable, where
from commonplace.vault import in_folder

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Job:
    """A named piece of work; `label` is what the log line shows. A `routine` job (the periodic
    scan, every 10 minutes for as long as the daemon runs) logs a run that went well at DEBUG:
    three INFO lines saying nothing happened, 430 a day, would bury the lines that matter. A
    failure is logged as loudly as any job's, and what a routine run found or did is logged
    by the stage itself."""

    kind: str  # "index", "tidy", "ask", "digest", ...
    label: str
    run: Callable[[], Awaitable[object]] = field(repr=False)
    routine: bool = False


class Runnable(Protocol):
    """What the queue runs: a Job, or a ChangeJob that grows while it waits."""

    @property
    def kind(self) -> str: ...

    @property
    def label(self) -> str: ...

    @property
    def routine(self) -> bool: ...

    def run(self) -> Awaitable[object]: ...


@dataclass
class JobStats:
    done: int = 0
    failed: int = 0
    last: str = ""  # "index: 3 changes, ok in 0.4 s"
    running: str = ""


# Jobs of these kinds only hand paths to a worker of their own (tidy waits for a capture to
# settle, then calls the model through its gate): they run in a lane of their own, so a capture
# is never held up behind a long index run (a big vault's first index takes minutes). Ask stays
# behind the index on purpose: a question answered from a half-built index would get a wrong
# "not in your notes", written into the note for good.
QUICK_KINDS = frozenset({"tidy"})


@dataclass
class _Lane:
    name: str
    queue: asyncio.Queue[Runnable] = field(default_factory=asyncio.Queue)
    worker: asyncio.Task[None] | None = None
    current: asyncio.Task[object] | None = None
    running: str = ""


class JobQueue:
    """Asyncio queues with one worker each: the index's (and Ask's), and the quick lane
    (QUICK_KINDS). Jobs queued after `stop()` are dropped."""

    def __init__(self, grace_s: float = 10.0, *, attention: Attention | None = None) -> None:
        self.attention = attention
        self._main = _Lane("job queue")
        self._quick = _Lane("tidy queue")
        self._stopping = False
        self.grace_s = grace_s
        self.stats = JobStats()

    @property
    def _lanes(self) -> tuple[_Lane, _Lane]:
        return (self._main, self._quick)

    def start(self) -> None:
        for lane in self._lanes:
            if lane.worker is None:
                lane.worker = start_supervised(
                    lane.name, functools.partial(self._work, lane), self.attention
                )

    def put(self, job: Runnable) -> None:
        if self._stopping:
            log.info("not queued (shutting down): %s", job.label)
            return
        lane = self._quick if job.kind in QUICK_KINDS else self._main
        lane.queue.put_nowait(job)

    @property
    def pending(self) -> int:
        return sum(lane.queue.qsize() for lane in self._lanes)

    async def join(self) -> None:
        """Wait until every queued job has run (for tests and one-shot runs)."""
        await asyncio.gather(*(lane.queue.join() for lane in self._lanes))

    async def stop(self) -> None:
        """Finish the jobs in hand (up to grace_s), then cancel them; drop what is still queued."""
        self._stopping = True
        dropped = 0
        for lane in self._lanes:
            while not lane.queue.empty():
                lane.queue.get_nowait()
                lane.queue.task_done()
                dropped += 1
        if dropped:
            log.info("dropped %d queued job(s); they run again on the next start", dropped)
        current = {lane.current for lane in self._lanes if lane.current and not lane.current.done()}
        if current:
            log.info("waiting up to %.0f s for %s to finish", self.grace_s, self.stats.running)
            _, left = await asyncio.wait(current, timeout=self.grace_s)
            if left:
                log.warning(
                    "abandoning %s (nothing half-written: writes are atomic)", self.stats.running
                )
                for task in left:
                    task.cancel()
                await asyncio.wait(left, timeout=5)
        for lane in self._lanes:
            if lane.worker is not None:
                lane.worker.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await lane.worker
                lane.worker = None

    async def _work(self, lane: _Lane) -> None:
        while True:
            job = await lane.queue.get()
            try:
                await self._run_one(lane, job)
            finally:
                lane.queue.task_done()

    def _show_running(self) -> None:
        self.stats.running = " + ".join(lane.running for lane in self._lanes if lane.running)

    async def _run_one(self, lane: _Lane, job: Runnable) -> None:
        start = time.monotonic()
        lane.running = job.label
        self._show_running()
        lane.current = asyncio.create_task(_call(job.run), name=f"job {job.kind}")
        outcome = "ok"
        try:
            await asyncio.shield(lane.current)
        except asyncio.CancelledError:
            if not lane.current.cancelled():
                raise  # the worker itself is being cancelled: stop() handles the job
            outcome = "abandoned"
        except BaseException as exc:
            if not survivable(exc):  # a Rust library's panic is a failed job, not the end
                raise
            # The type and where it was raised, never the message: it may quote a note.
            outcome = f"FAILED: {where(exc)}"
            self.stats.failed += 1
            log.debug("job %s failed", job.label, exc_info=True)
        else:
            self.stats.done += 1
        finally:
            lane.current = None
            lane.running = ""
            self._show_running()
        line = f"{job.kind}: {job.label}, {outcome} in {time.monotonic() - start:.1f} s"
        self.stats.last = line
        if outcome != "ok":
            log.warning("job %s", line)
        else:
            log.log(logging.DEBUG if job.routine else logging.INFO, "job %s", line)


async def _call(run: Callable[[], Awaitable[object]]) -> object:
    return await run()


class Stage(Protocol):
    """What the daemon needs from a stage service (index, tidy, ask)."""

    async def startup(self) -> None: ...  # the first scan, at start-up

    async def scan(self) -> None: ...  # look at the vault itself (see scans.py)

    async def on_changes(self, changes: Sequence[Change]) -> None: ...


class ChangeJob:
    """One stage's changes, queued once; more changes join it until it starts."""

    routine = False  # changes are news: always logged

    def __init__(self, kind: str, stage: Stage) -> None:
        self.kind = kind
        self.stage = stage
        self.changes: dict[str, Change] = {}  # path -> its latest change, in first-seen order
        self.started = False

    def add(self, changes: Sequence[Change]) -> None:
        for change in changes:
            self.changes[change.path] = change

    @property
    def label(self) -> str:
        return describe(list(self.changes.values()))

    async def run(self) -> None:
        self.started = True  # from here on, new changes make a new job
        await self.stage.on_changes(list(self.changes.values()))


class ChangeRouter:
    """Routes the watcher's batches to the stages, folding a burst into few jobs."""

    def __init__(self, jobs: JobQueue, stages: Mapping[str, Stage], settings: Settings) -> None:
        self.jobs = jobs
        self.stages = stages
        self.settings = settings
        self._waiting: dict[str, ChangeJob] = {}

    def put(self, changes: Sequence[Change]) -> None:
        """One waiting job per stage the batch concerns (index first: tidy's links read it)."""
        for name, batch in route_changes(changes, self.settings).items():
            stage = self.stages.get(name)
            if stage is None:
                continue
            job = self._waiting.get(name)
            if job is None or job.started:
                job = self._waiting[name] = ChangeJob(name, stage)
                job.add(batch)
                self.jobs.put(job)
            else:
                job.add(batch)


def route_changes(changes: Sequence[Change], settings: Settings) -> dict[str, list[Change]]:
    """Which stages a batch of changes concerns: the index sees all of them, tidy the inbox's,
    ask the Ask notes' (in Logseq also the namespace pages Ask/..., stored in the pages
    directory as Ask___...).
    A stage with no changes is left out."""
    routed: dict[str, list[Change]] = {"index": list(changes)}
    inbox, rule = settings.folder("inbox"), ask_rule(settings)
    routed["tidy"] = [c for c in changes if in_folder(c.path, inbox)]
    routed["ask"] = [c for c in changes if is_ask_note(c.path, *rule)]
    return {stage: batch for stage, batch in routed.items() if batch}


def describe(changes: Sequence[Change]) -> str:
    if len(changes) == 1:
        return f"{changes[0].kind} {changes[0].path}"
    return f"{len(changes)} changes"
