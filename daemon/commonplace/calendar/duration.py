"""Adding a duration to a time the way RFC 5545 (3.3.6) does, across clock changes.

A duration's weeks and days are nominal: P1D ends at the same clock time the next day, however
long that day is (23 or 25 hours when the clocks change). Its hours, minutes and seconds are
exact: PT1H is one hour of real time, also when the clocks skip or repeat an hour in it. The
days are added first, then the rest (3.3.6: "the number of days MUST be added first").

Python's aware arithmetic within one zone is clock arithmetic for all of it, so `start +
timedelta(hours=1)` at 01:15 on the night the London clocks go forward gave 02:15 BST, which is
the very instant the start already was (01:15 does not exist that night; RFC 5545 3.3.5 reads
it with the offset before the gap): an event "from 02:15 to 02:15". Every end computed from a
duration goes through `add_duration`: an event's DURATION, each occurrence of a series, and the
length a moved or new event keeps (`exact=True`: a length measured between two instants, or the
minutes the owner asked for, is real time through and through).
"""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta
from typing import overload


@overload
def add_duration(start: datetime, duration: timedelta, *, exact: bool = False) -> datetime: ...
@overload
def add_duration(start: date, duration: timedelta, *, exact: bool = False) -> date: ...
def add_duration(
    start: datetime | date, duration: timedelta, *, exact: bool = False
) -> datetime | date:
    """`duration` after `start`, in the start's own zone (RFC 5545 3.3.6).

    The days on the start's clock (a time that the clocks skip that day is read with the offset
    before the gap, and one that happens twice as its first pass, as RFC 5545 3.3.5 reads a
    written time), then the hours, minutes and seconds as real time through UTC. A date (an
    all-day event) takes the days only. A floating time (no zone) has no clock changes to
    cross. `exact`: all of `duration` is real time, days included.

    `duration` is what icalendar reads a DURATION as: a timedelta, which cannot tell PT24H
    from P1D (both are one day to it), so 24 hours or more written in hours count as days.
    """
    sign = -1 if duration < timedelta(0) else 1
    size = abs(duration)
    if not isinstance(start, datetime):
        return start + sign * timedelta(days=size.days)
    days = timedelta(days=0 if exact else size.days)
    rest = size - days
    on_clock = (start + sign * days).replace(fold=0) if days else start
    if on_clock.tzinfo is None:
        return on_clock + sign * rest
    return (on_clock.astimezone(UTC) + sign * rest).astimezone(on_clock.tzinfo)
