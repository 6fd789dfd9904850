"""Evidence from the capture's own words for what the model proposes: which notes the capture
names, which candidate links it may keep, which of the vault's tags fit. Pure functions of
text, candidates and vault facts.

A small model offered eight candidate notes linked to all of them on half the captures (issue
43: 5 to 7 extra links), and filled every tag place from the top of the list it was shown. Its
choices stay proposals; the capture's words and the search's own scores decide what stays:

- a note the owner's words name (its title or an alias, or the first word of a title such as
  "Zoë" for Zoë Martín) is shown to the model even where the search missed it, and kept when
  the model links it. When the model leaves it out, it is added only where the search also
  found it close (LINK_FLOOR): a name said in passing ("Sam took the photo") does not make
  the capture about that note, a name the search agrees with ("chess is moving ...") does;
- a list that takes every candidate offered chose none of them: only the named notes stay;
- any other link the model chose stays when the search found the note close to the capture
  (LINK_FLOOR of the best match's score), so a note the search barely found is not linked on
  the model's word alone;
- a tag stays when the owner's words say it, or a note the capture links to carries it (the
  owner's own word for that subject).
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable, Sequence

from commonplace.tidy import support
from commonplace.tidy.catalog import VaultFacts
from commonplace.tidy.models import Candidate

_WORD = re.compile(r"[^\W_]+(?:['’][^\W_]+)*")
_DATED = re.compile(r"^\d{4}-\d{2}-\d{2}\b")
NAME_WORD_MIN = 3  # letters: a name shorter than this ("Jo" aside) is mostly a word
LINK_FLOOR = 0.5  # the search's fused score (the best match has 1) a model's own pick needs
NAMED_FLOOR = 0.3  # a named candidate the search ranks below this is a common word, not a name
EVERY_CANDIDATE = 3  # a pick of all the candidates, when at least this many were offered
MAX_NAMED_EXTRA = 3  # named notes added to the search's candidates


def fold(text: str) -> str:
    """Casefolded, accents off: 'Zoë Martín' and 'zoe martin' are one name."""
    decomposed = unicodedata.normalize("NFKD", text.casefold())
    return "".join(ch for ch in decomposed if not unicodedata.combining(ch))


def words_of(text: str) -> list[str]:
    return _WORD.findall(fold(text))


def names_of(title: str, facts: VaultFacts) -> list[str]:
    """A note's title and its aliases."""
    key = title.casefold()
    aliases = [name for name, real in facts.titles.items() if real.casefold() == key]
    return [title, *sorted(a for a in aliases if a != key)]


def _phrase_at(phrase: list[str], words: list[str]) -> bool:
    n = len(phrase)
    return n > 0 and any(words[i : i + n] == phrase for i in range(len(words) - n + 1))


def _first_word(title: str) -> str | None:
    """The word a person uses for a note ('Zoë' of 'Zoë Martín', 'switchboard' of
    'Switchboard Redesign'): the first of a title of several words. A dated title (a meeting,
    '2026-10-06 Steering Group') is named by its whole title only: its words are the meeting's
    subject, which other notes share."""
    if _DATED.match(title):
        return None
    words = words_of(title)
    if len(words) < 2 or len(words[0]) < NAME_WORD_MIN or words[0] in support.STOP_WORDS:
        return None
    return words[0]


def named_in(title: str, text: str, facts: VaultFacts) -> str | None:
    """The words of `text` that name the note `title` (its title, an alias, or its first word,
    in one of its forms: 'lisbon', "zoe's"), or None."""
    words = words_of(text)
    for name in names_of(title, facts):
        if _phrase_at(words_of(name), words):
            return name
    first = _first_word(title)
    if first is not None:
        # A form of the word itself ("maya's", "switchboards"), never a word it is a form of:
        # "read" does not name Reading List.
        for word in words:
            if word == first or support.stem(word) == first:
                return word
    return None


def one_word_alias(name: str, title: str) -> bool:
    """An alias of one word ('start' for Home) is often an everyday word too ("8am start"):
    weak evidence, which the search must back (LINK_FLOOR)."""
    return name.casefold() != title.casefold() and len(words_of(name)) == 1


def named_notes(text: str, facts: VaultFacts, limit: int = MAX_NAMED_EXTRA) -> list[str]:
    """Notes the text names by a whole title or alias (not a first word: across a whole vault
    that would find too many), longest name first: the notes a search may have missed."""
    words = words_of(text)
    found: dict[str, int] = {}
    for name, real in facts.titles.items():
        phrase = words_of(name)
        if one_word_alias(name, real) and not _first_word_of(fold(name), real):
            continue
        if len("".join(phrase)) >= NAME_WORD_MIN and _phrase_at(phrase, words):
            found[real] = max(found.get(real, 0), len(name))
    return sorted(found, key=lambda t: (-found[t], t))[:limit]


def with_named(candidates: Sequence[Candidate], text: str, facts: VaultFacts) -> list[Candidate]:
    """The search's candidates, then the notes the capture names that the search missed
    ("maya says ..." names Maya Collins, whatever the search ranked first). Such a note has
    no search score (None)."""
    have = {c.title.casefold() for c in candidates}
    extra = [
        Candidate(title, (facts.title_paths.get(title.casefold()) or ("",))[0], None)
        for title in named_notes(text, facts)
        if title.casefold() not in have
    ]
    return [*candidates, *extra]


# -- what the program keeps of the model's links and tags ---------------------------------------


def kept_links(
    proposed: Sequence[str], candidates: Sequence[Candidate], own: str, facts: VaultFacts
) -> tuple[list[str], list[tuple[str, str]]]:
    """(titles kept, in the model's order, then the strongly named ones it left out; (title,
    reason) for each proposed candidate left out). Links that are no candidate pass through
    untouched: validate.check_links decides those."""
    by_title = {c.title.casefold(): c for c in candidates}
    named = {c.title.casefold() for c in candidates if _named(c, own, facts)}
    chosen = [p for p in proposed if p.casefold() in by_title]
    every = len(candidates) >= EVERY_CANDIDATE and {p.casefold() for p in chosen} >= set(by_title)
    kept: list[str] = []
    dropped: list[tuple[str, str]] = []
    for title in proposed:
        key = title.casefold()
        cand = by_title.get(key)
        if cand is None or key in named:
            kept.append(title)
        elif every:
            dropped.append((title, "the model linked every candidate; kept only the named ones"))
        elif cand.score is not None and cand.score < LINK_FLOOR:
            dropped.append((title, "the capture does not name it and the search found it far"))
        else:
            kept.append(title)
    said = {k.casefold() for k in kept}
    kept += [
        c.title
        for c in candidates
        if c.title.casefold() in named - said and _strongly_named(c, own, facts)
    ]
    return kept, dropped


def _named(c: Candidate, own: str, facts: VaultFacts) -> bool:
    name = named_in(c.title, own, facts)
    if name is None:
        return False
    if one_word_alias(name, c.title) and not _first_word_of(fold(name), c.title):
        return c.score is not None and c.score >= LINK_FLOOR
    return c.score is None or c.score >= NAMED_FLOOR


def _strongly_named(c: Candidate, own: str, facts: VaultFacts) -> bool:
    """Named by its title, an alias of several words or its first word (not a one-word alias:
    'idea' for Gift Ideas), and found close by the search."""
    name = named_in(c.title, own, facts)
    if name is None or c.score is None or c.score < LINK_FLOOR:
        return False
    return not one_word_alias(name, c.title) or _first_word_of(fold(name), c.title)


def _first_word_of(word: str, title: str) -> bool:
    first = _first_word(title)
    return first is not None and (word == first or support.stem(word) == first)


def tag_fits(tag: str, own: str, links: Iterable[str], facts: VaultFacts) -> bool:
    """The owner's words say the tag, or a note the capture links to carries it."""
    if support.support(tag.replace("-", " "), own) > 0:
        return True
    return any(tag in facts.note_tags.get(link.casefold(), ()) for link in links)
