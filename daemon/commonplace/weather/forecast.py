"""Open-Meteo's daily forecast as plain values, and as text that cannot be misread.

The response is checked field by field: a day whose values are missing says so; nothing is
filled in. Temperatures are rounded to whole degrees Celsius; the day is named with its weekday
and how far away it is ("in 3 days"), computed from the user's today.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import date, datetime
from typing import Any

from commonplace.basics.dates import day_name, relative_day
from commonplace.weather import codes

DAILY = (
    "weather_code",
    "temperature_2m_max",
    "temperature_2m_min",
    "precipitation_probability_max",
)


CELSIUS = (-100.0, 100.0)  # beyond any temperature measured on Earth
PERCENT = (0.0, 100.0)
WMO_CODES = (0.0, 99.0)


class WeatherUnavailable(Exception):
    """No forecast can be given; str() says why, for the owner and the model."""


@dataclass(frozen=True)
class DayForecast:
    day: date
    high: float | None  # °C
    low: float | None
    chance: int | None  # precipitation probability, %
    code: int | None  # WMO weather code


@dataclass(frozen=True)
class Forecast:
    place: str
    days: tuple[DayForecast, ...]
    fetched: datetime

    def on(self, day: date) -> DayForecast | None:
        return next((d for d in self.days if d.day == day), None)


def parse(raw: Any, place: str, fetched: datetime) -> Forecast:
    """The daily block of a /v1/forecast answer; WeatherUnavailable if it is not one."""
    if not isinstance(raw, Mapping):
        raise WeatherUnavailable("the forecast service sent something that is not a forecast")
    if raw.get("error"):
        reason = str(raw.get("reason", "no reason given"))[:200]
        raise WeatherUnavailable(f"the forecast service refused the request: {reason}")
    daily = raw.get("daily")
    if not isinstance(daily, Mapping) or not isinstance(daily.get("time"), list):
        raise WeatherUnavailable("the forecast service sent no daily forecast")
    times = daily["time"]
    columns: dict[str, list[Any]] = {}
    for name in DAILY:
        column = daily.get(name)
        if not isinstance(column, list) or len(column) != len(times):
            raise WeatherUnavailable(f"the forecast service sent no usable {name}")
        columns[name] = column
    days = []
    for i, text in enumerate(times):
        try:
            day = date.fromisoformat(str(text))
        except ValueError:
            raise WeatherUnavailable("the forecast service sent a date it cannot read") from None
        days.append(
            DayForecast(
                day=day,
                high=_number(columns["temperature_2m_max"][i], *CELSIUS),
                low=_number(columns["temperature_2m_min"][i], *CELSIUS),
                chance=_whole(columns["precipitation_probability_max"][i], *PERCENT),
                code=_whole(columns["weather_code"][i], *WMO_CODES),
            )
        )
    return Forecast(place, tuple(days), fetched)


def _number(value: Any, low: float, high: float) -> float | None:
    """A figure, or None ("not given") for anything that is not a finite number in its range:
    Python's JSON reader accepts NaN and Infinity, and a forecast never shows a figure it did
    not get (nor a 10^300 °C it cannot have)."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    number = float(value)
    return number if math.isfinite(number) and low <= number <= high else None


def _whole(value: Any, low: float, high: float) -> int | None:
    number = _number(value, low, high)
    return None if number is None else round(number)


def conditions(day: DayForecast, *, percent: bool = True) -> str:
    """'11 to 16 °C, light rain likely (70%)'; parts the service did not give are left out."""
    parts = []
    if day.low is not None and day.high is not None:
        parts.append(f"{round(day.low)} to {round(day.high)} °C")
    elif day.high is not None:
        parts.append(f"up to {round(day.high)} °C")
    sky = codes.words(day.code) if day.code is not None else ""
    if day.chance is not None and (codes.falls(day.code) or day.chance >= 30):
        what = sky if codes.falls(day.code) else "rain"
        chance = f" ({day.chance}%)" if percent else ""
        wet = f"{what} {codes.likelihood(day.chance)}{chance}"
        parts.append(wet if codes.falls(day.code) else f"{sky}, {wet}" if sky else wet)
    elif sky:
        parts.append(sky)
    return ", ".join(parts) if parts else "no figures given"


def day_line(day: DayForecast, today: date) -> str:
    """'Thursday 29 October (in 3 days): 11 to 16 °C, light rain likely (70%)'."""
    return f"{day_name(day.day)} ({relative_day(day.day, today)}): {conditions(day)}"


def forecast_text(forecast: Forecast, first: date, days: int, today: date) -> str:
    """What the weather tool tells the model: the days asked for that the forecast covers, and
    plainly which it does not."""
    wanted = [first.fromordinal(first.toordinal() + i) for i in range(days)]
    lines = [f"Weather forecast for {forecast.place or 'the configured place'} (Open-Meteo):"]
    for day in wanted:
        found = forecast.on(day)
        if found is None:
            lines.append(f"{day_name(day)} ({relative_day(day, today)}): no forecast for this day.")
        else:
            lines.append(day_line(found, today))
    if forecast.days and any(forecast.on(d) is None for d in wanted):
        lines.append(
            f"The forecast covers {day_name(forecast.days[0].day)} to "
            f"{day_name(forecast.days[-1].day)} only."
        )
    return "\n".join(lines)
