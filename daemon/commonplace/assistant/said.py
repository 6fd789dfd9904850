"""Days, times and lengths the owner said, read from their own message in code (principle 4).

A small model asked to turn "Friday" into a date gets it wrong, and it invents what nobody
said: on Qwen2.5-Coder 1.5B, "Add a task: buy bin bags" came back with a due date of Tuesday 27
October, and "Push my 1:1 to 4 pm" moved it to today. So the program reads the owner's message
itself, and where it says a day, a time or a length, that is what the tool gets, whatever the
model sent; where it says none, a due date or a new day is left out (arguments.py decides per
argument). The model still chooses the tool, the event and the words of a task.

Only what can be read without guessing is read. "Next Thursday" (this week's or the one
after?) and "Monday" said on a Monday (today, or a week today?) are left to the model, and
`vague` says some words looked like a day that no rule here reads, so the model's own date is
kept for the question to show.
Everything here is a pure function of the text and the moment, tested as a table.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date, datetime, time, timedelta

from commonplace.basics.dates import MONTH_NAMES, WEEKDAY_NAMES

_WEEKDAY = {name.lower(): i for i, name in enumerate(WEEKDAY_NAMES)}
_WEEKDAY |= {"tues": 1, "weds": 2, "thurs": 3}
_MONTH = {name.lower(): i + 1 for i, name in enumerate(MONTH_NAMES)}
_MONTH |= {name[:3].lower(): i + 1 for i, name in enumerate(MONTH_NAMES)} | {"sept": 9}
_WD = "|".join(sorted(_WEEKDAY, key=len, reverse=True))
_MON = "|".join(sorted(_MONTH, key=len, reverse=True))
_DAYNUM = r"(?:[12]\d|3[01]|0?[1-9])(?:st|nd|rd|th)?"
_NUMBER = {"a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6}
_NUMBER |= {"seven": 7, "eight": 8, "nine": 9, "ten": 10}
_COUNT = r"\d{1,3}|" + "|".join(_NUMBER)

# Days, most specific first; a later pattern never reads words an earlier one has read.
_DAYS = (
    ("iso", r"(?P<y>\d{4})-(?P<m>\d{1,2})-(?P<d>\d{1,2})"),
    (
        "day_month",
        rf"(?:(?P<wd>{_WD}),?\s+)?(?:the\s+)?(?P<d>{_DAYNUM})(?:\s+of)?\s+(?P<mon>{_MON})\.?"
        r"(?:,?\s+(?P<y>\d{4}))?",
    ),
    (
        "month_day",
        rf"(?:(?P<wd>{_WD}),?\s+)?(?P<mon>{_MON})\.?\s+(?:the\s+)?(?P<d>{_DAYNUM})"
        r"(?:,?\s+(?P<y>\d{4}))?",
    ),
    ("after_tomorrow", r"(?:the\s+)?day\s+after\s+tomorrow"),
    ("tomorrow", r"tomorrow"),
    ("today", r"today|tonight|this\s+(?:morning|afternoon|evening)"),
    ("this_week", r"this\s+week"),
    ("next_week", r"next\s+week"),
    ("next_weekend", r"next\s+weekend"),
    ("weekend", r"(?:this\s+|the\s+)?weekend"),
    ("in_days", rf"in\s+(?P<n>{_COUNT})\s+(?P<unit>days?|weeks?)"),
    ("next_weekday", rf"(?:next|last)\s+(?:{_WD})"),
    ("weekday", rf"(?:(?:this\s+coming|this|coming|on)\s+)?(?P<wd>{_WD})(?:['’]s)?(?!s\b)"),
    ("the_nth", r"the\s+(?P<d>(?:[12]\d|3[01]|0?[1-9])(?:st|nd|rd|th))"),
)
_DAY_FINDERS = tuple((k, re.compile(rf"\b(?:{p})\b", re.IGNORECASE)) for k, p in _DAYS)
# Read as a day by people, but two ways ("next Friday"): left to the model.
_VAGUE_KINDS = ("next_weekday", "next_weekend")
# Words that name a day without a rule here to read them: the model's own date is kept.
_MONTH_WORDS = "|".join(m.lower() for m in MONTH_NAMES if m != "May")
_MONTH_WORDS += "|oct|nov|dec|sept|aug|feb|apr|jun|jul"
_DAYISH = re.compile(
    rf"\b(?:{_WD}|{_MONTH_WORDS}|fortnight|month|week|weekend|tomorrow|today|tonight|yesterday|"
    r"deadline|due|\d{1,2}(?:st|nd|rd|th)|\d{1,2}/\d{1,2})\b",
    re.IGNORECASE,
)
_SAME_DAY = re.compile(r"\b(?:the\s+)?same\s+day\b", re.IGNORECASE)

_AMPM = r"(?P<ampm>a\.?m\.?|p\.?m\.?)"
_TIMES = (
    ("clock", rf"(?P<h>[01]?\d|2[0-3]):(?P<m>[0-5]\d)(?:\s*{_AMPM})?"),
    ("ampm", rf"(?P<h>1[0-2]|0?[1-9])(?:\.(?P<m>[0-5]\d))?\s*{_AMPM}"),
    ("named", r"(?P<name>noon|midday|midnight)"),
    # a bare hour only after a word that says a time follows, and before nothing that makes
    # it a count ("to 2 nails", "at 3 minutes"): "to 4", "at 10 on Friday", "at 7 o'clock"
    (
        "bare",
        r"(?:at|to|from|until|till)\s+(?P<t>(?P<h>1\d|2[0-3]|0?\d)(?:\s*o['’]?clock)?)"
        r"(?=\s*(?:$|[.,;!?)-]|\s(?:on|the|this|tomorrow|today|tonight|and|for|to|until|till|"
        r"instead|please)\b))",
    ),
)
_TIME_FINDERS = tuple((k, re.compile(rf"\b(?:{p})(?!\w)", re.IGNORECASE)) for k, p in _TIMES)
_LENGTH = re.compile(
    r"(?:\bfor\s+|,\s*)(?:(?P<half>half\s+an?\s+hour)|(?P<ninety>an?\s+hour\s+and\s+a\s+half|"
    r"one\s+and\s+a\s+half\s+hours?)|(?P<n>\d{1,3}(?:\.\d+)?|"
    + "|".join(_NUMBER)
    + r")\s*(?P<unit>minutes?|mins?|hours?|hrs?|h)\b)",
    re.IGNORECASE,
)
# Where a move's new day and time begin: "move X to Friday at 10", "push X back to 4 pm".
_TARGET = re.compile(r"\b(?:to|until|till)\b", re.IGNORECASE)


@dataclass(frozen=True)
class DaySaid:
    """A day (or several: "this week") the owner named, and where in their words."""

    first: date
    days: int
    start: int
    end: int
    words: str


@dataclass(frozen=True)
class TimeSaid:
    """A time of day the owner named. `other`: the second reading when no am/pm was said and
    both are real ("at 4": 04:00 or 16:00); `at` is the likelier of the two."""

    at: time
    start: int
    end: int
    other: time | None = None


@dataclass(frozen=True)
class Said:
    """What one message says of days, times and lengths."""

    text: str
    days: tuple[DaySaid, ...] = ()
    times: tuple[TimeSaid, ...] = ()
    minutes: int | None = None  # "for 30 minutes", or from one time to another
    vague: bool = False  # words that name a day no rule here reads ("next Thursday")
    same_day: bool = False  # "the same day": a move keeps the event's day

    def part(self, start: int, end: int) -> Said:
        """What the words between `start` and `end` say (a move's target, or its event)."""
        days = tuple(d for d in self.days if start <= d.start and d.end <= end)
        times = tuple(t for t in self.times if start <= t.start and t.end <= end)
        words = self.text[start:end]
        leftover = _masked(words, [*days, *times], start)
        return Said(
            words,
            days,
            times,
            self.minutes,
            self.vague and bool(_DAYISH.search(leftover)),
            bool(_SAME_DAY.search(words)),
        )

    @property
    def one_day(self) -> DaySaid | None:
        """The one day said (a span counts as its days), or None when none or several."""
        distinct = {(d.first, d.days) for d in self.days}
        return self.days[0] if len(distinct) == 1 else None

    @property
    def one_time(self) -> TimeSaid | None:
        distinct = {(t.at, t.other) for t in self.times}
        return self.times[0] if len(distinct) == 1 else None


def read(text: str, now: datetime) -> Said:
    """Every day, time and length in the owner's message, as of `now` (their local time)."""
    today = now.date()
    taken: list[tuple[int, int]] = []
    days: list[DaySaid] = []
    vague = False
    for kind, finder in _DAY_FINDERS:
        for match in finder.finditer(text):
            if _overlaps(match.span(), taken):
                continue
            taken.append(match.span())
            if kind in _VAGUE_KINDS:
                vague = True
                continue
            found = _day(kind, match, today)
            if found is None:
                vague = True
                continue
            days.append(DaySaid(found[0], found[1], match.start(), match.end(), match.group(0)))
    times: list[TimeSaid] = []
    for kind, finder in _TIME_FINDERS:
        for match in finder.finditer(text):
            if _overlaps(match.span(), taken):
                continue
            reading = _time(kind, match)
            if reading is not None:
                span = match.span("t") if "t" in match.groupdict() else match.span()
                taken.append(span)
                times.append(TimeSaid(reading[0], span[0], span[1], reading[1]))
    days.sort(key=lambda d: d.start)
    times.sort(key=lambda t: t.start)
    leftover = _masked(text, [*days, *times], 0)
    return Said(
        text,
        tuple(days),
        tuple(times),
        _length(text, times),
        vague or (bool(_DAYISH.search(leftover)) and not days),
        bool(_SAME_DAY.search(text)),
    )


_DUE_TAIL = re.compile(
    r"\s*[,;:(-]?\s*\(?\s*\b(?:due|by|before|deadline)\b[^()]*\)?\s*[.!]?\s*$", re.IGNORECASE
)


def without_due(text: str, now: datetime) -> str:
    """A task's words without the due date a model glued to their end ("Buy nails, due
    Friday", "buy bin bags (due Tuesday 27 October)"): the due date is an argument of its own,
    set from the owner's words, and the question shows it once."""
    match = _DUE_TAIL.search(text)
    if match is None or match.start() == 0:
        return text
    tail = read(match.group(0), now)
    rest = _masked(tail.text, [*tail.days, *tail.times], 0)
    if not tail.days or re.sub(
        r"\b(?:due|by|before|deadline|on|at|the)\b|\W", "", rest, flags=re.I
    ):
        return text  # more than a day after "due": words of the task ("pay by Friday the invoice")
    return text[: match.start()].rstrip(" ,;:-")


_VERB_AFTER = re.compile(
    r"\s*(?:move|push|shift|change|reschedule|put|bring|make|be|do|go|have|get|see|know)\b",
    re.IGNORECASE,
)


def targets(text: str) -> int:
    """How many "to"/"until" in the text start a new day or time rather than a verb ("want to
    move"): two ("the dentist to Friday and lunch to Saturday") are two moves in one message,
    and which day goes with which event is then the model's to say."""
    return sum(1 for m in _TARGET.finditer(text) if not _VERB_AFTER.match(text, m.end()))


def target_split(text: str, said: Said) -> int | None:
    """Where a move's new day and time begin: at the last "to" (or "until") before the last
    day or time said, so "move Thursday's dentist to Friday at 10" splits before "Friday";
    None when no such word comes before any of them."""
    last = max([d.start for d in said.days] + [t.start for t in said.times], default=-1)
    if last < 0:
        return None
    marks = [m.end() for m in _TARGET.finditer(text) if m.end() <= last]
    return marks[-1] if marks else None


def _overlaps(span: tuple[int, int], taken: list[tuple[int, int]]) -> bool:
    return any(span[0] < end and start < span[1] for start, end in taken)


def _masked(text: str, found: Sequence[DaySaid | TimeSaid], offset: int) -> str:
    """The text with the days and times that were read blanked out (for the vague check)."""
    chars = list(text)
    for item in found:
        for i in range(max(item.start - offset, 0), min(item.end - offset, len(chars))):
            chars[i] = " "
    return "".join(chars)


def _day(kind: str, match: re.Match[str], today: date) -> tuple[date, int] | None:
    """(first day, how many days) for one match, or None when the words cannot be a day."""
    g = match.groupdict()
    if kind == "iso":
        return _real(int(g["y"]), int(g["m"]), int(g["d"]))
    if kind in ("day_month", "month_day"):
        month = _MONTH[g["mon"].lower()]
        number = int(re.sub(r"\D", "", g["d"]))
        found = _dated(today, month, number, int(g["y"]) if g.get("y") else None)
        if found is None or (g.get("wd") and _WEEKDAY[g["wd"].lower()] != found[0].weekday()):
            return None  # "Friday 31 October" on a Saturday: the words contradict themselves
        return found
    if kind == "after_tomorrow":
        return today + timedelta(days=2), 1
    if kind == "tomorrow":
        return today + timedelta(days=1), 1
    if kind == "today":
        return today, 1
    if kind == "this_week":
        return today, 7 - today.weekday()
    if kind == "next_week":
        return today + timedelta(days=7 - today.weekday()), 7
    if kind == "weekend":
        saturday = today + timedelta(days=(5 - today.weekday()) % 7)
        if today.weekday() == 6:  # on a Sunday, "the weekend" is the one that is on
            return today, 1
        return saturday, 2
    if kind == "in_days":
        n = _count(g["n"])
        return today + timedelta(days=n * (7 if g["unit"].lower().startswith("week") else 1)), 1
    if kind == "weekday":
        wanted = _WEEKDAY[g["wd"].lower()]
        if wanted == today.weekday():
            return None  # "Monday" on a Monday: today, or a week today? the model's reading
        return today + timedelta(days=(wanted - today.weekday()) % 7), 1
    if kind == "the_nth":
        number = int(re.sub(r"\D", "", g["d"]))
        for months_on in range(3):  # "the 31st" in a 30-day month: the next month that has one
            month = (today.month - 1 + months_on) % 12 + 1
            year = today.year + (today.month - 1 + months_on) // 12
            found = _real(year, month, number)
            if found is not None and found[0] >= today:
                return found
        return None
    raise AssertionError(kind)  # pragma: no cover - every kind is above


def _dated(today: date, month: int, number: int, year: int | None) -> tuple[date, int] | None:
    """A day of a month: in the year said, else the next one on or after today."""
    if year is not None:
        return _real(year, month, number)
    for y in (today.year, today.year + 1):
        found = _real(y, month, number)
        if found is not None and found[0] >= today:
            return found
    return None


def _real(year: int, month: int, number: int) -> tuple[date, int] | None:
    try:
        return date(year, month, number), 1
    except ValueError:
        return None


def _count(word: str) -> int:
    return int(word) if word.isdigit() else _NUMBER[word.lower()]


def _time(kind: str, match: re.Match[str]) -> tuple[time, time | None] | None:
    g = match.groupdict()
    if kind == "named":
        return (time(0, 0) if g["name"].lower() == "midnight" else time(12, 0)), None
    hour, minute = int(g["h"]), int(g.get("m") or 0)
    ampm = (g.get("ampm") or "").replace(".", "").lower()
    if ampm:
        if not 1 <= hour <= 12:
            return None
        return time(hour % 12 + (12 if ampm == "pm" else 0), minute), None
    if kind == "clock" and (hour == 0 or hour > 12 or (len(g["h"]) == 2 and g["h"][0] == "0")):
        return time(hour, minute), None  # 24-hour: "16:00", "09:30", "00:15"
    if hour > 12:
        return time(hour, minute), None
    if hour == 0:
        return time(0, minute), None
    # "at 4", "to 12:30", "at 10": people mean the daytime hour; the other reading is kept
    # so that a model that said it is believed.
    day_hour = hour + 12 if hour <= 6 else hour
    other = hour if day_hour != hour else (hour + 12 if hour < 12 else None)
    return time(day_hour, minute), (time(other, minute) if other is not None else None)


def _length(text: str, times: list[TimeSaid]) -> int | None:
    """Minutes: "for 30 minutes", "for an hour", "for half an hour", or "from 2 to 3 pm"."""
    match = _LENGTH.search(text)
    if match:
        if match.group("half"):
            return 30
        if match.group("ninety"):
            return 90
        amount = match.group("n").lower()
        value = float(amount) if amount[0].isdigit() else _NUMBER[amount]
        minutes = round(value * (60 if match.group("unit").lower().startswith("h") else 1))
        return minutes if 0 < minutes <= 24 * 60 else None
    span = re.search(r"\bfrom\b(?P<a>.*?)\b(?:to|until|till)\b(?P<b>.*)", text, re.IGNORECASE)
    if span and len(times) == 2:
        first, second = times
        a0, b0 = span.start("a"), span.start("b")
        if a0 <= first.start < b0 <= second.start:
            start, end = first.at, second.at
            if end <= start and first.other is not None and first.other < end:
                start = first.other  # "from 10 to 11 am": the first is morning too
            gap = (end.hour * 60 + end.minute) - (start.hour * 60 + start.minute)
            return gap if gap > 0 else None
    return None
