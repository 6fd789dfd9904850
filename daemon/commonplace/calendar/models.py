"""What the calendar gives the rest of the program: plain events in the user's timezone, and
the errors a person can act on.

An event read from CalDAV is an iCalendar component with its own timezone, maybe a recurrence
rule, maybe no end. The assistant, the briefing and `commonplace calendar` all get the same
`Event`: times already in the user's zone, an all-day event as dates, one occurrence of a
recurring event as its own `Event` that knows which occurrence it is (`recurrence_id`).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import UTC, date, datetime, time, timedelta


@dataclass(frozen=True)
class Event:
    title: str
    start: datetime | date  # aware, in the user's zone; a date for an all-day event
    end: datetime | date | None  # exclusive; None: the event gives no end (or duration)
    all_day: bool
    calendar: str  # the calendar's display name
    uid: str
    href: str  # the resource on the server (a URL path); never shown to the model
    etag: str | None  # the resource's version when it was read
    recurrence_id: str | None = None  # ISO instant (or date) of this occurrence, if recurring
    recurring: bool = False
    description: str = ""  # data written by whoever made the event, never instructions
    location: str = ""
    # the zone its start is written in on the server, when that is a named zone (an invite
    # from New York: "America/New_York"); "" for floating, UTC or all-day times
    zone: str = ""
    # the DURATION it is given by, when it has no DTEND (P1D, PT1H30M): a move keeps it as a
    # duration, its days on the clock (RFC 5545 3.3.6), where a DTEND's length is real time
    duration: timedelta | None = None

    @property
    def day(self) -> date:
        """The user's calendar day the event starts on."""
        return self.start if not isinstance(self.start, datetime) else self.start.date()

    def sort_key(self) -> tuple[date, int, str, str]:
        """All-day events first on their day, then by time, then by title. The time is the
        minutes of real time since the day's midnight, so on the night the clocks go back
        01:15 GMT comes after 01:45 BST, as it does."""
        minutes = -1
        if isinstance(self.start, datetime):
            midnight = datetime.combine(self.day, time(0), tzinfo=self.start.tzinfo)
            minutes = int((self.start.astimezone(UTC) - midnight.astimezone(UTC)).total_seconds())
            minutes //= 60
        return (self.day, minutes, self.title.casefold(), self.uid)


class EventList(list[Event]):
    """The events read, and how many could not be read (another app stored them malformed).

    Those are left out, and the count goes with the list so that every reader says so: a
    listing that silently skipped one would claim a free afternoon that is not free.
    """

    def __init__(self, events: Iterable[Event] = (), unreadable: int = 0) -> None:
        super().__init__(events)
        self.unreadable = unreadable


def unreadable_note(count: int) -> str:
    """The sentence every reader adds when events were left out ('' when none were)."""
    if count <= 0:
        return ""
    which = "1 event" if count == 1 else f"{count} events"
    return (
        f"{which} in these days could not be read (malformed on the calendar server) and "
        f"{'is' if count == 1 else 'are'} not listed; open the calendar app to see "
        f"{'it' if count == 1 else 'them'}."
    )


class CalendarError(Exception):
    """Something about the calendar the owner (or the model) can act on; str() says what."""


class CalendarNotSetUp(CalendarError):
    pass


class CalendarUnavailable(CalendarError):
    """Down, slow, or refusing the login: nothing was read or changed."""


class ChangeUnconfirmed(CalendarError):
    """A change reached the server (the request went out) and no answer says what became of
    it: none in time, the connection broken before one, or a 500/502/504 from the server or a
    gateway in front of it. It may have been made, or not. A change that never left this
    computer (connection refused, a name that does not resolve, a TLS handshake that failed)
    is a CalendarUnavailable instead: then nothing was changed, and that is true.

    Neither "nothing was changed" (that would be false if it was) nor "done": str() tells the
    owner to look at the calendar before asking again. Deliberately not an EventChanged, so no
    caller can mistake it for a refusal.
    """


class EventChanged(CalendarError):
    """The event is not what the caller last saw (another ETag, or gone): nothing was written.

    `current` is the event as it is now, or None when it is gone.
    """

    def __init__(self, message: str, current: Event | None = None) -> None:
        super().__init__(message)
        self.current = current
