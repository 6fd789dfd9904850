"""Dates and times in words, one way for every part of the program (principle 4: dates are
computed in code, and written so that they cannot be misread).

The assistant's questions, the calendar's listings, the weather and the briefing all name a day
with its weekday ("Thursday 29 October") and a time as 24-hour HH:MM; what the model reads also
carries the ISO date. Pure functions of a date, so month, year and leap-day edges are tables.
"""

from __future__ import annotations

from datetime import UTC, date, datetime, time

WEEKDAY_NAMES = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")
MONTH_NAMES = (
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
)
# A month as people write it (full name, three letters, "sept") -> its number: one table for every
# reader of dates in text (Ask's facts, the digest's screen, the evals, the day words).
MONTHS = (
    {name.casefold(): m for m, name in enumerate(MONTH_NAMES, 1)}
    | {name[:3].casefold(): m for m, name in enumerate(MONTH_NAMES, 1)}
    | {"sept": 9}
)


def day_name(day: date) -> str:
    """'Thursday 29 October': what a person says, for the owner's questions."""
    return f"{WEEKDAY_NAMES[day.weekday()]} {day.day} {MONTH_NAMES[day.month - 1]}"


def day_name_year(day: date) -> str:
    """'Thursday 29 October 2026', for dates that may be in another year."""
    return f"{day_name(day)} {day.year}"


def day_name_near(day: date, today: date) -> str:
    """'Thursday 29 October' in today's year, 'Thursday 29 October 2027' in any other: what
    the owner reads in a question or a listing, never ambiguous about the year."""
    return day_name(day) if day.year == today.year else day_name_year(day)


def day_for_model(day: date, today: date) -> str:
    """'Thursday 29 October 2026 (2026-10-29, in 3 days)': cannot be misread by a small model."""
    return f"{day_name_year(day)} ({day.isoformat()}, {relative_day(day, today)})"


def relative_day(day: date, today: date) -> str:
    delta = (day - today).days
    if delta == 0:
        return "today"
    if delta == 1:
        return "tomorrow"
    if delta == -1:
        return "yesterday"
    if delta > 0:
        return f"in {delta} days"
    return f"{-delta} days ago"


def clock(moment: time | datetime) -> str:
    """'16:00': 24-hour time, never '4' that could be morning or afternoon."""
    return f"{moment.hour:02d}:{moment.minute:02d}"


def happens_twice(moment: datetime) -> bool:
    """True in the hour that happens twice when the clocks go back (01:30 on the last Sunday
    of October in London): its clock reading alone does not say which of the two it is."""
    if moment.tzinfo is None:
        return False
    if moment.replace(fold=1 - moment.fold).utcoffset() == moment.utcoffset():
        return False
    # the two offsets differ in the hour the clocks skip too, where the time does not exist
    real = moment.astimezone(UTC).astimezone(moment.tzinfo)
    return real.replace(tzinfo=None) == moment.replace(tzinfo=None)


def clock_exact(moment: time | datetime) -> str:
    """'16:00'; in the hour that happens twice when the clocks go back, which of the two,
    and its zone's abbreviation: '01:30 (the first, BST)', '01:30 (the second, GMT)'. A reader
    who does not think in BST and GMT still sees which, and parse_time reads it back."""
    if isinstance(moment, datetime) and happens_twice(moment):
        which = "the second" if moment.fold else "the first"
        other = moment.replace(fold=1 - moment.fold).tzname()
        name = moment.tzname()
        return (
            f"{clock(moment)} ({which}, {name})"
            if name and name != other
            else (f"{clock(moment)} ({which})")
        )
    return clock(moment)
