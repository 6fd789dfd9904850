"""An attachment's pages as the rows both indexes store, like a note's chunks.

Each page gives one chunk or more (a long page is split at paragraphs, then sentences), each
carrying its file and page: `heading` is "page 4" and `start_line` holds the page number (an
attachment has no lines; every client reads `SearchResult.page` instead). Text, embedded text
and fingerprint are made as a note's are (chunking.py), so an unchanged page keeps its
vector whatever happens to the file's other pages, and a renamed file keeps all of them.
"""

from __future__ import annotations

import datetime as dt
import re
from pathlib import PurePosixPath
from zoneinfo import ZoneInfo

from commonplace.attachments.extraction import Extraction
from commonplace.index.chunking import (
    IndexedChunk,
    IndexedNote,
    chunk_budget,
    embed_text,
    fingerprint,
)
from commonplace.llm.profiles import EmbedProfile
from commonplace.vault.chunks import CHARS_PER_TOKEN, _split_sentences

_SPACES = re.compile(r"[ \t\f\v\u00a0]+")
_BLANK = re.compile(r"\n\s*\n")


def page_heading(page: int) -> str:
    return f"page {page}"


def clean(text: str) -> str:
    """A page's text with runs of spaces made one and the lines of a paragraph joined (PDF
    text layers break lines where the page did), paragraphs kept apart by a blank line."""
    text = text.replace("\r\n", "\n").replace("\r", "\n").replace("\x00", "")
    paragraphs = []
    for block in _BLANK.split(text):
        joined = " ".join(_SPACES.sub(" ", line).strip() for line in block.split("\n"))
        joined = " ".join(joined.split(" "))
        if joined.strip():
            paragraphs.append(joined.strip())
    return "\n\n".join(paragraphs)


def split_page(text: str, max_chars: int) -> list[str]:
    """Paragraphs gathered up to max_chars; a longer one split at sentences."""
    parts: list[str] = []
    cur = ""
    for para in text.split("\n\n"):
        pieces = [para] if len(para) <= max_chars else _split_sentences(para, max_chars)
        for piece in pieces:
            if cur and len(cur) + 2 + len(piece) > max_chars:
                parts.append(cur)
                cur = ""
            cur = f"{cur}\n\n{piece}" if cur else piece
    if cur:
        parts.append(cur)
    return parts


def attachment_chunks(
    path: str,
    extraction: Extraction,
    *,
    mtime: float,
    profile: EmbedProfile,
    chunk_tokens: int,
    tz: ZoneInfo,
    with_context: bool = True,
) -> tuple[list[IndexedChunk], IndexedNote]:
    """The chunks of every page that has text, and the whole file for note-level keywords."""
    name = PurePosixPath(path).name
    stem = PurePosixPath(path).stem
    date = dt.datetime.fromtimestamp(mtime, tz).date().isoformat()
    max_chars = int(chunk_budget(profile, chunk_tokens) * CHARS_PER_TOKEN)
    chunks: list[IndexedChunk] = []
    texts: list[str] = []
    for page in extraction.pages:
        text = clean(page.text)
        if not text:
            continue
        texts.append(text)
        for piece in split_page(text, max_chars):
            embedded = embed_text(profile, stem, "", piece, with_context=with_context)
            chunks.append(
                IndexedChunk(
                    path=path,
                    title=name,
                    heading=page_heading(page.number),
                    text=piece,
                    ordinal=len(chunks),
                    start_line=page.number,
                    note_date=date,
                    mtime=mtime,
                    embed_text=embedded,
                    fingerprint=fingerprint(profile.model, embedded),
                )
            )
    where = PurePosixPath(path).with_suffix("").as_posix()
    note = IndexedNote(path, name, where, "\n\n".join(texts), mtime, ())
    return chunks, note
