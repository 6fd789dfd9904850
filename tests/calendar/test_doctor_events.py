"""`commonplace doctor` reads today's events, as the assistant does, against the real Radicale.

Doctor listed the calendars (PROPFIND) and never asked for events (REPORT), so a calendar whose
request for events was answered by a sign-in page, refused, or never answered was reported as
working, and the owner learnt otherwise from the assistant or the morning briefing. The proxy
answers the REPORT alone in the server's place; the calendars are still listed by Radicale.
Doctor's lines name how many calendars were read, never an event (its output is pasted into
bug reports), and it only reads. The whole calendar part waits at most `[calendar] timeout_s`
(it used to wait once for the listing and again for the events), and leaves nothing open: no
connection to the server, no keep-alive thread, no request still waited for in a thread.
"""

from __future__ import annotations

import dataclasses
import re
import sys
import threading
import time
import traceback
from datetime import datetime

import pytest
from click.testing import CliRunner

from commonplace.cli.main import cli
from commonplace.config import Settings
from commonplace.doctor.checks import Check, calendar_checks
from tests.calendar.conftest import PASSWORD_ENV, SHORT_S, calendar_settings
from tests.calendar.proxy import Proxy
from tests.calendar.radicale_server import Radicale, put_raw
from tests.calendar.test_not_caldav import SIGN_IN, WHAT_TO_DO
from tests.fakes.ollama import FakeOllama
from tests.models import with_model

READS = {"PROPFIND", "REPORT", "OPTIONS", "GET", "HEAD"}
SECRET = "Secret lunch plans"


def today(settings: Settings) -> str:
    return datetime.now(settings.tz).date().strftime("%Y%m%d")


def lunch_today(settings: Settings) -> str:
    """An event at 12:30 today in the owner's zone (doctor reads today, whatever the date)."""
    day = today(settings)
    return (
        "BEGIN:VCALENDAR\nVERSION:2.0\nPRODID:-//Another app//EN\nBEGIN:VEVENT\n"
        "UID:lunch-today@another.example\nDTSTAMP:20261020T090000Z\n"
        f"DTSTART;TZID=Europe/London:{day}T123000\nDTEND;TZID=Europe/London:{day}T133000\n"
        f"SUMMARY:{SECRET}\nEND:VEVENT\nEND:VCALENDAR\n"
    )


@pytest.fixture(autouse=True)
def _password(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(*next(iter(PASSWORD_ENV.items())))


@pytest.fixture
def through_proxy(settings: Settings, proxy: Proxy, account: str) -> Settings:
    return calendar_settings(settings, proxy.url, account)


# The tests of doctor's one wait: a listing held LISTING_HOLD_S per PROPFIND (four of them) and
# events never answered. Doctor must be done soon after ONE_WAIT_S; waiting for the listing and
# then again for the events would take LISTING_HOLD_S * 4 + ONE_WAIT_S at least. The listing's
# own work gets the rest of the wait (4 s here: Radicale runs in this process, and a busy machine
# slows it), and the bound leaves 3 s for the end of doctor.
ONE_WAIT_S = 8.0
LISTING_HOLD_S = 1.0
ONE_WAIT_BOUND_S = ONE_WAIT_S + 3.0


def lines(checks: list[Check]) -> list[str]:
    """The lines, each list of calendars sorted (Radicale lists them in no fixed order)."""
    return [_NAMES.sub(lambda m: ", ".join(sorted(m[0].split(", "))), c.line()) for c in checks]


_NAMES = re.compile(r"(?:(?<=\()|(?<=: ))[^():]+(?:, [^():]+)+(?=\)$)")


async def test_a_working_calendar_says_todays_events_can_be_read_and_shows_none(
    through_proxy: Settings, proxy: Proxy, radicale: Radicale, account: str
) -> None:
    put_raw(radicale.url, account, "Personal", "lunch-today.ics", lunch_today(through_proxy))
    checks = await calendar_checks(through_proxy)
    assert lines(checks)[:2] == [
        f"ok   calendar: {proxy.url} (2 calendar(s): Personal, Work)",
        "ok   calendar events: today's events can be read from 2 calendar(s) (Personal, Work)",
    ]
    assert all(c.level == "ok" for c in checks)
    assert SECRET.casefold() not in "\n".join(lines(checks)).casefold()
    assert "REPORT" in proxy.methods()  # the events were asked for, not only the calendars
    assert set(proxy.methods()) <= READS  # doctor never writes to the calendar


async def test_only_the_calendars_read_are_counted(through_proxy: Settings) -> None:
    personal = dataclasses.replace(
        through_proxy, calendar=dataclasses.replace(through_proxy.calendar, read=("personal",))
    )
    checks = await calendar_checks(personal)
    assert lines(checks)[1] == (
        "ok   calendar events: today's events can be read from 1 calendar(s) (Personal)"
    )


async def test_a_request_for_events_answered_with_a_web_page_fails_and_says_what_to_do(
    through_proxy: Settings, proxy: Proxy
) -> None:
    proxy.answer["REPORT"] = (200, "text/html; charset=utf-8", SIGN_IN)
    listed, events, *_ = await calendar_checks(through_proxy)
    assert listed.level == "ok"  # the calendars are still listed: that alone said "fine"
    assert events.level == "fail" and events.name == "calendar events"
    assert events.message.startswith(f"The calendar at {proxy.url[7:-1]} answered the request ")
    assert "for events with a web page, not CalDAV, so no events could be read" in events.message
    assert events.message.endswith(WHAT_TO_DO)
    assert "doctor" not in events.message


@pytest.mark.parametrize(
    ("status", "said"),
    [
        (403, "would not let {account} read it (HTTP 403 Forbidden)"),
        (405, "answered with an error (ReportError"),  # a server that does not do REPORT
    ],
)
async def test_a_refused_request_for_events_fails_with_the_assistants_sentence(
    through_proxy: Settings, proxy: Proxy, account: str, status: int, said: str
) -> None:
    proxy.refuse["REPORT"] = status
    listed, events, *_ = await calendar_checks(through_proxy)
    assert listed.level == "ok" and events.level == "fail"
    assert said.format(account=account) in events.message
    assert "app password" not in events.message and "doctor" not in events.message


def calendar_threads(before: set[threading.Thread], settle_s: float = 15.0) -> list[str]:
    """Threads besides those `before` still busy with the calendar: a request in caldav or the
    calendar client, or the HTTP pool's keep-alive watcher (which a client that is never closed
    leaves running). Threads that are ending get `settle_s` to end. (Other tests' clients are
    not this test's business: their threads were there before.)"""
    end = time.monotonic() + settle_s
    while True:
        frames = sys._current_frames()
        busy = []
        for thread in set(threading.enumerate()) - before:
            frame = frames.get(thread.ident or -1)
            files = [f.filename for f in traceback.extract_stack(frame)] if frame else []
            calendar = any("/caldav/" in f or "commonplace/calendar/" in f for f in files)
            if calendar or "idle_conn_watch_task" in thread.name:
                busy.append(thread.name)
        if not busy or time.monotonic() > end:
            return busy
        time.sleep(0.05)


async def test_a_working_calendars_check_leaves_no_connection_or_thread_open(
    through_proxy: Settings, proxy: Proxy
) -> None:
    before = set(threading.enumerate())
    checks = await calendar_checks(through_proxy)
    assert [c.level for c in checks] == ["ok", "ok", "ok"]
    assert proxy.open_connections() == 0  # the keep-alive connection was closed
    assert calendar_threads(before) == []


async def test_one_wait_for_the_whole_calendar_part_however_it_is_spent(
    through_proxy: Settings, proxy: Proxy
) -> None:
    """A slow listing (a good part of the wait) and events never answered: doctor used to
    wait the whole timeout for each, and then for the request it had given up on, with its
    connection open."""
    settings = dataclasses.replace(
        through_proxy, calendar=dataclasses.replace(through_proxy.calendar, timeout_s=ONE_WAIT_S)
    )
    proxy.hold["PROPFIND"] = LISTING_HOLD_S  # the four PROPFINDs of the listing: half the wait
    proxy.swallow.add("REPORT")
    before = set(threading.enumerate())
    started = time.monotonic()
    checks = await calendar_checks(settings)
    took = time.monotonic() - started
    assert lines(checks)[:2] == [
        f"ok   calendar: {proxy.url} (2 calendar(s): Personal, Work)",
        f"FAIL calendar events: The calendar at {proxy.url[7:-1]} did not answer within "
        f"{ONE_WAIT_S:g} s. "
        "Try again later, or raise [calendar] timeout_s.",
    ]
    assert took < ONE_WAIT_BOUND_S < LISTING_HOLD_S * 4 + ONE_WAIT_S, took
    assert proxy.methods().count("REPORT") == 1  # asked once, then nothing more was sent
    assert proxy.open_connections() == 0  # the swallowed request's connection too
    assert calendar_threads(before) == []


async def test_a_listing_that_never_ends_is_one_wait_and_the_calendar_line_says_so(
    through_proxy: Settings, proxy: Proxy
) -> None:
    """Nothing but the listing, never answered: a wait of SHORT_S, not the proxy's 30 s."""
    through_proxy = dataclasses.replace(
        through_proxy, calendar=dataclasses.replace(through_proxy.calendar, timeout_s=SHORT_S)
    )
    proxy.swallow.add("PROPFIND")
    before = set(threading.enumerate())
    started = time.monotonic()
    checks = await calendar_checks(through_proxy)
    took = time.monotonic() - started
    assert lines(checks) == [
        f"FAIL calendar: The calendar at {proxy.url[7:-1]} did not answer within {SHORT_S:g} s. "
        "Try again later, or raise [calendar] timeout_s."
    ]
    assert took < SHORT_S + 10, took  # far from the 30 s the proxy would hold it
    assert proxy.open_connections() == 0
    assert calendar_threads(before) == []


def test_a_server_that_never_answers_the_request_for_events_is_a_timeout_within_the_bound(
    through_proxy: Settings, proxy: Proxy, fake_ollama_thread: FakeOllama
) -> None:
    """The whole command, as the owner runs it: one wait for the calendar (its listing and
    the events together), and it must not wait on the request it gave up on its way out."""
    s = dataclasses.replace(
        with_model(through_proxy, host=fake_ollama_thread.url),
        calendar=dataclasses.replace(through_proxy.calendar, timeout_s=ONE_WAIT_S),
    )
    proxy.hold["PROPFIND"] = LISTING_HOLD_S
    proxy.swallow.add("REPORT")
    before = set(threading.enumerate())
    started = time.monotonic()
    result = CliRunner().invoke(cli, ["doctor"], obj={"settings": s})
    took = time.monotonic() - started
    assert result.exit_code == 1, result.output
    (line,) = [x for x in result.output.splitlines() if x.startswith("FAIL calendar events: ")]
    assert f"The calendar at {proxy.url[7:-1]} did not answer within {ONE_WAIT_S:g} s." in line
    assert "raise [calendar] timeout_s" in line
    # one wait and the rest of doctor (about 0.2 s on an idle machine); two waits would be
    # 12 s at least, and the proxy would hold the request for 30 s
    assert took < ONE_WAIT_BOUND_S, took
    assert proxy.open_connections() == 0
    assert calendar_threads(before) == []


async def test_an_unreadable_event_today_is_a_warning_without_its_title(
    through_proxy: Settings, proxy: Proxy, radicale: Radicale, account: str
) -> None:
    put_raw(radicale.url, account, "Personal", "lunch-today.ics", lunch_today(through_proxy))
    start = f"DTSTART;TZID=Europe/London:{today(through_proxy)}T123000"
    proxy.rewrite = lambda method, body: body.replace(start, "DTSTART:lunchtime")
    checks = await calendar_checks(through_proxy)
    assert lines(checks)[1:3] == [
        "ok   calendar events: today's events can be read from 2 calendar(s) (Personal, Work)",
        "warn calendar events: 1 event in these days could not be read (malformed on the "
        "calendar server) and is not listed; open the calendar app to see it.",
    ]
    assert SECRET.casefold() not in "\n".join(lines(checks)).casefold()


async def test_read_naming_no_calendar_there_fails_without_sending_the_owner_to_doctor(
    through_proxy: Settings,
) -> None:
    """Every day would be unread: a warning about the name alone undersold it."""
    misnamed = dataclasses.replace(
        through_proxy, calendar=dataclasses.replace(through_proxy.calendar, read=("Persnal",))
    )
    checks = await calendar_checks(misnamed)
    assert [c.level for c in checks][:3] == ["ok", "fail", "warn"]
    assert checks[1].message.startswith("None of the calendars [calendar] read names is at ")
    assert checks[1].message.endswith(
        "Fix [calendar] read with names from the calendars listed above."
    )
    assert "[calendar] read names 'Persnal'" in checks[2].message
