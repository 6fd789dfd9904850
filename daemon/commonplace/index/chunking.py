"""From a parsed note to the rows both indexes store: chunks, embedded text, fingerprints.

Pure functions of their inputs. A chunk's fingerprint is SHA-256 of the embedding model's name
and the exact text sent to the model (its document prefix included), so a vector is reused
exactly when it would come out the same, and changing the model or its profile makes the
fingerprints of every changed text new.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import PurePosixPath
from typing import Any
from zoneinfo import ZoneInfo

from commonplace.llm.profiles import EmbedProfile
from commonplace.vault import Chunk, Note, markdown, split_into_chunks
from commonplace.vault.chunks import CHARS_PER_TOKEN
from commonplace.vault.shown import shown_text

PREFIX_CHARS = 160  # title + heading line kept in the embedded text, at most
DATE_KEYS = ("captured", "date", "created")
NAME_KEYS = frozenset({"aliases", "alias", "tags", "tag"})  # frontmatter keys the title carries
_DATED = re.compile(r"^\d{4}[-_.]\d{2}[-_.]\d{2}(?:[ T_]?\d{2}[:.]?\d{2})?")  # 2026-10-20 0805


@dataclass(frozen=True)
class IndexedChunk:
    """A chunk as stored in LanceDB and Tantivy."""

    path: str
    title: str
    heading: str
    text: str
    ordinal: int
    start_line: int
    note_date: str
    mtime: float
    embed_text: str  # what the embedding model sees
    fingerprint: str

    @property
    def folders(self) -> list[str]:
        return ancestor_folders(self.path)


@dataclass(frozen=True)
class IndexedNote:
    """A whole note as the keyword index stores it (note-level BM25)."""

    path: str
    title: str  # the title, the aliases and the tags
    where: str  # the path as words: folders and file name
    text: str  # the frontmatter's other values, then the body
    mtime: float
    names: tuple[str, ...] = ()  # the title and the aliases as name_key makes them

    @property
    def folders(self) -> list[str]:
        return ancestor_folders(self.path)


def index_note(note: Note, flavor: str = "obsidian") -> IndexedNote:
    """The note's words for note-level keyword search, its frontmatter included.

    Tags go with the title and aliases: like them, they say what the note is about. The
    frontmatter's other values (not its keys) go with the text, where a Logseq page already has
    its `key:: value` properties, so an Obsidian note's `source: Ottolenghi` is found as well
    (without this no frontmatter word could be found at all; on the fixture, keyword MRR@10
    0.877 -> 0.885, recall@10 0.968 -> 0.992: eval_suite/README.md, T1-T2). Properties a Logseq
    page holds in its body are not added twice."""
    title = " ".join(dict.fromkeys([note.title, *note.aliases, *note.tags]))
    in_body = markdown.parse_logseq_properties(note.body) if flavor == "logseq" else {}
    values = [
        word
        for key, value in note.frontmatter.items()
        if key.lower() not in NAME_KEYS and key.lower() not in in_body
        for word in frontmatter_words(value)
    ]
    body = shown_text(note.body, flavor)
    text = "\n".join([*values, body]) if values else body
    where = PurePosixPath(note.path).with_suffix("").as_posix()
    names = tuple(dict.fromkeys(k for k in map(name_key, [note.title, *note.aliases]) if k))
    return IndexedNote(note.path, title, where, text, note.mtime, names)


_NAME_WORD = re.compile(r"[^\W_]+")


def name_key(text: str) -> str:
    """A note's name, or a query, as the words that make it: "Feb 26th, 2021", "feb 26th
    2021" and "Feb 26th,  2021" are one name; so are a Logseq page "Whiteboard/Quick Add" and
    "whiteboard quick add"."""
    return " ".join(_NAME_WORD.findall(text.casefold()))


def frontmatter_words(value: Any) -> Iterator[str]:
    """A frontmatter value as text: strings, numbers and dates, lists and mappings walked;
    true/false and empty values say nothing a search could ask for."""
    if value is None or isinstance(value, bool):
        return
    if isinstance(value, list | tuple):
        for item in value:
            yield from frontmatter_words(item)
    elif isinstance(value, dict):
        for item in value.values():
            yield from frontmatter_words(item)
    else:
        text = value.isoformat() if isinstance(value, dt.date) else str(value)
        if text.strip():
            yield text


def chunk_budget(profile: EmbedProfile, chunk_tokens: int) -> int:
    """Tokens left for the chunk text itself, after the model's prefix and the context line."""
    limit = min(chunk_tokens, profile.context_tokens or chunk_tokens)
    prefix_tokens = int((PREFIX_CHARS + profile.overhead_chars) / CHARS_PER_TOKEN) + 2
    return max(16, limit - prefix_tokens)


def embed_text(
    profile: EmbedProfile, title: str, heading: str, text: str, *, with_context: bool = True
) -> str:
    """The text the embedding model sees, in the model's document format: the note's title and
    heading path give a chunk the context a reader has ("Dentist > Next appointment"), which
    short chunks lack on their own. A date or time at the start of a title is left out: a
    capture named "2026-10-20 0805" says nothing about its words (measured on the fixture's
    week of captures: vector MRR@10 0.684 -> 0.745)."""
    named = _DATED.sub("", title).strip(" -_") if with_context else ""
    context = " > ".join(p for p in (named, heading) if p)[:PREFIX_CHARS] if with_context else ""
    return profile.document(context, text)


def fingerprint(model: str, text: str) -> str:
    return hashlib.sha256(f"{model}\x00{text}".encode()).hexdigest()


def note_date(
    frontmatter: dict[str, Any], mtime: float, tz: ZoneInfo, day: dt.date | None = None
) -> str:
    """The date a note is 'from', so a newer note can win: captured, date, created, else the
    day of a Logseq journal page, else mtime."""
    for key in DATE_KEYS:
        value = frontmatter.get(key)
        if isinstance(value, dt.datetime):
            return value.date().isoformat()
        if isinstance(value, dt.date):
            return value.isoformat()
        if isinstance(value, str):
            try:
                return dt.date.fromisoformat(value.strip()[:10]).isoformat()
            except ValueError:
                continue
    if day is not None:
        return day.isoformat()
    return dt.datetime.fromtimestamp(mtime, tz).date().isoformat()


def ancestor_folders(path: str) -> list[str]:
    """'Areas/Health/Dentist.md' -> ['Areas', 'Areas/Health']; a note at the root -> []."""
    parts = PurePosixPath(path).parts[:-1]
    return ["/".join(parts[: i + 1]) for i in range(len(parts))]


def index_chunks(
    note: Note,
    *,
    profile: EmbedProfile,
    chunk_tokens: int,
    tz: ZoneInfo,
    with_context: bool = True,
    flavor: str = "obsidian",
) -> list[IndexedChunk]:
    """Every chunk of the note, ready to store; the frontmatter is never a chunk."""
    date = note_date(note.frontmatter, note.mtime, tz, note.day)
    out: list[IndexedChunk] = []
    budget = chunk_budget(profile, chunk_tokens)
    chunks: list[Chunk] = split_into_chunks(note, budget, flavor)
    for chunk in chunks:
        heading = chunk.heading
        text = embed_text(profile, note.title, heading, chunk.text, with_context=with_context)
        out.append(
            IndexedChunk(
                path=note.path,
                title=note.title,
                heading=heading,
                text=chunk.text,
                ordinal=chunk.ordinal,
                start_line=chunk.start_line,
                note_date=date,
                mtime=note.mtime,
                embed_text=text,
                fingerprint=fingerprint(profile.model, text),
            )
        )
    return out
