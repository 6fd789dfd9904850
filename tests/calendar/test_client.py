"""The calendar client against a real Radicale loaded with the fixture week (26 Oct - 1 Nov
2026, Europe/London; the clocks went back on 25 October, New York's go back on 1 November)."""

from __future__ import annotations

from datetime import date, datetime, time, timedelta
from zoneinfo import ZoneInfo

import pytest

from commonplace.calendar import CalendarClient, Event, EventChanged
from commonplace.calendar.text import events_text, span
from commonplace.config import Settings
from tests.calendar.conftest import PASSWORD_ENV
from tests.calendar.radicale_server import Radicale, put_raw

LONDON = ZoneInfo("Europe/London")
MONDAY = date(2026, 10, 26)


def at(day: int, hour: int, minute: int = 0, month: int = 10) -> datetime:
    return datetime(2026, month, day, hour, minute, tzinfo=LONDON)


def titled(events: list[Event], title: str) -> list[Event]:
    return [e for e in events if e.title == title]


def one(events: list[Event], title: str) -> Event:
    found = titled(events, title)
    assert len(found) == 1, [e.title for e in events]
    return found[0]


async def test_a_day_is_listed_in_order_with_local_times(client: CalendarClient) -> None:
    thursday = await client.events_on(date(2026, 10, 29))
    assert [(e.title, e.start, e.end) for e in thursday] == [
        ("Jewson timber delivery", at(29, 8), at(29, 12)),
        ("Dentist", at(29, 16), at(29, 16, 40)),
    ]
    dentist = thursday[1]
    assert dentist.calendar == "Personal"
    assert dentist.location == "Horfield Dental, Gloucester Road"
    assert dentist.etag and dentist.href.endswith(".ics")


async def test_the_week_holds_every_fixture_event_once(client: CalendarClient) -> None:
    week = await client.events_on(MONDAY, 7)
    assert len(week) == 16
    assert [e.day for e in week] == sorted(e.day for e in week)
    text = events_text(week, MONDAY, 7)
    assert text.count("Tobi visiting") == 2  # shown on both of its days
    assert 'Tuesday 27 October 2026 (2026-10-27):\n- 09:30 to 10:00: "1:1 with Marcus".' in text


async def test_an_event_stored_in_new_york_time_is_shown_in_london_time(
    client: CalendarClient,
) -> None:
    # 10:00 in New York on 28 October is 14:00 in London: four hours that week, not five.
    call = one(await client.events_on(date(2026, 10, 28)), "Nettle Pay certification call")
    assert call.start == at(28, 14) and call.end == at(28, 14, 30)
    assert call.start.tzinfo == LONDON  # type: ignore[union-attr]


async def test_all_day_events_are_dates(client: CalendarClient) -> None:
    friday = await client.events_on(date(2026, 10, 30))
    volunteering = one(friday, "Volunteering day")
    assert volunteering.all_day
    assert volunteering.start == date(2026, 10, 30) and volunteering.end == date(2026, 10, 31)
    assert span(volunteering) == "all day"
    assert friday[0] is volunteering  # all-day events first
    tobi = one(await client.events_on(date(2026, 11, 1)), "Tobi visiting")
    assert span(tobi) == "all day, Saturday 31 October to Sunday 1 November"


async def test_a_weekly_event_keeps_its_local_time_across_the_clock_change(
    client: CalendarClient,
) -> None:
    marcus = titled(await client.events_on(date(2026, 10, 20), 21), "1:1 with Marcus")
    # the series started in BST; after the clocks go back it is still 09:30 on the clock
    assert [e.start for e in marcus] == [at(20, 9, 30), at(27, 9, 30), at(3, 9, 30, month=11)]
    assert all(e.recurring and e.recurrence_id for e in marcus)
    assert len({e.recurrence_id for e in marcus}) == 3


async def test_an_event_without_an_end(client: CalendarClient) -> None:
    mum = one(await client.events_on(date(2026, 11, 1)), "Ring Mum about Christmas")
    assert mum.start == at(1, 18, month=11) and mum.end is None
    assert span(mum) == "18:00 (no end time)"


async def test_find_by_title_words(client: CalendarClient) -> None:
    assert [e.start for e in await client.find("dentist", MONDAY, 14)] == [at(29, 16)]
    assert len(await client.find("1:1 marcus", MONDAY, 14)) == 2  # 27 Oct and 3 Nov
    assert len(await client.find("my dentist appointment", MONDAY, 14)) == 1
    assert await client.find("dentist", date(2026, 10, 30), 14) == []
    assert await client.find("the", MONDAY, 14) == []  # no words left: nothing, not everything


async def test_calendars_to_read_are_chosen_by_name(cal_settings: Settings) -> None:
    import dataclasses

    work_only = dataclasses.replace(
        cal_settings, calendar=dataclasses.replace(cal_settings.calendar, read=("work",))
    )
    client = CalendarClient(work_only, env=PASSWORD_ENV)
    assert await client.write_calendar_name() == "Work"  # the first (only) one read
    assert await client.events_on(MONDAY, 7) == []
    assert sorted(await client.all_calendar_names()) == ["Personal", "Work"]


async def test_add_writes_one_event_and_a_second_add_finds_it(cal_settings: Settings) -> None:
    import dataclasses

    settings = dataclasses.replace(
        cal_settings, calendar=dataclasses.replace(cal_settings.calendar, write="Personal")
    )
    client = CalendarClient(settings, env=PASSWORD_ENV)
    added, created = await client.add("Haircut with Jo", at(7, 10, month=11), at(7, 11, month=11))
    assert created and added.calendar == "Personal" and added.start == at(7, 10, month=11)
    again, created_again = await client.add("Haircut with Jo", at(7, 10, month=11), None)
    assert not created_again and again.href == added.href
    saturday = await client.events_on(date(2026, 11, 7))
    assert [e.title for e in saturday] == ["Haircut with Jo"]


async def test_a_retried_add_never_makes_two_even_when_the_search_misses(
    client: CalendarClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    await client.add("Parents' evening", at(5, 18, month=11), at(5, 19, month=11))
    # The search before the write sees nothing (a slow server index, say): the PUT of the
    # same UID with If-None-Match: * is refused, and the existing event is the answer.
    real = client._identical
    calls: list[object] = []

    def blind_once(*args: object) -> Event | None:
        calls.append(args)
        return None if len(calls) == 1 else real(*args)  # type: ignore[arg-type]

    monkeypatch.setattr(client, "_identical", blind_once)
    event, created = await client.add("Parents' evening", at(5, 18, month=11), at(5, 19, month=11))
    assert not created and event.title == "Parents' evening"
    assert len(titled(await client.events_on(date(2026, 11, 5)), "Parents' evening")) == 1


async def test_an_event_added_so_once_and_moved_since_does_not_block_adding_it_again(
    client: CalendarClient,
) -> None:
    """The request's UID is taken by the event an earlier Yes added, since moved on the phone:
    the owner asking for it at the old time again gets a new event (the request's next UID),
    not "just written, but cannot be read back" with nothing written."""
    first, _ = await client.add("Swim", at(7, 10, month=11), at(7, 11, month=11))
    await client.move(first, at(7, 12, month=11), at(7, 13, month=11))
    again, created = await client.add("Swim", at(7, 10, month=11), at(7, 11, month=11))
    assert created and again.uid != first.uid
    swims = titled(await client.events_on(date(2026, 11, 7)), "Swim")
    assert [e.start for e in swims] == [at(7, 10, month=11), at(7, 12, month=11)]
    # and a retried Yes of that second request still finds its own event
    retried, created = await client.add("Swim", at(7, 10, month=11), at(7, 11, month=11))
    assert not created and retried.uid == again.uid


async def test_a_change_made_is_reported_made_even_if_it_cannot_be_read_back(
    client: CalendarClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    """After the server took the change, failing to read it back must not turn into an
    error (the assistant would say "Nothing was changed")."""
    monkeypatch.setattr(client, "_event_in", lambda *args: None)
    added, created = await client.add("Sauna", at(6, 18, month=11), at(6, 19, month=11))
    assert created and (added.title, added.start) == ("Sauna", at(6, 18, month=11))
    monkeypatch.undo()
    sauna = one(await client.events_on(date(2026, 11, 6)), "Sauna")

    real = client._event_in
    reads: list[object] = []

    def unreadable_after_the_write(*args: object) -> Event | None:
        reads.append(args)
        if len(reads) == 1:  # the check before the write
            return real(*args)  # type: ignore[arg-type]
        raise ValueError("what was written cannot be read back")

    monkeypatch.setattr(client, "_event_in", unreadable_after_the_write)
    moved = await client.move(sauna, at(6, 19, month=11), at(6, 20, month=11))
    assert moved.start == at(6, 19, month=11)
    monkeypatch.undo()
    assert one(await client.events_on(date(2026, 11, 6)), "Sauna").start == at(6, 19, month=11)


async def test_add_an_all_day_event(client: CalendarClient) -> None:
    event, created = await client.add("Bank holiday", date(2026, 12, 28), date(2026, 12, 29))
    assert created and event.all_day and event.start == date(2026, 12, 28)
    assert [e.title for e in await client.events_on(date(2026, 12, 28))] == ["Bank holiday"]


async def test_move_keeps_everything_else(client: CalendarClient) -> None:
    dentist = one(await client.events_on(date(2026, 10, 29)), "Dentist")
    moved = await client.move(dentist, at(30, 10), at(30, 10, 40))
    assert moved.start == at(30, 10) and moved.etag != dentist.etag
    assert titled(await client.events_on(date(2026, 10, 29)), "Dentist") == []
    friday = one(await client.events_on(date(2026, 10, 30)), "Dentist")
    assert friday.location == "Horfield Dental, Gloucester Road"
    assert friday.uid == dentist.uid


async def test_moving_one_occurrence_leaves_the_series(client: CalendarClient) -> None:
    tuesday = one(await client.events_on(date(2026, 10, 27)), "1:1 with Marcus")
    moved = await client.move(tuesday, at(27, 14), at(27, 14, 30))
    assert moved.start == at(27, 14) and moved.recurrence_id == tuesday.recurrence_id
    marcus = titled(await client.events_on(date(2026, 10, 20), 21), "1:1 with Marcus")
    assert [e.start for e in marcus] == [at(20, 9, 30), at(27, 14), at(3, 9, 30, month=11)]
    again = await client.get(tuesday.href, tuesday.recurrence_id)
    assert again is not None and again.start == at(27, 14)


async def test_deleting_one_occurrence_leaves_the_series(client: CalendarClient) -> None:
    chess = one(await client.events_on(date(2026, 10, 28)), "Chess with Sam")
    await client.delete(chess)
    assert titled(await client.events_on(date(2026, 10, 28)), "Chess with Sam") == []
    later = titled(await client.events_on(date(2026, 10, 21), 22), "Chess with Sam")
    assert [e.day for e in later] == [date(2026, 10, 21), date(2026, 11, 4), date(2026, 11, 11)]
    assert await client.get(chess.href, chess.recurrence_id) is None


async def test_deleting_a_moved_occurrence_removes_its_override(client: CalendarClient) -> None:
    tuesday = one(await client.events_on(date(2026, 10, 27)), "1:1 with Marcus")
    moved = await client.move(tuesday, at(27, 14), None)
    await client.delete(moved)
    assert titled(await client.events_on(date(2026, 10, 27)), "1:1 with Marcus") == []
    assert len(titled(await client.events_on(date(2026, 11, 3)), "1:1 with Marcus")) == 1


async def test_delete_a_single_event(client: CalendarClient) -> None:
    haircut = one(await client.events_on(date(2026, 10, 31)), "Haircut")
    await client.delete(haircut)
    assert titled(await client.events_on(date(2026, 10, 31)), "Haircut") == []
    assert await client.get(haircut.href, None) is None


async def test_move_an_all_day_event_and_an_event_without_end(client: CalendarClient) -> None:
    volunteering = one(await client.events_on(date(2026, 10, 30)), "Volunteering day")
    moved = await client.move(volunteering, date(2026, 11, 2), date(2026, 11, 3))
    assert moved.all_day and moved.start == date(2026, 11, 2)
    mum = one(await client.events_on(date(2026, 11, 1)), "Ring Mum about Christmas")
    later = await client.move(mum, at(1, 19, month=11), None)
    assert later.start == at(1, 19, month=11) and later.end is None


async def test_a_change_on_the_phone_since_the_read_is_refused(
    client: CalendarClient, radicale: Radicale, account: str
) -> None:
    dentist = one(await client.events_on(date(2026, 10, 29)), "Dentist")
    edited = (await client._call(_raw, client, dentist.href)).replace(
        "SUMMARY:Dentist", "SUMMARY:Dentist (moved by the practice)"
    )
    put_raw(radicale.url, account, "Personal", dentist.href.rsplit("/", 1)[1], edited)
    with pytest.raises(EventChanged) as caught:
        await client.move(dentist, at(30, 10), at(30, 10, 40))
    assert caught.value.current is not None
    assert caught.value.current.title == "Dentist (moved by the practice)"
    with pytest.raises(EventChanged):
        await client.delete(dentist)
    still = one(await client.events_on(date(2026, 10, 29)), "Dentist (moved by the practice)")
    assert still.start == at(29, 16)


async def test_a_change_between_the_check_and_the_write_gets_412(
    client: CalendarClient, radicale: Radicale, account: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The re-read agrees, then the phone saves: If-Match makes the server refuse (412)."""
    physio = one(await client.events_on(date(2026, 10, 30)), "Physio with Rachel")
    name = physio.href.rsplit("/", 1)[1]
    real_fresh = client._fresh

    def fresh_then_phone_edits(seen: Event) -> tuple[str, object]:
        loaded = real_fresh(seen)
        text = loaded[1].get_data().replace("SUMMARY:Physio with Rachel", "SUMMARY:Physio")
        put_raw(radicale.url, account, "Personal", name, text)
        return loaded

    monkeypatch.setattr(client, "_fresh", fresh_then_phone_edits)
    with pytest.raises(EventChanged, match="changed on the calendar meanwhile") as caught:
        await client.move(physio, at(30, 11), at(30, 11, 45))
    assert caught.value.current is not None and caught.value.current.title == "Physio"
    assert [e.title for e in await client.events_on(date(2026, 10, 30))][1] == "Physio"
    assert one(await client.events_on(date(2026, 10, 30)), "Physio").start == at(30, 9)


async def test_get_reads_the_event_as_it_is_now(client: CalendarClient) -> None:
    marcus = one(await client.events_on(date(2026, 11, 3)), "1:1 with Marcus")
    again = await client.get(marcus.href, marcus.recurrence_id)
    assert again == marcus
    assert await client.get(marcus.href, "2026-11-04T09:30:00+00:00") is None  # not a Tuesday


def _raw(client: CalendarClient, href: str) -> str:
    loaded = client._load(href)
    assert loaded is not None
    text: str = loaded[1].get_data()
    return text


def test_times_are_never_shown_in_utc() -> None:
    event = Event(
        title="x",
        start=datetime(2026, 10, 29, 16, tzinfo=LONDON),
        end=datetime(2026, 10, 29, 16, tzinfo=LONDON) + timedelta(minutes=40),
        all_day=False,
        calendar="Personal",
        uid="u",
        href="h",
        etag=None,
    )
    assert span(event) == "16:00 to 16:40"
    assert event.sort_key()[1] == 16 * 60 + time(0).minute
