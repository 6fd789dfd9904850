"""A calendar that is down, slow, refuses the password, or is not set up: one clear sentence,
no traceback, nothing waits longer than the configured timeout, the password is never shown."""

from __future__ import annotations

import dataclasses
import logging
import socket
import time
from collections.abc import Iterator
from datetime import date
from pathlib import Path

import pytest

from commonplace.calendar import (
    NOT_SET_UP,
    CalendarClient,
    CalendarNotSetUp,
    CalendarUnavailable,
    read_password,
)
from commonplace.config import CalendarSettings, ConfigError, Settings, load_settings
from tests.calendar.conftest import calendar_settings
from tests.calendar.radicale_server import running_radicale

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
    assert time.monotonic() - started < 2.5


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
        assert await right.events_on(MONDAY) == []  # logged in; no calendars yet
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
