"""Day words computed in code (principle 4): "this Thursday" in a question, "by friday" in a
capture, each given its date before the model reads it.

A small model asked "Is chess with Sam on this Thursday?" on a Monday cannot work out which
Thursday that is, nor that "thurs 29th" in Saturday's capture is the same day; it answered
"Yes" (issue 43). The program writes the date beside the words: the question gets a line
naming the days it means, and a passage from a note of one day (a capture, a daily note) gets
its relative words followed by the date they meant on that day: "by friday [Friday 30 October
2026]". The words themselves are never changed. Pure functions of text and a date.
"""

from __future__ import annotations

import re
from datetime import date, timedelta

from commonplace.basics.dates import MONTH_NAMES, WEEKDAY_NAMES, day_name_year

_WEEKDAYS = {
    "monday": 0, "mon": 0, "tuesday": 1, "tue": 1, "tues": 1, "wednesday": 2, "wed": 2,
    "weds": 2, "thursday": 3, "thu": 3, "thur": 3, "thurs": 3, "friday": 4, "fri": 4,
    "saturday": 5, "sat": 5, "sunday": 6, "sun": 6,
}  # fmt: skip
WEEKDAY_WORDS = _WEEKDAYS  # every spelling of a weekday, and its number (Monday is 0)
_DAY = "(" + "|".join(sorted(_WEEKDAYS, key=len, reverse=True)) + ")"
_ORD = r"(\d{1,2})(?:st|nd|rd|th)"
_MONTH_WORDS = (
    "|".join(m.lower() for m in MONTH_NAMES) + "|jan|feb|mar|apr|jun|jul|aug|sep|sept|oct|nov|dec"
)

# A weekday with its day of the month: "thurs 29th", "Thursday the 29th" (the month found
# from the note's own day). Not when a month follows: "Fri 30 Oct" is a whole date already.
_DAY_NTH = re.compile(
    rf"\b{_DAY}\s+(?:the\s+)?{_ORD}\b(?!\s+(?:of\s+)?(?:{_MONTH_WORDS})\b)", re.IGNORECASE
)
_BARE_NTH = re.compile(
    rf"\b(?:on|by|until|till|before|from)\s+the\s+{_ORD}\b(?!\s+(?:of\s+)?(?:{_MONTH_WORDS})\b)",
    re.IGNORECASE,
)
# "by friday", "this Thursday", "next wed", "on Saturday"; a plural ("Thursdays") is a habit,
# and a weekday followed by a date ("Wed 28 Oct") is already a date.
_NAMED_DAY = re.compile(
    rf"\b(this|next|by|on|until|till|before|from|coming|due)\s+{_DAY}(?!s\b|\w)"
    rf"(?!\s+(?:the\s+)?\d)",
    re.IGNORECASE,
)
_SIMPLE = re.compile(r"\b(today|tonight|tomorrow|yesterday)\b", re.IGNORECASE)
_WEEK = re.compile(r"\b(this|last|next)\s+(week|weekend|month)\b", re.IGNORECASE)
_MONTH_END = re.compile(r"\b(?:the\s+)?end\s+of\s+(?:the|this)\s+month\b", re.IGNORECASE)


def weekday_after(day: date, weekday: int, *, same_day: bool = False) -> date:
    """The first `weekday` after `day` (or `day` itself when `same_day` and it is one)."""
    ahead = (weekday - day.weekday()) % 7
    if ahead == 0 and not same_day:
        ahead = 7
    return day + timedelta(days=ahead)


def nth_after(day: date, nth: int, weekday: int | None = None) -> date | None:
    """The first date on or after `day` whose day of the month is `nth` (and whose weekday is
    `weekday`, when given: "thurs 29th" must be a Thursday); None when there is none within
    two months or the weekday does not match."""
    year, month = day.year, day.month
    for _ in range(3):
        try:
            found = date(year, month, nth)
        except ValueError:
            found = None
        if found is not None and found >= day:
            if weekday is not None and found.weekday() != weekday:
                return None
            return found
        month += 1
        if month == 13:
            year, month = year + 1, 1
    return None


def _named(word: str, lead: str, day: date) -> date:
    """A weekday after `lead` ("by", "this", "next", ...) seen from `day`: the coming one.
    "this Monday" said on a Monday is that day; otherwise always the next one to come (the
    fixture guide's reading: "by next wednesday" on Thursday 22 October is the 28th)."""
    weekday = _WEEKDAYS[word.lower().rstrip(".")]
    return weekday_after(day, weekday, same_day=lead.lower() == "this")


def _span(first: date, last: date) -> str:
    if first.year == last.year and first.month == last.month:
        return f"{WEEKDAY_NAMES[first.weekday()]} {first.day} – {day_name_year(last)}"
    return f"{day_name_year(first)} – {day_name_year(last)}"


def _period(word: str, which: str, day: date) -> str | None:
    which, word = which.lower(), word.lower()
    step = {"this": 0, "last": -1, "next": 1}[which]
    if word == "month":
        month = day.month - 1 + step
        year = day.year + month // 12
        first = date(year, month % 12 + 1, 1)
        nxt = date(first.year + first.month // 12, first.month % 12 + 1, 1)
        return _span(first, nxt - timedelta(days=1))
    monday = day - timedelta(days=day.weekday()) + timedelta(weeks=step)
    if word == "week":
        return _span(monday, monday + timedelta(days=6))
    return _span(monday + timedelta(days=5), monday + timedelta(days=6))


def day_words(text: str, day: date) -> list[tuple[int, int, str]]:
    """Every relative day expression in `text` seen from `day`: (start, end, what it means)."""
    found: list[tuple[int, int, str]] = []

    def add(m: re.Match[str], meaning: str | None) -> None:
        if meaning and not any(s < m.end() and m.start() < e for s, e, _ in found):
            found.append((m.start(), m.end(), meaning))

    for m in _DAY_NTH.finditer(text):
        weekday = _WEEKDAYS[m[1].lower().rstrip(".")]
        on = nth_after(day, int(m[2]), weekday)
        add(m, day_name_year(on) if on else None)
    for m in _BARE_NTH.finditer(text):
        on = nth_after(day, int(m[1]))
        add(m, day_name_year(on) if on else None)
    for m in _NAMED_DAY.finditer(text):
        add(m, day_name_year(_named(m[2], m[1], day)))
    for m in _SIMPLE.finditer(text):
        shift = {"today": 0, "tonight": 0, "tomorrow": 1, "yesterday": -1}[m[1].lower()]
        add(m, day_name_year(day + timedelta(days=shift)))
    for m in _WEEK.finditer(text):
        add(m, _period(m[2], m[1], day))
    for m in _MONTH_END.finditer(text):
        nxt = date(day.year + day.month // 12, day.month % 12 + 1, 1)
        add(m, day_name_year(nxt - timedelta(days=1)))
    return sorted(found)


def mark_days(text: str, day: date) -> str:
    """`text` with each relative day expression followed by its date in brackets."""
    out, last = [], 0
    for _start, end, meaning in day_words(text, day):
        out.append(text[last:end] + f" [{meaning}]")
        last = end
    return "".join(out) + text[last:]


def question_days(question: str, today: date) -> str:
    """One line naming the days the question's words mean, or "" when it names none."""
    said = [f'"{question[s:e]}" is {meaning}' for s, e, meaning in day_words(question, today)]
    return ("In the question, " + "; ".join(said) + ".") if said else ""


_STAMP = re.compile(r"^(\d{4})[-_](\d{2})[-_](\d{2})(?!\d)")


def day_of_note(path: str) -> date | None:
    """The day a note belongs to when its file is named by it (a capture, `Inbox/2026-10-24
    1430.md`; a filed capture; a daily note or journal page): relative words in it were written
    that day. Other notes grow over months, so their words are left alone."""
    name = path.rsplit("/", 1)[-1]
    m = _STAMP.match(name)
    if not m:
        return None
    try:
        return date(int(m[1]), int(m[2]), int(m[3]))
    except ValueError:
        return None
