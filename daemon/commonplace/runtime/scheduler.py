"""Jobs at wall-clock times in the user's timezone, with catch-up after the computer was off.

A job is (name, schedule, run). The schedule answers two questions about the user's clock:
when is the next run after an instant, and when was the last one at or before it. The time of
each job's last run is kept in the data folder, so at start a job whose last scheduled time
passed while the daemon was not running is run once, late, for that time (only the most recent
missed time: nobody wants three digests at once). The 07:00 briefing is one more entry in the
list (`daily_at`).

The clock is injected: tests move a fake clock instead of waiting for Sunday.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, time, timedelta
from pathlib import Path
from typing import Protocol
from zoneinfo import ZoneInfo

from commonplace.config import WEEKDAYS
from commonplace.runtime.attention import Attention
from commonplace.runtime.statefile import read_json, write_json
from commonplace.runtime.supervise import where

log = logging.getLogger(__name__)

STATE_FILE = "scheduler.json"
RETRY_AFTER = timedelta(minutes=15)  # a failed job is tried again this much later
MAX_ATTEMPTS = 3
_NAP_S = 60.0  # wall-clock checks while sleeping: a suspended laptop wakes to a late job


class Clock(Protocol):
    def now(self) -> datetime: ...  # aware

    async def sleep_until(self, moment: datetime) -> None: ...


class SystemClock:
    def now(self) -> datetime:
        return datetime.now(UTC)

    async def sleep_until(self, moment: datetime) -> None:
        """Sleep in short naps against the wall clock: monotonic time stops during suspend."""
        while (left := (moment - self.now()).total_seconds()) > 0:  # noqa: ASYNC110
            await asyncio.sleep(min(left, _NAP_S))


class Schedule(Protocol):
    def next_after(self, moment: datetime) -> datetime: ...

    def last_at_or_before(self, moment: datetime) -> datetime: ...


@dataclass(frozen=True)
class WeeklyAt:
    """Every week on `weekday` (0 = Monday) at `at` on the user's clock."""

    weekday: int
    at: time
    tz: ZoneInfo

    def _on(self, day: datetime) -> datetime:
        return datetime.combine(day.date(), self.at, tzinfo=self.tz)

    def last_at_or_before(self, moment: datetime) -> datetime:
        local = moment.astimezone(self.tz)
        candidate = self._on(local - timedelta(days=(local.weekday() - self.weekday) % 7))
        return candidate if candidate <= moment else self._on(candidate - timedelta(days=7))

    def next_after(self, moment: datetime) -> datetime:
        return self._on(self.last_at_or_before(moment).astimezone(self.tz) + timedelta(days=7))


@dataclass(frozen=True)
class DailyAt:
    """Every day at `at` on the user's clock (for the morning briefing)."""

    at: time
    tz: ZoneInfo

    def _on(self, day: datetime) -> datetime:
        return datetime.combine(day.date(), self.at, tzinfo=self.tz)

    def last_at_or_before(self, moment: datetime) -> datetime:
        candidate = self._on(moment.astimezone(self.tz))
        return candidate if candidate <= moment else self._on(candidate - timedelta(days=1))

    def next_after(self, moment: datetime) -> datetime:
        return self._on(self.last_at_or_before(moment).astimezone(self.tz) + timedelta(days=1))


def weekly_at(day: str, at: str, tz: ZoneInfo) -> WeeklyAt:
    return WeeklyAt(WEEKDAYS.index(day.lower()), time.fromisoformat(at.zfill(5)), tz)


def daily_at(at: str, tz: ZoneInfo) -> DailyAt:
    return DailyAt(time.fromisoformat(at.zfill(5)), tz)


@dataclass(frozen=True)
class Job:
    name: str
    schedule: Schedule
    run: Callable[[datetime], Awaitable[object]]  # given the scheduled time it stands for
    catch_up_within: timedelta | None = None  # None: always catch up a missed run


class Scheduler:
    def __init__(
        self,
        jobs: Sequence[Job],
        state_dir: Path,
        clock: Clock | None = None,
        *,
        attention: Attention | None = None,
    ) -> None:
        self.jobs = list(jobs)
        self.state_path = state_dir / STATE_FILE
        self.clock: Clock = clock or SystemClock()
        self.attention = attention if attention is not None else Attention()

    # -- state: the last scheduled time each job ran for --------------------------------------

    def last_runs(self) -> dict[str, datetime]:
        raw = read_json(self.state_path)
        try:
            return {k: datetime.fromisoformat(v) for k, v in raw.items()} if raw else {}
        except (ValueError, AttributeError, TypeError) as exc:
            log.warning("%s holds no valid times (%s); starting afresh", self.state_path, exc)
            return {}

    def _record(self, name: str, scheduled: datetime) -> None:
        runs = self.last_runs()
        runs[name] = scheduled
        write_json(self.state_path, {k: v.isoformat() for k, v in runs.items()})

    # -- running --------------------------------------------------------------------------------

    def missed(self) -> list[tuple[Job, datetime]]:
        """Jobs whose most recent scheduled time passed without a run.

        A job never run before starts counting now: installing on a Wednesday does not
        write last week's digest (the CLI can).
        """
        now = self.clock.now()
        runs = self.last_runs()
        due = []
        for job in self.jobs:
            last = job.schedule.last_at_or_before(now)
            if job.name not in runs:
                self._record(job.name, last)
                continue
            late = now - last
            if runs[job.name] < last and (
                job.catch_up_within is None or late <= job.catch_up_within
            ):
                due.append((job, last))
        return due

    async def run_job(self, job: Job, scheduled: datetime) -> bool:
        """Run once for `scheduled`, retrying a failure a few times; record success."""
        for attempt in range(1, MAX_ATTEMPTS + 1):
            try:
                await job.run(scheduled)
            except asyncio.CancelledError:
                raise
            except Exception as exc:
                log.exception("%s (for %s) failed, attempt %d", job.name, scheduled, attempt)
                last = attempt == MAX_ATTEMPTS
                retry = self.clock.now() + RETRY_AFTER
                self.attention.report(
                    job.name,
                    "",
                    "job_failed",
                    f"the run for {scheduled:%Y-%m-%d %H:%M} failed ({where(exc)}), "
                    f"try {attempt} of {MAX_ATTEMPTS}",
                    action="it runs again at the next start; the daemon's log has the details"
                    if last
                    else "the daemon's log has the details",
                    retry_at=None if last else retry.timestamp(),
                )
                if not last:
                    await self.clock.sleep_until(retry)
                continue
            self._record(job.name, scheduled)
            self.attention.clear(job.name)
            return True
        log.error("%s (for %s) gave up; it runs again at the next start", job.name, scheduled)
        return False

    async def catch_up(self) -> None:
        for job, scheduled in self.missed():
            log.info("%s was due at %s; running it now", job.name, scheduled)
            await self.run_job(job, scheduled)

    async def run_forever(self) -> None:
        """Catch up, then run each job at its times until cancelled."""
        if not self.jobs:
            return
        await self.catch_up()
        nexts = {job.name: job.schedule.next_after(self.clock.now()) for job in self.jobs}
        while True:
            job = min(self.jobs, key=lambda j: nexts[j.name])
            scheduled = nexts[job.name]
            await self.clock.sleep_until(scheduled)
            await self.run_job(job, scheduled)
            nexts[job.name] = job.schedule.next_after(max(scheduled, self.clock.now()))
