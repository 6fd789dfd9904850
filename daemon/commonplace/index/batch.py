"""One batch of a refresh: the files read, their chunks, and the vectors already stored.

Pure-ish helpers of the indexer, kept apart so indexer.py stays about orchestration.
"""

from __future__ import annotations

import dataclasses
import logging
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from commonplace.attachments.kinds import is_attachment
from commonplace.attachments.reader import AttachmentReader
from commonplace.config import Settings
from commonplace.index import drawings
from commonplace.index.attachment_batch import Indexable, Unchanged, load_attachment
from commonplace.index.chunking import IndexedChunk, IndexedNote, index_chunks, index_note
from commonplace.index.manifest import FileEntry, Manifest
from commonplace.index.models import RefreshStats
from commonplace.index.plan import Plan
from commonplace.llm.profiles import EmbedProfile
from commonplace.runtime.foreground import pause
from commonplace.vault import NoteSkipped, read_note
from commonplace.vault.blockrefs import note_blocks

log = logging.getLogger(__name__)

BATCH_FILES = 128  # files per read/embed/write round: bounds memory on a 50,000-note vault


@dataclass
class Loaded:
    """One file of a batch after reading: what to store, or why not."""

    path: str
    entry: FileEntry
    chunks: list[IndexedChunk]
    note: IndexedNote | None = None  # the whole note, for note-level keyword search
    blocks: dict[str, str] = field(default_factory=dict)  # Logseq: uuid -> shown block text


@dataclass
class Batch:
    loaded: list[Loaded]
    gone: list[str]
    known: list[str]  # paths whose LanceDB rows are replaced
    stored: dict[str, np.ndarray]  # fingerprint -> vector already stored for these paths


def read_files(
    settings: Settings,
    profile: EmbedProfile,
    paths: list[str],
    plan: Plan,
    stats: RefreshStats,
    *,
    stale: set[str],
    manifest: Manifest,
    unchanged_ok: bool,
    attachments: AttachmentReader | None = None,
) -> tuple[list[Loaded], list[str]]:
    """Read and chunk notes; a file whose bytes did not change only gets its new mtime
    recorded (when its vectors are complete, or cannot be made now: `unchanged_ok`)."""
    s = settings
    loaded: list[Loaded] = []
    gone: list[str] = []
    for path in paths:
        pause()  # a request is being answered: let it have the interpreter (runtime/foreground.py)
        old = plan.entries.get(path)
        if is_attachment(path):
            if attachments is None:
                continue
            reuse = (
                old is not None
                and (old.vectors_ok or unchanged_ok)
                and path not in stale
                and path not in plan.again
            )
            outcome = load_attachment(s, profile, path, old, attachments, reuse=reuse)
            if outcome == "gone":
                if old is not None or path in stale:
                    gone.append(path)
            elif isinstance(outcome, Unchanged):
                manifest.touch(path, outcome.size, outcome.mtime)
                stats.unchanged += 1
            elif isinstance(outcome, Indexable):
                if outcome.entry.skipped:
                    stats.skipped += 1
                loaded.append(Loaded(path, outcome.entry, outcome.chunks, outcome.note))
            continue
        try:
            note = read_note(s.vault, path, s.flavor, max_bytes=s.index.max_note_kb * 1024)
            note = drawings.searchable(note)
        except NoteSkipped as skip:
            if skip.missing:
                if old is not None or path in stale:
                    gone.append(path)
                continue
            stats.skipped += 1
            size, mtime = _stat(s.vault / path)
            entry = FileEntry(path, size, mtime, "", 0, True, skip.reason)
            loaded.append(Loaded(path, entry, []))
            log.info("%s", skip)
            continue
        if (
            old is not None
            and old.hash == note.content_hash
            and not old.skipped
            and (old.vectors_ok or unchanged_ok)
            and path not in stale
            and path not in plan.again
        ):
            manifest.touch(path, note.size, note.mtime)
            stats.unchanged += 1
            continue
        chunks = index_chunks(
            note,
            profile=profile,
            chunk_tokens=s.index.chunk_tokens,
            tz=s.tz,
            with_context=s.index.embed_titles,
            flavor=s.flavor,
        )
        entry = FileEntry(path, note.size, note.mtime, note.content_hash, len(chunks), True)
        blocks = note_blocks(note.text) if s.flavor == "logseq" else {}
        loaded.append(Loaded(path, entry, chunks, index_note(note, s.flavor), blocks))
    return loaded, gone


def merge(parts: Iterable[dict[str, np.ndarray]]) -> dict[str, np.ndarray]:
    out: dict[str, np.ndarray] = {}
    for part in parts:
        out.update(part)
    return out


def stack(vectors: list[np.ndarray]) -> np.ndarray:
    if not vectors:
        return np.zeros((0, 0), dtype=np.float32)
    return np.vstack(vectors).astype(np.float32, copy=False)


def _stat(path: Path) -> tuple[int, float]:
    try:
        st = path.stat()
    except OSError:
        return 0, 0.0
    return int(st.st_size), float(st.st_mtime)


def add_stats(total: RefreshStats, more: RefreshStats) -> None:
    for f in dataclasses.fields(RefreshStats):
        value = getattr(total, f.name)
        if f.name in ("notes", "chunks", "vectors_pending"):
            setattr(total, f.name, getattr(more, f.name))
        elif isinstance(value, list):
            value.extend(getattr(more, f.name))
        else:
            setattr(total, f.name, value + getattr(more, f.name))
