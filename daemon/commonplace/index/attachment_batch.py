"""One attachment in a refresh's batch: its cached text as chunks, or a place in the queue.

Called by batch.py for every PDF or image a refresh looks at. It reads the bytes by the
vault's read rule (an ordinary file, never through a link, at most `max_file_mb`), hashes them,
and indexes the cached text; text not cached yet puts the file in the reader's queue
(attachments/reader.py) and leaves it out of this batch. The file is never written to.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Literal

from commonplace.attachments.extraction import content_key
from commonplace.attachments.reader import AttachmentReader, Problem
from commonplace.config import Settings
from commonplace.index.attachment_chunks import attachment_chunks
from commonplace.index.chunking import IndexedChunk, IndexedNote
from commonplace.index.manifest import FileEntry
from commonplace.llm.profiles import EmbedProfile
from commonplace.vault import FileRefused, read_file

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Indexable:
    entry: FileEntry
    chunks: list[IndexedChunk]
    note: IndexedNote | None


@dataclass(frozen=True)
class Unchanged:
    size: int
    mtime: float


Outcome = Indexable | Unchanged | Literal["gone", "waiting"]


def load_attachment(
    settings: Settings,
    profile: EmbedProfile,
    path: str,
    old: FileEntry | None,
    reader: AttachmentReader,
    *,
    reuse: bool,
) -> Outcome:
    """What to index (entry, chunks, whole-file note); "gone"; Unchanged when the bytes and options
    are those indexed (`reuse`: and nothing else asks for a new read); "waiting" when the text
    is not cached yet (the path is queued)."""
    try:
        data, st = read_file(settings.vault, path, reader.max_bytes)
    except FileNotFoundError:
        return "gone"
    except FileRefused as refused:
        code = "too_large" if refused.size is not None else "unreadable"
        reason = refused.reason + (": not read" if refused.size is not None else "")
        reader.record(path, None, Problem(code, reason))
        return Indexable(_skipped(path, refused.size or 0, reason), [], None)
    except OSError as exc:
        reason = f"cannot be read ({exc.strerror or exc})"
        reader.record(path, None, Problem("unreadable", reason))
        return Indexable(_skipped(path, 0, reason), [], None)
    key = f"{content_key(data)}:{reader.options.signature}"
    if old is not None and old.hash == key and not old.skipped and reuse:
        return Unchanged(int(st.st_size), float(st.st_mtime))
    extraction = reader.cache.get(key.split(":")[0], reader.options.signature)
    if extraction is None:
        reader.want(path)
        return "waiting"
    reader.record(path, extraction)
    chunks, note = attachment_chunks(
        path,
        extraction,
        mtime=float(st.st_mtime),
        profile=profile,
        chunk_tokens=settings.index.chunk_tokens,
        tz=settings.tz,
        with_context=settings.index.embed_titles,
    )
    entry = FileEntry(path, int(st.st_size), float(st.st_mtime), key, len(chunks), True)
    return Indexable(entry, chunks, note)


def _skipped(path: str, size: int, reason: str) -> FileEntry:
    return FileEntry(path, size, 0.0, "", 0, True, reason)
