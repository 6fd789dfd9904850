"""The index that follows the vault: refresh (reconcile or targeted), pending changes, status.

A refresh reads changed files in batches; for each batch it chunks the notes, reuses every
vector whose fingerprint is already stored, embeds the rest in one call, and writes LanceDB,
Tantivy and the manifest. When Ollama is down the keyword index still updates, the files are
marked as waiting for vectors, and a later reconciliation embeds them.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import datetime as dt
import logging
import threading
import time
from collections import OrderedDict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from tqdm import tqdm

from commonplace.config import Settings
from commonplace.index.chunking import IndexedChunk, index_chunks
from commonplace.index.manifest import FileEntry
from commonplace.index.models import RefreshStats, SearchResponse
from commonplace.index.plan import Plan, normalize, plan_paths, plan_reconcile
from commonplace.index.searching import Searcher
from commonplace.index.store import Stores, open_stores
from commonplace.llm import LLM, LLMError
from commonplace.vault import NoteSkipped, read_note

log = logging.getLogger(__name__)

BATCH_FILES = 128  # files per read/embed/write round: bounds memory on a 50,000-note vault
DOWN_RETRY_S = 30.0  # after an embedding failure, do not ask Ollama again for this long
RECENT_VECTORS = 4096  # vectors of deleted chunks kept in memory, so a move re-embeds nothing
RECENT_PATHS = 1024  # notes whose vectors are all in that memory (recently written)
PROGRESS_BAR_FILES = 200  # show a progress bar for runs at least this long


@dataclass
class _Loaded:
    """One file of a batch after reading: what to store, or why not."""

    path: str
    entry: FileEntry
    chunks: list[IndexedChunk]


@dataclass
class _Batch:
    loaded: list[_Loaded]
    gone: list[str]
    known: list[str]  # paths whose LanceDB rows are replaced
    stored: dict[str, np.ndarray]  # fingerprint -> vector already stored for these paths


class Index:
    """The search index of one vault; all files live in settings.data_path / 'index'."""

    def __init__(self, settings: Settings, llm: LLM, stores: Stores) -> None:
        self.settings = settings
        self.llm = llm
        self.stores = stores
        self.model = settings.ollama.embed_model
        self._lock = asyncio.Lock()
        self._io = threading.Lock()  # held by every write in a worker thread, and by close()
        self._closed = False
        self._dirty: dict[str, None] = {}
        self._progress: tuple[int, int] | None = None
        self._last_refresh: str | None = None
        self._down_until = 0.0
        self.down_error = ""  # the last embedding failure, for the search notice
        self._recent: OrderedDict[str, np.ndarray] = OrderedDict()  # fingerprint -> vector
        self._by_path: OrderedDict[str, frozenset[str]] = OrderedDict()  # path -> fingerprints
        self._counts = stores.manifest.counts()
        self._pending_vectors = stores.manifest.count_pending_vectors()
        self.searcher = Searcher(self)

    @classmethod
    def open(cls, settings: Settings, llm: LLM, *, read_only: bool = False) -> Index:
        """Open (or create, or rebuild) the index; raises IndexBusy if another process writes
        it and read_only is False."""
        s = settings.index
        stores = open_stores(
            settings.data_path / "index",
            model=settings.ollama.embed_model,
            writable=not read_only,
            compact_every=s.compact_every,
            ann_rows=s.vector_index_rows,
        )
        return cls(settings, llm, stores)

    def close(self) -> None:
        """Close the stores; waits for a write that is under way in a worker thread (a task
        cancelled mid-refresh leaves its thread running)."""
        with self._io:
            if not self._closed:
                self._closed = True
                self.stores.close()

    # -- changes --------------------------------------------------------------------------

    def mark_dirty(self, paths: Iterable[str]) -> None:
        """Remember paths that changed; the next refresh or search applies them."""
        for path in paths:
            rel = normalize(path)
            if rel:
                self._dirty[rel] = None

    def _take_dirty(self) -> list[str]:
        paths = list(self._dirty)
        self._dirty.clear()
        return paths

    async def apply_pending(self) -> None:
        """Index the paths marked dirty, unless a run is going (it picks them up at its end)."""
        if self._dirty and not self._lock.locked() and self.stores.keywords.writable:
            await self.refresh(paths=self._take_dirty())

    async def refresh(
        self, paths: Sequence[str] | None = None, *, full: bool = False
    ) -> RefreshStats:
        """Bring the index in line with the vault: every file (paths=None) or just `paths`.

        full=True forgets what was indexed and reads every note again; vectors whose
        fingerprint is unchanged are still reused, so nothing is embedded twice.
        """
        async with self._lock:
            stats = await self._run(None if paths is None else list(paths), full=full)
            while self._dirty:  # changes that arrived while this run was going
                more = await self._run(self._take_dirty(), full=False)
                _add(stats, more)
            return stats

    async def search(
        self,
        query: str,
        limit: int = 10,
        mode: str = "hybrid",
        include_folders: Sequence[str] = (),
        exclude_folders: Sequence[str] = (),
        modified_after: float | dt.datetime | dt.date | None = None,
        group_by_note: bool = False,
    ) -> SearchResponse:
        """Search, after applying pending changes; see searching.Searcher."""
        await self.apply_pending()
        return await self.searcher.search(
            query,
            limit=limit,
            mode=mode,
            include_folders=tuple(include_folders),
            exclude_folders=tuple(exclude_folders),
            modified_after=modified_after,
            group_by_note=group_by_note,
        )

    def status(self) -> dict[str, Any]:
        notes, chunks = self._counts
        done, total = self._progress or (0, 0)
        return {
            "notes": notes,
            "chunks": chunks,
            "pending": len(self._dirty),
            "vectors_pending": self._pending_vectors,
            "last_refresh": self._last_refresh,
            "embedding_model": self.model,
            "running": self._progress is not None,
            "progress": {"done": done, "total": total} if self._progress else None,
        }

    @property
    def embeddings_down(self) -> bool:
        return time.monotonic() < self._down_until

    def embedding_failed(self, error: LLMError) -> None:
        if not self.embeddings_down:
            log.warning("embeddings unavailable, keyword search only for now: %s", error)
        self._down_until = time.monotonic() + DOWN_RETRY_S
        self.down_error = str(error)

    # -- one run --------------------------------------------------------------------------

    async def _run(self, paths: list[str] | None, *, full: bool) -> RefreshStats:
        start = time.perf_counter()
        stats = RefreshStats()
        st = self.stores
        if full:
            await asyncio.to_thread(self._forget_all)
        if paths is None:
            entries = await asyncio.to_thread(st.manifest.all)
            plan = await asyncio.to_thread(
                plan_reconcile,
                self.settings.vault,
                entries,
                st.stale,
                retry_vectors=not self.embeddings_down,
            )
        elif paths:
            plan = plan_paths(self.settings.vault, paths, st.manifest, st.stale)
        else:
            plan = Plan()
        stats.checked = plan.checked
        if not plan.empty:
            await self._apply(plan, stats, big=paths is None or full)
        stats.notes, stats.chunks = self._counts
        stats.vectors_pending = self._pending_vectors
        stats.seconds = time.perf_counter() - start
        self._last_refresh = dt.datetime.now(dt.UTC).isoformat(timespec="seconds")
        return stats

    def _forget_all(self) -> None:
        st = self.stores
        st.stale |= st.vectors.paths()
        st.manifest.clear()
        st.keywords.clear()
        self._counts = (0, 0)

    async def _apply(self, plan: Plan, stats: RefreshStats, *, big: bool) -> None:
        st = self.stores
        total = len(plan.read) + len(plan.delete)
        self._progress = (0, total)
        st.manifest.set_meta("writing", "1")
        bar = tqdm(
            total=total,
            unit="note",
            desc="indexing",
            disable=None if total >= PROGRESS_BAR_FILES else True,
            leave=False,
        )
        try:
            if plan.delete:
                await asyncio.to_thread(self._delete, plan)
                stats.deleted += len(plan.delete)
                self._advance(len(plan.delete), bar)
            await self._index_batches(plan, stats, bar)
            await asyncio.to_thread(self._maintain, big and total >= BATCH_FILES)
            st.manifest.set_meta("writing", "0")
        finally:
            bar.close()
            self._progress = None
            self._counts = st.manifest.counts()
            self._pending_vectors = st.manifest.count_pending_vectors()

    def _maintain(self, force: bool) -> None:
        with self._io:
            if not self._closed:
                self.stores.vectors.maintain(force=force)

    def _advance(self, n: int, bar: tqdm[Any]) -> None:
        done, total = self._progress or (0, 0)
        done += n
        self._progress = (done, total)
        bar.update(n)
        if total >= PROGRESS_BAR_FILES and (done * 10 // total) != ((done - n) * 10 // total):
            log.info("indexing: %d of %d notes", done, total)

    def _delete(self, plan: Plan) -> None:
        with self._io:
            if not self._closed:
                self._delete_now(plan.delete, plan)

    def _delete_now(self, paths: list[str], plan: Plan) -> None:
        st = self.stores
        known = [p for p in paths if self._known(p, plan)]
        if len(known) <= RECENT_VECTORS:
            self._remember(st.vectors.vectors_for(known))
        st.vectors.replace(known, [], np.zeros((0, 0), np.float32))
        st.keywords.replace(paths, [])
        st.manifest.write([], paths)
        st.stale.difference_update(paths)
        for path in paths:
            self._by_path.pop(path, None)

    def _remember(self, vectors: dict[str, np.ndarray]) -> None:
        for fp, vec in vectors.items():
            self._recent[fp] = vec
            self._recent.move_to_end(fp)
        while len(self._recent) > RECENT_VECTORS:
            self._recent.popitem(last=False)

    async def _index_batches(self, plan: Plan, stats: RefreshStats, bar: tqdm[Any]) -> None:
        """Read, embed, write, batch after batch, with reading the next batch and writing the
        last one overlapping the wait for embeddings (Ollama works while we do)."""
        batches = [plan.read[i : i + BATCH_FILES] for i in range(0, len(plan.read), BATCH_FILES)]
        loading: asyncio.Task[_Batch] | None = None
        writing: asyncio.Task[None] | None = None
        try:
            for i, paths in enumerate(batches):
                batch = await (loading or asyncio.to_thread(self._load, paths, plan, stats))
                loading = None
                if i + 1 < len(batches):
                    nxt = batches[i + 1]
                    loading = asyncio.create_task(asyncio.to_thread(self._load, nxt, plan, stats))
                vectors = await self._vectors_for(batch.loaded, batch.stored, stats)
                if writing is not None:
                    await writing
                writing = asyncio.create_task(asyncio.to_thread(self._write, batch, vectors))
                stats.deleted += len(batch.gone)
                stats.indexed += sum(1 for item in batch.loaded if not item.entry.skipped)
                self._advance(len(paths), bar)
            if writing is not None:
                await writing
        finally:
            for task in (loading, writing):
                if task is not None and not task.done():
                    with contextlib.suppress(Exception):
                        await task

    def _cached_vectors(self, paths: list[str]) -> dict[str, dict[str, np.ndarray]]:
        """path -> its stored vectors, for paths this process wrote and still has in memory
        (an edited note is usually one written moments ago: no LanceDB scan for it)."""
        out: dict[str, dict[str, np.ndarray]] = {}
        for path in paths:
            prints = self._by_path.get(path)
            if prints is not None and all(fp in self._recent for fp in prints):
                out[path] = {fp: self._recent[fp] for fp in prints}
        return out

    def _known(self, path: str, plan: Plan) -> bool:
        """May LanceDB hold rows for this path (so they must be replaced, and can be reused)?"""
        return path in plan.entries or path in self.stores.stale

    def _load(self, paths: list[str], plan: Plan, stats: RefreshStats) -> _Batch:
        """Read and chunk the batch and find the vectors already stored for it."""
        with self._io:
            if self._closed:
                return _Batch([], [], [], {})
            loaded, gone = self._read(paths, plan, stats)
            known = [p for p in [*(f.path for f in loaded), *gone] if self._known(p, plan)]
            cached = self._cached_vectors(known)
            lookup = [p for p in known if p not in cached]
            stored = self.stores.vectors.vectors_for(lookup) if lookup else {}
            stored.update(_merge(cached.values()))
            return _Batch(loaded, gone, known, stored)

    def _read(
        self, paths: list[str], plan: Plan, stats: RefreshStats
    ) -> tuple[list[_Loaded], list[str]]:
        """Files whose bytes did not change only get their new mtime recorded."""
        s = self.settings
        loaded: list[_Loaded] = []
        gone: list[str] = []
        for path in paths:
            old = plan.entries.get(path)
            try:
                note = read_note(s.vault, path, s.flavor, max_bytes=s.index.max_note_kb * 1024)
            except NoteSkipped as skip:
                if skip.reason == "no longer exists":
                    if old is not None or path in self.stores.stale:
                        gone.append(path)
                    continue
                stats.skipped += 1
                size, mtime = _stat(s.vault / path)
                entry = FileEntry(path, size, mtime, "", 0, True, skip.reason)
                loaded.append(_Loaded(path, entry, []))
                log.info("%s", skip)
                continue
            if (
                old is not None
                and old.hash == note.content_hash
                and not old.skipped
                and (old.vectors_ok or self.embeddings_down)
                and path not in self.stores.stale
            ):
                self.stores.manifest.touch(path, note.size, note.mtime)
                stats.unchanged += 1
                continue
            chunks = index_chunks(
                note,
                model=self.model,
                chunk_tokens=s.index.chunk_tokens,
                tz=s.tz,
                with_context=s.index.embed_titles,
            )
            entry = FileEntry(path, note.size, note.mtime, note.content_hash, len(chunks), True)
            loaded.append(_Loaded(path, entry, chunks))
        return loaded, gone

    async def _vectors_for(
        self, loaded: list[_Loaded], stored: dict[str, np.ndarray], stats: RefreshStats
    ) -> dict[str, np.ndarray]:
        """fingerprint -> vector for every chunk of the batch that can have one now."""
        have: dict[str, np.ndarray] = {}
        todo: dict[str, str] = {}  # fingerprint -> text, each distinct text embedded once
        for item in loaded:
            for c in item.chunks:
                vec = stored.get(c.fingerprint)
                if vec is None:
                    vec = self._recent.get(c.fingerprint)
                if vec is not None:
                    have[c.fingerprint] = vec
                    stats.reused += 1
                elif c.fingerprint not in have:
                    todo[c.fingerprint] = c.embed_text
        if todo and not self.embeddings_down:
            started = time.perf_counter()
            try:
                got = await self.llm.embed(list(todo.values()), model=self.model)
            except LLMError as exc:
                self.embedding_failed(exc)
                stats.errors.append(str(exc))
            else:
                for fp, values in zip(todo, got, strict=True):
                    have[fp] = np.asarray(values, dtype=np.float32)
                stats.embedded += len(todo)
            stats.embed_seconds += time.perf_counter() - started
        return have

    def _write(self, batch: _Batch, vectors: dict[str, np.ndarray]) -> None:
        with self._io:
            if not self._closed:
                self._write_now(batch.loaded, batch.gone, batch.known, vectors)

    def _write_now(
        self,
        loaded: list[_Loaded],
        gone: list[str],
        known: list[str],
        vectors: dict[str, np.ndarray],
    ) -> None:
        st = self.stores
        rows: list[IndexedChunk] = []
        entries: list[FileEntry] = []
        for item in loaded:
            ready = all(c.fingerprint in vectors for c in item.chunks)
            rows.extend(c for c in item.chunks if c.fingerprint in vectors)
            entries.append(dataclasses.replace(item.entry, vectors_ok=ready))
        matrix = _stack([vectors[c.fingerprint] for c in rows])
        if rows and st.vectors.dim not in (None, matrix.shape[1]):
            log.warning(
                "the embedding model now returns %d numbers instead of %d; re-embedding all",
                matrix.shape[1],
                st.vectors.dim,
            )
            st.vectors.drop()
            st.manifest.mark_all_pending()
        st.vectors.replace(known, rows, matrix)
        st.keywords.replace(
            [item.path for item in loaded] + gone, [c for item in loaded for c in item.chunks]
        )
        st.manifest.write(entries, gone)
        st.stale.difference_update(known)
        for path in gone:
            self._by_path.pop(path, None)
        for item, entry in zip(loaded, entries, strict=True):
            self._by_path.pop(item.path, None)
            if entry.vectors_ok and not entry.skipped:
                prints = frozenset(c.fingerprint for c in item.chunks)
                self._remember({fp: vectors[fp] for fp in prints})
                self._by_path[item.path] = prints
        while len(self._by_path) > RECENT_PATHS:
            self._by_path.popitem(last=False)


def _merge(parts: Iterable[dict[str, np.ndarray]]) -> dict[str, np.ndarray]:
    out: dict[str, np.ndarray] = {}
    for part in parts:
        out.update(part)
    return out


def _stack(vectors: list[np.ndarray]) -> np.ndarray:
    if not vectors:
        return np.zeros((0, 0), dtype=np.float32)
    return np.vstack(vectors).astype(np.float32, copy=False)


def _stat(path: Any) -> tuple[int, float]:
    try:
        st = path.stat()
    except OSError:
        return 0, 0.0
    return int(st.st_size), float(st.st_mtime)


def _add(total: RefreshStats, more: RefreshStats) -> None:
    for f in dataclasses.fields(RefreshStats):
        value = getattr(total, f.name)
        if f.name in ("notes", "chunks", "vectors_pending"):
            setattr(total, f.name, getattr(more, f.name))
        elif isinstance(value, list):
            value.extend(getattr(more, f.name))
        else:
            setattr(total, f.name, value + getattr(more, f.name))
