"""What a search result shows: a snippet of its best passage with the query's words marked.

Words are matched as the keyword index matches them (lower case, English stems, common function
words left out), so "notes" marks "note" and "Running" marks "run". Marks are character ranges
into the snippet, never markup: a client builds its own (the phone page makes <mark> elements
from text nodes, the CLI prints bold), so text from a note can never become HTML.
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Any

import tantivy

from commonplace.index.keywords import STOP_WORDS, keyword_query
from commonplace.index.models import SearchResult
from commonplace.vault.shown import quoted_text

SNIPPET_CHARS = 240  # about three lines on a phone
_WORD = re.compile(r"\w+")


@lru_cache(maxsize=1)
def _analyzer() -> tantivy.TextAnalyzer:
    builder = tantivy.TextAnalyzerBuilder(tantivy.Tokenizer.simple())
    return (
        builder.filter(tantivy.Filter.lowercase()).filter(tantivy.Filter.stemmer("english")).build()
    )


@lru_cache(maxsize=4096)
def _stem(word: str) -> str:
    stems: list[str] = _analyzer().analyze(word)
    return stems[0] if stems else word.lower()


def query_terms(query: str) -> frozenset[str]:
    """The stems a query searches for (its content words, and the words of its phrases)."""
    words = _WORD.findall(keyword_query(query))
    content = [w for w in words if w not in STOP_WORDS] or words
    return frozenset(_stem(w) for w in content)


def marks(text: str, terms: frozenset[str]) -> list[tuple[int, int]]:
    """(start, end) of every word of `text` whose stem is a query term."""
    if not terms:
        return []
    return [(m.start(), m.end()) for m in _WORD.finditer(text) if _stem(m.group()) in terms]


def snippet(
    text: str, terms: frozenset[str], width: int = SNIPPET_CHARS
) -> tuple[str, list[list[int]]]:
    """At most `width` characters of `text` (whitespace folded, Logseq's hidden block properties
    and its `#+BEGIN_...`/`#+END_...` lines left out), placed to show the most marked words, cut
    at word boundaries with "…" where text was left out; marks relative to it."""
    flat = " ".join(quoted_text(text).split())
    found = marks(flat, terms)
    if len(flat) <= width:
        return flat, [[a, b] for a, b in found]
    start = _best_window(found, len(flat), width)
    end = min(len(flat), start + width)
    if start > 0:
        space = flat.find(" ", start, start + 30)
        start = space + 1 if space != -1 else start
    if end < len(flat):
        space = flat.rfind(" ", end - 30, end)
        end = space if space > start else end
    lead = "…" if start > 0 else ""
    tail = "…" if end < len(flat) else ""
    shift = len(lead) - start
    kept = [[a + shift, b + shift] for a, b in found if a >= start and b <= end]
    return f"{lead}{flat[start:end]}{tail}", kept


def _best_window(found: list[tuple[int, int]], size: int, width: int) -> int:
    """The start of the window holding the most marks, opening a little before the first."""
    if not found:
        return 0
    best, best_count = 0, -1
    for i, (a, _) in enumerate(found):
        count = sum(1 for x, y in found[i:] if y <= a + width)
        if count > best_count:
            best, best_count = a, count
    return max(0, min(best - width // 6, size - width))


def result_json(hit: SearchResult, terms: frozenset[str]) -> dict[str, Any]:
    """A result for the API and `search --json`: every field of the hit, plus `snippet` and
    `marks` (the query's words in the snippet, as [start, end) character ranges)."""
    text, ranges = snippet(hit.text, terms)
    return {**hit.to_json(), "snippet": text, "marks": ranges}
