"""Making, keeping and sending the morning briefing, and its place in the scheduler.

The briefing is made at `[briefing] time` (07:00) from today's events, the tasks due today or
overdue and today's forecast, kept in the data folder (the Assistant view shows it all day) and
pushed to the subscribed phones. It is pushed once per day at most: the day is recorded before
the push, so a crash or a second daemon can never send it twice. A computer asleep at 07:00
sends it when it wakes, but only until noon; later, the briefing is made and kept for the view,
and not pushed (a "good morning" at 15:00 is noise).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable
from datetime import date, datetime, time, timedelta
from typing import Any

from commonplace.assistant.tasks import TaskReader
from commonplace.basics.dates import day_name
from commonplace.briefing.tasks import due_counts
from commonplace.briefing.text import Briefing, briefing_text
from commonplace.calendar import CalendarClient, CalendarError, CalendarNotSetUp
from commonplace.config import Settings
from commonplace.push import PushKeyError, PushMessage, send_to_all
from commonplace.runtime.scheduler import Job, daily_at
from commonplace.runtime.statefile import read_json, write_json
from commonplace.weather import WeatherUnavailable, get_forecast

log = logging.getLogger(__name__)

STATE_FILE = "briefing.json"
KEEP_DAYS = 14
NOON = time(12, 0)


async def make_briefing(
    settings: Settings,
    day: date,
    *,
    calendar: CalendarClient,
    now: datetime,
    tasks: TaskReader | None = None,
) -> Briefing:
    """Read the three sources (each may fail on its own) and write the text. `tasks`: the
    daemon's task reader (briefing/tasks.py); without, one of its own."""
    events, calendar_problem, unreadable = None, None, 0
    if calendar.configured:
        try:
            events = await calendar.events_on(day)
            unreadable = events.unreadable
        except CalendarNotSetUp:
            pass
        except CalendarError as exc:
            calendar_problem = str(exc)
            log.warning("briefing %s: calendar unavailable", day)
    weather, weather_problem = None, None
    if settings.weather.configured:
        try:
            weather = (await get_forecast(settings, now=now)).on(day)
            weather_problem = None if weather else "no forecast for the day"
        except WeatherUnavailable as exc:
            weather_problem = str(exc)
            log.warning("briefing %s: forecast unavailable", day)
    due, overdue = await asyncio.to_thread(due_counts, settings, day, tasks)
    text = briefing_text(
        day,
        events=events,
        calendar_problem=calendar_problem,
        due=due,
        overdue=overdue,
        weather=weather,
        weather_problem=weather_problem,
        unreadable=unreadable,
    )
    return Briefing(day, text)


def briefing_message(briefing: Briefing) -> PushMessage:
    """Tapping it opens the phone page's Assistant view, where the briefing is at the top."""
    return PushMessage(
        title=f"Good morning: {day_name(briefing.day)}",
        body=briefing.text,
        tag=f"briefing-{briefing.day.isoformat()}",
        url="/#assistant",
    )


# -- the day's record in the data folder -------------------------------------------------------


def _load(settings: Settings) -> dict[str, Any]:
    raw = read_json(settings.data_path / STATE_FILE)
    days = raw.get("days") if isinstance(raw, dict) else None
    return days if isinstance(days, dict) else {}


def keep(settings: Settings, briefing: Briefing, *, now: datetime, sent: bool) -> None:
    days = _load(settings)
    earlier = days.get(briefing.day.isoformat(), {})
    days[briefing.day.isoformat()] = {
        "text": briefing.text,
        "made": now.isoformat(timespec="seconds"),
        "sent": now.isoformat(timespec="seconds") if sent else earlier.get("sent"),
    }
    recent = dict(sorted(days.items())[-KEEP_DAYS:])
    write_json(settings.data_path / STATE_FILE, {"days": recent})


def last_made(settings: Settings) -> datetime | None:
    """When the latest briefing was made, if ever."""
    times = []
    for entry in _load(settings).values():
        with contextlib.suppress(AttributeError, KeyError, TypeError, ValueError):
            times.append(datetime.fromisoformat(entry["made"]))
    return max(times, default=None)


def kept_briefing(settings: Settings, day: date) -> dict[str, str] | None:
    """The day's briefing for the Assistant view: `{"text", "day"}`, or None."""
    entry = _load(settings).get(day.isoformat())
    if not isinstance(entry, dict) or not isinstance(entry.get("text"), str):
        return None
    return {"text": entry["text"], "day": day.isoformat()}


def was_sent(settings: Settings, day: date) -> bool:
    entry = _load(settings).get(day.isoformat())
    return isinstance(entry, dict) and bool(entry.get("sent"))


# -- sending -----------------------------------------------------------------------------------


async def push_briefing(settings: Settings, briefing: Briefing) -> tuple[int, int]:
    """Push to every subscribed phone; (sent, subscribed)."""
    try:
        deliveries = await send_to_all(settings, briefing_message(briefing))
    except PushKeyError as exc:
        log.error("briefing %s: not pushed: %s", briefing.day, exc)
        return 0, 0
    sent = sum(d.status == "sent" for d in deliveries)
    log.info("briefing %s: pushed to %d of %d phones", briefing.day, sent, len(deliveries))
    return sent, len(deliveries)


def latest_push(settings: Settings, scheduled: datetime) -> datetime:
    """Until when a briefing scheduled at `scheduled` may still be pushed: noon that day (or an
    hour after a briefing time set later than noon)."""
    local = scheduled.astimezone(settings.tz)
    noon = datetime.combine(local.date(), NOON, tzinfo=settings.tz)
    return max(noon, local + timedelta(hours=1))


async def scheduled_briefing(
    settings: Settings,
    calendar: CalendarClient,
    scheduled: datetime,
    now: datetime,
    tasks: TaskReader | None = None,
) -> str:
    """The scheduler's run; returns what it did (for the log and the tests)."""
    day = scheduled.astimezone(settings.tz).date()
    if not settings.briefing.enabled:
        return "off"
    if was_sent(settings, day):
        return "already sent"
    briefing = await make_briefing(settings, day, calendar=calendar, now=now, tasks=tasks)
    if now > latest_push(settings, scheduled):
        keep(settings, briefing, now=now, sent=False)
        log.info("briefing %s: made after noon for the Assistant view; not pushed", day)
        return "kept, too late to push"
    keep(settings, briefing, now=now, sent=True)  # recorded first: never pushed twice
    await push_briefing(settings, briefing)
    return "sent"


def briefing_job(
    settings: Settings,
    calendar: CalendarClient,
    clock: Callable[[], datetime] | None = None,
    tasks: TaskReader | None = None,
) -> Job:
    """The briefing as a daily scheduler entry. A missed run is always caught up (so the
    Assistant view has the day's briefing); whether it is pushed is the run's decision.
    `tasks`: the daemon's task reader, shared with the assistant."""
    now = clock or (lambda: datetime.now(settings.tz))

    async def run(scheduled: datetime) -> None:
        outcome = await scheduled_briefing(settings, calendar, scheduled, now(), tasks)
        log.info("briefing for %s: %s", scheduled.date(), outcome)

    return Job("briefing", daily_at(settings.briefing.time, settings.tz), run)
