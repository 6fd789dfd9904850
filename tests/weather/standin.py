"""A loopback stand-in for Open-Meteo's /v1/forecast, serving a recorded answer.

It checks the request the way the real API does where it matters to us (coordinates, known
daily variables, a timezone for daily data) and answers with the API's error shape
(`{"error": true, "reason": ...}`, HTTP 400) when they are wrong. `mode` makes it fail the
other ways the real one can: a server error, or no answer at all.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from aiohttp import web

RECORDED = Path(__file__).with_name("forecast_bristol.json")
KNOWN_DAILY = {
    "weather_code",
    "temperature_2m_max",
    "temperature_2m_min",
    "precipitation_probability_max",
    "precipitation_sum",
    "sunrise",
    "sunset",
}


class OpenMeteoStandIn:
    def __init__(self) -> None:
        self.requests: list[dict[str, str]] = []
        self.mode = "ok"  # "ok" | "refuse" | "error500" | "stall" | "broken"
        self.body: dict[str, Any] = json.loads(RECORDED.read_text(encoding="utf-8"))
        self.url = ""
        self.closing = asyncio.Event()  # set before the server closes: a stall then ends

    def app(self) -> web.Application:
        app = web.Application()
        app.router.add_get("/v1/forecast", self.forecast)
        return app

    async def forecast(self, request: web.Request) -> web.Response:
        query = dict(request.query)
        self.requests.append(query)
        if self.mode == "stall":  # 30 s, or until the test is over (closing waits for it)
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self.closing.wait(), 30)
        if self.mode == "error500":
            return web.Response(status=500, text="Internal Server Error")
        if self.mode == "broken":
            return web.json_response({"latitude": 51.46, "daily": {"time": ["2026-10-26"]}})
        problem = _check(query)
        if self.mode == "refuse":
            problem = "Latitude must be in range of -90 to 90°. Given: 451.4545."
        if problem:
            return web.json_response({"error": True, "reason": problem}, status=400)
        return web.json_response(self.body)


def _check(query: dict[str, str]) -> str:
    for name in ("latitude", "longitude"):
        if name not in query:
            return f"Parameter '{name}' is required"
        try:
            float(query[name])
        except ValueError:
            return f"Parameter '{name}' is not a number"
    daily = [d for d in query.get("daily", "").split(",") if d]
    unknown = [d for d in daily if d not in KNOWN_DAILY]
    if unknown:
        return f"Cannot initialize WeatherVariable from invalid String value {unknown[0]}"
    if daily and "timezone" not in query:
        return "Timezone is required"
    try:
        ZoneInfo(query.get("timezone", "GMT"))
    except (ZoneInfoNotFoundError, ValueError):
        return "Invalid timezone"
    return ""
