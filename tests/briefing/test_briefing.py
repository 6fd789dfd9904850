"""The morning briefing: its text from each source, and the 07:00 push on an injected clock
(sent once; caught up on wake until noon; at 13:00 kept for the Assistant view, not pushed)."""

from __future__ import annotations

import dataclasses
from datetime import UTC, date, datetime, timedelta
from typing import Any
from zoneinfo import ZoneInfo

import pytest

from commonplace.briefing import (
    briefing_job,
    briefing_text,
    kept_briefing,
    make_briefing,
    scheduled_briefing,
)
from commonplace.calendar import CalendarClient, Event
from commonplace.config import CalendarSettings, PushSettings, Settings, WeatherSettings
from commonplace.llm import make_llm
from commonplace.push import SubscriptionStore, push_folder
from commonplace.push.store import parse_subscription
from commonplace.runtime.scheduler import Scheduler
from commonplace.weather import DayForecast
from tests.calendar.conftest import PASSWORD_ENV
from tests.calendar.radicale_server import Radicale, put_raw
from tests.digest.test_scheduler import FakeClock, write_state
from tests.push.receiver import PushReceiver
from tests.weather.standin import OpenMeteoStandIn

LONDON = ZoneInfo("Europe/London")
TUESDAY = date(2026, 10, 27)
DAY = timedelta(days=1)
OVERNIGHT = """BEGIN:VCALENDAR
VERSION:2.0
PRODID:-//Phone//EN
BEGIN:VEVENT
UID:migration@phone
DTSTAMP:20261020T090000Z
DTSTART;TZID=Europe/London:20261026T220000
DTEND;TZID=Europe/London:20261027T020000
SUMMARY:Server migration
END:VEVENT
END:VCALENDAR
"""
TASKS = """# Tasks

- [ ] Send Maya the research slides (due 2026-10-22)
- [ ] Book the hygienist (due 2026-10-27)
- [ ] Fraud-check copy for the payment screen (due 2026-10-27)
- [x] Order the Zombie record (due 2026-10-20)
- [ ] Plant the tulips (due 2026-11-01)
- [ ] Learn the Caro-Kann Advance
"""


def at(day: date, hour: int, minute: int = 0) -> datetime:
    return datetime(day.year, day.month, day.day, hour, minute, tzinfo=LONDON)


def event(title: str, start: datetime | date, end: datetime | date | None = None) -> Event:
    return Event(
        title=title,
        start=start,
        end=end,
        all_day=not isinstance(start, datetime),
        calendar="Personal",
        uid=title,
        href=title,
        etag=None,
    )


def test_a_day_with_events_and_overdue_tasks() -> None:
    text = briefing_text(
        TUESDAY,
        events=[
            event("1:1 with Marcus", at(TUESDAY, 9, 30)),
            event("1:1 with Maya", at(TUESDAY, 10)),
            event("Nettle Pay partnership intro", at(TUESDAY, 14)),
        ],
        calendar_problem=None,
        due=2,
        overdue=1,
        weather=DayForecast(TUESDAY, 16.0, 11.3, 70, 61),
        weather_problem=None,
    )
    assert text == (
        "Tuesday 27 October: 3 events, first at 09:30 (1:1 with Marcus). 2 tasks due, "
        "1 overdue. 11 to 16 °C, light rain likely."
    )


def test_a_day_with_no_events_and_nothing_due() -> None:
    text = briefing_text(
        date(2026, 11, 2),
        events=[],
        calendar_problem=None,
        due=0,
        overdue=0,
        weather=DayForecast(date(2026, 11, 2), 10.6, 2.8, 0, 1),
        weather_problem=None,
    )
    assert text == "Monday 2 November: No events. No tasks due. 3 to 11 °C, mainly clear."


def test_only_all_day_events_and_one_task() -> None:
    text = briefing_text(
        date(2026, 10, 31),
        events=[event("Tobi visiting", date(2026, 10, 31))],
        calendar_problem=None,
        due=1,
        overdue=0,
        weather=None,
        weather_problem=None,
    )
    assert text == "Saturday 31 October: 1 event, all day (Tobi visiting). 1 task due."


def test_no_weather_and_sources_that_failed_say_so() -> None:
    not_set_up = briefing_text(
        TUESDAY,
        events=None,
        calendar_problem=None,
        due=0,
        overdue=3,
        weather=None,
        weather_problem=None,
    )
    assert not_set_up == "Tuesday 27 October: 3 tasks overdue."
    failed = briefing_text(
        TUESDAY,
        events=None,
        calendar_problem="down",
        due=0,
        overdue=0,
        weather=None,
        weather_problem="offline",
    )
    assert failed == (
        "Tuesday 27 October: Calendar unavailable. No tasks due. Forecast unavailable."
    )


@pytest.fixture
def full_settings(
    cal_settings: Settings, standin: OpenMeteoStandIn, receiver: PushReceiver
) -> Settings:
    (cal_settings.vault / "Tasks.md").write_text(TASKS, encoding="utf-8")
    SubscriptionStore(push_folder(cal_settings)).add(
        parse_subscription(receiver.subscribe(), allow_http_loopback=True)
    )
    return dataclasses.replace(
        cal_settings,
        weather=WeatherSettings(
            latitude=51.4545, longitude=-2.5879, place="Bristol", url=standin.url
        ),
        push=PushSettings(contact="mailto:me@example.org", allow_http_loopback=True),
    )


async def test_the_briefing_from_the_real_sources(full_settings: Settings) -> None:
    calendar = CalendarClient(full_settings, env=PASSWORD_ENV)
    briefing = await make_briefing(full_settings, TUESDAY, calendar=calendar, now=at(TUESDAY, 7))
    assert briefing.text == (
        "Tuesday 27 October: 3 events, first at 09:30 (1:1 with Marcus). 2 tasks due, "
        "1 overdue. 11 to 16 °C, light rain likely."
    )


async def test_last_nights_event_is_continuing_not_the_first_of_the_day(
    full_settings: Settings, radicale: Radicale, account: str
) -> None:
    """An event from 22:00 to 02:00 is on today's list (it overlaps it), but it did not start
    today: "first at 22:00" would be wrong on both counts."""
    put_raw(radicale.url, account, "Personal", "migration.ics", OVERNIGHT)
    calendar = CalendarClient(full_settings, env=PASSWORD_ENV)
    briefing = await make_briefing(full_settings, TUESDAY, calendar=calendar, now=at(TUESDAY, 7))
    assert briefing.text == (
        "Tuesday 27 October: 3 events, first at 09:30 (1:1 with Marcus). Continuing: Server "
        "migration until 02:00. 2 tasks due, 1 overdue. 11 to 16 °C, light rain likely."
    )
    quiet = await make_briefing(
        full_settings, date(2026, 10, 26), calendar=calendar, now=at(date(2026, 10, 26), 7)
    )
    assert quiet.text.startswith(  # on its own first day it is the day's (last) event
        "Monday 26 October: 2 events, first at 18:30 (Run club)."
    )


def test_an_event_carried_over_alone_and_one_lasting_past_today() -> None:
    text = briefing_text(
        TUESDAY,
        events=[  # as the calendar gives them: by start
            event("Conference", at(TUESDAY - DAY, 9), at(TUESDAY, 17) + DAY),
            event("Night shift", at(TUESDAY - DAY, 22), at(TUESDAY, 6)),
        ],
        calendar_problem=None,
        due=0,
        overdue=0,
        weather=None,
        weather_problem=None,
    )
    assert text == (
        "Tuesday 27 October: No events start today. Continuing: Conference until Wednesday 28 "
        "October at 17:00, Night shift until 06:00. No tasks due."
    )


async def test_the_calendar_being_down_does_not_stop_the_briefing(
    full_settings: Settings,
) -> None:
    down = dataclasses.replace(
        full_settings, calendar=CalendarSettings(url="http://127.0.0.1:9/", username="me")
    )
    briefing = await make_briefing(
        down, TUESDAY, calendar=CalendarClient(down, env={}), now=at(TUESDAY, 7)
    )
    assert briefing.text.startswith("Tuesday 27 October: Calendar unavailable. 2 tasks due")


async def test_sent_once_at_seven_and_tapping_opens_the_assistant(
    full_settings: Settings, receiver: PushReceiver
) -> None:
    calendar = CalendarClient(full_settings, env=PASSWORD_ENV)
    seven = at(TUESDAY, 7)
    assert await scheduled_briefing(full_settings, calendar, seven, seven) == "sent"
    (got,) = receiver.received
    assert got.payload["url"] == "/#assistant"
    assert got.payload["title"] == "Good morning: Tuesday 27 October"
    assert got.payload["body"].startswith("Tuesday 27 October: 3 events, first at 09:30")
    again = await scheduled_briefing(full_settings, calendar, seven, at(TUESDAY, 7, 5))
    assert again == "already sent" and len(receiver.received) == 1
    kept = kept_briefing(full_settings, TUESDAY)
    assert kept == {"text": got.payload["body"], "day": "2026-10-27"}
    assert kept_briefing(full_settings, TUESDAY + timedelta(days=1)) is None


async def test_asleep_at_seven_it_is_sent_on_wake_before_noon(
    full_settings: Settings, receiver: PushReceiver
) -> None:
    write_state(full_settings.data_path, briefing="2026-10-26T07:00:00+00:00")
    clock = FakeClock(datetime(2026, 10, 27, 11, 40, tzinfo=UTC))
    job = briefing_job(full_settings, CalendarClient(full_settings, env=PASSWORD_ENV), clock.now)
    await Scheduler([job], full_settings.data_path, clock).catch_up()
    assert len(receiver.received) == 1
    # a restart later that morning does not send it again
    clock.current = datetime(2026, 10, 27, 11, 50, tzinfo=UTC)
    write_state(full_settings.data_path, briefing="2026-10-26T07:00:00+00:00")
    await Scheduler([job], full_settings.data_path, clock).catch_up()
    assert len(receiver.received) == 1


async def test_a_missed_seven_oclock_is_not_pushed_at_one_pm(
    full_settings: Settings, receiver: PushReceiver
) -> None:
    write_state(full_settings.data_path, briefing="2026-10-26T07:00:00+00:00")
    clock = FakeClock(datetime(2026, 10, 27, 13, 0, tzinfo=UTC))
    job = briefing_job(full_settings, CalendarClient(full_settings, env=PASSWORD_ENV), clock.now)
    scheduler = Scheduler([job], full_settings.data_path, clock)
    await scheduler.catch_up()
    assert receiver.received == []
    kept = kept_briefing(full_settings, TUESDAY)  # the Assistant view still has it
    assert kept is not None and kept["text"].startswith("Tuesday 27 October: 3 events")
    assert scheduler.last_runs()["briefing"] == datetime(2026, 10, 27, 7, 0, tzinfo=UTC)


async def test_waking_after_noon_in_the_running_daemon_does_not_push(
    full_settings: Settings, receiver: PushReceiver
) -> None:
    """The scheduler slept through 07:00 (suspended laptop) and wakes at 13:00."""
    calendar = CalendarClient(full_settings, env=PASSWORD_ENV)
    assert (
        await scheduled_briefing(full_settings, calendar, at(TUESDAY, 7), at(TUESDAY, 13))
        == "kept, too late to push"
    )
    assert receiver.received == []


async def test_turned_off(full_settings: Settings, receiver: PushReceiver) -> None:
    off = dataclasses.replace(
        full_settings, briefing=dataclasses.replace(full_settings.briefing, enabled=False)
    )
    calendar = CalendarClient(off, env=PASSWORD_ENV)
    assert await scheduled_briefing(off, calendar, at(TUESDAY, 7), at(TUESDAY, 7)) == "off"
    assert receiver.received == [] and kept_briefing(off, TUESDAY) is None


async def test_the_daemons_briefing_counts_with_the_assistants_read_ahead_reader(
    settings: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    """At 07:00 the daemon's briefing counts the to-dos with the task reader the assistant
    uses, which the daemon reads ahead after start-up: a reader of its own would read the
    whole vault again (15-25 s of CPU at 50,000 notes)."""
    from commonplace.assistant.tasks import TaskReader
    from commonplace.daemon import run as daemon

    class Counted(TaskReader):
        calls = 0

        def open_tasks(self) -> list[Any]:
            Counted.calls += 1
            return super().open_tasks()

    (settings.vault / "Tasks.md").write_text(TASKS)
    jobs: list[Any] = []

    class Kept(Scheduler):
        def __init__(self, given: list[Any], *args: Any, **kwargs: Any) -> None:
            jobs.extend(given)
            super().__init__(given, *args, **kwargs)

    monkeypatch.setattr(daemon, "Scheduler", Kept)
    reader = Counted(settings)
    parts = daemon.Parts(settings, calendar=CalendarClient(settings), task_reader=reader)
    tasks = daemon.start_background(settings, make_llm(settings), parts)
    for task in tasks:
        task.cancel()
    [briefing] = [job for job in jobs if job.name == "briefing"]
    yesterday = datetime.now(settings.tz) - DAY  # kept for the view, too late to push
    await briefing.run(yesterday.replace(hour=7, minute=0))
    assert Counted.calls == 1
    day = yesterday.date()
    kept = kept_briefing(settings, day)
    assert kept is not None and "overdue" in kept["text"]
