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
    config = CalendarSettings(url=url, username=user, timeout_s=5.0)
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
