"""Comparing events' times as instants: within one zone Python compares the clock, and in the
hour that happens twice 01:30 GMT would count as before 01:40 BST."""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta
from typing import Any

from commonplace.calendar.duration import add_duration
from commonplace.calendar.models import Event


def overlaps(event: Event, start: datetime, end: datetime) -> bool:
    """caldav asks the server for a wider window; keep what overlaps [start, end) for the user.
    Compared as instants: within one zone Python compares the clock, and in the hour that
    happens twice 01:30 GMT would count as before 01:40 BST."""
    tz = start.tzinfo
    start, end = start.astimezone(UTC), end.astimezone(UTC)
    first = _instant(event.start, tz)
    last = _instant(event.end, tz) if event.end is not None else first
    if last == first:
        return start <= first < end
    return first < end and last > start


def _instant(value: datetime | date, tz: Any) -> datetime:
    if isinstance(value, datetime):
        return value.astimezone(UTC)
    return datetime.combine(value, datetime.min.time(), tzinfo=tz).astimezone(UTC)


def same_time(a: datetime | date, b: datetime | date) -> bool:
    """The same start: the same day for all-day events, the same instant for timed ones
    (not the same clock reading: 01:30 BST and 01:30 GMT are an hour apart)."""
    if isinstance(a, datetime) and isinstance(b, datetime):
        return a.astimezone(UTC) == b.astimezone(UTC)
    return isinstance(a, datetime) == isinstance(b, datetime) and a == b


def later(moment: datetime, length: timedelta, tz: Any) -> datetime:
    """`length` of real time after `moment`, on the clock of `tz`. Aware arithmetic within one
    zone is on the clock, and drops which of a repeated hour's two passes it was: 90 minutes
    from 00:30 on the night the clocks go forward must end at 03:00, not 02:00. For the
    client's searches and the assistant's new and moved events alike."""
    return add_duration(moment, length, exact=True).astimezone(tz)
