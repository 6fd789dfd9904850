"""One spelling for dates, times and numbers, so that a fact is found however it is written.

fixture_guide.md asks graders to compare case-insensitively and to treat '26 NOV',
'26 November' and 2026-11-26 as one date, '9am' and '09:00' as one time, '80g' and '80 g' as
one amount. `normalise` rewrites both the fact and the answer to one form before comparing.
"""

from __future__ import annotations

import re
import unicodedata

from commonplace.basics.dates import MONTHS

_MONTH = "(" + "|".join(sorted(MONTHS, key=len, reverse=True)) + r")\b\.?"
ISO_DATE = re.compile(r"\b(\d{4})-(\d{2})-(\d{2})\b")
DAY_MONTH = re.compile(r"\b(\d{1,2})(?:st|nd|rd|th)?(?:\s+of)?\s+" + _MONTH + r"(?:,?\s+(\d{4}))?")
MONTH_DAY = re.compile(r"\b" + _MONTH + r"\s+(\d{1,2})(?:st|nd|rd|th)?(?!\d)(?:,?\s+(\d{4}))?")
_SLASH_DATE = re.compile(r"(?<![\d/])(\d{1,2})/(\d{1,2})(?:/(\d{4}))?(?![\d/])")
_AMPM = re.compile(r"\b(\d{1,2})(?:[:.](\d{2}))?\s*([ap])\.?m\b\.?")
_CLOCK = re.compile(r"(?<![\d:.])(\d{1,2}):(\d{2})(?![\d:])")
_ORDINAL = re.compile(r"(?<=\d)(?:st|nd|rd|th)\b")
_THOUSANDS = re.compile(r"(?<=\d),(?=\d{3}\b)")
_UNIT_GAP = re.compile(r"(?<=\d)(?=[a-z£$€])")
_MARKUP = re.compile(r"[*_`]+")


def _date_token(month: int, day: int, year: str | None) -> str:
    if not (1 <= month <= 12 and 1 <= day <= 31):
        return ""
    return f"date:{month:02d}-{day:02d}" + (f" {year}" if year else "")


def fold(text: str) -> str:
    """Lower case, accents and typographic quotes and dashes plain, markup stars gone."""
    text = unicodedata.normalize("NFKD", text)
    text = "".join(c for c in text if not unicodedata.combining(c))
    text = text.replace("’", "'").replace("‘", "'").replace("“", '"').replace("”", '"')
    text = text.replace("–", "-").replace("—", "-").replace("\u00a0", " ")
    return _MARKUP.sub("", text.lower())


def normalise(text: str) -> str:
    """One spelling for dates, times and numbers, as fixture_guide.md asks:
    '26 NOV' = '26 November' = 'November 26th' -> 'date:11-26'; 2026-11-26 -> 'date:11-26 2026';
    '9am' = '09:00' = '9:00 a.m.' -> 'time:09:00'; '80g' = '80 g'; '2,000' = '2000'."""
    text = fold(text)
    text = _THOUSANDS.sub("", text)

    def iso(m: re.Match[str]) -> str:
        return _date_token(int(m[2]), int(m[3]), m[1]) or m[0]

    def day_month(m: re.Match[str]) -> str:
        return _date_token(MONTHS[m[2]], int(m[1]), m[3]) or m[0]

    def month_day(m: re.Match[str]) -> str:
        return _date_token(MONTHS[m[1]], int(m[2]), m[3]) or m[0]

    def slash(m: re.Match[str]) -> str:  # the fixture's owner writes dates the British way
        return _date_token(int(m[2]), int(m[1]), m[3]) or m[0]

    def ampm(m: re.Match[str]) -> str:
        hour, minute = int(m[1]), int(m[2] or 0)
        if not 1 <= hour <= 12 or minute > 59:
            return m[0]
        hour = hour % 12 + (12 if m[3] == "p" else 0)
        return f"time:{hour:02d}:{minute:02d}"

    def clock(m: re.Match[str]) -> str:
        hour, minute = int(m[1]), int(m[2])
        return f"time:{hour:02d}:{minute:02d}" if hour < 24 and minute < 60 else m[0]

    for pattern, repl in (
        (ISO_DATE, iso),
        (DAY_MONTH, day_month),
        (MONTH_DAY, month_day),
        (_SLASH_DATE, slash),
        (_AMPM, ampm),
        (_CLOCK, clock),
    ):
        text = pattern.sub(repl, text)
    text = _ORDINAL.sub("", text)
    text = _UNIT_GAP.sub(" ", text)
    return " ".join(text.split())
