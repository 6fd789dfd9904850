"""ISO weeks in the user's timezone: the digest's unit of time.

A week runs from Monday 00:00 to the next Monday 00:00 on the user's wall clock, so a capture at
23:59 on Sunday belongs to the week it was written in, whatever the UTC offset or a clock change
that weekend. Everything here is pure: dates and zones in, dates and instants out.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date, datetime, time, timedelta
from zoneinfo import ZoneInfo

_LABEL = re.compile(r"(\d{4})-?W(\d{1,2})", re.IGNORECASE)


@dataclass(frozen=True, order=True)
class Week:
    year: int
    number: int

    def __post_init__(self) -> None:
        date.fromisocalendar(self.year, self.number, 1)  # ValueError for a week that isn't

    @property
    def label(self) -> str:
        return f"{self.year:04d}-W{self.number:02d}"  # reads back with parse_week

    @property
    def monday(self) -> date:
        return date.fromisocalendar(self.year, self.number, 1)

    @property
    def sunday(self) -> date:
        return self.monday + timedelta(days=6)

    def start(self, tz: ZoneInfo) -> datetime:
        """Monday 00:00 on the user's clock, as an aware instant."""
        return datetime.combine(self.monday, time(0), tzinfo=tz)

    def end(self, tz: ZoneInfo) -> datetime:
        """The next Monday 00:00 on the user's clock: the end is not part of the week."""
        return datetime.combine(self.sunday + timedelta(days=1), time(0), tzinfo=tz)

    def contains(self, moment: datetime, tz: ZoneInfo) -> bool:
        """Whether an aware instant falls in this week on the user's clock."""
        return self.monday <= moment.astimezone(tz).date() <= self.sunday

    @property
    def next_seven_days(self) -> tuple[date, date]:
        """The seven days after the week ends (first and last, inclusive)."""
        return self.sunday + timedelta(days=1), self.sunday + timedelta(days=7)

    def previous(self) -> Week:
        return week_of(self.monday - timedelta(days=7))

    def __str__(self) -> str:
        return self.label


def week_of(day: date) -> Week:
    iso = day.isocalendar()
    return Week(iso.year, iso.week)


def parse_week(text: str) -> Week:
    """'2026-W43' (or '2026W43') to a Week; a clear ValueError otherwise."""
    match = _LABEL.fullmatch(text.strip())
    if not match:
        raise ValueError(f"{text!r} is not a week; write it as YYYY-Www, e.g. 2026-W43")
    year, number = int(match.group(1)), int(match.group(2))
    try:
        return Week(year, number)
    except ValueError:
        raise ValueError(f"{text!r}: {year} has no week {number}") from None


def digest_week(moment: datetime, tz: ZoneInfo) -> Week:
    """The week a digest written at `moment` covers: the last week whose Sunday has come.

    On a Sunday that is the current week (it ends tonight); on any other day it is the week
    before, which has ended.
    """
    today = moment.astimezone(tz).date()
    return week_of(today - timedelta(days=(today.weekday() + 1) % 7))
