"""Open the three parts of the index (manifest, LanceDB, Tantivy), rebuilding what is unusable.

The vault is the only source of truth, so a missing, corrupt or outdated part is never an error
for the user: it is rebuilt from the vault, with one log line that says why. Vectors are the
expensive part, so a LanceDB table that is still readable is kept as a cache even when the
manifest or Tantivy is rebuilt: chunks whose fingerprint matches are not embedded again.
"""

from __future__ import annotations

import logging
import shutil
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from commonplace.index.keywords import LAYOUT, KeywordIndex, KeywordIndexError
from commonplace.index.manifest import INDEX_SCHEMA, Manifest, ManifestError
from commonplace.index.vector_api import Vectors, VectorStoreError
from commonplace.runtime.lock import running_daemon

log = logging.getLogger(__name__)

MANIFEST = "manifest.sqlite"


class IndexUnavailable(Exception):
    """The index cannot be opened read-only; the message says what to do."""


@dataclass
class Stores:
    folder: Path
    manifest: Manifest
    vectors: Vectors
    keywords: KeywordIndex
    stale: set[str] = field(default_factory=set)  # paths LanceDB may hold that the manifest lacks
    rebuilt: str = ""  # why the index was rebuilt on open, or ""

    def close(self) -> None:
        self.keywords.close()
        self.manifest.close()
        self.vectors.close()


def open_stores(
    folder: Path,
    *,
    model: str,
    writable: bool = True,
    compact_every: int = 64,
    ann_rows: int = 2000,
    vectors_idle_s: float | None = None,
) -> Stores:
    """The index's stores. With vectors_idle_s, the vector store runs in a child process that
    stops after that many idle seconds (the daemon: vector_process.py); without, in this one."""
    folder.mkdir(parents=True, exist_ok=True)
    reasons: list[str] = []

    def rebuild(why: str, *, version: bool = False) -> None:
        if not writable:
            raise IndexUnavailable(
                f"the search index in {folder} cannot be used ({why}); "
                + what_to_do(folder.parent, version=version)
            )
        reasons.append(why)

    manifest = _open_manifest(folder / MANIFEST, rebuild)
    schema = manifest.get_meta("schema")
    if schema is not None and schema != str(INDEX_SCHEMA):
        rebuild(
            f"it was made by another version (layout {schema}, this one uses {INDEX_SCHEMA})",
            version=True,
        )
        manifest.close()
        for child in folder.iterdir():
            shutil.rmtree(child) if child.is_dir() else child.unlink()
        manifest = Manifest(folder / MANIFEST)
    reset = manifest.get_meta("schema") is None  # a new manifest knows nothing of the others
    keyword_layout = manifest.get_meta("keywords") or "1"
    if not reset and keyword_layout != str(LAYOUT):
        rebuild(
            f"the keyword index holds an older layout ({keyword_layout}, now {LAYOUT})",
            version=True,
        )

    vectors = _open_vectors(folder / "vectors", rebuild, compact_every, ann_rows, vectors_idle_s)
    try:
        keywords = _open_keywords(folder / "keywords", rebuild, writable)
    except BaseException:  # IndexBusy: another program writes the index
        vectors.close()
        raise

    stored_model = manifest.get_meta("embed_model")
    if stored_model and stored_model != model:
        rebuild(f"the embedding model changed from {stored_model} to {model}")
        vectors.drop()
    elif vectors.rows == 0 and manifest.embedded_chunks() > 0:
        rebuild("the vector table is missing")
    reset = reset or bool(reasons)
    stores = Stores(folder, manifest, vectors, keywords, rebuilt="; ".join(reasons))
    if not writable:
        return stores
    if reset:
        manifest.clear()
        if keywords.count():
            keywords.clear()
    if reset or manifest.get_meta("writing") == "1":
        # Rows the manifest does not list (a reset, or a run that was cut off): they are
        # deleted when their note is indexed again, and their vectors are reused.
        try:
            stores.stale = vectors.paths()
        except Exception as exc:  # lance: a data file gone (the folder deleted under a run)
            why = f"the vector table is unreadable: {_first_line(exc)}"
            log.warning("rebuilding the search index from the vault: %s", why)
            stores.rebuilt = "; ".join([*reasons, why])
            vectors.close()
            stores.vectors = vectors = _new_vectors(
                folder / "vectors", compact_every, ann_rows, vectors_idle_s
            )
    manifest.set_meta("schema", str(INDEX_SCHEMA))
    manifest.set_meta("embed_model", model)
    manifest.set_meta("keywords", str(LAYOUT))
    if reasons:
        log.warning("rebuilding the search index from the vault: %s", stores.rebuilt)
    return stores


def what_to_do(data_path: Path, *, version: bool) -> str:
    """What to do about an index this process may only read: only a writer rebuilds it. That
    writer is usually the daemon, which rebuilds or upgrades it only as it starts: a daemon
    started before an upgrade (or a settings change) is still running."""
    daemon = running_daemon(data_path)
    if daemon is None:
        return "run 'commonplace index' or start the daemon to rebuild it"
    which = (
        "still runs the version of commonplace it was started with"
        if version
        else "was started before this change"
    )
    return (
        f"the daemon running on this vault ({daemon.describe()}) {which}: restart it "
        "(Ctrl-C where it runs, then 'commonplace run'); it brings the index up to date as it "
        "starts"
    )


def _open_manifest(path: Path, rebuild: Callable[[str], None]) -> Manifest:
    try:
        manifest = Manifest(path)
        manifest.get_meta("schema")
        manifest.counts()
        return manifest
    except ManifestError as exc:
        rebuild(f"the manifest is unreadable: {exc}")
    except Exception as exc:  # sqlite3 errors other than DatabaseError, e.g. a wrong table
        rebuild(f"the manifest is unreadable: {exc}")
    for suffix in ("", "-wal", "-shm"):
        Path(f"{path}{suffix}").unlink(missing_ok=True)
    return Manifest(path)


def _open_keywords(folder: Path, rebuild: Callable[[str], None], writable: bool) -> KeywordIndex:
    try:
        return KeywordIndex(folder, writable=writable)
    except KeywordIndexError as exc:
        rebuild(f"the keyword index is unreadable: {exc}")
    shutil.rmtree(folder, ignore_errors=True)
    return KeywordIndex(folder, writable=writable)


def _open_vectors(
    folder: Path,
    rebuild: Callable[[str], None],
    compact_every: int,
    ann_rows: int,
    idle_s: float | None,
) -> Vectors:
    try:
        return _vectors(folder, compact_every, ann_rows, idle_s)
    except VectorStoreError as exc:
        rebuild(f"the vector table is unreadable: {exc}")
    return _new_vectors(folder, compact_every, ann_rows, idle_s)


def _new_vectors(folder: Path, compact_every: int, ann_rows: int, idle_s: float | None) -> Vectors:
    shutil.rmtree(folder, ignore_errors=True)
    return _vectors(folder, compact_every, ann_rows, idle_s)


def _vectors(folder: Path, compact_every: int, ann_rows: int, idle_s: float | None) -> Vectors:
    if idle_s is not None:
        from commonplace.index.vector_process import VectorProcess

        return VectorProcess(folder, compact_every=compact_every, ann_rows=ann_rows, idle_s=idle_s)
    from commonplace.index.vectors import VectorStore  # LanceDB and pyarrow, in this process

    return VectorStore(folder, compact_every=compact_every, ann_rows=ann_rows)


def _first_line(exc: BaseException) -> str:
    return (str(exc).splitlines() or [type(exc).__name__])[0][:300]
