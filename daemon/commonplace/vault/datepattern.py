"""Logseq's date patterns, for the names of its journal pages ("MMM do, yyyy": "Nov 30th, 2026").

Logseq formats and reads journal titles with cljs-time, in its own fork (logseq/cljs-time,
src/cljs_time/internal/{parse,unparse}.cljs). Its pattern language, as read here:

- a run of one ASCII letter is a field: `d` `dd` (day, `D` `DD` `DDD` too: cljs-time reads
  them as the day of the month), `M` `MM` (month number), `MMM` `MMMM` (month name, short and
  full), `y` `yy` `yyyy` (`Y...` the same), `E` `EEE` `EEEE` (day name, short and full), `e`
  (day of the week, Monday 1), `o` (the ordinal suffix of the day before it: `do` is "30th");
- text in single quotes is copied (`''` is one quote), and any run of other characters
  (`, ` `-` `.` `/` `_` `年`) is copied as it is.

That covers every format Logseq offers in its settings (logseq.common.date/
built-in-journal-title-formatters). Time fields (`HH`, `mm`, `a`, ...) and the week-year
fields make no sense in a day's page name and are refused with PatternError (Logseq itself
throws on a letter it does not know), so the caller can say so and use the default.

Names are English, as cljs-time's are. Reading is case-blind, as Logseq capitalises a name
before reading it, and takes a month or day name short or in full, as cljs-time does.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass
from datetime import date

from commonplace.basics.dates import MONTH_NAMES, WEEKDAY_NAMES

MONTHS = MONTH_NAMES
DAYS = WEEKDAY_NAMES

# field -> (what it is, fewest digits written, most digits kept), as cljs-time's unparse has it
_NUMBERS = {
    "d": ("day", 1, 2),
    "dd": ("day", 2, 2),
    "D": ("day", 1, 3),
    "DD": ("day", 2, 3),
    "DDD": ("day", 3, 3),
    "M": ("month", 1, 2),
    "MM": ("month", 2, 2),
    "y": ("year", 1, 4),
    "yy": ("year", 2, 2),
    "yyyy": ("year", 4, 4),
    "Y": ("year", 1, 4),
    "YY": ("year", 2, 2),
    "YYYY": ("year", 4, 4),
    "e": ("weekday", 1, 1),
}
_NAMES = {"MMM": ("month", True), "MMMM": ("month", False)}
_NAMES |= {"E": ("weekday", True), "EEE": ("weekday", True), "EEEE": ("weekday", False)}

_MONTH_NAMES = "|".join(sorted((*MONTHS, *(m[:3] for m in MONTHS)), key=len, reverse=True))
_DAY_NAMES = "|".join(sorted((*DAYS, *(d[:3] for d in DAYS)), key=len, reverse=True))


class PatternError(ValueError):
    """A pattern this module cannot read, with the reason (the field it does not know)."""


@dataclass(frozen=True)
class Part:
    field: str  # "" for copied text
    text: str  # the field's letters, or the text to copy


def read_pattern(pattern: str) -> tuple[Part, ...]:
    """The pattern's parts, split the way cljs-time's read-pattern splits them."""
    parts: list[Part] = []
    i = 0
    while i < len(pattern):
        ch = pattern[i]
        if ch == "'":
            if pattern.startswith("''", i):
                parts.append(Part("", "'"))
                i += 2
                continue
            end = pattern.find("'", i + 1)
            end = len(pattern) if end < 0 else end
            parts.append(Part("", pattern[i + 1 : end]))
            i = end + 1
        elif ch.isascii() and ch.isalpha():
            j = i
            while j < len(pattern) and pattern[j] == ch:
                j += 1
            parts.append(Part(pattern[i:j], pattern[i:j]))
            i = j
        else:
            j = i
            while j < len(pattern) and not (
                pattern[j] == "'" or (pattern[j].isascii() and pattern[j].isalpha())
            ):
                j += 1
            parts.append(Part("", pattern[i:j]))
            i = j
    return tuple(parts)


@functools.lru_cache(maxsize=64)
def compile_pattern(pattern: str) -> tuple[Part, ...]:
    """The parts of a pattern, checked: PatternError names the first field it cannot use."""
    if not pattern.strip():
        raise PatternError("the format is empty")
    parts = read_pattern(pattern)
    for i, part in enumerate(parts):
        if not part.field or part.field in _NUMBERS or part.field in _NAMES:
            continue
        if part.field == "o":
            before = parts[i - 1].field if i else ""
            if _NUMBERS.get(before, ("",))[0] == "day":
                continue
            raise PatternError("'o' (the ordinal suffix) must follow the day, as in 'do'")
        raise PatternError(f"{part.field!r} is not a day, month or year field")
    return parts


def compile_day_name(pattern: str) -> tuple[Part, ...]:
    """compile_pattern, for a journal's name: it must also tell one day from another, or every
    journal (of a year, of a month) gets the same name ("'Journal'", "yyyy", "MMM do")."""
    parts = compile_pattern(pattern)
    named = {_NUMBERS.get(p.field, _NAMES.get(p.field, ("",)))[0] for p in parts}
    if not {"day", "month", "year"} <= named:
        raise PatternError("it must name the day, the month and the year")
    return parts


def ordinal_suffix(day: int) -> str:
    """cljs-time's: 1st 2nd 3rd 4th ... 11th 12th 13th ... 21st 22nd 23rd ... 31st."""
    return {1: "st", 2: "nd", 3: "rd", 21: "st", 22: "nd", 23: "rd", 31: "st"}.get(day, "th")


def format_day(pattern: str, day: date) -> str:
    """`day` written in the pattern ("MMM do, yyyy" -> "Nov 30th, 2026"); PatternError if the
    pattern cannot be read."""
    values = {"day": day.day, "month": day.month, "year": day.year, "weekday": day.isoweekday()}
    out: list[str] = []
    for part in compile_pattern(pattern):
        if not part.field:
            out.append(part.text)
        elif part.field == "o":
            out.append(ordinal_suffix(day.day))
        elif part.field in _NAMES:
            what, short = _NAMES[part.field]
            name = MONTHS[day.month - 1] if what == "month" else DAYS[day.weekday()]
            out.append(name[:3] if short else name)
        else:
            what, fewest, most = _NUMBERS[part.field]
            digits = str(values[what]).zfill(fewest)
            out.append(digits[-most:])
    return "".join(out)


@functools.lru_cache(maxsize=64)
def _matcher(pattern: str) -> re.Pattern[str] | None:
    """A regular expression that reads a whole name in the pattern, or None when the pattern
    does not name a day (no year, month or day field)."""
    found: set[str] = set()
    regex: list[str] = []
    for n, part in enumerate(compile_pattern(pattern)):
        if not part.field:
            regex.append(re.escape(part.text))
        elif part.field == "o":
            regex.append("(?:st|nd|rd|th)")
        elif part.field in _NAMES:
            what, _ = _NAMES[part.field]
            names = _MONTH_NAMES if what == "month" else _DAY_NAMES
            regex.append(f"(?P<{what}_n{n}>{names})" if what == "month" else f"(?:{names})")
            found.add(what)
        else:
            what, fewest, most = _NUMBERS[part.field]
            # cljs-time reads up to `most` digits and accepts fewer than `fewest`
            digits = f"\\d{{1,{max(most, fewest)}}}"
            regex.append(f"(?P<{what}_{n}>{digits})" if what != "weekday" else digits)
            found.add(what)
    if not {"day", "month", "year"} <= found:
        return None
    return re.compile("".join(regex), re.IGNORECASE)


def parse_day(pattern: str, text: str) -> date | None:
    """The day `text` names in the pattern, or None (not in the pattern, or no such day);
    PatternError if the pattern cannot be read. The whole text must match, as in cljs-time."""
    matcher = _matcher(pattern)
    match = matcher.fullmatch(text.strip()) if matcher is not None else None
    if match is None:
        return None
    values: dict[str, int] = {}
    for key, value in match.groupdict().items():
        what, _, kind = key.partition("_")
        if kind.startswith("n"):  # a month name
            values[what] = _month_number(value)
        else:
            values[what] = int(value)
            if what == "year" and len(value) <= 2 and _two_digit_year(pattern):
                values[what] += 2000
    try:
        return date(values["year"], values["month"], values["day"])
    except ValueError:
        return None


def _month_number(name: str) -> int:
    key = name[:3].casefold()
    return next(i for i, m in enumerate(MONTHS, 1) if m[:3].casefold() == key)


def _two_digit_year(pattern: str) -> bool:
    return any(p.field in ("yy", "YY") for p in compile_pattern(pattern))
