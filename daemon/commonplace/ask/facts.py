"""The checkable facts of a text: dates, times, numbers, codes and names, each in one spelling.

A small model writes "9am" where the note says "09:00", "forty" where it says "40", "Feb 9th"
where it says "9 February 2027"; the program has to see those as the same fact to tell whether
an answer's facts stand in the passages it was given (support.py). Each fact gets one or more
keys ("time:09:00", "num:40", "date:02-09"); a fact is held by a text when one of its keys is
among the text's keys. Pure functions of text, tested as tables.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass

from commonplace.basics.dates import MONTHS

_NUMBER_WORDS = {
    "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8, "nine": 9,
    "ten": 10, "eleven": 11, "twelve": 12, "thirteen": 13, "fourteen": 14, "fifteen": 15,
    "sixteen": 16, "seventeen": 17, "eighteen": 18, "nineteen": 19, "twenty": 20, "thirty": 30,
    "forty": 40, "fifty": 50, "sixty": 60, "hundred": 100, "twice": 2, "dozen": 12,
}  # fmt: skip
_MONTH = "(" + "|".join(sorted(MONTHS, key=len, reverse=True)) + r")\.?(?![a-z])"
_ORD = r"(?:st|nd|rd|th)?"
_YEAR = r"(?:,?\s+((?:19|20)\d{2})(?!\d))?"
_ISO = re.compile(r"(?<!\d)((?:19|20)\d{2})-(\d{2})-(\d{2})(?!\d)")
_DAY_MONTH = re.compile(r"(?<![\d:.])(\d{1,2})" + _ORD + r"(?:\s+of)?\s+" + _MONTH + _YEAR)
_MONTH_DAY = re.compile(r"(?<![a-z])" + _MONTH + r"\s+(\d{1,2})" + _ORD + r"(?![\d:])" + _YEAR)
_MONTH_YEAR = re.compile(r"(?<![a-z])" + _MONTH + r"\s+((?:19|20)\d{2})(?!\d)")
_DAY_ONLY = re.compile(r"(?<![\d:.£$€])(\d{1,2})(?:st|nd|rd|th)(?![a-z])")
_AMPM = re.compile(r"(?<![\d:.])(\d{1,2})(?:[:.](\d{2}))?\s*([ap])\.?\s?m(?![a-z])\.?")
_CLOCK = re.compile(r"(?<![\d:.])(\d{1,2}):(\d{2})(?![\d:])")
_DURATION = re.compile(r"(?<![\d:.])\d{1,2}(?::\d{2}){1,2}(?![\d:])")
_CODE = re.compile(r"(?<![\w-])(?=[a-z-]*\d)(?=[\d-]*[a-z])[a-z0-9]+(?:-[a-z0-9]+)*(?![\w-])")
_NUMBER = re.compile(r"(?<![\w.])\d+(?:,\d{3})*(?:\.\d+)?(?![\d])")
_NUMBER_WORD = re.compile(r"(?<![a-z-])(" + "|".join(_NUMBER_WORDS) + r")(?![a-z-])")
_NAME = re.compile(r"(?<![\w'’])[A-Z][\w'’&-]*")
_WORD = re.compile(r"[a-z0-9]+(?:'[a-z]+)?")

# Capitalised words that name nothing in particular: a sentence's first word, the days of the
# week (daywords.py dates those), months (dates above), pronouns.
_NOT_NAMES_TEXT = """i i'm i've i'll i'd you your yours it its the a an this that these those
    there here yes no not and but or so if in on at by for to of with from as my me we our us he
    she they his her their them what when where which who why how is are was were be been do
    does did monday tuesday wednesday thursday friday saturday sunday mon tue tues wed thu thur
    thurs fri sat sun today tomorrow yesterday next last also both each every all some any none
    please note notes passage passages according based sorry unfortunately however then"""
_NOT_NAMES = frozenset(_NOT_NAMES_TEXT.split())


@dataclass(frozen=True)
class Fact:
    """One fact as written (`text`), and the keys any one of which a text must hold for it."""

    kind: str  # date, day, time, num, code, name
    text: str
    keys: frozenset[str]


def fold(text: str) -> str:
    """Lower case, accents and typographic quotes and dashes made plain, markup stars gone."""
    text = unicodedata.normalize("NFKD", text)
    text = "".join(c for c in text if not unicodedata.combining(c))
    for a, b in (("’", "'"), ("‘", "'"), ("“", '"'), ("”", '"'), ("–", "-"), ("—", "-")):
        text = text.replace(a, b)
    text = text.replace("\u00a0", " ").replace("\u202f", " ")
    return re.sub(r"[*_`]+", "", text.lower())


def _number_key(raw: str) -> str:
    value = float(raw.replace(",", ""))
    return f"num:{value:g}"


def facts(text: str) -> list[Fact]:
    """Every checkable fact in `text`, in order of appearance, dates and times before numbers
    (a date's day or a time's hour is no number of its own)."""
    low = fold(text)
    same = len(low) == len(text)  # folding kept the length: facts are quoted as written
    taken = [False] * len(low)
    found: list[tuple[int, Fact]] = []

    def add(start: int, end: int, kind: str, keys: set[str]) -> None:
        if any(taken[start:end]) or not keys:
            return
        taken[start:end] = [True] * (end - start)
        found.append(
            (start, Fact(kind, (text if same else low)[start:end].strip(), frozenset(keys)))
        )

    def add_date(m: re.Match[str], month: int, day: int, year: int) -> None:
        """A date; its year (group `year` of the match), when written, is a number the text
        must hold too."""
        if not (1 <= month <= 12 and 1 <= day <= 31) or any(taken[m.start() : m.end()]):
            return
        add(m.start(), m.end(), "date", {f"date:{month:02d}-{day:02d}"})
        if m[year]:
            shown = (text if same else low)[m.start(year) : m.end(year)]
            found.append((m.start(), Fact("num", shown, frozenset({_number_key(m[year])}))))

    for m in _ISO.finditer(low):
        add_date(m, int(m[2]), int(m[3]), 1)
    for m in _DAY_MONTH.finditer(low):
        add_date(m, MONTHS[m[2]], int(m[1]), 3)
    for m in _MONTH_DAY.finditer(low):
        add_date(m, MONTHS[m[1]], int(m[2]), 3)
    for m in _MONTH_YEAR.finditer(low):
        add(m.start(), m.end(), "date", {f"month:{MONTHS[m[1]]:02d}", _number_key(m[2])})
    for m in _AMPM.finditer(low):
        hour, minute = int(m[1]), int(m[2] or 0)
        if 1 <= hour <= 12 and minute < 60:
            hour = hour % 12 + (12 if m[3] == "p" else 0)
            add(m.start(), m.end(), "time", {f"time:{hour:02d}:{minute:02d}"})
    for m in _CLOCK.finditer(low):
        hour, minute = int(m[1]), int(m[2])
        if hour < 24 and minute < 60:
            add(m.start(), m.end(), "time", {f"time:{hour:02d}:{minute:02d}"})
    for m in _DURATION.finditer(low):
        add(m.start(), m.end(), "num", {"dur:" + m[0].lstrip("0")})
    for m in _DAY_ONLY.finditer(low):
        if 1 <= int(m[1]) <= 31:
            add(m.start(), m.end(), "day", {f"day:{int(m[1])}"})
    for m in _CODE.finditer(low):
        if not re.fullmatch(r"\d+(?:st|nd|rd|th|[a-z]{1,3})", m[0]):  # 45min, 3rd, 80g: numbers
            add(m.start(), m.end(), "code", {"code:" + m[0].replace("-", "")})
    for m in _NUMBER.finditer(low):
        add(m.start(), m.end(), "num", {_number_key(m[0])})
    for m in _NUMBER_WORD.finditer(low):
        add(m.start(), m.end(), "num", {f"num:{_NUMBER_WORDS[m[1]]}"})
    found += names(text)
    found.sort(key=lambda item: item[0])
    return [f for _, f in found]


def names(text: str) -> list[tuple[int, Fact]]:
    """Capitalised words that are not a sentence's ordinary first word, a weekday, a month or
    a pronoun: the names a text mentions ("Rachel", "Nettle", "Germidour")."""
    out: list[tuple[int, Fact]] = []
    for m in _NAME.finditer(text):
        word = fold(m[0]).strip("'-&")
        word = re.sub(r"'s$", "", word)
        if not word or word in _NOT_NAMES or word in MONTHS or len(word) < 2:
            continue
        if any(ch.isdigit() for ch in word):
            continue  # a code, seen above
        out.append((m.start(), Fact("name", word, frozenset({"name:" + word}))))
    return out


def keys_of(text: str) -> set[str]:
    """Everything `text` holds that a fact can be matched against: each fact's keys, a date's
    day alone ("the 29th" is held by "2026-10-29"), a date's month, and every word (a name is
    held by the word anywhere, capitalised or not, singular or plural)."""
    keys: set[str] = set()
    for f in facts(text):
        keys |= f.keys
        for key in f.keys:
            if key.startswith("date:"):
                month, day = key[5:].split("-")
                keys.add(f"day:{int(day)}")
                keys.add(f"month:{month}")
    for word in _WORD.findall(fold(text)):
        keys.add("name:" + word)
        keys.add("name:" + re.sub(r"(?:'s|s|es)$", "", word))
    return keys


def held(fact: Fact, keys: set[str]) -> bool:
    """Does a text with `keys` hold this fact? A name also matches its singular or plural."""
    if fact.keys & keys:
        return True
    if fact.kind == "name":
        word = next(iter(fact.keys))[5:]
        return any(f"name:{w}" in keys for w in (word + "s", word + "es", word.removesuffix("s")))
    return False
