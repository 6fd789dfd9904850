"""WMO weather interpretation codes (WW), as Open-Meteo's `weather_code` uses them, in words.

A code that is not in the table is said to be unknown; it is never guessed from its neighbours.
"""

from __future__ import annotations

WORDS: dict[int, str] = {
    0: "clear sky",
    1: "mainly clear",
    2: "partly cloudy",
    3: "overcast",
    45: "fog",
    48: "freezing fog",
    51: "light drizzle",
    53: "drizzle",
    55: "heavy drizzle",
    56: "light freezing drizzle",
    57: "freezing drizzle",
    61: "light rain",
    63: "rain",
    65: "heavy rain",
    66: "light freezing rain",
    67: "heavy freezing rain",
    71: "light snow",
    73: "snow",
    75: "heavy snow",
    77: "snow grains",
    80: "light rain showers",
    81: "rain showers",
    82: "violent rain showers",
    85: "light snow showers",
    86: "heavy snow showers",
    95: "thunderstorms",
    96: "thunderstorms with hail",
    99: "thunderstorms with heavy hail",
}


def words(code: int | None) -> str:
    if code is None:
        return "conditions not given"
    return WORDS.get(code, f"conditions unknown (code {code})")


def falls(code: int | None) -> bool:
    """Drizzle, rain, snow, showers or thunderstorms: the code itself says something falls."""
    return code is not None and code in WORDS and code >= 51


def likelihood(chance: int) -> str:
    """A precipitation probability in words; the number is always shown next to it."""
    if chance >= 70:
        return "likely"
    if chance >= 30:
        return "possible"
    return "unlikely"
