"""The words of the model's sentences, read the way the screen compares them with the lists.

Pure text handling, knowing nothing of notes: sentences and their parts, words folded to one
spelling (case, accents, typographic quotes) and cut to a rough stem so that "ordering" is
"Order" and "tulips" is "tulip", numbers (also in words) and dates (however written) as
(month, day). Rough on purpose: the screen asks only whether a sentence's words come from a
list, never what they mean.
"""

from __future__ import annotations

import re
import unicodedata

from commonplace.basics.dates import MONTHS

WEEKDAYS = {
    "monday": 0, "mon": 0, "tuesday": 1, "tue": 1, "tues": 1, "wednesday": 2, "wed": 2,
    "thursday": 3, "thu": 3, "thur": 3, "thurs": 3, "friday": 4, "fri": 4, "saturday": 5,
    "sat": 5, "sunday": 6, "sun": 6,
}  # fmt: skip
_NUMBER_WORDS_TEXT = """two three four five six seven eight nine ten eleven twelve thirteen
    fourteen fifteen sixteen seventeen eighteen nineteen twenty"""
NUMBER_WORDS = {w: i + 2 for i, w in enumerate(_NUMBER_WORDS_TEXT.split())} | {
    "thirty": 30,
    "forty": 40,
    "fifty": 50,
    "a dozen": 12,
    "dozen": 12,
}  # not "one": it is a pronoun more often than a count ("the one due soonest")
_MONTH = "(" + "|".join(sorted(MONTHS, key=len, reverse=True)) + r")\b\.?"
_ISO_DATE = re.compile(r"\b(\d{4})-(\d{2})-(\d{2})\b")
_DAY_MONTH = re.compile(r"\b(\d{1,2})(?:st|nd|rd|th)?(?:\s+of)?\s+" + _MONTH + r"(?:,?\s+\d{4})?")
_MONTH_DAY = re.compile(r"\b" + _MONTH + r"\s+(\d{1,2})(?:st|nd|rd|th)?(?!\d)(?:,?\s+\d{4})?")
_SENTENCE = re.compile(r"(?<=[.!?])\s+(?=[\"'(\[]?[A-Z0-9])")
_WORD = re.compile(r"\d+(?:[.,:]\d+)*|[^\W\d_]+(?:[-'][^\W\d_]+)*")
_NUMBER = re.compile(r"\d+(?:[.:]\d+)?")
_NUMBER_WORD = re.compile(r"\b(" + "|".join(sorted(NUMBER_WORDS, key=len, reverse=True)) + r")\b")
# Where a sentence's parts meet: punctuation, and the words that join two things named.
_JOIN_WORDS = (
    r"(?:and|or|but|while|whereas|plus|as well as|along with|with|including|such as|like|"
    r"followed by|then)"
)
_JOINS = re.compile(r"\s*[,;:()]\s*|\s+[-–—]\s+|\s+" + _JOIN_WORDS + r"\s+")
_LEADING_JOIN = re.compile(r"^(?:" + _JOIN_WORDS + r"\s+)+", re.IGNORECASE)
_UNDOUBLE = re.compile(r"([bdgmnpt])\1$")


def fold(text: str) -> str:
    """Lower case, accents and typographic quotes and dashes plain, markup stars gone."""
    text = unicodedata.normalize("NFKD", text)
    text = "".join(c for c in text if not unicodedata.combining(c))
    text = text.replace("’", "'").replace("‘", "'").replace("“", '"').replace("”", '"')
    text = text.replace("–", "-").replace("—", "-").replace("\u00a0", " ")
    return re.sub(r"[*_`]+", "", text.lower())


def stem(word: str) -> str:
    """A rough stem: 'ordering' = 'order', 'tulips' = 'tulip', 'slipping' = 'slips' = 'slip',
    'updating' = 'update', 'Zoë's' = 'zoe'."""
    word = re.sub(r"'(?:s|ve|m|ll|d|re)$", "", fold(word)).strip("'-")
    if word.isdigit() or len(word) <= 3:
        return word
    if word.endswith("ies") and len(word) > 4:
        return word[:-3] + "y"
    for suffix in ("ing", "ed", "es", "s"):
        if word.endswith(suffix) and len(word) - len(suffix) >= 3 and not word.endswith("ss"):
            word = word[: -len(suffix)]
            if suffix in ("ing", "ed"):
                word = _UNDOUBLE.sub(r"\1", word)
            break
    return word[:-1] if word.endswith("e") and len(word) > 3 else word


def words(text: str) -> list[str]:
    """The words of a text, folded, in order ('to-dos' and 'Caro-Kann' stay one word each)."""
    return _WORD.findall(fold(text))


def stems(text: str, leave_out: frozenset[str] = frozenset()) -> list[str]:
    """The stems of a text's words, without those in `leave_out` (stems too)."""
    out = []
    for word in words(text):
        s = stem(word)
        if s and s not in leave_out:
            out.append(s)
    return out


def split_sentences(text: str) -> list[str]:
    """Sentences: a full stop, question or exclamation mark before a capital or a digit."""
    return [s.strip() for s in _SENTENCE.split(text.strip()) if s.strip()]


def parts(sentence: str) -> list[str]:
    """A sentence cut where it joins things: 'The to-dos due soonest are X, Y and Z' gives
    'The to-dos due soonest are X', 'Y', 'Z'. Each part is checked on its own."""
    pieces = (_LEADING_JOIN.sub("", p.strip(" .!?\"'")) for p in _JOINS.split(sentence) if p)
    return [p for p in pieces if p]


def dates(text: str) -> list[tuple[int, int]]:
    """Every date a text holds, as (month, day): '2026-10-23', '23 October', 'Oct 23rd'."""
    folded = fold(text)
    found = [(int(m[2]), int(m[3])) for m in _ISO_DATE.finditer(folded)]
    found += [(MONTHS[m[2]], int(m[1])) for m in _DAY_MONTH.finditer(folded)]
    found += [(MONTHS[m[1]], int(m[2])) for m in _MONTH_DAY.finditer(folded)]
    return [(month, day) for month, day in found if 1 <= month <= 12 and 1 <= day <= 31]


def without_dates(text: str) -> str:
    folded = fold(text)
    for pattern in (_ISO_DATE, _DAY_MONTH, _MONTH_DAY):
        folded = pattern.sub(" ", folded)
    return folded


def numbers(text: str) -> list[str]:
    """The numbers of a text outside its dates, as written ('12.4', '5'), numbers in words
    given as digits ('three' -> '3')."""
    rest = without_dates(text)
    found = _NUMBER.findall(rest)
    found += [str(NUMBER_WORDS[w]) for w in _NUMBER_WORD.findall(rest)]
    return found


def number_value(word: str) -> int | None:
    """'3' or 'three' as 3; None for anything else."""
    folded = fold(word)
    if folded.isdigit():
        return int(folded)
    return NUMBER_WORDS.get(folded)
