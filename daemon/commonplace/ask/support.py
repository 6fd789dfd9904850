"""Which passages back each sentence of an answer, and which of its facts none of them holds.

A small model gets the facts right and forgets the `[n]` (issue 43: 1 answer in 43 cited); it
also invents the one detail the notes lack ("arriving at 14:30"). The program carries both:

- a sentence without a citation is given the passages that hold its facts (dates, times,
  numbers, codes and names: facts.py), or, when it has none, the passage sharing most of its
  words; a sentence whose citations hold none of its facts while another passage holds them
  is flagged, and that passage is cited beside them;
- an answer whose facts (beyond the question's own) stand in none of the passages, nor in
  today's date, is not shown (citations.py gives the fixed refusal instead); a fact that
  stands in none while others do is flagged.

A bigger model that cites well loses nothing: its citations are kept when they hold the facts,
and only a sentence it left uncited gets the program's. Pure functions of the answer, the
passages and the question, so every rule is a table of cases in tests/ask/test_support.py.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from commonplace.ask.facts import Fact, facts, fold, held, keys_of
from commonplace.ask.models import Passage
from commonplace.ask.passages import model_text

HARD = frozenset({"date", "day", "time", "num", "code"})  # facts a paraphrase writes the same
MAX_ADDED = 2  # passages the program cites for one sentence
MIN_SHARED_WORDS = 2  # a sentence without facts is attributed only on this many shared words

_CITATION = re.compile(r"\s*\[\s*\^?\d{1,3}(?:\s*(?:,|;|-|–|and)\s*\^?\d{1,3})*\s*\](?!\])")
# A sentence ends at . ! ? before a space or the end (not in 4.19, nor after the "g" of
# "e.g.", nor before a citation written after the full stop: "... November. [1]"), or at a
# line's end.
_SENTENCE_END = re.compile(r"(?<![.\s][a-z])[.!?]+(?=\s|$)(?![ \t]*\[\s*\^?\d)|\n")
_TRAIL = re.compile(r"[\s.!?:;,]*$")
_WORD = re.compile(r"[a-z0-9]+")
_STOP_TEXT = """a an and are as at be been but by can could do does did for from had has have he her
    him his how i if in into is it its me my no not of on or our out she so some than that the
    their them then there these they this those to too up was we were what when where which who
    why will with would you your yes also just only about after before over again still"""
_STOP = frozenset(_STOP_TEXT.split())


@dataclass(frozen=True)
class Support:
    """The program's reading of an answer: its text with the citations the program added,
    the passages it added, and what it found."""

    text: str
    added: tuple[int, ...] = ()  # passage numbers the program cited
    unsupported: tuple[str, ...] = ()  # facts (as written) that no passage holds
    misattributed: tuple[str, ...] = ()  # "[2] does not hold 06:40; [3] does"
    supported: int = 0  # facts beyond the question's own that some passage holds

    @property
    def nothing_supported(self) -> bool:
        """Every fact the answer adds to the question stands in no passage: not shown."""
        return bool(self.unsupported) and self.supported == 0


@dataclass(frozen=True)
class Segment:
    body: str  # the sentence, without its end
    end: str  # its end: the punctuation, a line break, the spaces after


class Checker:
    """The passages' facts and words, read once, for checking an answer or a streamed piece."""

    def __init__(self, passages: Sequence[Passage], question: str, context: str = "") -> None:
        self.numbers = [p.n for p in passages]
        self.keys = {p.n: keys_of(passage_words(p)) for p in passages}
        self.text_keys = {p.n: keys_of(p.text) for p in passages}  # the owner's words alone
        self.words = {p.n: content_words(passage_words(p)) for p in passages}
        self.asked = keys_of(question)
        self.around = keys_of(context) | self.asked  # today's date, the days the program named

    def new_facts(self, sentence: str) -> list[Fact]:
        """The sentence's facts that the question does not already say."""
        return [f for f in facts(_CITATION.sub("", sentence)) if not held(f, self.asked)]

    def in_passages(self, fact: Fact) -> bool:
        return any(held(fact, k) for k in self.keys.values())

    def unsupported(self, sentence: str) -> list[Fact]:
        """Hard facts of the sentence that no passage holds, nor today's date."""
        return [
            f
            for f in self.new_facts(sentence)
            if f.kind in HARD and not self.in_passages(f) and not held(f, self.around)
        ]

    def check(self, answer: str) -> Support:
        """Cite the passages backing each uncited sentence, check the cited ones, and collect
        the facts that no passage holds."""
        added: list[int] = []
        unsupported: list[str] = []
        misattributed: list[str] = []
        supported = 0
        out: list[str] = []
        for seg in segments(answer):
            new = self.new_facts(seg.body)
            hard = [f for f in new if f.kind in HARD]
            supported += sum(1 for f in new if self.in_passages(f))
            unsupported += [f.text for f in self.unsupported(seg.body)]
            own = [n for n in cited_in(seg.body) if n in self.keys]
            chosen: list[int] = []
            if own:
                missing = [f for f in hard if not any(held(f, self.keys[n]) for n in own)]
                holders = self.cover(missing, exclude=own)
                if holders and len(missing) == len(hard):
                    misattributed.append(
                        f"{marks(own)} does not hold {', '.join(f.text for f in missing)}; "
                        f"{marks(holders)} does"
                    )
                    chosen = holders
            else:  # uncited, or citing only numbers never given (citations.py flags those)
                chosen = self.cover(new) or self.by_words(seg.body)
            added += [n for n in chosen if n not in added]
            out.append(with_citations(seg, chosen))
        return Support(
            text="".join(out),
            added=tuple(added),
            unsupported=tuple(dict.fromkeys(unsupported)),
            misattributed=tuple(misattributed),
            supported=supported,
        )

    def cover(self, wanted: Sequence[Fact], exclude: Sequence[int] = ()) -> list[int]:
        """The fewest passages (at most MAX_ADDED) holding the most of `wanted`, a hard fact
        counting twice a name; ties to the one holding more of them in its text (not only in
        its note's date: "October 2026" is said by the dentist note, not by a capture of 23
        October about something else), then to the better-ranked; none when no passage holds
        any."""
        left = list(wanted)
        chosen: list[int] = []
        while left and len(chosen) < MAX_ADDED:
            scores = {
                n: (
                    sum(2 if f.kind in HARD else 1 for f in left if held(f, k)),
                    sum(1 for f in left if held(f, self.text_keys[n])),
                )
                for n, k in self.keys.items()
                if n not in exclude and n not in chosen
            }
            best = max(scores, key=lambda n: (*scores[n], -n), default=None)
            if best is None or scores[best][0] == 0:
                break
            chosen.append(best)
            left = [f for f in left if not held(f, self.keys[best])]
        return chosen

    def by_words(self, sentence: str) -> list[int]:
        """For a sentence without facts: the passage sharing most of its words, if enough."""
        mine = content_words(_CITATION.sub("", sentence))
        if len(mine) < MIN_SHARED_WORDS:
            return []
        scores = {n: len(mine & w) for n, w in self.words.items()}
        best = max(scores, key=lambda n: (scores[n], -n), default=None)
        if best is None or scores[best] < MIN_SHARED_WORDS:
            return []
        return [best]


class FactGate:
    """Streamed text released one whole sentence at a time, and only while every sentence's
    facts stand in the passages: an answer the program will not show is never previewed
    either. After the first unsupported sentence nothing more is released; the checked
    answer that ends the stream says what happened."""

    def __init__(self, checker: Checker) -> None:
        self.checker = checker
        self._pending = ""
        self.closed = False

    def feed(self, piece: str) -> str:
        self._pending += piece
        cut = 0
        for m in _SENTENCE_END.finditer(self._pending):
            if m.end() < len(self._pending):  # a "." at the very end may be "4." of "4.19"
                cut = m.end()
        return self._release(cut)

    def flush(self) -> str:
        return self._release(len(self._pending))

    def _release(self, cut: int) -> str:
        if self.closed or cut == 0:
            if self.closed:
                self._pending = ""
            return ""
        out, self._pending = self._pending[:cut], self._pending[cut:]
        if self.checker.unsupported(out):
            self.closed = True
            self._pending = ""
            return ""
        return out


def passage_words(p: Passage) -> str:
    """What a passage tells the model, with where it is from: its note's title, section and
    date, and the dates the program wrote beside its day words."""
    return f"{p.title}\n{p.heading}\n{p.note_date}\n{model_text(p)}"


def segments(text: str) -> list[Segment]:
    """The answer cut into sentences and lines, each with its end, so they join back exactly."""
    out: list[Segment] = []
    start = 0
    for m in _SENTENCE_END.finditer(text):
        end = m.end()
        while end < len(text) and text[end] in " \t":
            end += 1
        out.append(Segment(text[start : m.start()], text[m.start() : end]))
        start = end
    if start < len(text):
        out.append(Segment(text[start:], ""))
    return [s for s in out if s.body or s.end]


def cited_in(text: str) -> list[int]:
    """The numbers a sentence cites, as written (citations.py checks them against the given)."""
    numbers: list[int] = []
    for m in _CITATION.finditer(text):
        for part in re.split(r"\s*(?:,|;|and)\s*", m.group(0).strip(" []")):
            span = re.match(r"^\^?(\d+)\s*[-–]\s*\^?(\d+)$", part.strip())
            if span and 0 < int(span[2]) - int(span[1]) <= 20:
                numbers += range(int(span[1]), int(span[2]) + 1)
            else:
                numbers += [int(x) for x in re.findall(r"\d+", part)]
    return list(dict.fromkeys(numbers))


def content_words(text: str) -> set[str]:
    return {_stem(w) for w in _WORD.findall(fold(text)) if w not in _STOP and len(w) > 1}


def marks(numbers: Sequence[int]) -> str:
    return "".join(f"[{n}]" for n in numbers)


def with_citations(seg: Segment, numbers: Sequence[int]) -> str:
    """The sentence with `[n]` for each number put before its closing punctuation."""
    if not numbers:
        return seg.body + seg.end
    body = seg.body.rstrip()
    trail = _TRAIL.search(body)
    cut = trail.start() if trail else len(body)
    if cut == 0:
        return seg.body + seg.end
    return f"{body[:cut]} {marks(numbers)}{body[cut:]}{seg.body[len(body) :]}{seg.end}"


def _stem(word: str) -> str:
    for suffix in ("ing", "es", "ed", "s"):
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            return word[: -len(suffix)]
    return word
