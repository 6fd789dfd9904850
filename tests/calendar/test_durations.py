"""An event given by its DURATION ends where RFC 5545 (3.3.6) says, across both of the year's
clock changes in London and New York: a duration's days on the clock of the event's zone, its
hours, minutes and seconds in real time. Starts before, inside and after the hour the clocks
skip and the hour they repeat; DURATION in hours, in days and mixed (P1DT2H); single events,
each occurrence of a series and an override, all-day events, and the length a move keeps.
Read by `ical.to_event`, listed by the calendar client against real Radicale, and in the text
the model is given.

The clocks change at 01:00 UTC in London (2027-03-28: 01:00 GMT is 02:00 BST; 2026-10-25:
02:00 BST is 01:00 GMT) and at 02:00 local time in New York (2027-03-14: 02:00 EST is 03:00
EDT; 2026-11-01: 02:00 EDT is 01:00 EST). A time the clocks skip is read with the offset
before the gap (RFC 5545 3.3.5: 01:15 in London on 28 March is 02:15 BST), a time they repeat
as its first pass.

"Now" is Monday 26 October 2026, 09:00 in London.
"""

from __future__ import annotations

import dataclasses
import json
from datetime import UTC, date, datetime, timedelta
from typing import NamedTuple
from zoneinfo import ZoneInfo

import icalendar
import pytest
from click.testing import CliRunner

from commonplace.assistant import Assistant, build_assistant
from commonplace.calendar import CalendarClient, Event, ical
from commonplace.calendar.duration import add_duration
from commonplace.cli.main import cli
from commonplace.config import Settings
from commonplace.llm import make_llm
from tests.assistant.conftest import NOW, call, tool_results
from tests.calendar.conftest import PASSWORD_ENV
from tests.calendar.radicale_server import Radicale, put_raw
from tests.fakes.ollama import FakeOllama
from tests.models import with_model

LONDON = ZoneInfo("Europe/London")
NEW_YORK = ZoneInfo("America/New_York")


class Case(NamedTuple):
    name: str
    zone: str
    dtstart: str  # as written, on the clock of `zone`
    duration: str
    start: str  # the instant it is, on the clock of `zone` with its offset
    end: str


# hours (PT2H from before the change, PT1H from inside and after it), days (P1D from the day
# before, so the day crosses the change), and mixed (P1DT2H): the end before, inside, after
CASES = [
    # London, the clocks go forward on Sunday 28 March 2027 (01:00 to 02:00 is skipped)
    Case("L+ hours before", "Europe/London", "20270328T003000", "PT2H",
         "2027-03-28T00:30+00:00", "2027-03-28T03:30+01:00"),
    Case("L+ hours inside", "Europe/London", "20270328T011500", "PT1H",
         "2027-03-28T02:15+01:00", "2027-03-28T03:15+01:00"),
    Case("L+ hours after", "Europe/London", "20270328T023000", "PT1H",
         "2027-03-28T02:30+01:00", "2027-03-28T03:30+01:00"),
    Case("L+ days before", "Europe/London", "20270327T003000", "P1D",
         "2027-03-27T00:30+00:00", "2027-03-28T00:30+00:00"),
    Case("L+ days inside", "Europe/London", "20270327T011500", "P1D",
         "2027-03-27T01:15+00:00", "2027-03-28T02:15+01:00"),
    Case("L+ days after", "Europe/London", "20270327T023000", "P1D",
         "2027-03-27T02:30+00:00", "2027-03-28T02:30+01:00"),
    Case("L+ mixed before", "Europe/London", "20270327T003000", "P1DT2H",
         "2027-03-27T00:30+00:00", "2027-03-28T03:30+01:00"),
    Case("L+ mixed inside", "Europe/London", "20270327T011500", "P1DT2H",
         "2027-03-27T01:15+00:00", "2027-03-28T04:15+01:00"),
    Case("L+ mixed after", "Europe/London", "20270327T120000", "P1DT2H",
         "2027-03-27T12:00+00:00", "2027-03-28T14:00+01:00"),
    # London, the clocks go back on Sunday 25 October 2026 (01:00 to 02:00 happens twice)
    Case("L- hours before", "Europe/London", "20261025T003000", "PT2H",
         "2026-10-25T00:30+01:00", "2026-10-25T01:30+00:00"),
    Case("L- hours inside", "Europe/London", "20261025T013000", "PT1H",
         "2026-10-25T01:30+01:00", "2026-10-25T01:30+00:00"),
    Case("L- hours after", "Europe/London", "20261025T023000", "PT1H",
         "2026-10-25T02:30+00:00", "2026-10-25T03:30+00:00"),
    Case("L- days before", "Europe/London", "20261024T003000", "P1D",
         "2026-10-24T00:30+01:00", "2026-10-25T00:30+01:00"),
    Case("L- days inside", "Europe/London", "20261024T013000", "P1D",
         "2026-10-24T01:30+01:00", "2026-10-25T01:30+01:00"),
    Case("L- days after", "Europe/London", "20261024T023000", "P1D",
         "2026-10-24T02:30+01:00", "2026-10-25T02:30+00:00"),
    Case("L- mixed before", "Europe/London", "20261024T003000", "P1DT2H",
         "2026-10-24T00:30+01:00", "2026-10-25T01:30+00:00"),
    Case("L- mixed inside", "Europe/London", "20261024T013000", "P1DT2H",
         "2026-10-24T01:30+01:00", "2026-10-25T02:30+00:00"),
    Case("L- mixed after", "Europe/London", "20261024T120000", "P1DT2H",
         "2026-10-24T12:00+01:00", "2026-10-25T14:00+00:00"),
    # New York, the clocks go forward on Sunday 14 March 2027 (02:00 to 03:00 is skipped)
    Case("NY+ hours before", "America/New_York", "20270314T013000", "PT2H",
         "2027-03-14T01:30-05:00", "2027-03-14T04:30-04:00"),
    Case("NY+ hours inside", "America/New_York", "20270314T021500", "PT1H",
         "2027-03-14T03:15-04:00", "2027-03-14T04:15-04:00"),
    Case("NY+ hours after", "America/New_York", "20270314T033000", "PT1H",
         "2027-03-14T03:30-04:00", "2027-03-14T04:30-04:00"),
    Case("NY+ days before", "America/New_York", "20270313T013000", "P1D",
         "2027-03-13T01:30-05:00", "2027-03-14T01:30-05:00"),
    Case("NY+ days inside", "America/New_York", "20270313T021500", "P1D",
         "2027-03-13T02:15-05:00", "2027-03-14T03:15-04:00"),
    Case("NY+ days after", "America/New_York", "20270313T033000", "P1D",
         "2027-03-13T03:30-05:00", "2027-03-14T03:30-04:00"),
    Case("NY+ mixed before", "America/New_York", "20270313T013000", "P1DT2H",
         "2027-03-13T01:30-05:00", "2027-03-14T04:30-04:00"),
    Case("NY+ mixed inside", "America/New_York", "20270313T021500", "P1DT2H",
         "2027-03-13T02:15-05:00", "2027-03-14T05:15-04:00"),
    Case("NY+ mixed after", "America/New_York", "20270313T120000", "P1DT2H",
         "2027-03-13T12:00-05:00", "2027-03-14T14:00-04:00"),
    # New York, the clocks go back on Sunday 1 November 2026 (01:00 to 02:00 happens twice)
    Case("NY- hours before", "America/New_York", "20261101T003000", "PT2H",
         "2026-11-01T00:30-04:00", "2026-11-01T01:30-05:00"),
    Case("NY- hours inside", "America/New_York", "20261101T013000", "PT1H",
         "2026-11-01T01:30-04:00", "2026-11-01T01:30-05:00"),
    Case("NY- hours after", "America/New_York", "20261101T023000", "PT1H",
         "2026-11-01T02:30-05:00", "2026-11-01T03:30-05:00"),
    Case("NY- days before", "America/New_York", "20261031T003000", "P1D",
         "2026-10-31T00:30-04:00", "2026-11-01T00:30-04:00"),
    Case("NY- days inside", "America/New_York", "20261031T013000", "P1D",
         "2026-10-31T01:30-04:00", "2026-11-01T01:30-04:00"),
    Case("NY- days after", "America/New_York", "20261031T023000", "P1D",
         "2026-10-31T02:30-04:00", "2026-11-01T02:30-05:00"),
    Case("NY- mixed before", "America/New_York", "20261031T003000", "P1DT2H",
         "2026-10-31T00:30-04:00", "2026-11-01T01:30-05:00"),
    Case("NY- mixed inside", "America/New_York", "20261031T013000", "P1DT2H",
         "2026-10-31T01:30-04:00", "2026-11-01T02:30-05:00"),
    Case("NY- mixed after", "America/New_York", "20261031T120000", "P1DT2H",
         "2026-10-31T12:00-04:00", "2026-11-01T14:00-05:00"),
]  # fmt: skip


def uid_of(name: str) -> str:
    return name.lower().replace(" ", "-").replace("+", "fwd").replace("-", "_") + "@phone"


def resource(uid: str, title: str, body: str) -> str:
    return (
        "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//Phone//EN\r\nBEGIN:VEVENT\r\n"
        f"UID:{uid}\r\nDTSTAMP:20261020T090000Z\r\nSUMMARY:{title}\r\n{body}"
        "END:VEVENT\r\nEND:VCALENDAR\r\n"
    )


def timed(case: Case) -> str:
    return resource(
        uid_of(case.name),
        case.name,
        f"DTSTART;TZID={case.zone}:{case.dtstart}\r\nDURATION:{case.duration}\r\n",
    )


def there(moment: datetime | date | None, zone: str) -> str:
    """A listed time as the instant it is, on the clock of `zone` (never compared by `==`
    within one zone, which ignores which pass of a repeated hour it is)."""
    assert isinstance(moment, datetime), moment
    return moment.astimezone(ZoneInfo(zone)).isoformat(timespec="minutes")


def read(text: str, tz: ZoneInfo = LONDON) -> Event:
    (component,) = icalendar.Calendar.from_ical(text).walk("VEVENT")
    return ical.to_event(
        component, tz=tz, calendar="Personal", href="h", etag=None, recurring=False
    )


# -- the one function, and an event read from its iCalendar data ----------------------------


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_a_duration_ends_where_rfc_5545_says(case: Case) -> None:
    event = read(timed(case))
    assert (there(event.start, case.zone), there(event.end, case.zone)) == (case.start, case.end)
    assert event.duration is not None


def test_the_night_train_of_the_issue_is_an_hour_long() -> None:
    event = read(timed(CASES[1]))
    assert isinstance(event.start, datetime) and isinstance(event.end, datetime)
    assert (event.start.isoformat(), event.end.isoformat()) == (
        "2027-03-28T02:15:00+01:00",
        "2027-03-28T03:15:00+01:00",
    )
    assert event.end.astimezone(UTC) - event.start.astimezone(UTC) == timedelta(hours=1)


def test_add_duration_days_on_the_clock_the_rest_in_real_time() -> None:
    saturday = datetime(2027, 3, 27, 12, tzinfo=LONDON)
    assert add_duration(saturday, timedelta(days=1)).isoformat() == "2027-03-28T12:00:00+01:00"
    # `exact`: a length measured, or minutes asked for, is real time also for its days
    later = add_duration(saturday, timedelta(days=1), exact=True)
    assert later.isoformat() == "2027-03-28T13:00:00+01:00"
    # a date takes the days only; a floating time has no clock change to cross
    assert add_duration(date(2027, 3, 27), timedelta(days=2, hours=3)) == date(2027, 3, 29)
    floating = datetime(2027, 3, 28, 0, 30)
    assert add_duration(floating, timedelta(hours=2)) == datetime(2027, 3, 28, 2, 30)
    # negative (not an event's, but not turned around either)
    assert add_duration(saturday, -timedelta(hours=1)).isoformat() == "2027-03-27T11:00:00+00:00"
    # in UTC a day is 24 hours
    utc = datetime(2027, 3, 27, 12, tzinfo=UTC)
    assert add_duration(utc, timedelta(days=1)) == datetime(2027, 3, 28, 12, tzinfo=UTC)


def test_a_floating_start_takes_the_duration_on_the_owners_clock() -> None:
    text = resource("f@phone", "Floating", "DTSTART:20270328T003000\r\nDURATION:PT2H\r\n")
    event = read(text)
    assert (there(event.start, "Europe/London"), there(event.end, "Europe/London")) == (
        "2027-03-28T00:30+00:00",
        "2027-03-28T03:30+01:00",
    )


def test_an_all_day_event_given_by_days_lasts_those_days() -> None:
    two = read(resource("a@phone", "Away", "DTSTART;VALUE=DATE:20270327\r\nDURATION:P2D\r\n"))
    assert (two.start, two.end, two.all_day) == (date(2027, 3, 27), date(2027, 3, 29), True)
    # hours on a date are not RFC 5545's (3.8.2.5); the event still lasts its day
    odd = read(resource("b@phone", "Odd", "DTSTART;VALUE=DATE:20270328\r\nDURATION:PT12H\r\n"))
    assert (odd.start, odd.end) == (date(2027, 3, 28), date(2027, 3, 29))


# -- a series: each occurrence and an override ------------------------------------------------


def series(uid: str, title: str, zone: str, dtstart: str, length: str, rule: str) -> str:
    return resource(uid, title, f"DTSTART;TZID={zone}:{dtstart}\r\n{length}\r\nRRULE:{rule}\r\n")


SERIES = {
    "Daily train": (
        series("train@phone", "Daily train", "Europe/London", "20270326T011500",
               "DURATION:PT1H", "FREQ=DAILY;COUNT=4"),
        "Europe/London",
        [("2027-03-26T01:15+00:00", "2027-03-26T02:15+00:00"),
         ("2027-03-27T01:15+00:00", "2027-03-27T02:15+00:00"),
         ("2027-03-28T02:15+01:00", "2027-03-28T03:15+01:00"),
         ("2027-03-29T01:15+01:00", "2027-03-29T02:15+01:00")],
    ),
    "Night watch": (
        series("watch@phone", "Night watch", "Europe/London", "20261024T013000",
               "DURATION:PT1H", "FREQ=DAILY;COUNT=3"),
        "Europe/London",
        [("2026-10-24T01:30+01:00", "2026-10-24T02:30+01:00"),
         ("2026-10-25T01:30+01:00", "2026-10-25T01:30+00:00"),
         ("2026-10-26T01:30+00:00", "2026-10-26T02:30+00:00")],
    ),
    "Harbour shift": (
        series("harbour@phone", "Harbour shift", "America/New_York", "20270313T021500",
               "DURATION:PT1H", "FREQ=DAILY;COUNT=3"),
        "America/New_York",
        [("2027-03-13T02:15-05:00", "2027-03-13T03:15-05:00"),
         ("2027-03-14T03:15-04:00", "2027-03-14T04:15-04:00"),
         ("2027-03-15T02:15-04:00", "2027-03-15T03:15-04:00")],
    ),
    "Late bakery": (
        series("bakery@phone", "Late bakery", "America/New_York", "20261031T013000",
               "DURATION:PT1H", "FREQ=DAILY;COUNT=3"),
        "America/New_York",
        [("2026-10-31T01:30-04:00", "2026-10-31T02:30-04:00"),
         ("2026-11-01T01:30-04:00", "2026-11-01T01:30-05:00"),
         ("2026-11-02T01:30-05:00", "2026-11-02T02:30-05:00")],
    ),
    "Weekend away": (
        series("away@phone", "Weekend away", "Europe/London", "20270320T120000",
               "DURATION:P1D", "FREQ=WEEKLY;COUNT=3"),
        "Europe/London",
        [("2027-03-20T12:00+00:00", "2027-03-21T12:00+00:00"),
         ("2027-03-27T12:00+00:00", "2027-03-28T12:00+01:00"),
         ("2027-04-03T12:00+01:00", "2027-04-04T12:00+01:00")],
    ),
    "Long haul": (
        series("haul@phone", "Long haul", "America/New_York", "20261030T003000",
               "DURATION:P1DT2H", "FREQ=DAILY;COUNT=3"),
        "America/New_York",
        [("2026-10-30T00:30-04:00", "2026-10-31T02:30-04:00"),
         ("2026-10-31T00:30-04:00", "2026-11-01T01:30-05:00"),
         ("2026-11-01T00:30-04:00", "2026-11-02T02:30-05:00")],
    ),
    # a DTEND, not a DURATION: every occurrence lasts the series' exact length (RFC 5545
    # 3.8.5.3), two hours also on the night the clocks go forward
    "Night bus": (
        resource("bus@phone", "Night bus", "DTSTART;TZID=Europe/London:20270327T003000\r\n"
                 "DTEND;TZID=Europe/London:20270327T023000\r\nRRULE:FREQ=DAILY;COUNT=2\r\n"),
        "Europe/London",
        [("2027-03-27T00:30+00:00", "2027-03-27T02:30+00:00"),
         ("2027-03-28T00:30+00:00", "2027-03-28T03:30+01:00")],
    ),
}  # fmt: skip

# the Daily train's occurrence of Saturday 27 March, moved into the hour skipped on Sunday
OVERRIDE = (
    "BEGIN:VEVENT\r\nUID:train@phone\r\nDTSTAMP:20261020T090000Z\r\nSUMMARY:Daily train\r\n"
    "RECURRENCE-ID;TZID=Europe/London:20270327T011500\r\n"
    "DTSTART;TZID=Europe/London:20270328T013000\r\nDURATION:PT1H30M\r\nEND:VEVENT\r\n"
)


def with_override(text: str) -> str:
    return text.replace("END:VCALENDAR\r\n", OVERRIDE + "END:VCALENDAR\r\n")


def spans(events: list[Event], title: str, zone: str) -> list[tuple[str, str]]:
    return sorted((there(e.start, zone), there(e.end, zone)) for e in events if e.title == title)


def window(first: date, days: int) -> tuple[datetime, datetime]:
    start = datetime(first.year, first.month, first.day, tzinfo=LONDON)
    return start, datetime.combine(first + timedelta(days=days), start.time(), tzinfo=LONDON)


@pytest.mark.parametrize("title", list(SERIES))
def test_each_occurrence_of_a_series_ends_where_rfc_5545_says(title: str) -> None:
    text, zone, expected = SERIES[title]
    data = icalendar.Calendar.from_ical(text)
    events, bad = ical.events_of(
        ical.expand(data, *window(date(2026, 10, 20), 200), LONDON),
        tz=LONDON,
        calendar="Personal",
        href="h",
        etag=None,
        recurring=False,
    )
    assert bad == 0
    assert spans(events, title, zone) == expected


def test_an_override_given_by_duration_keeps_its_own() -> None:
    data = icalendar.Calendar.from_ical(with_override(SERIES["Daily train"][0]))
    events, _ = ical.events_of(
        ical.expand(data, *window(date(2027, 3, 25), 6), LONDON),
        tz=LONDON,
        calendar="Personal",
        href="h",
        etag=None,
        recurring=False,
    )
    assert spans(events, "Daily train", "Europe/London") == [
        ("2027-03-26T01:15+00:00", "2027-03-26T02:15+00:00"),
        ("2027-03-28T02:15+01:00", "2027-03-28T03:15+01:00"),
        ("2027-03-28T02:30+01:00", "2027-03-28T04:00+01:00"),  # the override: 90 minutes
        ("2027-03-29T01:15+01:00", "2027-03-29T02:15+01:00"),
    ]
    # found again by its name (what a move or a delete does), it is still 90 minutes long
    moved = next(e for e in events if e.recurrence_id == "2027-03-27T01:15:00+00:00")
    rule_made = next(e for e in events if e.recurrence_id == "2027-03-28T01:15:00+00:00")
    for found in (moved, rule_made):
        component = ical.find_occurrence(data, found.recurrence_id, LONDON)
        assert component is not None
        again = ical.to_event(
            component, tz=LONDON, calendar="Personal", href="h", etag=None, recurring=True
        )
        assert (again.start, again.end) == (found.start, found.end)
        assert again.duration == found.duration


HOLIDAYS = resource(
    "holiday@phone",
    "Long weekend",
    "DTSTART;VALUE=DATE:20270327\r\nDURATION:P2D\r\nRRULE:FREQ=WEEKLY;COUNT=2\r\n",
)


def test_each_occurrence_of_an_all_day_series_lasts_its_days() -> None:
    data = icalendar.Calendar.from_ical(HOLIDAYS)
    events, _ = ical.events_of(
        ical.expand(data, *window(date(2027, 3, 20), 30), LONDON),
        tz=LONDON,
        calendar="Personal",
        href="h",
        etag=None,
        recurring=False,
    )
    assert [(e.start, e.end, e.all_day) for e in events] == [
        (date(2027, 3, 27), date(2027, 3, 29), True),
        (date(2027, 4, 3), date(2027, 4, 5), True),
    ]


# -- through the calendar client against real Radicale, and what the model reads --------------


@pytest.fixture
def s(cal_settings: Settings, fake_ollama: FakeOllama) -> Settings:
    """The fixture week's account; a generous wait (30 s) for a busy machine."""
    return dataclasses.replace(
        with_model(cal_settings, host=fake_ollama.url),
        calendar=dataclasses.replace(cal_settings.calendar, write="Personal", timeout_s=30.0),
    )


@pytest.fixture
def calendar(s: Settings) -> CalendarClient:
    return CalendarClient(s, env=PASSWORD_ENV)


@pytest.fixture
def helper(s: Settings, calendar: CalendarClient) -> Assistant:
    return build_assistant(s, make_llm(s), clock=lambda: NOW, calendar=calendar)


async def test_every_case_is_listed_so_by_the_calendar_client(
    calendar: CalendarClient, radicale: Radicale, account: str
) -> None:
    for case in CASES:
        name = uid_of(case.name).split("@")[0]
        put_raw(radicale.url, account, "Personal", f"{name}.ics", timed(case))
    events = await calendar.events(*window(date(2026, 10, 23), 11))
    events += await calendar.events(*window(date(2027, 3, 12), 18))
    for case in CASES:
        assert spans(events, case.name, case.zone) == [(case.start, case.end)], case.name


async def test_every_occurrence_and_the_override_are_listed_so_by_the_calendar_client(
    calendar: CalendarClient, radicale: Radicale, account: str
) -> None:
    for title, (text, _, _) in SERIES.items():
        if title == "Daily train":
            text = with_override(text)
        put_raw(radicale.url, account, "Personal", f"{title.replace(' ', '-')}.ics", text)
    put_raw(radicale.url, account, "Personal", "holidays.ics", HOLIDAYS)
    events = await calendar.events(*window(date(2026, 10, 23), 11))
    events += await calendar.events(*window(date(2027, 3, 12), 24))
    assert [(e.start, e.end) for e in events if e.title == "Long weekend"] == [
        (date(2027, 3, 27), date(2027, 3, 29)),
        (date(2027, 4, 3), date(2027, 4, 5)),
    ]
    for title, (_, zone, expected) in SERIES.items():
        if title == "Daily train":
            expected = [*expected[:1], *expected[2:3], ("2027-03-28T02:30+01:00",
                        "2027-03-28T04:00+01:00"), *expected[3:]]  # fmt: skip
        assert spans(events, title, zone) == sorted(expected), title
    # one occurrence read again by its name, as a move or a delete reads it
    (sunday,) = [
        e for e in events if e.title == "Daily train" and e.day == date(2027, 3, 28) and
        e.recurrence_id == "2027-03-28T01:15:00+00:00"
    ]  # fmt: skip
    again = await calendar.get(sunday.href, sunday.recurrence_id)
    assert again is not None
    assert (there(again.start, "UTC"), there(again.end, "UTC")) == (
        "2027-03-28T01:15+00:00",
        "2027-03-28T02:15+00:00",
    )


NIGHT_TRAIN = resource(
    "night-train@phone",
    "Night train",
    "DTSTART;TZID=Europe/London:20270328T011500\r\nDURATION:PT1H\r\n",
)


async def test_the_night_train_reads_02_15_to_03_15_for_the_model(
    helper: Assistant, fake_ollama: FakeOllama, radicale: Radicale, account: str
) -> None:
    put_raw(radicale.url, account, "Personal", "night-train.ics", NIGHT_TRAIN)
    put_raw(radicale.url, account, "Personal", "watch.ics", SERIES["Night watch"][0])
    fake_ollama.enqueue_chat(
        call("list_events", day="2027-03-28"),
        call("list_events", day="2026-10-25"),
        "The night train.",
    )
    await helper.respond("What's on 28 March, and on 25 October?")
    forward, back = tool_results(fake_ollama)
    assert '- 02:15 to 03:15: "Night train". Calendar: Personal.' in forward
    assert (
        '- 01:30 (the first, BST) to 01:30 (the second, GMT): "Night watch". Part of a repeating '
        "series."
    ) in back


def test_the_night_train_reads_02_15_to_03_15_in_commonplace_calendar_json(
    s: Settings, radicale: Radicale, account: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    put_raw(radicale.url, account, "Personal", "night-train.ics", NIGHT_TRAIN)
    monkeypatch.setenv("COMMONPLACE_CALDAV_PASSWORD", "any")
    result = CliRunner().invoke(
        cli, ["calendar", "--date", "2027-03-28", "--json"], obj={"settings": s}
    )
    assert result.exit_code == 0, result.output
    (train,) = [e for e in json.loads(result.output) if e["title"] == "Night train"]
    assert (train["start"], train["end"]) == ("2027-03-28T02:15+01:00", "2027-03-28T03:15+01:00")


# -- the length a move keeps ------------------------------------------------------------------


RETREAT = resource(
    "retreat@phone",
    "Retreat",
    "DTSTART;TZID=Europe/London:20270320T100000\r\nDURATION:P1D\r\n",
)
RETREATS = RETREAT.replace("20270320T", "20270313T").replace(
    "DURATION:P1D\r\n", "DURATION:P1D\r\nRRULE:FREQ=WEEKLY;COUNT=2\r\n"
)  # Saturdays 13 and 20 March


@pytest.mark.parametrize("text", [RETREAT, RETREATS], ids=["single", "one occurrence"])
async def test_a_move_keeps_a_duration_of_days_on_the_clock(
    helper: Assistant,
    fake_ollama: FakeOllama,
    calendar: CalendarClient,
    radicale: Radicale,
    account: str,
    text: str,
) -> None:
    """P1D from Saturday 10:00 ends on Sunday at 10:00, also on the Sunday the clocks go
    forward (23 hours of real time): moved there, the retreat still ends at 10:00."""
    put_raw(radicale.url, account, "Personal", "retreat.ics", text)
    fake_ollama.enqueue_chat(
        call("move_event", event="retreat", on_day="2027-03-20", new_day="2027-03-27"), "Asked."
    )
    (question,) = (await helper.respond("Move the retreat to 27 March")).pending
    assert (await helper.answer(question.id, yes=True)).ran
    (moved,) = [e for e in await calendar.events_on(date(2027, 3, 27)) if e.title == "Retreat"]
    assert (there(moved.start, "Europe/London"), there(moved.end, "Europe/London")) == (
        "2027-03-27T10:00+00:00",
        "2027-03-28T10:00+01:00",
    )
