"""The calendar against servers that are not as tidy as Radicale: the proxy in front of the real
Radicale plays a slow answer to a change, weak ETags, a Schedule-Tag and malformed event data,
while Radicale still stores and compares.

"Now" is Monday 26 October 2026, 09:00 in London.
"""

from __future__ import annotations

import logging
from datetime import date, datetime
from zoneinfo import ZoneInfo

import pytest

from commonplace.assistant import Assistant, Refused, build_assistant
from commonplace.briefing import make_briefing
from commonplace.calendar import CalendarClient, CalendarUnavailable, Event
from commonplace.config import Settings
from commonplace.doctor.checks import calendar_checks
from commonplace.llm import make_llm
from tests.assistant.conftest import NOW, call, tool_results
from tests.calendar.conftest import PASSWORD_ENV, SHORT_S, calendar_settings, shorten
from tests.calendar.proxy import Proxy
from tests.calendar.radicale_server import Radicale, put_raw
from tests.fakes.ollama import FakeOllama
from tests.models import with_model

LONDON = ZoneInfo("Europe/London")
TUESDAY = date(2026, 10, 27)


def at(day: int, hour: int, minute: int = 0) -> datetime:
    return datetime(2026, 10, day, hour, minute, tzinfo=LONDON)


@pytest.fixture
def direct(cal_settings: Settings) -> CalendarClient:
    """Radicale itself, without the proxy: what is really stored."""
    return CalendarClient(cal_settings, env=PASSWORD_ENV)


def through(settings: Settings, proxy: Proxy, account: str, fake_ollama: FakeOllama) -> Settings:
    s = calendar_settings(settings, proxy.url, account, write="Personal")
    return with_model(s, host=fake_ollama.url)


@pytest.fixture
def via_proxy(
    settings: Settings, proxy: Proxy, account: str, fake_ollama: FakeOllama
) -> tuple[Assistant, CalendarClient]:
    s = through(settings, proxy, account, fake_ollama)
    calendar = CalendarClient(s, env=PASSWORD_ENV)
    return build_assistant(s, make_llm(s), clock=lambda: NOW, calendar=calendar), calendar


def named(events: list[Event], title: str) -> list[tuple[datetime | date, datetime | date | None]]:
    return [(e.start, e.end) for e in events if e.title == title]


# -- a change the server answers too late (review item 3) ----------------------------------------


async def test_a_write_answered_after_the_timeout_may_have_been_made_and_says_how_to_check(
    via_proxy: tuple[Assistant, CalendarClient],
    fake_ollama: FakeOllama,
    proxy: Proxy,
    direct: CalendarClient,
) -> None:
    helper, calendar = via_proxy
    fake_ollama.enqueue_chat(
        call("move_event", event="dentist", new_day="friday", new_time="10:00"), "Asked."
    )
    (question,) = (await helper.respond("Move the dentist to Friday at 10")).pending
    shorten(calendar)
    proxy.hold["PUT"] = 60.0  # Radicale stores it at once; the answer comes long after our 3 s
    with pytest.raises(Refused) as refused:
        await helper.answer(question.id, yes=True)
    assert refused.value.code == "unconfirmed"
    message = refused.value.message
    assert "Nothing was changed" not in message
    assert message.startswith("The calendar at 127.0.0.1:")
    assert f"did not answer the change within {SHORT_S:g} s, so it may have been made, or not." in (
        message
    )
    assert message.endswith(
        'Check whether "Dentist" is on Friday 30 October at 10:00 (`commonplace calendar --date '
        "2026-10-30`, or your calendar app) before asking again."
    )
    # and it was made: "Nothing was changed" would have been false
    assert named(await direct.events_on(date(2026, 10, 30)), "Dentist") == [
        (at(30, 10), at(30, 10, 40))
    ]


async def test_a_slow_read_before_the_write_sends_nothing(
    via_proxy: tuple[Assistant, CalendarClient],
    fake_ollama: FakeOllama,
    proxy: Proxy,
    direct: CalendarClient,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Slow before the change was sent (the read just before the DELETE): "Nothing was
    changed" is true, and the worker thread the caller stopped waiting for never sends it."""
    helper, calendar = via_proxy
    fake_ollama.enqueue_chat(call("delete_event", event="haircut"), "Asked.")
    (question,) = (await helper.respond("Cancel my haircut")).pending
    real_delete = calendar.delete

    async def with_a_slow_read(seen: Event) -> None:
        proxy.hold["GET"] = 60.0  # after the re-check at Yes, for the read inside the delete
        await real_delete(seen)

    monkeypatch.setattr(calendar, "delete", with_a_slow_read)
    shorten(calendar)
    with pytest.raises(Refused) as refused:
        await helper.answer(question.id, yes=True)
    assert refused.value.code == "failed"
    assert refused.value.message.startswith("Nothing was changed: The calendar at 127.0.0.1:")
    assert f"did not answer within {SHORT_S:g} s" in refused.value.message
    proxy.hold.clear()
    await calendar.events_on(date(2026, 10, 31))  # waits for the worker thread to be done
    assert "DELETE" not in proxy.methods()
    assert named(await direct.events_on(date(2026, 10, 31)), "Haircut") == [
        (at(31, 10), at(31, 10, 45))
    ]


async def test_a_write_the_server_took_and_never_answered_may_have_been_made(
    via_proxy: tuple[Assistant, CalendarClient],
    fake_ollama: FakeOllama,
    proxy: Proxy,
    direct: CalendarClient,
) -> None:
    """The PUT reached the server, which then said nothing: whether it stored it nobody can
    tell (here it did not), so the owner is told it may have been made, never "nothing"."""
    helper, calendar = via_proxy
    fake_ollama.enqueue_chat(
        call("move_event", event="dentist", new_day="friday", new_time="10:00"), "Asked."
    )
    (question,) = (await helper.respond("Move the dentist to Friday at 10")).pending
    proxy.swallow.add("PUT")
    shorten(calendar)
    with pytest.raises(Refused) as refused:
        await helper.answer(question.id, yes=True)
    assert refused.value.code == "unconfirmed"
    assert "Nothing was changed" not in refused.value.message
    assert f"did not answer the change within {SHORT_S:g} s, so it may have been made, or not." in (
        refused.value.message
    )
    assert proxy.methods().count("PUT") == 1
    assert named(await direct.events_on(date(2026, 10, 29)), "Dentist") == [
        (at(29, 16), at(29, 16, 40))
    ]


async def test_a_write_cut_off_after_it_was_sent_may_have_been_made(
    via_proxy: tuple[Assistant, CalendarClient],
    fake_ollama: FakeOllama,
    proxy: Proxy,
) -> None:
    helper, _ = via_proxy
    fake_ollama.enqueue_chat(call("delete_event", event="haircut"), "Asked.")
    (question,) = (await helper.respond("Cancel my haircut")).pending
    proxy.cut_off.add("DELETE")
    with pytest.raises(Refused) as refused:
        await helper.answer(question.id, yes=True)
    assert refused.value.code == "unconfirmed"
    message = refused.value.message
    assert message.startswith("The calendar at 127.0.0.1:")
    assert "broke off the connection before answering the change" in message
    assert "so it may have been made, or not." in message
    assert 'Check whether "Haircut" is still on Saturday 31 October at 10:00' in message


async def test_a_gateway_error_after_the_server_stored_the_change_may_have_been_made(
    via_proxy: tuple[Assistant, CalendarClient],
    fake_ollama: FakeOllama,
    proxy: Proxy,
    direct: CalendarClient,
) -> None:
    """A reverse proxy in front of the server answers 502 after the server stored the move.
    "Nothing was changed" would be false; and caldav's second PUT (it tries again after a
    5xx) meets the first one's new ETag: that 412 is not someone else's change either."""
    helper, _ = via_proxy
    fake_ollama.enqueue_chat(
        call("move_event", event="dentist", new_day="friday", new_time="10:00"), "Asked."
    )
    (question,) = (await helper.respond("Move the dentist to Friday at 10")).pending
    proxy.fail_once["PUT"] = 502
    with pytest.raises(Refused) as refused:
        await helper.answer(question.id, yes=True)
    assert refused.value.code == "unconfirmed"
    assert "failed while handling the change" in refused.value.message
    assert "so it may have been made, or not." in refused.value.message
    assert named(await direct.events_on(date(2026, 10, 30)), "Dentist") == [
        (at(30, 10), at(30, 10, 40))
    ]


# -- weak ETags and Schedule-Tags (review item 13) ------------------------------------------------


async def test_weak_etags_do_not_block_every_change(
    via_proxy: tuple[Assistant, CalendarClient],
    fake_ollama: FakeOllama,
    proxy: Proxy,
    direct: CalendarClient,
) -> None:
    """A server that hands out W/"..." ETags: If-Match can never match one (RFC 9110 compares
    strongly), so sending it would make every delete 'changed meanwhile'. The re-read just
    before the write is the comparison, and the change goes through."""
    proxy.weak_etags = True
    helper, calendar = via_proxy
    (physio,) = [e for e in await calendar.events_on(date(2026, 10, 30)) if e.title[0] == "P"]
    assert physio.etag is not None and physio.etag.startswith('W/"')
    fake_ollama.enqueue_chat(
        call("delete_event", event="physio"),
        call("move_event", event="dentist", new_time="15:00"),
        "Asked.",
    )
    delete, move = (await helper.respond("Cancel physio, and move the dentist to 15:00")).pending
    assert (await helper.answer(delete.id, yes=True)).ran
    assert (await helper.answer(move.id, yes=True)).ran
    sent = [s for s in proxy.sent if s.method in ("PUT", "DELETE")]
    assert [s.method for s in sent] == ["DELETE", "PUT"]
    assert all("if-match" not in s.headers for s in sent)  # a weak tag is never sent
    assert named(await direct.events_on(date(2026, 10, 30)), "Physio with Rachel") == []
    assert named(await direct.events_on(date(2026, 10, 29)), "Dentist") == [
        (at(29, 15), at(29, 15, 40))
    ]


async def test_with_a_schedule_tag_the_etag_is_still_the_precondition(
    via_proxy: tuple[Assistant, CalendarClient],
    fake_ollama: FakeOllama,
    proxy: Proxy,
    radicale: Radicale,
    account: str,
    direct: CalendarClient,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """caldav prefers If-Schedule-Tag-Match when the server gave a Schedule-Tag, and a server
    merges an attendee's edit under it (Radicale ignores it): the phone's rename between the
    re-check and the write would be overwritten. With If-Match the server refuses (412)."""
    proxy.schedule_tag = '"schedule-1"'
    helper, calendar = via_proxy
    fake_ollama.enqueue_chat(
        call("move_event", event="physio", new_time="11:00"),
        call("delete_event", event="dentist"),
        "Asked.",
    )
    move, delete = (await helper.respond("Move physio to 11, and cancel the dentist")).pending
    real_fresh = calendar._fresh

    def then_the_phone_renames_it(seen: Event) -> tuple[str, object]:
        loaded = real_fresh(seen)
        text = loaded[1].get_data()
        text = text.replace("SUMMARY:Physio with Rachel", "SUMMARY:Physio (Rachel)")
        text = text.replace("SUMMARY:Dentist", "SUMMARY:Dentist (Dr Kaur)")
        put_raw(radicale.url, account, "Personal", seen.href.rsplit("/", 1)[1], text)
        return loaded

    monkeypatch.setattr(calendar, "_fresh", then_the_phone_renames_it)
    for question in (move, delete):
        with pytest.raises(Refused) as refused:
            await helper.answer(question.id, yes=True)
        assert refused.value.code == "changed"
        assert "renamed" in refused.value.message
    writes = [s for s in proxy.sent if s.method in ("PUT", "DELETE")]
    assert [s.method for s in writes] == ["PUT", "DELETE"]
    assert all(s.headers.get("if-match", "").startswith('"') for s in writes)
    assert all("if-schedule-tag-match" not in s.headers for s in writes)
    assert named(await direct.events_on(date(2026, 10, 30)), "Physio (Rachel)") == [
        (at(30, 9), at(30, 9, 45))
    ]
    assert len(named(await direct.events_on(date(2026, 10, 29)), "Dentist (Dr Kaur)")) == 1


# -- one malformed event (review item 8) ----------------------------------------------------------

BROKEN = """BEGIN:VCALENDAR
VERSION:2.0
PRODID:-//Another app//EN
BEGIN:VEVENT
UID:broken-lunch@another.example
DTSTAMP:20261020T090000Z
DTSTART;TZID=Europe/London:20261027T123000
DTEND;TZID=Europe/London:20261027T133000
SUMMARY:Secret lunch plans
END:VEVENT
END:VCALENDAR
"""


def break_the_lunch(method: str, body: str) -> str:
    """What another server stored: a start time that is no time (Radicale refuses it on PUT,
    so it is broken on its way back)."""
    return body.replace("DTSTART;TZID=Europe/London:20261027T123000", "DTSTART:lunchtime")


async def test_one_malformed_event_is_left_out_and_said_and_the_rest_is_read(
    via_proxy: tuple[Assistant, CalendarClient],
    fake_ollama: FakeOllama,
    proxy: Proxy,
    radicale: Radicale,
    account: str,
    caplog: pytest.LogCaptureFixture,
) -> None:
    put_raw(radicale.url, account, "Personal", "broken-lunch.ics", BROKEN)
    proxy.rewrite = break_the_lunch
    helper, calendar = via_proxy
    fake_ollama.enqueue_chat(call("list_events", day="tuesday"), "Three 1:1s and a call.")
    caplog.set_level(logging.INFO)
    await helper.respond("What's on tomorrow?")
    (result,) = tool_results(fake_ollama)
    assert '- 09:30 to 10:00: "1:1 with Marcus".' in result
    assert '- 14:00 to 14:45: "Nettle Pay partnership intro".' in result
    assert result.splitlines()[-1] == (
        "1 event in these days could not be read (malformed on the calendar server) and is not "
        "listed; open the calendar app to see it."
    )
    left_out = [r.getMessage() for r in caplog.records if "left out" in r.getMessage()]
    assert len(left_out) == 1 and "/broken-lunch.ics" in left_out[0]
    assert "broken-lunch@another.example" in left_out[0]
    assert "lunch plans" not in caplog.text.casefold()  # never the words of an event
    briefing = await make_briefing(helper.settings, TUESDAY, calendar=calendar, now=at(27, 7))
    assert briefing.text.startswith(
        "Tuesday 27 October: 3 events, first at 09:30 (1:1 with Marcus). 1 event could not be read."
    )


async def test_a_change_refused_with_403_is_not_called_a_wrong_password(
    via_proxy: tuple[Assistant, CalendarClient],
    fake_ollama: FakeOllama,
    proxy: Proxy,
    direct: CalendarClient,
) -> None:
    """A calendar shared read-only answers a PUT with 403 after the read at Yes worked with the
    same login: the owner was told the login was refused and to check the app password."""
    helper, _ = via_proxy
    fake_ollama.enqueue_chat(
        call("move_event", event="dentist", new_day="friday", new_time="10:00"), "Asked."
    )
    (question,) = (await helper.respond("Move the dentist to Friday at 10")).pending
    proxy.refuse["PUT"] = 403
    with pytest.raises(Refused) as refused:
        await helper.answer(question.id, yes=True)
    assert refused.value.code == "failed"
    assert refused.value.message.startswith("Nothing was changed: ")
    assert "refused the change (HTTP 403 Forbidden)" in refused.value.message
    assert "password" not in refused.value.message
    assert named(await direct.events_on(date(2026, 10, 29)), "Dentist") == [
        (at(29, 16), at(29, 16, 40))
    ]


# -- reads refused, or answered with something that is not CalDAV (blackbox7) ------------------


@pytest.mark.parametrize("method", ["PROPFIND", "REPORT"])
async def test_a_read_refused_with_403_is_not_called_a_wrong_password(
    settings: Settings, proxy: Proxy, account: str, method: str
) -> None:
    """A 401 and a 403 to a read both said "refused the login ... check the app password": a
    403 means the login may be right and this account may not read there (a URL for another
    account's calendars, a calendar no longer shared), so the owner was sent the wrong way."""
    client = CalendarClient(calendar_settings(settings, proxy.url, account), env=PASSWORD_ENV)
    proxy.refuse[method] = 403
    with pytest.raises(CalendarUnavailable) as forbidden:
        await client.events_on(TUESDAY)
    assert f"would not let {account} read it (HTTP 403 Forbidden)" in str(forbidden.value)
    assert "app password" not in str(forbidden.value)
    proxy.refuse[method] = 401
    with pytest.raises(CalendarUnavailable, match=f"refused the login for {account}"):
        await client.events_on(TUESDAY)


@pytest.mark.parametrize(
    ("method", "body", "said", "logged"),
    [
        (
            "PROPFIND",
            "Service temporarily unavailable \x01",
            "cannot be read as a calendar",
            "could not be read as CalDAV",
        ),
        # the request for events: tests/calendar/test_not_caldav.py has the other kinds
        ("REPORT", "", "with an empty answer, not CalDAV", "answered with an empty answer"),
    ],
)
async def test_an_answer_that_is_not_caldav_is_one_clear_line_not_a_traceback(
    settings: Settings,
    proxy: Proxy,
    account: str,
    method: str,
    body: str,
    said: str,
    logged: str,
    caplog: pytest.LogCaptureFixture,
) -> None:
    """A server (or a proxy in front of it) answering garbage logged a traceback at ERROR
    ("cannot read what the server sent"); now one warning line says what happened and what
    to do, and the owner's sentence says the same."""
    caplog.set_level(logging.INFO)
    client = CalendarClient(calendar_settings(settings, proxy.url, account), env=PASSWORD_ENV)
    proxy.rewrite = lambda m, b: body if m == method else b
    with pytest.raises(CalendarUnavailable) as unreadable:
        await client.events_on(TUESDAY)
    assert said in str(unreadable.value)
    assert "check [calendar] url" in str(unreadable.value).casefold()
    ours = [r for r in caplog.records if r.name.startswith("commonplace")]
    loud = [r for r in ours if r.levelno >= logging.WARNING]
    assert [r.levelname for r in loud] == ["WARNING"]
    assert logged in loud[0].getMessage()
    assert all(r.exc_info is None for r in ours if r.levelno >= logging.INFO)
    assert [r.levelname for r in ours if r.levelno >= logging.INFO] == ["WARNING"]  # one line


async def test_no_calendar_to_read_is_said_not_called_a_free_day(
    settings: Settings, proxy: Proxy, account: str
) -> None:
    """An answer to the calendar listing with no calendars in it (an HTML page that parses as
    XML, a URL for the wrong account) or a [calendar] read naming none that exist: every day
    was "no events", from nothing read."""
    client = CalendarClient(calendar_settings(settings, proxy.url, account), env=PASSWORD_ENV)
    proxy.rewrite = lambda m, b: (
        "<html><body>Sign in to the Wi-Fi</body></html>" if m == "PROPFIND" else b
    )
    with pytest.raises(CalendarUnavailable, match="answered with a web page, not CalDAV"):
        await client.events_on(TUESDAY)
    misnamed = calendar_settings(settings, proxy.url, account, read=("Persnal",))
    proxy.rewrite = None
    with pytest.raises(CalendarUnavailable, match=r"None of the calendars \[calendar\] read names"):
        await CalendarClient(misnamed, env=PASSWORD_ENV).events_on(TUESDAY)


async def test_doctor_says_a_web_page_is_not_caldav_and_does_not_send_the_owner_to_doctor(
    settings: Settings, proxy: Proxy, account: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A calendar listing answered with an HTML page made doctor say "logged in, but the
    account has no calendars", and its 403 sentence told the owner to run doctor."""
    monkeypatch.setenv(*next(iter(PASSWORD_ENV.items())))
    s = calendar_settings(settings, proxy.url, account)
    proxy.rewrite = lambda m, b: (
        "<html><body>Sign in to the Wi-Fi</body></html>" if m == "PROPFIND" else b
    )
    (page,) = await calendar_checks(s)
    assert page.level == "fail"
    assert "answered with a web page, not CalDAV" in page.message
    assert "Check [calendar] url" in page.message and "no calendars" not in page.message
    proxy.rewrite = None
    proxy.refuse["PROPFIND"] = 403
    (forbidden,) = await calendar_checks(s)
    assert forbidden.level == "fail"
    assert f"would not let {account} read it (HTTP 403 Forbidden)" in forbidden.message
    assert "doctor" not in forbidden.message
    with pytest.raises(CalendarUnavailable, match="Run `commonplace doctor` to list"):
        await CalendarClient(s, env=PASSWORD_ENV).events_on(TUESDAY)  # elsewhere it does


async def test_an_account_with_no_calendars_is_still_told_so(
    settings: Settings, proxy: Proxy, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(*next(iter(PASSWORD_ENV.items())))
    (empty,) = await calendar_checks(calendar_settings(settings, proxy.url, "nobody-here"))
    assert "logged in, but the account has no calendars" in empty.message
