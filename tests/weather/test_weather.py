"""The forecast against a loopback stand-in of Open-Meteo: words, cache, offline, refusals."""

from __future__ import annotations

import dataclasses
import socket
import time
from collections.abc import AsyncIterator
from datetime import date, datetime, timedelta
from zoneinfo import ZoneInfo

import pytest
import pytest_asyncio
from aiohttp.test_utils import TestServer

from commonplace.config import Settings, WeatherSettings
from commonplace.weather import (
    NOT_SET_UP,
    DayForecast,
    WeatherUnavailable,
    conditions,
    day_line,
    forecast_text,
    get_forecast,
)
from commonplace.weather.client import cache_path
from commonplace.weather.codes import words
from tests.weather.standin import OpenMeteoStandIn

LONDON = ZoneInfo("Europe/London")
NOW = datetime(2026, 10, 26, 7, 0, tzinfo=LONDON)
TODAY = NOW.date()


@pytest_asyncio.fixture
async def standin() -> AsyncIterator[OpenMeteoStandIn]:
    stand = OpenMeteoStandIn()
    server = TestServer(stand.app(), host="127.0.0.1")
    await server.start_server()
    stand.url = f"http://127.0.0.1:{server.port}/v1/forecast"
    try:
        yield stand
    finally:
        stand.closing.set()
        await server.close()


def weather_settings(settings: Settings, url: str, **changes: object) -> Settings:
    weather = WeatherSettings(latitude=51.4545, longitude=-2.5879, place="Bristol", url=url)
    return dataclasses.replace(settings, weather=dataclasses.replace(weather, **changes))


@pytest.fixture
def wsettings(settings: Settings, standin: OpenMeteoStandIn) -> Settings:
    return weather_settings(settings, standin.url, timeout_s=30.0)  # room on a busy machine


@pytest.mark.parametrize(
    ("code", "expected"),
    [
        (0, "clear sky"),
        (1, "mainly clear"),
        (2, "partly cloudy"),
        (3, "overcast"),
        (45, "fog"),
        (48, "freezing fog"),
        (53, "drizzle"),
        (56, "light freezing drizzle"),
        (61, "light rain"),
        (65, "heavy rain"),
        (67, "heavy freezing rain"),
        (71, "light snow"),
        (77, "snow grains"),
        (81, "rain showers"),
        (86, "heavy snow showers"),
        (95, "thunderstorms"),
        (99, "thunderstorms with heavy hail"),
        (42, "conditions unknown (code 42)"),
        (None, "conditions not given"),
    ],
)
def test_wmo_codes_in_words(code: int | None, expected: str) -> None:
    assert words(code) == expected


@pytest.mark.parametrize(
    ("day", "expected"),
    [
        (DayForecast(TODAY, 16.0, 11.3, 70, 61), "11 to 16 °C, light rain likely (70%)"),
        (DayForecast(TODAY, 13.4, 9.0, 45, 80), "9 to 13 °C, light rain showers possible (45%)"),
        (DayForecast(TODAY, 2.0, -3.4, 20, 73), "-3 to 2 °C, snow unlikely (20%)"),
        (DayForecast(TODAY, 12.1, 5.4, 40, 2), "5 to 12 °C, partly cloudy, rain possible (40%)"),
        (DayForecast(TODAY, 12.1, 5.4, 10, 2), "5 to 12 °C, partly cloudy"),
        (DayForecast(TODAY, 11.0, None, None, 45), "up to 11 °C, fog"),
        (DayForecast(TODAY, None, None, None, None), "no figures given"),
    ],
)
def test_conditions_cannot_be_misread(day: DayForecast, expected: str) -> None:
    assert conditions(day) == expected


async def test_the_forecast_is_fetched_with_the_users_timezone(
    wsettings: Settings, standin: OpenMeteoStandIn
) -> None:
    forecast = await get_forecast(wsettings, now=NOW)
    (query,) = standin.requests
    assert query["timezone"] == "Europe/London"
    assert query["latitude"] == "51.4545" and query["longitude"] == "-2.5879"
    assert set(query["daily"].split(",")) == {
        "weather_code",
        "temperature_2m_max",
        "temperature_2m_min",
        "precipitation_probability_max",
    }
    assert forecast.days[0].day == TODAY and len(forecast.days) == 7
    thursday = forecast.on(date(2026, 10, 29))
    assert thursday is not None
    assert day_line(thursday, TODAY) == (
        "Thursday 29 October (in 3 days): 8 to 13 °C, rain likely (90%)"
    )


async def test_the_weather_tool_text_names_days_outside_the_forecast(
    wsettings: Settings,
) -> None:
    forecast = await get_forecast(wsettings, now=NOW)
    text = forecast_text(forecast, date(2026, 10, 31), 3, TODAY)
    assert text.splitlines() == [
        "Weather forecast for Bristol (Open-Meteo):",
        "Saturday 31 October (in 5 days): 4 to 11 °C, fog",
        "Sunday 1 November (in 6 days): 3 to 11 °C, mainly clear",
        "Monday 2 November (in 7 days): no forecast for this day.",
        "The forecast covers Monday 26 October to Sunday 1 November only.",
    ]


async def test_the_forecast_is_kept_for_thirty_minutes(
    wsettings: Settings, standin: OpenMeteoStandIn
) -> None:
    await get_forecast(wsettings, now=NOW)
    await get_forecast(wsettings, now=NOW + timedelta(minutes=29))
    assert len(standin.requests) == 1
    assert cache_path(wsettings).is_file()
    await get_forecast(wsettings, now=NOW + timedelta(minutes=31))
    assert len(standin.requests) == 2
    elsewhere = dataclasses.replace(
        wsettings, weather=dataclasses.replace(wsettings.weather, latitude=53.8)
    )
    await get_forecast(elsewhere, now=NOW + timedelta(minutes=32))
    assert len(standin.requests) == 3  # another place is another request


async def test_offline_the_forecast_is_unavailable_never_stale(
    wsettings: Settings, standin: OpenMeteoStandIn
) -> None:
    await get_forecast(wsettings, now=NOW)
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        closed = f"http://127.0.0.1:{probe.getsockname()[1]}/v1/forecast"
    offline = dataclasses.replace(
        wsettings, weather=dataclasses.replace(wsettings.weather, url=closed)
    )
    assert (await get_forecast(offline, now=NOW + timedelta(minutes=10))).days  # cache: fine
    with pytest.raises(WeatherUnavailable, match="cannot be reached"):
        await get_forecast(offline, now=NOW + timedelta(hours=2))  # too old to show


async def test_a_slow_service_is_unavailable_within_the_timeout(
    wsettings: Settings, standin: OpenMeteoStandIn
) -> None:
    standin.mode = "stall"
    slow = dataclasses.replace(
        wsettings, weather=dataclasses.replace(wsettings.weather, timeout_s=1)
    )
    started = time.monotonic()
    with pytest.raises(WeatherUnavailable, match="did not answer in time"):
        await get_forecast(slow, now=NOW)
    assert time.monotonic() - started < 10  # the stand-in stalls 30 s: not waited for


@pytest.mark.parametrize(
    ("mode", "message"),
    [("error500", "answered HTTP 500"), ("broken", "sent no usable weather_code")],
)
async def test_a_failing_service_is_unavailable(
    wsettings: Settings, standin: OpenMeteoStandIn, mode: str, message: str
) -> None:
    standin.mode = mode
    with pytest.raises(WeatherUnavailable, match=message):
        await get_forecast(wsettings, now=NOW)
    assert not cache_path(wsettings).exists()


async def test_a_refused_request_gives_the_services_reason(
    wsettings: Settings, standin: OpenMeteoStandIn
) -> None:
    standin.mode = "refuse"
    with pytest.raises(WeatherUnavailable, match="HTTP 400: Latitude must be in range"):
        await get_forecast(wsettings, now=NOW)


async def test_not_set_up(settings: Settings) -> None:
    with pytest.raises(WeatherUnavailable) as caught:
        await get_forecast(settings, now=NOW)
    assert str(caught.value) == NOT_SET_UP


async def test_nan_and_infinity_in_the_answer_are_figures_not_given(
    wsettings: Settings, standin: OpenMeteoStandIn
) -> None:
    """Python's JSON reader accepts NaN and Infinity (the stand-in sends them as aiohttp
    writes them): they read as missing, never as a crash or a '-inf °C'."""
    daily = standin.body["daily"]
    daily["temperature_2m_max"][3] = float("nan")
    daily["temperature_2m_min"][3] = float("-inf")
    daily["precipitation_probability_max"][3] = float("inf")
    daily["weather_code"][3] = float("nan")
    daily["temperature_2m_max"][4] = 1e300  # a number, but no temperature
    forecast = await get_forecast(wsettings, now=NOW)
    thursday = forecast.on(date(2026, 10, 29))
    assert thursday == DayForecast(date(2026, 10, 29), None, None, None, None)
    assert day_line(thursday, TODAY) == "Thursday 29 October (in 3 days): no figures given"
    friday = forecast.on(date(2026, 10, 30))
    assert friday is not None and friday.high is None and friday.low is not None
