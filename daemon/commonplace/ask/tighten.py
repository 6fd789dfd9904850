"""Passages cut down to the lines a question is about, so a small model reads less and finds more.

A chunk is up to ~400 tokens: a whole section of a long note (the Lisbon trip's day by day,
twenty rows of the running log). A 1.5B model on a laptop's CPU reads about 35 tokens a
second, so eight such chunks cost most of an answer's time, and the one line that answers
the question is easy for it to miss among them (issue 43). Here each passage keeps the lines
that share words or day names with the question (with a table's header row, and the line
before a matching list item's children), in their order, up to a budget; the lines left out
are shown as "…". A passage with no such line keeps its beginning. Pure functions of text.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import replace

from commonplace.ask.models import Passage

GAP = "…"
_WORD = re.compile(r"[^\W_]+", re.UNICODE)
_TABLE_RULE = re.compile(r"^\s*\|?\s*:?-{3,}")
_SENTENCES = re.compile(r"(?<=[.!?])\s+(?=[A-Z0-9\"'(*])")
LONG_LINE = 240  # a line longer than this is split into its sentences
_STOP_TEXT = """a an and are as at be been but by can could do does did for from had has have how
    i if in into is it its me my no not of on or our out so than that the their them then there
    these they this those to up was we were what when where which who why will with would you your
    about after before over again did does doing done get got go going want wants need needs
    much many long far time times day days week last next this its i'm i've what's whats
    when's"""
_STOP = frozenset(_STOP_TEXT.split())


def question_words(question: str) -> set[str]:
    return {_stem(w) for w in _WORD.findall(question.lower()) if w not in _STOP and len(w) > 1}


def units(text: str) -> list[str]:
    """The passage's lines, a long paragraph line split into its sentences."""
    out: list[str] = []
    for line in text.splitlines():
        if len(line) > LONG_LINE and not line.lstrip().startswith("|"):
            out += [s for s in _SENTENCES.split(line) if s.strip()]
        elif line.strip():
            out.append(line)
    return out


def tighten(passage: Passage, question: str, budget: int) -> Passage:
    """The passage with only the lines that match the question, within `budget` characters
    (matching lines first, best first; the rest shown as one "…" per gap)."""
    if len(passage.text) <= budget:
        return passage
    lines = units(passage.text)
    wanted = question_words(question)
    scores = [len(wanted & {_stem(w) for w in _WORD.findall(u.lower())}) for u in lines]
    keep: set[int] = set()
    used = 0
    order = sorted(range(len(lines)), key=lambda i: (-scores[i], i))
    for i in order:
        if scores[i] == 0:
            break
        extra = [i, *_context(lines, i)]
        cost = sum(len(lines[j]) + 1 for j in extra if j not in keep)
        if used + cost > budget and keep:
            continue
        keep.update(extra)
        used += cost
    if not keep:  # nothing matched the words: its beginning, as the search found it
        for i, line in enumerate(lines):
            if used + len(line) > budget and keep:
                break
            keep.add(i)
            used += len(line) + 1
    return replace(passage, text=_join(lines, keep))


def tighten_all(passages: Sequence[Passage], question: str, budget: int) -> list[Passage]:
    return [tighten(p, question, budget) for p in passages]


def _context(lines: list[str], i: int) -> list[int]:
    """What a kept line needs to be read right: a table row its header, a nested item the
    line it hangs from."""
    out: list[int] = []
    if lines[i].lstrip().startswith("|"):
        j = i
        while j > 0 and lines[j - 1].lstrip().startswith("|"):
            j -= 1
        out += [k for k in (j, j + 1) if k < i and k < len(lines)]
    indent = len(lines[i]) - len(lines[i].lstrip())
    if indent:
        for j in range(i - 1, -1, -1):
            if len(lines[j]) - len(lines[j].lstrip()) < indent:
                out.append(j)
                break
    return out


def _join(lines: list[str], keep: set[int]) -> str:
    out: list[str] = []
    for i, line in enumerate(lines):
        if i in keep:
            out.append(line)
        elif not out or out[-1] != GAP:
            out.append(GAP)
    return "\n".join(out)


def _stem(word: str) -> str:
    for suffix in ("ing", "es", "ed", "s"):
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            return word[: -len(suffix)]
    return word
