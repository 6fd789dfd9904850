"""Dates, numbers and names from no input: the first screen of a digest sentence.

A sentence about the week may name only the dates, numbers and names the model was sent (the
week line and the data block), and may not say that an open to-do was done: the data holds
open to-dos only. Crude both ways, and the cheapest check: a named thing can be a fair
paraphrase (a person grades every sentence in the evals), and a sentence with none can still
be wrong, which is what the rest of the screen (screen.py) reads.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from commonplace.basics.dates import MONTHS
from commonplace.digest.words import WEEKDAYS, dates, fold, number_value, numbers

# The first word of a sentence is capitalised anyway: one of these, or an -ing/-ly/-ed word,
# is no name. Other capitalised words must be in the data.
_OPENERS_TEXT = """there here they we he she my our their his her most much many several some
    other another both each every all none no nothing among after before during over across from
    to of as if when where what which who how why while since until then still meanwhile overall
    plus besides elsewhere finally first second third further however though although otherwise
    together mostly mainly largely lots plenty few open due upcoming coming pending outstanding
    overdue undated notes note captures capture to-dos todos tasks task month remember keep do
    don't be make take because instead perhaps maybe just only even again now soon later nor yet
    for i you your this that these those the a an it its on in at by with and but so also week
    weekend today tomorrow yesterday next last"""
_OPENERS = frozenset(_OPENERS_TEXT.split())
_COMMON_TEXT = """i you your this that these those the a an it its on in at by for with and but so
    also week weekend today tomorrow yesterday next last"""
_COMMON = frozenset(_COMMON_TEXT.split())
_MONTH_NAMES = frozenset(m for m in MONTHS if len(m) > 4 or m in ("may", "june", "july"))
_NAME = re.compile(r"\b[A-Z][\w'’-]*")
# Said done: the model is sent open to-dos only, so "you ordered the timber" holds no input.
_DONE = re.compile(
    r"\b(done|finished|completed|ticked off|sorted out|booked|ordered|sent|paid|bought|rang|"
    r"phoned|emailed|delivered|fixed|submitted|renewed|cancell?ed|canceled|posted|collected|"
    r"picked up|signed)\b"
)


def _in_data(word: str, data: str) -> bool:
    """A whole word of the (folded) data, allowing a plural or possessive on either side."""
    return re.search(rf"(?<![\w]){re.escape(word)}(?:'s|s|es)?(?![\w])", data) is not None


def unsupported_specifics(sentence: str, sent: str, known_counts: Iterable[int] = ()) -> list[str]:
    """Facts in a sentence that no input holds: dates, numbers (also written as words), names
    (the first word too, unless it is an ordinary opener) and months not in what the model
    was sent, and a to-do said to be done (the data holds open to-dos only).

    Dates compare as day and month ('23 October' is the data's '2026-10-23'); a number must be
    one of the data's own numbers or counts, not a piece of one of its dates.
    """
    known_dates = set(dates(sent))
    odd = [f"{m:02d}-{d:02d}" for m, d in dates(sentence) if (m, d) not in known_dates]
    data = fold(sent)
    known_months = {m for m, _ in known_dates}
    known_numbers = {str(n) for n in known_counts} | set(numbers(sent))
    odd += [n for n in numbers(sentence) if n not in known_numbers]
    first, _, tail = sentence.strip().partition(" ")
    names = [(n, False) for n in _NAME.findall(first)[:1]]
    names += [(n, True) for n in _NAME.findall(tail)]
    for name, inside in names:
        word = re.sub(r"'(?:s|ve|m|ll|d|re)$", "", fold(name).strip("'-"))
        if not word or word in _COMMON or word.rstrip("s") in _COMMON or _in_data(word, data):
            continue
        if word in _MONTH_NAMES:
            if MONTHS[word] not in known_months:
                odd.append(name)
            continue
        if word in WEEKDAYS or number_value(word) is not None:
            continue  # weekdays are the week's; numbers were counted above
        if not inside and (word in _OPENERS or re.search(r"(?:ing|ly|ed)$", word)):
            continue
        odd.append(name)
    for claim in _DONE.findall(fold(sentence)):
        if not _in_data(claim, data):
            odd.append(f"said done: {claim}")
    return list(dict.fromkeys(odd))
