"""Finding events by words from their title, the way a person names them.

The model never handles event IDs: it says "dentist" or "1:1 Marcus", and the program finds the
events whose titles hold those words. A word of the query matches a word of the title that
starts with it ("dent" finds "Dentist"), ignoring case, accents left as they are, and small words
that name no event ("the", "my", "meeting" is kept: it can be the title).

A small model also sends the request's own words ("Push my 1:1 with Marcus", "Saturday's
haircut"): no title holds them all, but they hold a title's. `title_in` reads it that way round.
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


def title_in(text: str, title: str) -> bool:
    """Every word of the title (but the small ones) is a word of the text: the text names the
    event ("Cancel Saturday's haircut" names "Haircut"); a title of small words only never."""
    wanted = query_words(title)
    if not wanted:
        return False
    words = set(_WORD.findall(text.casefold()))
    return all(w in words for w in wanted)
