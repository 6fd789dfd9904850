"""The morning briefing's text, written by code from what was read: a pure function.

`Tuesday 27 October: 3 events, first at 09:30 (1:1 with Marcus). 2 tasks due, 1 overdue.
11 to 16 °C, light rain likely.` Each part says what it knows: a calendar or forecast that could
not be read says "unavailable" (never "no events"), and one that is not set up is left out.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date, datetime

from commonplace.basics.dates import clock, day_name
from commonplace.calendar import Event
from commonplace.weather import DayForecast, conditions


@dataclass(frozen=True)
class Briefing:
    day: date
    text: str


def plural(n: int, word: str) -> str:
    return f"{n} {word}{'' if n == 1 else 's'}"


def events_sentence(events: Sequence[Event], day: date) -> str:
    """The day's events: how many, and the first that starts on the day. A timed event that
    began earlier (last night's shift, a conference's second day) is not the day's first: it
    is named after them as still going ("Continuing: Night shift until 07:00.")."""
    carried = [e for e in events if not e.all_day and e.day < day]
    todays = [e for e in events if e.all_day or e.day >= day]
    timed = [e for e in todays if isinstance(e.start, datetime)]
    if not todays:
        sentence = "No events start today." if carried else "No events."
    elif timed:
        first = min(timed, key=Event.sort_key)
        assert isinstance(first.start, datetime)
        sentence = f"{plural(len(todays), 'event')}, first at {clock(first.start)} ({first.title})."
    else:
        sentence = f"{plural(len(todays), 'event')}, all day ({todays[0].title})."
    if not carried:
        return sentence
    going = ", ".join(f"{e.title} {_until(e, day)}" for e in carried)
    return f"{sentence} Continuing: {going}."


def _until(event: Event, day: date) -> str:
    end = event.end
    if not isinstance(end, datetime):  # pragma: no cover - without an end it ends where it began
        return "(no end time)"
    if end.date() == day:
        return f"until {clock(end)}"
    return f"until {day_name(end.date())} at {clock(end)}"


def tasks_sentence(due: int, overdue: int) -> str:
    if due and overdue:
        return f"{plural(due, 'task')} due, {overdue} overdue."
    if due:
        return f"{plural(due, 'task')} due."
    if overdue:
        return f"{plural(overdue, 'task')} overdue."
    return "No tasks due."


def briefing_text(
    day: date,
    *,
    events: Sequence[Event] | None,
    calendar_problem: str | None,
    due: int,
    overdue: int,
    weather: DayForecast | None,
    weather_problem: str | None,
    unreadable: int = 0,
) -> str:
    """`events`/`weather` None with no problem: that source is not set up, and is left out.
    `unreadable`: events of the day that could not be read (said, never silently dropped)."""
    parts = [f"{day_name(day)}:"]
    if events is not None:
        parts.append(events_sentence(events, day))
        if unreadable:
            parts.append(f"{plural(unreadable, 'event')} could not be read.")
    elif calendar_problem:
        parts.append("Calendar unavailable.")
    parts.append(tasks_sentence(due, overdue))
    if weather is not None:
        parts.append(f"{conditions(weather, percent=False)}.")
    elif weather_problem:
        parts.append("Forecast unavailable.")
    return " ".join(parts)
