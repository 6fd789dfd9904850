"""A calendar that is down, slow, refuses the password, or is not set up: one clear sentence,
no traceback, nothing waits longer than the configured timeout, the password is never shown.
A change that could not reach the server says nothing was changed; one that reached it and got
no answer says it may have been made."""

from __future__ import annotations

import contextlib
import dataclasses
import logging
import socket
import struct
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import ExitStack, contextmanager
from datetime import date, datetime
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

import pytest

from commonplace.assistant import Assistant, Refused, build_assistant
from commonplace.calendar import (
    NOT_SET_UP,
    CalendarClient,
    CalendarError,
    CalendarNotSetUp,
    CalendarUnavailable,
    ChangeUnconfirmed,
    read_password,
)
from commonplace.config import CalendarSettings, ConfigError, Settings, load_settings
from commonplace.llm import make_llm
from tests.assistant.conftest import NOW, call
from tests.calendar.conftest import PASSWORD_ENV, SHORT_S, calendar_settings, shorten
from tests.calendar.radicale_server import Radicale, put_raw, running_radicale
from tests.calendar.test_days import one_event
from tests.fakes.ollama import FakeOllama
from tests.models import with_model

MONDAY = date(2026, 10, 26)
SECRET = "s3cret-app-password"


@pytest.fixture
def silent_server() -> Iterator[str]:
    """Accepts connections (the kernel does) and never answers."""
    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen(8)
        yield f"http://127.0.0.1:{listener.getsockname()[1]}/"


def closed_port_url() -> str:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    return f"http://127.0.0.1:{port}/"


async def test_not_set_up_says_so(settings: Settings) -> None:
    client = CalendarClient(settings, env={})
    assert not client.configured
    with pytest.raises(CalendarNotSetUp) as caught:
        await client.events_on(MONDAY)
    assert str(caught.value) == NOT_SET_UP
    assert "not set up" in NOT_SET_UP


async def test_a_server_that_is_down(settings: Settings) -> None:
    client = CalendarClient(calendar_settings(settings, closed_port_url(), "owner"), env={"X": "1"})
    with pytest.raises(CalendarUnavailable) as caught:
        await client.events_on(MONDAY)
    message = str(caught.value)
    assert message.startswith("The calendar at 127.0.0.1:")
    assert "is not answering (connection refused)" in message
    assert "Traceback" not in message and "\n" not in message


async def test_a_slow_server_gives_up_after_the_timeout(
    settings: Settings, silent_server: str
) -> None:
    client = CalendarClient(
        calendar_settings(settings, silent_server, "owner", timeout_s=1.0), env={}
    )
    started = time.monotonic()
    with pytest.raises(CalendarUnavailable, match=r"did not answer within 1 s"):
        await client.events_on(MONDAY)
    assert time.monotonic() - started < 10  # a bound for a busy machine: it would wait for ever


async def test_a_wrong_password_is_refused_with_what_to_do(
    settings: Settings, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    with running_radicale(tmp_path / "auth", users={"owner": "right"}) as server:
        wrong = CalendarClient(
            calendar_settings(settings, server.url, "owner"),
            env={"COMMONPLACE_CALDAV_PASSWORD": SECRET},
        )
        with pytest.raises(CalendarUnavailable) as caught:
            await wrong.events_on(MONDAY)
        assert str(caught.value).startswith("The calendar at 127.0.0.1:")
        assert "refused the login for owner" in str(caught.value)
        assert "app password" in str(caught.value)
        secret_file = tmp_path / "password"
        secret_file.write_text("right\n", encoding="utf-8")
        right = CalendarClient(
            calendar_settings(settings, server.url, "owner", password_file=str(secret_file)),
            env={},
        )
        with pytest.raises(CalendarUnavailable) as empty:  # logged in; no calendars yet
            await right.events_on(MONDAY)
        assert "shows no calendars for owner, so none was read" in str(empty.value)
    assert SECRET not in caplog.text and "right" not in str(caught.value)


def test_the_password_comes_from_the_environment_or_the_first_line_of_a_file(
    tmp_path: Path,
) -> None:
    path = tmp_path / "pw"
    path.write_text("  from-file  \nignored\n", encoding="utf-8")
    config = CalendarSettings(url="https://c.example/", username="me", password_file=str(path))
    assert read_password(config, {}) == "from-file"
    assert read_password(config, {"COMMONPLACE_CALDAV_PASSWORD": "from-env"}) == "from-env"
    assert read_password(dataclasses.replace(config, password_file=""), {}) == ""
    missing = dataclasses.replace(config, password_file=str(tmp_path / "nope"))
    with pytest.raises(CalendarNotSetUp, match=r"nope cannot be read \(No such file"):
        read_password(missing, {})


async def test_an_unreadable_password_file_is_a_clear_message(
    settings: Settings, tmp_path: Path
) -> None:
    client = CalendarClient(
        calendar_settings(
            settings, "http://127.0.0.1:9/", "me", password_file=str(tmp_path / "missing")
        ),
        env={},
    )
    with pytest.raises(CalendarNotSetUp, match=r"password file .* cannot be read"):
        await client.events_on(MONDAY)


def test_the_password_is_never_read_from_the_config_file(tmp_path: Path) -> None:
    config = tmp_path / "commonplace.toml"
    config.write_text(
        f'[calendar]\nurl = "https://caldav.example.com/"\npassword = "{SECRET}"\n',
        encoding="utf-8",
    )
    with pytest.raises(ConfigError) as caught:
        load_settings(config, env={})
    assert "password_file" in str(caught.value) and SECRET not in str(caught.value)


def test_a_calendar_url_must_be_a_web_address(tmp_path: Path) -> None:
    config = tmp_path / "commonplace.toml"
    config.write_text('[calendar]\nurl = "caldav.example.com"\n', encoding="utf-8")
    with pytest.raises(ConfigError, match="is not a web address"):
        load_settings(config, env={})


async def test_a_missing_write_calendar_is_named(cal_settings: Settings) -> None:
    settings = dataclasses.replace(
        cal_settings, calendar=dataclasses.replace(cal_settings.calendar, write="Family")
    )
    client = CalendarClient(settings, env={"COMMONPLACE_CALDAV_PASSWORD": "x"})
    with pytest.raises(CalendarUnavailable, match="no calendar called 'Family'"):
        await client.add("Swim", date(2026, 11, 2), None)


# -- a change that cannot reach the calendar (review leftover 1) ----------------------------------

LONDON = ZoneInfo("Europe/London")
SWIM = one_event("swim@phone", "Swim", "20261027T100000", "20261027T110000")


async def stored(settings: Settings, folder: Path, user: str) -> list[tuple[str, Any]]:
    """What the calendar in `folder` holds on 27 and 28 October, served afresh."""
    with running_radicale(folder) as again:
        check = CalendarClient(calendar_settings(settings, again.url, user), env=PASSWORD_ENV)
        events = await check.events_on(date(2026, 10, 27), 2)
        check.close()
    return [(e.title, e.start) for e in events]


def swim_assistant(
    stack: ExitStack, folder: Path, settings: Settings, fake_ollama: FakeOllama
) -> tuple[str, CalendarClient, Assistant]:
    """A Radicale (stopped when `stack` closes) whose calendar holds the swim, and the
    assistant that writes to it: the account, the client and the assistant."""
    server: Radicale = stack.enter_context(running_radicale(folder))
    user = server.new_account(calendars=("Personal",), load=False)
    put_raw(server.url, user, "Personal", "swim.ics", SWIM)
    s = calendar_settings(settings, server.url, user, write="Personal")
    s = with_model(s, host=fake_ollama.url)
    calendar = CalendarClient(s, env=PASSWORD_ENV)
    return user, calendar, build_assistant(s, make_llm(s), clock=lambda: NOW, calendar=calendar)


@pytest.mark.parametrize(
    ("request_words", "tool_call"),
    [
        ("Move my swim to 11", call("move_event", event="swim", new_time="11:00")),
        ("Cancel my swim", call("delete_event", event="swim")),
        (
            "Add a sauna tomorrow at 11",
            call("add_event", title="Sauna", day="2026-10-27", start_time="11:00"),
        ),
    ],
)
async def test_a_change_that_cannot_reach_the_calendar_changed_nothing_and_says_so(
    settings: Settings,
    fake_ollama: FakeOllama,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    request_words: str,
    tool_call: dict[str, Any],
) -> None:
    """The server stops between the re-check at Yes and the write: the connection is refused,
    so the request never left this computer. "It may have been made" would send the owner to
    look for a change that cannot be there; they are told nothing was changed, and it is so."""
    folder = tmp_path / "calendar"
    with ExitStack() as stack:
        user, calendar, helper = swim_assistant(stack, folder, settings, fake_ollama)
        fake_ollama.enqueue_chat(tool_call, "Asked.")
        (question,) = (await helper.respond(request_words)).pending
        real_send = calendar._send

        def stop_the_server_first(change: Callable[[], Any]) -> Any:
            stack.close()  # after the re-check (and the read just before the write)
            return real_send(change)

        monkeypatch.setattr(calendar, "_send", stop_the_server_first)
        with pytest.raises(Refused) as refused:
            await helper.answer(question.id, yes=True)
    assert refused.value.code == "failed"
    assert refused.value.message.startswith("Nothing was changed: The calendar at 127.0.0.1:")
    assert "is not answering (connection refused)" in refused.value.message
    assert "may have been made" not in refused.value.message
    assert await stored(settings, folder, user) == [
        ("Swim", datetime(2026, 10, 27, 10, 0, tzinfo=LONDON))
    ]


async def test_a_calendar_that_is_down_at_yes_is_a_failure_not_a_change(
    settings: Settings, fake_ollama: FakeOllama, tmp_path: Path
) -> None:
    """The re-check at Yes cannot reach the calendar: nothing was changed, and the reason is
    the calendar, not the event (code "failed"; "changed" told a program using the API that
    the event had been edited meanwhile)."""
    folder = tmp_path / "calendar"
    with ExitStack() as stack:
        user, _, helper = swim_assistant(stack, folder, settings, fake_ollama)
        fake_ollama.enqueue_chat(call("move_event", event="swim", new_time="11:00"), "Asked.")
        (question,) = (await helper.respond("Move my swim to 11")).pending
    with pytest.raises(Refused) as refused:  # the server has stopped
        await helper.answer(question.id, yes=True)
    assert refused.value.code == "failed"
    assert refused.value.message.startswith("Nothing was changed: The calendar at 127.0.0.1:")
    assert await stored(settings, folder, user) == [
        ("Swim", datetime(2026, 10, 27, 10, 0, tzinfo=LONDON))
    ]


_RESET = struct.pack("ii", 1, 0)


@contextmanager
def endpoint(kind: str) -> Iterator[str]:
    """A URL where a request fails in one way: nobody listening, a name that does not
    resolve, a TLS handshake refused or never answered, a request read and never answered,
    a request read and the connection reset."""
    if kind == "closed":
        yield f"{closed_port_url()}x.ics"
        return
    if kind == "unresolvable":
        yield "http://calendar.invalid/x.ics"
        return
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(8)
    held: list[socket.socket] = []

    def serve() -> None:
        while True:
            try:
                conn, _ = listener.accept()
            except OSError:
                return
            held.append(conn)
            if kind == "tls-refused":
                conn.sendall(b"HTTP/1.1 400 Not TLS\r\n\r\n")
                conn.close()
            elif kind == "cut-off":
                conn.recv(65536)
                conn.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, _RESET)
                conn.close()
            # "silent" and "tls-silent": held open, never a word

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    scheme = "https" if kind.startswith("tls") else "http"
    try:
        yield f"{scheme}://127.0.0.1:{listener.getsockname()[1]}/x.ics"
    finally:
        with contextlib.suppress(OSError):
            listener.shutdown(socket.SHUT_RDWR)  # wakes the accept() (close alone does not)
        listener.close()
        thread.join(5)
        for conn in held:
            conn.close()


@pytest.mark.parametrize(
    ("kind", "outcome", "words"),
    [
        ("closed", CalendarUnavailable, "is not answering (connection refused)"),
        ("unresolvable", CalendarUnavailable, "(the server's name cannot be looked up)"),
        ("tls-refused", CalendarUnavailable, "(the secure connection (TLS) failed)"),
        ("tls-silent", CalendarUnavailable, f"did not answer within {SHORT_S:g} s"),
        ("silent", ChangeUnconfirmed, f"did not answer the change within {SHORT_S:g} s, so it"),
        ("cut-off", ChangeUnconfirmed, "broke off the connection before answering the change"),
    ],
)
async def test_what_the_owner_is_told_depends_on_whether_the_change_left_this_computer(
    cal_settings: Settings,
    monkeypatch: pytest.MonkeyPatch,
    kind: str,
    outcome: type[CalendarError],
    words: str,
) -> None:
    """The same DELETE sent where it fails in each way (real sockets, real TLS). Before the
    request is on a live connection (refused, no such name, TLS handshake failed or timed out)
    nothing was changed; after (no answer, reset), it may have been. A TLS handshake that
    times out raises the same ReadTimeout as a silent server: only when it happened tells."""
    calendar = CalendarClient(cal_settings, env=PASSWORD_ENV)
    (haircut,) = [e for e in await calendar.events_on(date(2026, 10, 31)) if e.title == "Haircut"]
    shorten(calendar)  # the listing is done; the re-read before the DELETE shares the wait
    real_send = calendar._send
    with endpoint(kind) as url:

        def sent_there(change: Callable[[], Any]) -> Any:
            return real_send(lambda: calendar._dav().request(url, "DELETE"))

        monkeypatch.setattr(calendar, "_send", sent_there)
        with pytest.raises(CalendarError) as caught:
            await calendar.delete(haircut)
    assert type(caught.value) is outcome
    assert words in str(caught.value)
    calendar.close()
