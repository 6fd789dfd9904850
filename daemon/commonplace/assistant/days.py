"""Dates for the assistant, computed in code (principle 4): small models misread them.

The model is never asked to work out what "Thursday" or "tomorrow" is. It gets a list of the
coming fourteen days, each with its weekday and ISO date, and every date the program writes for
it or for the owner carries its weekday. Everything here is a pure function of a date or an
aware datetime, so the month, year, leap-day and DST edges are tested as a table.
"""

from __future__ import annotations

import re
from datetime import date, datetime, time, timedelta

from commonplace.basics.dates import (
    MONTH_NAMES,
    WEEKDAY_NAMES,
    clock,
    day_for_model,
    day_name,
    day_name_year,
    relative_day,
)

DAYS_AHEAD = 14

__all__ = [
    "DAYS_AHEAD",
    "MONTH_NAMES",
    "WEEKDAY_NAMES",
    "DateWordsError",
    "clock",
    "day_for_model",
    "day_list",
    "day_name",
    "day_name_year",
    "local_day",
    "parse_day",
    "parse_time",
    "relative_day",
]


def local_day(now: datetime) -> date:
    """The user's calendar day at an aware instant (now must carry the user's zone)."""
    if now.tzinfo is None:
        raise ValueError("now must be timezone-aware")
    return now.date()


def day_list(now: datetime, days: int = DAYS_AHEAD) -> str:
    """'Monday 26 October (today) = 2026-10-26; Tuesday 27 October (tomorrow) = 2026-10-27; ...'

    One line per day, so a small model finds "Thursday" by reading, not by counting. The
    arithmetic is on dates, not instants, so a day is never 23 or 25 hours long.
    """
    today = local_day(now)
    lines = []
    for offset in range(days):
        day = today + timedelta(days=offset)
        mark = {0: " (today)", 1: " (tomorrow)"}.get(offset, "")
        lines.append(f"{day_name(day)}{mark} = {day.isoformat()}")
    return ";\n".join(lines)


_WEEKDAY_WORDS = {name.lower(): i for i, name in enumerate(WEEKDAY_NAMES)}
_WEEKDAY_WORDS |= {name[:3].lower(): i for i, name in enumerate(WEEKDAY_NAMES)}
_DAY_PREFIX = re.compile(r"^(?:this coming|this|on|coming)\s+", re.IGNORECASE)
_NEXT = re.compile(r"^next\s+(\w+)$")


class DateWordsError(ValueError):
    """The text is not a date the program can read without guessing."""


def parse_day(text: str, today: date) -> date:
    """A date from what a model sends: '2026-10-29', 'today', 'tomorrow', 'Thursday'.

    A weekday name means the next such day, today included ("Thursday" on a Thursday is today),
    which is how the day list reads. "Next Thursday" is refused: people mean the coming one or
    the one after, and the question would carry the guess. Anything else is refused too.
    """
    value = text.strip().lower().rstrip(".")
    iso = re.search(r"\b(\d{4})-(\d{1,2})-(\d{1,2})(?!\d)", value)
    if iso:
        try:
            return date(int(iso.group(1)), int(iso.group(2)), int(iso.group(3)))
        except ValueError:
            raise DateWordsError(f"{text!r} is not a real date") from None
    if value in ("today", "tonight", "this evening", "this morning", "this afternoon"):
        return today
    if value == "tomorrow":
        return today + timedelta(days=1)
    following = _NEXT.match(value)
    if following and following.group(1) in _WEEKDAY_WORDS:
        raise DateWordsError(
            f"{text!r} could mean two different days; use the date (YYYY-MM-DD) from the "
            "list of days"
        )
    word = _DAY_PREFIX.sub("", value)
    if word in _WEEKDAY_WORDS:
        return today + timedelta(days=(_WEEKDAY_WORDS[word] - today.weekday()) % 7)
    raise DateWordsError(f"{text!r} is not a date; use YYYY-MM-DD from the list of days")


_TIME = re.compile(r"^(\d{1,2})(?:[:.h](\d{2}))?\s*(am|pm|a\.m\.|p\.m\.)?$")
_PASS = re.compile(r"\(?(?:the)?(first|second)(?:,[^)]*)?\)?$")


class PassSaid(time):
    """A time in the hour that happens twice whose pass was said ('01:30 (the first)'): fold
    alone cannot tell a said first from nothing said (both 0), and a move within the night of
    an event in the second pass keeps that pass only when nothing was said."""

    __slots__ = ()


def parse_time(text: str) -> time:
    """'16:00', '4 pm', '4pm', '16', '9.30', 'noon': a time of day, refused when ambiguous.

    A bare '4' is taken as 04:00 only because the model was told to send 24-hour times; the
    question the owner sees then shows 04:00, so a misreading is caught before anything runs.
    '01:30 (the second, GMT)', as questions and listings write a time in the hour that
    happens twice when the clocks go back, reads back as that one: fold=1 for the second,
    and a PassSaid either way.
    """
    value = text.strip().lower().replace(" ", "")
    which = _PASS.search(value)
    fold = 0
    if which and which.start() > 0:
        fold = 1 if which.group(1) == "second" else 0
        value = value[: which.start()]
    if value in ("noon", "midday"):
        return time(12, 0)
    if value == "midnight":
        return time(0, 0)
    match = _TIME.match(value)
    if not match:
        raise DateWordsError(f"{text!r} is not a time; use HH:MM, 24-hour")
    hour, minute = int(match.group(1)), int(match.group(2) or 0)
    suffix = (match.group(3) or "").replace(".", "")
    if suffix:
        if not 1 <= hour <= 12:
            raise DateWordsError(f"{text!r} is not a time")
        hour = hour % 12 + (12 if suffix == "pm" else 0)
    if hour > 23 or minute > 59:
        raise DateWordsError(f"{text!r} is not a time")
    return PassSaid(hour, minute, fold=fold) if which and which.start() > 0 else time(hour, minute)
