"""How a transcript is graded against the capture that was spoken: names right, word error rate.

Both are rules a person can check by reading the transcript next to the capture (the run keeps
both). Words are compared after the same normalising on both sides (case, punctuation, an
apostrophe, a number glued to its unit), so "8pm" and "8 p.m." are one thing; numbers written
as words ("nine" for "9") still count as errors, which makes the rate an upper bound.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass

_JOINERS = re.compile(r"[.:'’]")  # "p.m." -> "pm", "7.30" -> "730", "she's" -> "shes"
_SEPARATORS = re.compile(r"[^\w]+")
_DIGIT_LETTER = re.compile(r"(?<=\d)(?=[^\W\d_])|(?<=[^\W\d_])(?=\d)")
_POSSESSIVE = re.compile(r"['’]s\b")


def words(text: str) -> list[str]:
    """Lower-case words for the error rate: 'Mum's way, 8pm!' -> ['mums', 'way', '8', 'pm']."""
    text = unicodedata.normalize("NFC", text).lower().replace("&", " and ")
    text = _SEPARATORS.sub(" ", _JOINERS.sub("", text))
    return _DIGIT_LETTER.sub(" ", text).split()


def name_words(text: str) -> list[str]:
    """Words for finding names: as `words`, with a possessive dropped ("Mum's" is Mum)."""
    return words(_POSSESSIVE.sub("", unicodedata.normalize("NFC", text)))


def edit_distance(ref: Sequence[str], hyp: Sequence[str]) -> int:
    """Substitutions, deletions and insertions that turn `ref` into `hyp` (Levenshtein)."""
    previous = list(range(len(hyp) + 1))
    for i, r in enumerate(ref, start=1):
        current = [i]
        for j, h in enumerate(hyp, start=1):
            current.append(min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (r != h)))
        previous = current
    return previous[-1]


def contains(haystack: Sequence[str], needle: Sequence[str]) -> bool:
    n = len(needle)
    return n > 0 and any(list(haystack[i : i + n]) == list(needle) for i in range(len(haystack)))


@dataclass(frozen=True)
class Grade:
    names: tuple[str, ...]  # the hint's names the capture says
    names_right: tuple[str, ...]  # those spelled right in the transcript (any case)
    word_errors: int
    reference_words: int

    @property
    def wer(self) -> float:
        return self.word_errors / self.reference_words if self.reference_words else 0.0


def grade(reference: str, transcript: str, names: Sequence[str]) -> Grade:
    """A name is right when its letters (diacritics too: Zoe is not Zoë) are in the transcript
    as whole words, whatever the case; the error rate is over the capture's words."""
    ref, hyp = words(reference), words(transcript)
    found = name_words(transcript)
    right = tuple(name for name in names if contains(found, name_words(name)))
    return Grade(tuple(names), right, edit_distance(ref, hyp), len(ref))
