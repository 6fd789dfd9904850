"""The morning briefing's text, written by code from what was read: a pure function.

`Tuesday 27 October: 3 events, first at 09:30 (1:1 with Marcus). 2 tasks due, 1 overdue.
11 to 16 °C, light rain likely.` Each part says what it knows: a calendar or forecast that could
not be read says "unavailable" (never "no events"), and one that is not set up is left out.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date, datetime

from commonplace.calendar import Event
from commonplace.dates import clock, day_name
from commonplace.weather import DayForecast, conditions


@dataclass(frozen=True)
class Briefing:
    day: date
    text: str


def plural(n: int, word: str) -> str:
    return f"{n} {word}{'' if n == 1 else 's'}"


def events_sentence(events: Sequence[Event]) -> str:
    if not events:
        return "No events."
    timed = [e for e in events if isinstance(e.start, datetime)]
    if timed:
        first = min(timed, key=lambda e: e.start)
        assert isinstance(first.start, datetime)
        return f"{plural(len(events), 'event')}, first at {clock(first.start)} ({first.title})."
    return f"{plural(len(events), 'event')}, all day ({events[0].title})."


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
) -> str:
    """`events`/`weather` None with no problem: that source is not set up, and is left out."""
    parts = [f"{day_name(day)}:"]
    if events is not None:
        parts.append(events_sentence(events))
    elif calendar_problem:
        parts.append("Calendar unavailable.")
    parts.append(tasks_sentence(due, overdue))
    if weather is not None:
        parts.append(f"{conditions(weather, percent=False)}.")
    elif weather_problem:
        parts.append("Forecast unavailable.")
    return " ".join(parts)
