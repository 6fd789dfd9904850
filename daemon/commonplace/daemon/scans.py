"""Scans: each stage looks at the vault itself, instead of waiting for file events.

File events are hints. The kernel drops them when its queue overflows, cannot watch a folder past
its watch limit, and a sync tool may write while the daemon is stopped. A scan repairs all of
that: the index compares the vault with its manifest, tidy queues every capture waiting in the
inbox, and Ask looks at every Ask note for questions without an answer. The daemon scans at
start-up, every `[index] reconcile_minutes`, and at once when the watcher reports lost events;
so every capture is filed within one scan period, whatever happened to its events.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, Mapping

from commonplace.daemon.jobs import Job, JobQueue, Stage

log = logging.getLogger(__name__)

PERIODIC = "periodic"


class Scans:
    def __init__(
        self,
        jobs: JobQueue,
        stages: Mapping[str, Stage],
        interval_s: float,
        *,
        sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
    ) -> None:
        self.jobs = jobs
        self.stages = stages
        self.interval_s = interval_s
        self._sleep = sleep  # tests pass a fake clock
        self._waiting = False  # a scan is queued and has not started yet
        self.done = 0

    def queue(self, reason: str, *, first: bool = False) -> bool:
        """Queue one scan job per stage (index first: tidy's links read it). A scan that is
        queued and not yet started already covers this request, so none is added."""
        if self._waiting:
            return False
        self._waiting = True
        routine = reason == PERIODIC  # logged at DEBUG when it goes well (jobs.py)
        for i, (name, stage) in enumerate(self.stages.items()):
            call = stage.startup if first else stage.scan
            run = self._first(call) if i == 0 else call
            self.jobs.put(Job(name, f"scan ({reason})", run, routine=routine))
        return True

    def _first(self, call: Callable[[], Awaitable[None]]) -> Callable[[], Awaitable[None]]:
        async def run() -> None:
            self._waiting = False  # from here on, a new request needs a scan of its own
            self.done += 1
            await call()

        return run

    async def run_forever(self) -> None:
        """A periodic scan every interval_s, until cancelled."""
        while True:
            await self._sleep(self.interval_s)
            self.queue(PERIODIC)
