"""A to-do's due date, from the capture's own words (principle 4: dates are computed in code).

The model is offered the days the capture names, as its words ("by friday", "tomorrow"), and
for each to-do it picks the words that say by when, or none. The date is then computed here
from the capture's day and time (basics/daywords.py), and kept only where the owner's words
support it for this to-do:

- the words picked must name a day, and the capture's own words must name that same day (a
  date the model worked out or made up, where the capture names no such day, is left out; a
  model that writes an ISO date the capture's words do name is believed);
- the day must be named in the sentence the to-do comes from, and nearer to this to-do's
  words than to any other to-do's ("by friday" in "order the timber by friday ... and ring mum
  at some point" belongs to the timber);
- between the capture's day and a year later.

Where the model's words give no such day (it picked another day the capture names, or none),
the one deadline the owner's sentence sets for this to-do ("... by wed") is used: words the
program can read as well as the model.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date, datetime

from commonplace.basics.daywords import DayWords, find_days, resolve
from commonplace.tidy import support

MAX_OFFERED = 12  # days offered to the model: a long capture names many
_TOKEN = re.compile(r"[^\W_]+(?:['’][^\W_]+)*")
_SENTENCE_END = re.compile(r"[.!?]+(?=\s|$)|\n")
_DEADLINE_WORDS = frozenset({"by", "before", "until", "till", "til", "due"})
_DEADLINE_BEFORE = re.compile(r"\b(?:by|before|until|till|til|due)\s+$", re.IGNORECASE)


@dataclass(frozen=True)
class Due:
    """What the program made of a to-do's day: the date, or why there is none."""

    day: date | None
    problem: str = ""  # "" when there is a day or nothing was asked for


def year_after(day: date) -> date:
    try:
        return day.replace(year=day.year + 1)
    except ValueError:  # 29 February
        return day.replace(year=day.year + 1, day=28)


def in_range(day: date, captured: date) -> bool:
    return captured <= day <= year_after(captured)


def offered(own: str, written: datetime) -> list[str]:
    """The words of each day the owner's words name, once each, as written: the choices the
    model is given for a to-do's `when`. Days before the capture, or more than a year after it,
    are not offered (no to-do is due then)."""
    seen: set[str] = set()
    out: list[str] = []
    for found in find_days(own, written):
        key = " ".join(found.words.casefold().split())
        if found.day is None or not in_range(found.day, written.date()) or key in seen:
            continue
        seen.add(key)
        out.append(found.words)
    return out[:MAX_OFFERED]


def due_for(
    todo: str, words: str | None, others: Sequence[str], own: str, written: datetime
) -> Due:
    """The due date of to-do `todo` whose model said `words` (its `when`, or a date), with
    `others` the other to-dos kept from the same capture.

    Where the model's words give no day that holds, and the owner's own sentence sets this
    to-do one deadline ("update the payment screen ... by wed"), that day is used: a small
    model often points at another day the capture names ("26 NOV") or at none."""
    said = _said_day(todo, words, others, own, written) if words and words.strip() else None
    if said is not None and said.day is not None:
        return said
    deadline = deadline_for(todo, others, own, written)
    if said is None:
        return Due(deadline)
    if deadline is not None:
        return Due(deadline, f"{said.problem}; the deadline the capture sets for it is used")
    return said


def deadline_for(todo: str, others: Sequence[str], own: str, written: datetime) -> date | None:
    """The one day the owner's words set this to-do as a deadline ("by", "before", "until",
    "due" and a day, in its sentence, nearer its words than any other to-do's), or None."""
    days = {
        d.day
        for d in find_days(own, written)
        if d.day is not None
        and in_range(d.day, written.date())
        and _is_deadline(d, own)
        and _belongs(d, todo, others, own)
    }
    return days.pop() if len(days) == 1 else None


def _is_deadline(day: DayWords, own: str) -> bool:
    first = day.words.split()[0].casefold() if day.words.split() else ""
    return first in _DEADLINE_WORDS or bool(_DEADLINE_BEFORE.search(own[: day.start]))


def _said_day(todo: str, words: str, others: Sequence[str], own: str, written: datetime) -> Due:
    day = resolve(words, written)
    if day is None:
        return Due(None, "names no day the program can count")
    named = [d for d in find_days(own, written) if d.day == day]
    if not named:
        return Due(None, "the capture's words name no such day")
    if not any(_belongs(d, todo, others, own) for d in named):
        return Due(None, "the capture names that day for something else")
    if not in_range(day, written.date()):
        when = "before the capture's day" if day < written.date() else "more than a year away"
        return Due(None, when)
    return Due(day)


# -- which to-do a day belongs to -------------------------------------------------------------


def _tokens(text: str) -> list[tuple[int, str]]:
    """(start offset, stem) of each word."""
    return [(m.start(), support.stem(m.group())) for m in _TOKEN.finditer(text)]


def _span(todo: str, tokens: list[tuple[int, str]]) -> list[int]:
    """Offsets in the capture of the words the to-do shares with it."""
    wanted = support.significant_words(todo)
    return [at for at, stem in tokens if stem in wanted]


def _sentence(own: str, at: int) -> tuple[int, int]:
    start = 0
    for m in _SENTENCE_END.finditer(own):
        if m.end() > at:
            return start, m.start()
        start = m.end()
    return start, len(own)


def _distance(day: DayWords, span: list[int]) -> int:
    return min(abs(at - day.start) for at in span) if span else len(day.words) * 10**6


def _belongs(day: DayWords, todo: str, others: Sequence[str], own: str) -> bool:
    tokens = _tokens(own)
    mine = _span(todo, tokens)
    lo, hi = _sentence(own, day.start)
    if not any(lo <= at <= hi for at in mine):
        return False
    near = _distance(day, [at for at in mine if lo <= at <= hi])
    for other in others:
        theirs = [at for at in _span(other, tokens) if lo <= at <= hi]
        if theirs and _distance(day, theirs) < near:
            return False
    return True
