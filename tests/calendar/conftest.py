"""Calendar fixtures: one real Radicale for the session, a fresh account with the fixture week
for each test, and settings that point the calendar at it (times in Europe/London)."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator
from pathlib import Path

import pytest

from commonplace.calendar import CalendarClient
from commonplace.config import CalendarSettings, Settings
from tests.calendar.proxy import Proxy, proxy_to
from tests.calendar.radicale_server import Radicale, running_radicale
from tests.weather.test_weather import standin

__all__ = ["standin"]  # the Open-Meteo stand-in, for the weather tool's tests

PASSWORD_ENV = {"COMMONPLACE_CALDAV_PASSWORD": "any (auth.type = none)"}

GENEROUS_S = 30.0
"""The calendar's wait in tests that are not about a timeout: no busy machine comes near it
(the test Radicale runs in the test's own process, so a loaded machine slows it down too)."""

SHORT_S = 3.0
"""The wait in tests about a timeout. What such a test times out never answers in time (the
proxy swallows it, or holds its answer far longer), so the wait runs out whatever the load;
set it with `shorten` once the client has listed the calendars under GENEROUS_S, so that
nothing but a re-read or two shares it."""


def shorten(calendar: CalendarClient, seconds: float = SHORT_S) -> None:
    """From now on the client waits `seconds` ([calendar] timeout_s), for the caller and for
    each request, as if configured so. The listing of the calendars, the slow part on a loaded
    machine, was done under GENEROUS_S and is kept (the client lists again only after
    DISCOVERY_TTL_S)."""
    calendar.config = dataclasses.replace(calendar.config, timeout_s=seconds)
    if calendar._client is not None:  # its request timeout comes from timeout_s when made
        calendar._client._full_timeout = max(1, round(seconds))


@pytest.fixture(scope="session")
def radicale(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Radicale]:
    with running_radicale(tmp_path_factory.mktemp("radicale")) as server:
        yield server


@pytest.fixture
def proxy(radicale: Radicale) -> Iterator[Proxy]:
    """The Radicale server behind a proxy that can answer a method in its place (proxy.py)."""
    with proxy_to(radicale.url) as served:
        yield served


@pytest.fixture
def account(radicale: Radicale) -> str:
    return radicale.new_account(calendars=("Personal", "Work"))


def calendar_settings(settings: Settings, url: str, user: str, **changes: object) -> Settings:
    config = CalendarSettings(url=url, username=user, timeout_s=GENEROUS_S)
    return dataclasses.replace(settings, calendar=dataclasses.replace(config, **changes))


@pytest.fixture
def cal_settings(settings: Settings, radicale: Radicale, account: str) -> Settings:
    return calendar_settings(settings, radicale.url, account)


@pytest.fixture
def client(cal_settings: Settings) -> CalendarClient:
    return CalendarClient(cal_settings, env=PASSWORD_ENV)


@pytest.fixture
def password_file(tmp_path: Path) -> Path:
    path = tmp_path / "caldav-password"
    path.write_text("right\n", encoding="utf-8")
    return path
