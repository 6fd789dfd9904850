"""What was indexed, per file: size, mtime, content hash, chunk count, whether vectors exist;
and the text of each Logseq block another block can refer to (vault/blockrefs.py).

A start-up scan compares the vault's (size, mtime) with this table and reads only the files that
differ; a file whose bytes hash the same is not re-indexed. SQLite, because a single edit must
update one row, not rewrite a 50,000-entry file.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Collection, Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

INDEX_SCHEMA = 4  # bump when the stored layout or chunking changes: the index is then rebuilt


class ManifestError(Exception):
    """The manifest cannot be read: the index is rebuilt from the vault."""


@dataclass(frozen=True)
class FileEntry:
    path: str
    size: int
    mtime: float
    hash: str
    chunks: int
    vectors_ok: bool  # False: the keyword index has it, the vectors wait for the model
    skipped: str = ""  # why the file is not indexed ("too big", ...), or ""


class Manifest:
    def __init__(self, path: Path) -> None:
        self.path = path
        try:
            self._db = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute("PRAGMA synchronous=NORMAL")
            self._db.execute("PRAGMA journal_size_limit=1048576")  # the WAL shrinks back
            self._db.execute("PRAGMA wal_autocheckpoint=256")
            self._db.executescript(
                """
                CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
                CREATE TABLE IF NOT EXISTS files (
                    path TEXT PRIMARY KEY, size INTEGER NOT NULL, mtime REAL NOT NULL,
                    hash TEXT NOT NULL, chunks INTEGER NOT NULL, vectors_ok INTEGER NOT NULL,
                    skipped TEXT NOT NULL DEFAULT ''
                );
                CREATE TABLE IF NOT EXISTS neighbours (
                    path TEXT PRIMARY KEY, chunks TEXT NOT NULL, rs TEXT, at INTEGER
                );
                CREATE INDEX IF NOT EXISTS neighbours_at ON neighbours (at);
                CREATE TABLE IF NOT EXISTS blocks (
                    uuid TEXT NOT NULL, path TEXT NOT NULL, text TEXT NOT NULL,
                    PRIMARY KEY (uuid, path)
                );
                CREATE INDEX IF NOT EXISTS blocks_path ON blocks (path);
                """
            )
        except sqlite3.DatabaseError as exc:
            raise ManifestError(f"{path}: {exc}") from exc

    def close(self) -> None:
        self._db.close()

    # -- meta -------------------------------------------------------------------------------

    def get_meta(self, key: str) -> str | None:
        try:
            row = self._db.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
        except sqlite3.DatabaseError as exc:
            raise ManifestError(f"{self.path}: {exc}") from exc
        return None if row is None else str(row[0])

    def set_meta(self, key: str, value: str) -> None:
        self._db.execute("INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)", (key, value))

    # -- files ------------------------------------------------------------------------------

    def all(self) -> dict[str, FileEntry]:
        rows = self._db.execute(
            "SELECT path, size, mtime, hash, chunks, vectors_ok, skipped FROM files"
        )
        return {r[0]: _entry(r) for r in rows}

    def get(self, path: str) -> FileEntry | None:
        row = self._db.execute(
            "SELECT path, size, mtime, hash, chunks, vectors_ok, skipped FROM files WHERE path = ?",
            (path,),
        ).fetchone()
        return None if row is None else _entry(row)

    def under(self, folder: str) -> list[str]:
        """Paths of indexed files inside `folder` (for a folder that was deleted or moved)."""
        prefix = folder.strip("/") + "/"
        rows = self._db.execute(
            "SELECT path FROM files WHERE substr(path, 1, ?) = ?", (len(prefix), prefix)
        )
        return [r[0] for r in rows]

    def count_pending_vectors(self) -> int:
        row = self._db.execute(
            "SELECT count(*) FROM files WHERE vectors_ok = 0 AND skipped = ''"
        ).fetchone()
        return int(row[0])

    def write(self, entries: Iterable[FileEntry], deleted: Iterable[str]) -> None:
        """Record one batch in a single transaction."""
        with _transaction(self._db):
            self._db.executemany("DELETE FROM files WHERE path = ?", ((p,) for p in deleted))
            self._db.executemany(
                "INSERT OR REPLACE INTO files VALUES (?, ?, ?, ?, ?, ?, ?)",
                (
                    (e.path, e.size, e.mtime, e.hash, e.chunks, int(e.vectors_ok), e.skipped)
                    for e in entries
                ),
            )

    def clear(self) -> None:
        self._db.execute("DELETE FROM files")
        self._db.execute("DELETE FROM neighbours")
        self._db.execute("DELETE FROM blocks")

    def mark_all_pending(self) -> None:
        """Every file needs its vectors again (they were dropped)."""
        self._db.execute("UPDATE files SET vectors_ok = 0 WHERE skipped = ''")
        self._db.execute("DELETE FROM neighbours")

    # -- Logseq blocks (vault/blockrefs.py) -------------------------------------------------------

    def write_blocks(
        self, notes: Iterable[tuple[str, Mapping[str, str]]], removed: Iterable[str]
    ) -> None:
        """Each note's blocks (uuid -> shown text) replace what it held; `removed`: notes gone.
        Kept per note, so an edit or a delete changes only that note's rows, and the search
        that shows a ref reads one indexed row instead of the vault."""
        notes = list(notes)
        with _transaction(self._db):
            self._db.executemany(
                "DELETE FROM blocks WHERE path = ?",
                ((p,) for p in [*removed, *(path for path, _ in notes)]),
            )
            self._db.executemany(
                "INSERT OR REPLACE INTO blocks VALUES (?, ?, ?)",
                ((uuid, path, text) for path, blocks in notes for uuid, text in blocks.items()),
            )

    def clear_blocks(self) -> None:
        self._db.execute("DELETE FROM blocks")

    def block_texts(self, uuids: Collection[str]) -> dict[str, str]:
        """uuid -> its block's text, for the uuids the index knows (one of them when two files
        hold the same block: a copied page, a sync conflict)."""
        wanted = sorted(uuids)
        found: dict[str, str] = {}
        for i in range(0, len(wanted), 500):  # SQLite's limit on a statement's parameters
            part = wanted[i : i + 500]
            rows = self._db.execute(
                f"SELECT uuid, text FROM blocks WHERE uuid IN ({','.join('?' * len(part))})",
                part,
            )
            found.update((str(uuid), str(text)) for uuid, text in rows)
        return found

    # -- neighbourhoods (hubness.py) ----------------------------------------------------------

    def note_chunks(
        self, written: Iterable[tuple[str, list[tuple[int, str]]]], removed: Iterable[str]
    ) -> None:
        """Notes written with all their vectors ((ordinal, fingerprint) per chunk): their r is
        to be computed; `removed`: notes gone, or written without all their vectors."""
        written, removed = list(written), list(removed)
        with _transaction(self._db):
            self._db.executemany("DELETE FROM neighbours WHERE path = ?", ((p,) for p in removed))
            self._db.executemany(
                "INSERT OR REPLACE INTO neighbours VALUES (?, ?, NULL, NULL)",
                ((path, json.dumps(chunks)) for path, chunks in written),
            )
            changes = self.neighbour_changes() + len(written) + len(removed)
            self.set_meta("neighbour_changes", str(changes))

    def neighbour_changes(self) -> int:
        """Notes written or removed so far (a clock for how stale a note's r is)."""
        return int(self.get_meta("neighbour_changes") or 0)

    def neighbours_todo(self, limit: int) -> list[tuple[str, list[tuple[int, str]]]]:
        """Notes whose r was never computed, or was computed before as many notes changed as
        half the index holds."""
        before = self.neighbour_changes() - self.counts()[0] / 2
        rows = self._db.execute(
            "SELECT path, chunks FROM neighbours WHERE at IS NULL OR at < ? LIMIT ?",
            (before, limit),
        )
        return [(p, [(int(o), str(fp)) for o, fp in json.loads(chunks)]) for p, chunks in rows]

    def set_neighbours(self, path: str, rs: dict[int, float] | None, at: int) -> None:
        """A note's r per chunk ordinal (None: could not be computed now), as of `at`."""
        self._db.execute(
            "UPDATE neighbours SET rs = ?, at = ? WHERE path = ?",
            (None if rs is None else json.dumps(rs), at, path),
        )

    def neighbours(self) -> dict[str, dict[int, float]]:
        return _neighbours(self._db)

    def touch(self, path: str, size: int, mtime: float) -> None:
        """The file's mtime moved but its bytes did not: remember that, so it is not re-read."""
        self._db.execute("UPDATE files SET size = ?, mtime = ? WHERE path = ?", (size, mtime, path))

    def embedded_chunks(self) -> int:
        row = self._db.execute(
            "SELECT coalesce(sum(chunks), 0) FROM files WHERE skipped = '' AND vectors_ok = 1"
        ).fetchone()
        return int(row[0])

    def attachment_count(self, suffixes: tuple[str, ...]) -> tuple[int, int]:
        """(files, files with text) among the indexed files whose name ends with one of
        `suffixes` (lower case): the attachments, and those a search can find."""
        if not suffixes:
            return 0, 0
        where = " OR ".join("lower(path) LIKE ?" for _ in suffixes)
        row = self._db.execute(
            "SELECT count(*), coalesce(sum(chunks > 0), 0) FROM files "
            f"WHERE skipped = '' AND ({where})",
            tuple(f"%{s}" for s in suffixes),
        ).fetchone()
        return int(row[0]), int(row[1])

    def counts(self) -> tuple[int, int]:
        """(notes, chunks) in the index."""
        row = self._db.execute(
            "SELECT count(*), coalesce(sum(chunks), 0) FROM files WHERE skipped = ''"
        ).fetchone()
        return int(row[0]), int(row[1])


def read_neighbours(path: Path) -> dict[str, dict[int, float]]:
    """Every note's r per chunk ordinal, read through a connection of its own (a thread that
    loads them while the manifest's connection serves the indexer; hubness.Neighbourhoods)."""
    db = sqlite3.connect(f"file:{path}?mode=ro", uri=True, isolation_level=None)
    try:
        return _neighbours(db)
    except sqlite3.DatabaseError as exc:
        raise ManifestError(f"{path}: {exc}") from exc
    finally:
        db.close()


def _neighbours(db: sqlite3.Connection) -> dict[str, dict[int, float]]:
    rows = db.execute("SELECT path, rs FROM neighbours WHERE rs IS NOT NULL")
    return {path: {int(o): float(r) for o, r in json.loads(rs).items()} for path, rs in rows}


def _entry(row: Any) -> FileEntry:
    path, size, mtime, digest, chunks, ok, skipped = row
    return FileEntry(path, int(size), float(mtime), digest, int(chunks), bool(ok), skipped)


class _transaction:
    def __init__(self, db: sqlite3.Connection) -> None:
        self.db = db

    def __enter__(self) -> None:
        self.db.execute("BEGIN")

    def __exit__(self, kind: object, exc: object, tb: object) -> None:
        self.db.execute("COMMIT" if kind is None else "ROLLBACK")
