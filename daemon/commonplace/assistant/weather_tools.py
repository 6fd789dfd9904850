"""The weather for the assistant: one read tool over the Open-Meteo forecast.

Offline, or not set up, the tool says so in words the model can repeat; it never makes weather
up, and a day the forecast does not cover is named as such.
"""

from __future__ import annotations

from datetime import date
from typing import Any

from commonplace.assistant.actions import ToolError
from commonplace.assistant.registry import Param, Tool, ToolContext
from commonplace.config import Settings
from commonplace.weather import NOT_SET_UP, WeatherUnavailable, forecast_text, get_forecast

MAX_DAYS = 14
MAX_AWAY_DAYS = 366  # the forecast covers a week; a day further than this is a mistake


def weather_tools(settings: Settings) -> list[Tool]:
    async def weather(ctx: ToolContext, args: dict[str, Any]) -> str:
        if not settings.weather.configured:
            return NOT_SET_UP
        first: date = args["day"] or ctx.today
        days: int = args["days"]
        if not 1 <= days <= MAX_DAYS:
            raise ToolError(f"'days' must be 1 to {MAX_DAYS}")
        if abs((first - ctx.today).days) > MAX_AWAY_DAYS:  # a mistake, and no date past 9999
            raise ToolError(f"'day' {first.isoformat()} must be within a year of today")
        try:
            forecast = await get_forecast(settings, now=ctx.now)
        except WeatherUnavailable as exc:
            return f"The forecast is unavailable: {exc}. Do not guess the weather."
        return forecast_text(forecast, first, days, ctx.today)

    return [
        Tool(
            "weather",
            "Call when the owner asks about the weather, rain or temperature on a day.",
            (
                Param("day", "date", "the first day", None, said="day"),
                Param("days", "integer", f"how many days, 1 to {MAX_DAYS}", 1, said="days"),
            ),
            weather,
            looks_at="weather",
            status="Looking at the forecast…",
        )
    ]
