"""The owner's calendar over CalDAV: plain events in the user's timezone, compare-and-write
changes (ETag and If-Match), and text that cannot be misread.

May import: basics, config.
"""

from commonplace.calendar.client import CalendarClient
from commonplace.calendar.models import (
    CalendarError,
    CalendarNotSetUp,
    CalendarUnavailable,
    ChangeUnconfirmed,
    Event,
    EventChanged,
    EventList,
    unreadable_note,
)
from commonplace.calendar.password import PASSWORD_ENV, read_password
from commonplace.calendar.sentences import NOT_SET_UP

__all__ = [
    "NOT_SET_UP",
    "PASSWORD_ENV",
    "CalendarClient",
    "CalendarError",
    "CalendarNotSetUp",
    "CalendarUnavailable",
    "ChangeUnconfirmed",
    "Event",
    "EventChanged",
    "EventList",
    "read_password",
    "unreadable_note",
]
