"""The pure iCalendar functions: the fixture file, occurrence names, overrides, new events."""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta
from zoneinfo import ZoneInfo

import icalendar

from commonplace.calendar import ical
from commonplace.calendar.find import title_matches
from commonplace.calendar.text import events_text
from tests.calendar.radicale_server import FIXTURE_WEEK

LONDON = ZoneInfo("Europe/London")
NEW_YORK = ZoneInfo("America/New_York")
NOW = datetime(2026, 10, 26, 8, tzinfo=LONDON)


def test_the_fixture_splits_into_one_resource_per_event_with_its_timezones() -> None:
    resources = [
        icalendar.Calendar.from_ical(r) for r in ical.split_by_uid(FIXTURE_WEEK.read_text())
    ]
    assert len(resources) == 16
    for resource in resources:
        events = list(resource.walk("VEVENT"))
        assert len({str(e["UID"]) for e in events}) == 1
        zones = {str(z["TZID"]) for z in resource.walk("VTIMEZONE")}
        start = events[0]["DTSTART"]
        assert zones == ({str(start.params["TZID"])} if "TZID" in start.params else set())
    summaries = {str(r.walk("VEVENT")[0]["SUMMARY"]) for r in resources}
    assert {"Dentist", "1:1 with Marcus", "Brunch with Zoë", "Haircut"} <= summaries


def test_an_occurrence_has_the_same_name_seen_from_any_zone() -> None:
    in_london = datetime(2026, 10, 27, 9, 30, tzinfo=LONDON)
    assert ical.occurrence_key(in_london, LONDON) == ical.occurrence_key(
        in_london.astimezone(NEW_YORK), NEW_YORK
    )
    assert ical.occurrence_key(in_london, LONDON) == "2026-10-27T09:30:00+00:00"
    assert ical.occurrence_key(date(2026, 10, 30), LONDON) == "2026-10-30"
    floating = datetime(2026, 10, 27, 9, 30)
    assert ical.occurrence_key(floating, LONDON) == "2026-10-27T09:30:00+00:00"


def series(rrule: str = "FREQ=WEEKLY;BYDAY=TU") -> icalendar.Calendar:
    text = (
        "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//t//t//EN\r\nBEGIN:VEVENT\r\n"
        "UID:s@t\r\nDTSTAMP:20260901T000000Z\r\n"
        "DTSTART;TZID=Europe/London:20260901T093000\r\n"
        "DTEND;TZID=Europe/London:20260901T100000\r\n"
        f"RRULE:{rrule}\r\nSUMMARY:1:1 with Marcus\r\nSEQUENCE:2\r\n"
        "END:VEVENT\r\nEND:VCALENDAR\r\n"
    )
    return icalendar.Calendar.from_ical(text)


def test_moving_an_occurrence_adds_an_override_in_the_series_zone() -> None:
    data = series()
    rid = "2026-10-27T09:30:00+00:00"
    new_start = datetime(2026, 10, 27, 14, tzinfo=LONDON)
    ical.move(data, rid, new_start, new_start + timedelta(minutes=30), LONDON, NOW)
    override = [c for c in data.walk("VEVENT") if "RECURRENCE-ID" in c]
    assert len(override) == 1
    recurrence = override[0]["RECURRENCE-ID"]
    assert recurrence.dt == datetime(2026, 10, 27, 9, 30, tzinfo=LONDON)
    assert recurrence.params["TZID"] == "Europe/London"
    assert "RRULE" not in override[0] and override[0]["SUMMARY"] == "1:1 with Marcus"
    assert override[0]["SEQUENCE"] == 3  # the override is the changed component
    master = ical.master(data)
    assert master is not None and master["SEQUENCE"] == 2 and "RRULE" in master
    found = ical.find_occurrence(data, rid, LONDON)
    assert found is not None and found["DTSTART"].dt == new_start
    # moving it again changes the same override
    ical.move(data, rid, new_start + timedelta(hours=1), None, LONDON, NOW)
    assert len([c for c in data.walk("VEVENT") if "RECURRENCE-ID" in c]) == 1


def test_deleting_an_occurrence_is_an_exdate() -> None:
    data = series()
    rid = "2026-11-03T09:30:00+00:00"
    assert ical.find_occurrence(data, rid, LONDON) is not None
    ical.delete_occurrence(data, rid, LONDON, NOW)
    assert ical.find_occurrence(data, rid, LONDON) is None
    assert ical.find_occurrence(data, "2026-11-10T09:30:00+00:00", LONDON) is not None
    master = ical.master(data)
    assert master is not None
    assert master["EXDATE"].dts[0].dt == datetime(2026, 11, 3, 9, 30, tzinfo=LONDON)


def test_an_occurrence_the_rule_does_not_make_is_not_found() -> None:
    assert ical.find_occurrence(series(), "2026-10-28T09:30:00+00:00", LONDON) is None
    assert (
        ical.find_occurrence(series("FREQ=WEEKLY;COUNT=2"), "2026-10-27T09:30:00+00:00", LONDON)
        is None
    )


def test_a_new_event_carries_its_timezone() -> None:
    start = datetime(2026, 11, 7, 10, tzinfo=LONDON)
    data = ical.new_event(uid="u1", title="  Haircut\nwith Jo ", start=start, end=None, now=NOW)
    event = data.walk("VEVENT")[0]
    assert str(event["SUMMARY"]) == "Haircut with Jo"
    assert "DTEND" not in event and event["DTSTART"].dt == start
    assert [str(z["TZID"]) for z in data.walk("VTIMEZONE")] == ["Europe/London"]
    assert event["DTSTAMP"].dt == NOW.astimezone(UTC)


def test_the_uid_of_a_new_event_is_the_same_for_the_same_request() -> None:
    start = datetime(2026, 11, 7, 10, tzinfo=LONDON)
    uid = ical.stable_uid("Haircut", start, "Personal")
    assert uid == ical.stable_uid("haircut ", start.astimezone(NEW_YORK), "Personal")
    assert uid != ical.stable_uid("Haircut", start + timedelta(hours=1), "Personal")
    assert uid != ical.stable_uid("Haircut", start, "Work")


def test_title_words() -> None:
    assert title_matches("dentist", "Dentist")
    assert title_matches("dent", "Dentist")
    assert title_matches("1:1 marcus", "1:1 with Marcus")
    assert title_matches("brunch zoë", "Brunch with Zoë")
    assert not title_matches("marcus maya", "1:1 with Marcus")
    assert not title_matches("", "Dentist") and not title_matches("my appointment", "Dentist")


def test_an_empty_day_is_named_not_skipped() -> None:
    text = events_text([], date(2026, 12, 31), 2)
    assert text == (
        "Thursday 31 December 2026 (2026-12-31): no events.\n"
        "Friday 1 January 2027 (2027-01-01): no events."
    )


def test_an_event_whose_times_cannot_be_read_is_counted_not_raised() -> None:
    data = icalendar.Calendar.from_ical(
        "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//x//EN\r\n"
        "BEGIN:VEVENT\r\nUID:no-start@x\r\nSUMMARY:No start\r\nEND:VEVENT\r\n"
        "BEGIN:VEVENT\r\nUID:bad-start@x\r\nDTSTART:soon\r\nSUMMARY:Bad start\r\nEND:VEVENT\r\n"
        "BEGIN:VEVENT\r\nUID:bad-end@x\r\nDTSTART:20261027T090000Z\r\nDTEND:later\r\n"
        "SUMMARY:Bad end\r\nEND:VEVENT\r\n"
        "BEGIN:VEVENT\r\nUID:backwards@x\r\nDTSTART:20261027T090000Z\r\n"
        "DTEND:20261027T080000Z\r\nSUMMARY:Backwards\r\nEND:VEVENT\r\n"
        "END:VCALENDAR\r\n"
    )
    events, bad = ical.events_of(
        data, tz=LONDON, calendar="Personal", href="/x.ics", etag=None, recurring=False
    )
    assert bad == 2
    assert [(e.title, e.end) for e in events] == [("Bad end", None), ("Backwards", None)]


def test_a_time_in_the_repeated_hour_is_written_so_it_reads_back_the_same() -> None:
    """00:30 BST plus 90 minutes is 01:00 GMT, the second 01:00 of the night the clocks go
    back: with TZID:Europe/London it would read as the first (an hour early), so it is UTC."""
    start = datetime(2026, 10, 25, 0, 30, tzinfo=LONDON)
    end = (start.astimezone(UTC) + timedelta(minutes=90)).astimezone(LONDON)
    assert (end.hour, end.fold) == (1, 1)
    data = ical.new_event(uid="u", title="Late film", start=start, end=end, now=NOW)
    (component,) = data.walk("VEVENT")
    event = ical.to_event(
        component, tz=LONDON, calendar="Personal", href="/u.ics", etag=None, recurring=False
    )
    assert isinstance(event.end, datetime)
    assert event.end.astimezone(UTC) == datetime(2026, 10, 25, 1, 0, tzinfo=UTC)
    assert b"DTSTART;TZID=Europe/London:20261025T003000" in data.to_ical()
    assert b"DTEND:20261025T010000Z" in data.to_ical()


def test_an_end_in_the_second_pass_before_the_start_on_the_clock_is_kept() -> None:
    """01:45 BST to 01:15 GMT is half an hour, though 01:15 reads earlier than 01:45 on the
    clock: the end was taken for one before the start and dropped (times in one zone compare
    as clock readings)."""
    start = datetime(2026, 10, 25, 1, 45, tzinfo=LONDON)
    end = (start.astimezone(UTC) + timedelta(minutes=30)).astimezone(LONDON)
    assert (end.hour, end.minute, end.fold) == (1, 15, 1)
    data = ical.new_event(uid="u", title="Bottle", start=start, end=end, now=NOW)
    (component,) = data.walk("VEVENT")
    event = ical.to_event(
        component, tz=LONDON, calendar="Personal", href="/u.ics", etag=None, recurring=False
    )
    assert isinstance(event.end, datetime)
    assert event.end.astimezone(UTC) == datetime(2026, 10, 25, 1, 15, tzinfo=UTC)


def test_a_time_the_clocks_skip_reads_as_the_instant_it_is_not_as_the_first_of_two() -> None:
    """Another app stored 02:30 on the night the clocks go forward in Berlin: RFC 5545 reads it
    with the offset before the gap, 01:30 UTC, which is 03:30 CEST. It was listed as "02:30
    (the first, CET)", a time that does not exist that night and is not one of two."""
    berlin = ZoneInfo("Europe/Berlin")
    component = icalendar.Event()
    component.add("UID", "skip")
    component.add("SUMMARY", "Early ferry")
    component.add("DTSTART", datetime(2027, 3, 28, 2, 30, tzinfo=berlin))
    component.add("DTEND", datetime(2027, 3, 28, 4, 30, tzinfo=berlin))
    event = ical.to_event(
        component, tz=berlin, calendar="Personal", href="/s.ics", etag=None, recurring=False
    )
    assert event.start == datetime(2027, 3, 28, 1, 30, tzinfo=UTC)
    assert (event.start.hour, event.start.minute) == (3, 30)  # type: ignore[union-attr]
    text = events_text([event], date(2027, 3, 28), 1)
    assert '- 03:30 to 04:30: "Early ferry".' in text
