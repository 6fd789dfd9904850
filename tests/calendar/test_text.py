"""The timed events read back from a listing the model was shown (for the reply check that
holds "you're free" against it), from lines `event_line` itself wrote: the two stay in step."""

from __future__ import annotations

from datetime import date, datetime
from zoneinfo import ZoneInfo

from commonplace.calendar import Event
from commonplace.calendar.text import event_line, timed_events

LONDON = ZoneInfo("Europe/London")


def event(title: str, start: datetime | date, end: datetime | date | None) -> Event:
    all_day = not isinstance(start, datetime)
    return Event(title, start, end, all_day, "Personal", title, f"/{title}.ics", "1")


def at(day: int, hour: int, minute: int = 0, fold: int = 0) -> datetime:
    return datetime(2026, 10, day, hour, minute, tzinfo=LONDON, fold=fold)


def test_every_kind_of_line_reads_back_as_its_times() -> None:
    listing = "\n".join(
        [
            "Times are in Europe/London.",
            "Sunday 1 November 2026 (2026-11-01):",
            event_line(event("Tobi visiting", date(2026, 10, 31), date(2026, 11, 2))),
            event_line(event("Brunch with Zoë", at(31, 11), at(31, 12, 30))),
            event_line(event("Ring Mum about Christmas", at(31, 18), None)),
            event_line(event("Party", at(31, 23), datetime(2026, 11, 1, 2, tzinfo=LONDON))),
            event_line(event("Late", at(25, 1, 30, fold=1), at(25, 2))),  # the second 01:30
        ]
    )
    assert timed_events(listing) == [
        (11 * 60, 12 * 60 + 30, "Brunch with Zoë"),
        (18 * 60, 24 * 60, "Ring Mum about Christmas"),  # no end: to the day's end
        (23 * 60, 24 * 60, "Party"),  # ends the next day
        (90, 120, "Late"),
    ]


def test_a_listing_with_no_timed_event_gives_none() -> None:
    assert timed_events("Thursday 29 October 2026 (2026-10-29): no events.") == []
