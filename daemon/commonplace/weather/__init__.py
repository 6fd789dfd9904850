"""The weather forecast from Open-Meteo: daily, cached, and never made up.

May import: basics, config, runtime.
"""

from commonplace.weather.client import NOT_SET_UP, get_forecast
from commonplace.weather.forecast import (
    DayForecast,
    Forecast,
    WeatherUnavailable,
    conditions,
    day_line,
    forecast_text,
)

__all__ = [
    "NOT_SET_UP",
    "DayForecast",
    "Forecast",
    "WeatherUnavailable",
    "conditions",
    "day_line",
    "forecast_text",
    "get_forecast",
]
