"""Days named in words ("by friday", "tomorrow", "the 30th", "end of the month", "26 NOV"),
found in a text and turned into dates from the moment it was written (principle 4: dates are
computed in code).

A small model asked for "Friday" as a date gets it wrong most of the time (issue 43: "by
Friday" written on Tuesday 20 October became a Sunday). It is good at pointing at words, so
the model points and this module counts. Pure functions of the text and the moment written;
every rule is a row in tests/test_daywords.py.

The rules, for a text written on day D (a British reading, as the sample vault is):

- "today", "tonight" = D; "tomorrow" = D + 1, except before 04:00, when the writer has not yet
  slept and "tomorrow" is the day that has begun (D); "the day after tomorrow" = D + 2.
- A weekday alone, or after "by", "on", "before", "until", "due", "this", "coming": the first
  such day on or after D ("by friday" on Tuesday 20 October = Friday 23; on a Friday, that
  Friday). "next friday": the Friday of the week after D's (weeks run Monday to Sunday), so
  "next wednesday" on Thursday 22 October is the 28th and "next sunday" on Sunday 25 October is
  1 November. "last friday": the one before D. The short forms ("wed", "thurs", "sat") count
  only after one of those words or before a day of the month, since "sun", "sat" and "wed"
  are words too. A plural ("thursdays") is a habit, not a day.
- A day of the month ("the 30th", "the thirtieth", "friday the 30th", "thurs 29th"): the first
  such day on or after D. A weekday that does not fall on that date makes the words
  contradict themselves: no day.
- A date ("26 NOV", "18th of November", "Nov 26", "9 February 2027", "2026-11-26"): without a
  year, D's year, or the next year when that date is more than half a year gone (a date a few
  months back is the past, and stays so).
- "end of the month" = its last day; "end of next month", "end of November" likewise;
  "mid-November" = the 15th; "end of the week" = its Friday (its Sunday when D is a Saturday
  or Sunday); "in 3 days", "in two weeks", "in a fortnight" = D plus that.
- Words that name a span but no day ("next week", "at some point", "soon") name no day.
"""

from __future__ import annotations

import calendar
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from datetime import date, datetime, timedelta

from commonplace.basics.dates import MONTHS

_WEEKDAYS = {
    "monday": 0,
    "mon": 0,
    "tuesday": 1,
    "tues": 1,
    "tue": 1,
    "wednesday": 2,
    "weds": 2,
    "wed": 2,
    "thursday": 3,
    "thurs": 3,
    "thur": 3,
    "thu": 3,
    "friday": 4,
    "fri": 4,
    "saturday": 5,
    "sat": 5,
    "sunday": 6,
    "sun": 6,
}
_FULL_DAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
_MONTHS = MONTHS
_ORDINAL_WORDS = {
    "first": 1,
    "second": 2,
    "third": 3,
    "fourth": 4,
    "fifth": 5,
    "sixth": 6,
    "seventh": 7,
    "eighth": 8,
    "ninth": 9,
    "tenth": 10,
    "eleventh": 11,
    "twelfth": 12,
    "thirteenth": 13,
    "fourteenth": 14,
    "fifteenth": 15,
    "sixteenth": 16,
    "seventeenth": 17,
    "eighteenth": 18,
    "nineteenth": 19,
    "twentieth": 20,
    "thirtieth": 30,
}
_UNITS = {"first": 1, "second": 2, "third": 3, "fourth": 4, "fifth": 5}
_UNITS |= {"sixth": 6, "seventh": 7, "eighth": 8, "ninth": 9}
_NUMBER_WORDS = {"a": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6}
_NUMBER_WORDS |= {"seven": 7, "eight": 8, "nine": 9, "ten": 10, "couple of": 2, "few": 3}


def _alternatives(words: Iterable[str]) -> str:
    """A regex alternation, longest first (so 'thurs' wins over 'thu')."""
    return "|".join(sorted(map(re.escape, words), key=len, reverse=True))


_ORD_WORD = r"(?:twenty|thirty)[- ]?(?:" + "|".join(_UNITS) + r")|" + _alternatives(_ORDINAL_WORDS)
_DAY_NUM = r"(?:[012]?\d|3[01])(?:st|nd|rd|th)?(?![.:]\d)"
_MONTH = _alternatives(_MONTHS)
_WEEKDAY = _alternatives(_WEEKDAYS)
_FULL = _alternatives(_FULL_DAYS)
_LEAD = r"by|on|before|until|till|til|due|this|coming|next|last|from"
# "the first" is a day only where no noun follows ("the first one", "the second draft")
_AFTER_WORD = r"\s*(?:$|[.,;:!?)\u2014-]|\s+(?:of|at|and|or|by|before|in|for)\b)"
_COUNT = _alternatives(_NUMBER_WORDS) + r"|\d{1,2}"

_PATTERNS: tuple[tuple[str, str], ...] = (
    ("iso", r"(?P<y>\d{4})-(?P<m>\d{2})-(?P<d>\d{2})"),
    (
        "day_month",
        rf"(?:(?P<wd>{_WEEKDAY}),?\s+)?(?:the\s+)?(?P<d>{_DAY_NUM})(?:\s+of)?\s+(?P<mon>{_MONTH})"
        r"\.?(?:,?\s+(?P<y>\d{4}))?",
    ),
    (
        "month_day",
        rf"(?:(?P<wd>{_WEEKDAY}),?\s+)?(?P<mon>{_MONTH})\.?\s+(?:the\s+)?(?P<d>{_DAY_NUM})"
        r"(?:,?\s+(?P<y>\d{4}))?",
    ),
    (
        "weekday_date",
        rf"(?:(?P<lead>{_LEAD})\s+)?(?P<wd>{_WEEKDAY})(?:\s+the)?\s+"
        rf"(?P<d>{_DAY_NUM}|{_ORD_WORD})",
    ),
    (
        "the_date",
        rf"the\s+(?P<d>(?:[012]?\d|3[01])(?:st|nd|rd|th)|(?:{_ORD_WORD})(?={_AFTER_WORD}))",
    ),
    ("end_month", rf"(?:the\s+)?end\s+of\s+(?:(?P<rel>the|this|next)\s+)?(?P<mon>month|{_MONTH})"),
    ("month_end", r"(?P<rel>the|this|next)\s+month(?:'s)?\s+end"),
    ("mid_month", rf"mid(?:dle of|-|\s)\s*(?P<mon>{_MONTH})"),
    ("end_week", r"(?:the\s+)?end\s+of\s+(?:the|this)\s+week"),
    ("in_days", rf"in\s+(?:a\s+)?(?P<n>{_COUNT})\s+(?P<unit>days?|weeks?)"),
    ("fortnight", r"in\s+a\s+fortnight"),
    ("after_tomorrow", r"(?:the\s+)?day\s+after\s+tomorrow"),
    ("tomorrow", r"tomorrow|tmrw|tmr|tomoz"),
    ("today", r"today|tonight|this\s+(?:morning|afternoon|evening)"),
    ("weekday", rf"(?:(?P<lead>{_LEAD})\s+)?(?P<wd>{_WEEKDAY})(?!s\b)"),
)
_FINDERS = tuple(
    (name, re.compile(rf"\b(?:{pattern})\b", re.IGNORECASE)) for name, pattern in _PATTERNS
)
HALF_YEAR = 183  # days: a date without a year this far gone means next year's


@dataclass(frozen=True)
class DayWords:
    """A day named in a text: the words as written, where they are, and the day they mean
    (None when the words name a day that does not exist or contradict themselves)."""

    words: str
    start: int
    end: int
    day: date | None


def find_days(text: str, written: date | datetime) -> list[DayWords]:
    """Every day named in `text`, in order, resolved against the moment it was written.
    Where two readings overlap, the longer wins ("friday the 30th" over "friday")."""
    matches: list[tuple[int, int, int, str, re.Match[str]]] = []
    for rank, (kind, finder) in enumerate(_FINDERS):
        for m in finder.finditer(text):
            if kind == "weekday" and not _weekday_is_a_day(m):
                continue
            matches.append((m.start(), -(m.end() - m.start()), rank, kind, m))
    found: list[DayWords] = []
    taken = 0
    for start, _, _, kind, m in sorted(matches, key=lambda t: t[:3]):
        if start < taken:
            continue
        found.append(DayWords(m.group(), start, m.end(), _RESOLVERS[kind](m, written)))
        taken = m.end()
    return found


def resolve(words: str, written: date | datetime) -> date | None:
    """The one day `words` name ("by Friday", "friday the 30th"), or None: none named, a
    day that does not exist, or two different days named."""
    days = {d.day for d in find_days(words, written)}
    if len(days) != 1:
        return None
    return days.pop()


# -- resolvers ----------------------------------------------------------------------------------


def _day_of(written: date | datetime) -> date:
    return written.date() if isinstance(written, datetime) else written


def _weekday_is_a_day(m: re.Match[str]) -> bool:
    """'sun', 'sat', 'wed' alone are words: a short form counts after a leading word."""
    return m.group("lead") is not None or m.group("wd").casefold() in _FULL_DAYS


def _weekday(m: re.Match[str], written: date | datetime) -> date | None:
    today = _day_of(written)
    target = _WEEKDAYS[m.group("wd").casefold()]
    lead = (m.group("lead") or "").casefold()
    if lead == "next":
        monday = today - timedelta(days=today.weekday()) + timedelta(days=7)
        return monday + timedelta(days=target)
    if lead == "last":
        back = (today.weekday() - target) % 7 or 7
        return today - timedelta(days=back)
    return today + timedelta(days=(target - today.weekday()) % 7)


def _day_number(text: str) -> int:
    """'30th' -> 30, 'thirtieth' -> 30, 'twenty-first' -> 21."""
    text = " ".join(text.casefold().replace("-", " ").split())
    digits = re.match(r"\d+", text)
    if digits:
        return int(digits.group())
    if text in _ORDINAL_WORDS:
        return _ORDINAL_WORDS[text]
    tens = 20 if text.startswith("twenty") else 30
    return tens + _UNITS[text[6:].strip()]


def _on_or_after(today: date, day: int) -> date | None:
    """The first date with this day of the month on or after today (within a year)."""
    year, month = today.year, today.month
    for _ in range(13):
        if day <= calendar.monthrange(year, month)[1]:
            candidate = date(year, month, day)
            if candidate >= today:
                return candidate
        year, month = (year + 1, 1) if month == 12 else (year, month + 1)
    return None


def _weekday_agrees(m: re.Match[str], day: date | None) -> date | None:
    wd = m.group("wd")
    if day is None or wd is None:
        return day
    return day if _WEEKDAYS[wd.casefold()] == day.weekday() else None


def _weekday_date(m: re.Match[str], written: date | datetime) -> date | None:
    day = _on_or_after(_day_of(written), _day_number(m.group("d")))
    return _weekday_agrees(m, day)


def _the_date(m: re.Match[str], written: date | datetime) -> date | None:
    return _on_or_after(_day_of(written), _day_number(m.group("d")))


def _calendar_date(m: re.Match[str], written: date | datetime) -> date | None:
    today = _day_of(written)
    month = _MONTHS[m.group("mon").casefold()]
    day = _day_number(m.group("d"))
    year = int(m.group("y")) if m.group("y") else today.year
    try:
        found = date(year, month, day)
    except ValueError:
        return None
    if not m.group("y") and (today - found).days > HALF_YEAR:
        try:
            found = date(year + 1, month, day)
        except ValueError:  # 29 February
            return None
    return _weekday_agrees(m, found)


def _iso(m: re.Match[str], written: date | datetime) -> date | None:
    try:
        return date(int(m.group("y")), int(m.group("m")), int(m.group("d")))
    except ValueError:
        return None


def _month_of(m: re.Match[str], today: date) -> tuple[int, int]:
    """(year, month) named: 'month' with the/this/next, or a month's name (the next one)."""
    name = (m.groupdict().get("mon") or "month").casefold()
    if name == "month":
        rel = (m.groupdict().get("rel") or "").casefold()
        step = 1 if rel == "next" else 0
        month = today.month + step
        return (today.year + (month - 1) // 12, (month - 1) % 12 + 1)
    month = _MONTHS[name]
    return (today.year + (1 if month < today.month else 0), month)


def _end_month(m: re.Match[str], written: date | datetime) -> date:
    year, month = _month_of(m, _day_of(written))
    return date(year, month, calendar.monthrange(year, month)[1])


def _mid_month(m: re.Match[str], written: date | datetime) -> date:
    year, month = _month_of(m, _day_of(written))
    return date(year, month, 15)


def _end_week(m: re.Match[str], written: date | datetime) -> date:
    today = _day_of(written)
    if today.weekday() >= 5:
        return today + timedelta(days=6 - today.weekday())
    return today + timedelta(days=4 - today.weekday())


def _in_days(m: re.Match[str], written: date | datetime) -> date:
    count = m.group("n").casefold()
    n = int(count) if count.isdigit() else _NUMBER_WORDS[" ".join(count.split())]
    per = 7 if m.group("unit").casefold().startswith("week") else 1
    return _day_of(written) + timedelta(days=n * per)


def _tomorrow(m: re.Match[str], written: date | datetime) -> date:
    today = _day_of(written)
    if isinstance(written, datetime) and written.hour < 4:
        return today  # written at 01:30: "tomorrow" is the day that has begun
    return today + timedelta(days=1)


_RESOLVERS: dict[str, Callable[[re.Match[str], date | datetime], date | None]] = {
    "iso": _iso,
    "day_month": _calendar_date,
    "month_day": _calendar_date,
    "weekday_date": _weekday_date,
    "the_date": _the_date,
    "end_month": _end_month,
    "month_end": _end_month,
    "mid_month": _mid_month,
    "end_week": _end_week,
    "in_days": _in_days,
    "fortnight": lambda m, w: _day_of(w) + timedelta(days=14),
    "after_tomorrow": lambda m, w: _day_of(w) + timedelta(days=2),
    "tomorrow": _tomorrow,
    "today": lambda m, w: _day_of(w),
    "weekday": _weekday,
}
