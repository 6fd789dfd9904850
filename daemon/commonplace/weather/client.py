"""Fetching the forecast from Open-Meteo (no key), kept for 30 minutes in the data folder.

One request gives the next seven days of daily maximum and minimum temperature, precipitation
probability and weather code, for the configured place, with `timezone` set to the user's zone
(the API needs it for daily values, and the days are then the user's days). Offline, slow or
refused: `WeatherUnavailable`, and the tool says the forecast is unavailable. A forecast is
never made up, and never older than the cache's 30 minutes.
"""

from __future__ import annotations

import logging
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import aiohttp

from commonplace.config import Settings
from commonplace.runtime.statefile import read_json, write_json
from commonplace.weather.forecast import DAILY, Forecast, WeatherUnavailable, parse

log = logging.getLogger(__name__)

CACHE_FOR = timedelta(minutes=30)
FORECAST_DAYS = 7
NOT_SET_UP = (
    "The weather is not set up: set [weather] latitude, longitude and place in "
    "commonplace.toml (see the docs' calendar and weather how-to)."
)


def cache_path(settings: Settings) -> Path:
    return settings.data_path / "weather" / "forecast.json"


def request_params(settings: Settings) -> dict[str, str]:
    weather = settings.weather
    return {
        "latitude": f"{weather.latitude:.4f}",
        "longitude": f"{weather.longitude:.4f}",
        "daily": ",".join(DAILY),
        "timezone": settings.tz.key,
        "forecast_days": str(FORECAST_DAYS),
    }


async def get_forecast(
    settings: Settings, *, now: datetime, session: aiohttp.ClientSession | None = None
) -> Forecast:
    """The forecast from the cache if it is fresh and for the same request, else the API."""
    if not settings.weather.configured:
        raise WeatherUnavailable(NOT_SET_UP)
    params = request_params(settings)
    cached = _from_cache(settings, params, now)
    if cached is not None:
        return cached
    raw = await _fetch(settings, params, session)
    forecast = parse(raw, settings.weather.place, now)
    try:
        write_json(
            cache_path(settings),
            {"fetched": now.isoformat(), "request": params, "response": raw},
        )
    except OSError as exc:  # the forecast is still good; the next call fetches again
        log.warning("weather: cannot keep the forecast in %s: %s", cache_path(settings), exc)
    log.info("weather: fetched %d day(s)", len(forecast.days))
    return forecast


def _from_cache(settings: Settings, params: dict[str, str], now: datetime) -> Forecast | None:
    raw = read_json(cache_path(settings))
    if not isinstance(raw, dict) or raw.get("request") != params:
        return None
    try:
        fetched = datetime.fromisoformat(str(raw.get("fetched")))
    except ValueError:
        return None
    if fetched.tzinfo is None or not timedelta(0) <= now - fetched <= CACHE_FOR:
        return None
    try:
        return parse(raw.get("response"), settings.weather.place, fetched)
    except WeatherUnavailable:
        return None


async def _fetch(
    settings: Settings, params: dict[str, str], session: aiohttp.ClientSession | None
) -> Any:
    timeout = aiohttp.ClientTimeout(total=settings.weather.timeout_s)
    own = session is None
    client = session or aiohttp.ClientSession()
    try:
        async with client.get(settings.weather.url, params=params, timeout=timeout) as answer:
            try:
                body = await answer.json(content_type=None)
            except ValueError:
                body = None
            if answer.status != 200:
                reason = body.get("reason") if isinstance(body, dict) else None
                raise WeatherUnavailable(
                    f"the forecast service answered HTTP {answer.status}"
                    + (f": {str(reason)[:200]}" if reason else "")
                )
            return body
    except (aiohttp.ClientError, TimeoutError, OSError) as exc:
        log.info("weather: %s", type(exc).__name__)
        what = "did not answer in time" if isinstance(exc, TimeoutError) else "cannot be reached"
        raise WeatherUnavailable(f"the forecast service {what} (offline?)") from None
    finally:
        if own:
            await client.close()
