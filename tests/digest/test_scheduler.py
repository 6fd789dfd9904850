"""The scheduler on a fake clock: Sunday 18:00 in the user's zone, catch-up after a missed run."""

from __future__ import annotations

import asyncio
import dataclasses
import json
from datetime import UTC, datetime, timedelta
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest

from commonplace.config import PushSettings, Settings
from commonplace.digest import digest_job
from commonplace.llm import make_llm
from commonplace.push import SubscriptionStore, push_folder
from commonplace.push.store import parse_subscription
from commonplace.runtime.scheduler import Job, Scheduler, daily_at, weekly_at
from tests.digest.week_fixture import Filed
from tests.fakes.ollama import FakeOllama
from tests.models import with_model
from tests.push.receiver import PushReceiver

LONDON = ZoneInfo("Europe/London")
AUCKLAND = ZoneInfo("Pacific/Auckland")


def utc(*args: int) -> datetime:
    return datetime(*args, tzinfo=UTC)


class FakeClock:
    """Time moves only when the scheduler sleeps; past `stop`, sleeping never ends."""

    def __init__(self, now: datetime, stop: datetime | None = None) -> None:
        self.current = now
        self.stop = stop or now + timedelta(days=365)
        self.slept: list[datetime] = []

    def now(self) -> datetime:
        return self.current

    async def sleep_until(self, moment: datetime) -> None:
        self.slept.append(moment)
        if moment > self.stop:
            await asyncio.Event().wait()
        self.current = max(self.current, moment)
        await asyncio.sleep(0)


def test_sunday_six_pm_in_london_across_the_clock_change() -> None:
    schedule = weekly_at("sunday", "18:00", LONDON)
    # 25 Oct 2026 is on GMT (clocks went back that morning); 18 Oct was on BST.
    assert schedule.last_at_or_before(utc(2026, 10, 26, 9, 0)) == utc(2026, 10, 25, 18, 0)
    assert schedule.last_at_or_before(utc(2026, 10, 25, 17, 59)) == utc(2026, 10, 18, 17, 0)
    assert schedule.last_at_or_before(utc(2026, 10, 25, 18, 0)) == utc(2026, 10, 25, 18, 0)
    assert schedule.next_after(utc(2026, 10, 25, 18, 0)) == utc(2026, 11, 1, 18, 0)
    assert schedule.next_after(utc(2026, 10, 21, 12, 0)) == utc(2026, 10, 25, 18, 0)


def test_the_users_zone_decides_the_instant() -> None:
    schedule = weekly_at("sunday", "18:00", AUCKLAND)  # NZDT, UTC+13 in October
    assert schedule.next_after(utc(2026, 10, 24, 12, 0)) == utc(2026, 10, 25, 5, 0)
    assert weekly_at("monday", "7:05", LONDON).next_after(utc(2026, 10, 25, 18, 0)) == utc(
        2026, 10, 26, 7, 5
    )


def test_daily_schedule_for_the_briefing() -> None:
    morning = daily_at("07:00", LONDON)
    assert morning.last_at_or_before(utc(2026, 10, 26, 6, 59)) == utc(2026, 10, 25, 7, 0)
    assert morning.next_after(utc(2026, 10, 24, 7, 0)) == utc(2026, 10, 25, 7, 0)  # BST to GMT


def write_state(folder: Path, **runs: str) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "scheduler.json").write_text(json.dumps(runs))


async def test_catch_up_after_a_missed_sunday_writes_the_digest_and_notifies(
    settings: Settings,
    week: list[Filed],
    fake_ollama: FakeOllama,
    receiver: PushReceiver,
) -> None:
    fake_ollama.enqueue_chat(json.dumps({"week": "A busy week.", "todos": ""}))
    s = dataclasses.replace(
        with_model(settings, host=fake_ollama.url),
        push=PushSettings(contact="mailto:me@example.org", allow_http_loopback=True),
    )
    SubscriptionStore(push_folder(s)).add(
        parse_subscription(receiver.subscribe(), allow_http_loopback=True)
    )
    # The daemon last ran the digest on Sunday 18 Oct, then the computer was off until Monday.
    write_state(s.data_path, digest="2026-10-18T18:00:00+01:00")
    clock = FakeClock(utc(2026, 10, 26, 9, 0))
    scheduler = Scheduler([digest_job(s, make_llm(s))], s.data_path, clock)
    await scheduler.catch_up()
    digest = s.vault / "Digests/2026-W43.md"
    assert "A busy week." in digest.read_text()
    assert scheduler.last_runs()["digest"] == utc(2026, 10, 25, 18, 0)
    (got,) = receiver.received
    assert got.payload["body"] == (
        "20 notes captured this week. To do: 3 overdue, 7 due in the next seven days."
    )
    # Starting again the same day neither rewrites nor notifies again.
    before = digest.read_bytes()
    await Scheduler([digest_job(s, make_llm(s))], s.data_path, clock).catch_up()
    assert digest.read_bytes() == before and len(receiver.received) == 1
    assert len(fake_ollama.chat_requests()) == 1


async def test_first_start_does_not_catch_up(tmp_path: Path) -> None:
    ran: list[datetime] = []

    async def run(at: datetime) -> None:
        ran.append(at)

    clock = FakeClock(utc(2026, 10, 28, 12, 0))
    job = Job("digest", weekly_at("sunday", "18:00", LONDON), run)
    await Scheduler([job], tmp_path, clock).catch_up()
    assert ran == []
    assert Scheduler([job], tmp_path, clock).last_runs() == {"digest": utc(2026, 10, 25, 18, 0)}


async def test_a_late_briefing_is_not_caught_up(tmp_path: Path) -> None:
    ran: list[datetime] = []

    async def run(at: datetime) -> None:
        ran.append(at)

    write_state(tmp_path, briefing="2026-10-25T07:00:00+00:00")
    job = Job("briefing", daily_at("07:00", LONDON), run, catch_up_within=timedelta(hours=2))
    await Scheduler([job], tmp_path, FakeClock(utc(2026, 10, 26, 8, 30))).catch_up()
    assert ran == [utc(2026, 10, 26, 7, 0)]
    ran.clear()
    write_state(tmp_path, briefing="2026-10-25T07:00:00+00:00")
    await Scheduler([job], tmp_path, FakeClock(utc(2026, 10, 26, 11, 0))).catch_up()
    assert ran == []


async def test_runs_every_sunday_until_cancelled(tmp_path: Path) -> None:
    ran: list[datetime] = []

    async def run(at: datetime) -> None:
        ran.append(at)

    write_state(tmp_path, digest="2026-10-25T18:00:00+00:00")
    clock = FakeClock(utc(2026, 10, 28, 12, 0), stop=utc(2026, 11, 9))
    job = Job("digest", weekly_at("sunday", "18:00", LONDON), run)
    task = asyncio.create_task(Scheduler([job], tmp_path, clock).run_forever())
    for _ in range(100):
        await asyncio.sleep(0)
        if len(ran) == 2:
            break
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert ran == [utc(2026, 11, 1, 18, 0), utc(2026, 11, 8, 18, 0)]
    assert Scheduler([job], tmp_path, clock).last_runs()["digest"] == utc(2026, 11, 8, 18, 0)


async def test_a_failing_job_is_retried_then_recorded(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    calls: list[datetime] = []

    async def flaky(at: datetime) -> None:
        calls.append(at)
        if len(calls) < 3:
            raise OSError("disk full")

    write_state(tmp_path, digest="2026-10-18T17:00:00+00:00")
    clock = FakeClock(utc(2026, 10, 26, 9, 0))
    scheduler = Scheduler(
        [Job("digest", weekly_at("sunday", "18:00", LONDON), flaky)], tmp_path, clock
    )
    await scheduler.catch_up()
    assert len(calls) == 3 and clock.current == utc(2026, 10, 26, 9, 30)  # two 15-minute waits
    assert scheduler.last_runs()["digest"] == utc(2026, 10, 25, 18, 0)
    assert "disk full" in caplog.text


async def test_a_job_that_keeps_failing_is_left_for_the_next_start(tmp_path: Path) -> None:
    async def broken(at: datetime) -> None:
        raise RuntimeError("no")

    write_state(tmp_path, digest="2026-10-18T17:00:00+00:00")
    job = Job("digest", weekly_at("sunday", "18:00", LONDON), broken)
    scheduler = Scheduler([job], tmp_path, FakeClock(utc(2026, 10, 26, 9, 0)))
    await scheduler.catch_up()
    assert scheduler.last_runs()["digest"] == utc(2026, 10, 18, 17, 0)
    assert [j.name for j, _ in scheduler.missed()] == ["digest"]


async def test_a_failing_job_says_so_until_it_succeeds(tmp_path: Path) -> None:
    seen: list[list[str]] = []

    async def flaky(at: datetime) -> None:
        seen.append([e.code for e in scheduler.attention.entries()])
        if len(seen) < 2:
            raise OSError(28, "No space left on device")

    write_state(tmp_path, digest="2026-10-18T17:00:00+00:00")
    job = Job("digest", weekly_at("sunday", "18:00", LONDON), flaky)
    scheduler = Scheduler([job], tmp_path, FakeClock(utc(2026, 10, 26, 9, 0)))
    await scheduler.catch_up()
    assert seen == [[], ["job_failed"]]  # shown while it waits for the retry
    assert scheduler.attention.entries() == []
