"""Finding events by words from their title, the way a person names them.

The model never handles event IDs: it says "dentist" or "1:1 Marcus", and the program finds the
events whose titles hold those words. A word of the query matches a word of the title that
starts with it ("dent" finds "Dentist"), ignoring case, accents left as they are, and small words
that name no event ("the", "my", "meeting" is kept: it can be the title).
"""

from __future__ import annotations

import re

_WORD = re.compile(r"\w+")
_STOP = frozenset(
    re.findall(r"\w+", "a an the my our to with at on in of for and or event events appointment")
)


def query_words(text: str) -> list[str]:
    return [w for w in _WORD.findall(text.casefold()) if w not in _STOP]


def title_matches(query: str, title: str) -> bool:
    """Every word of the query starts a word of the title; an empty query matches nothing."""
    wanted = query_words(query)
    if not wanted:
        return False
    words = _WORD.findall(title.casefold())
    return all(any(w.startswith(q) for w in words) for q in wanted)
