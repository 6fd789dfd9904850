"""The index that follows the vault: refresh (reconcile or targeted), pending changes, status.

A refresh reads changed files in batches; for each batch it chunks the notes, reuses every
vector whose fingerprint is already stored, embeds the rest in one call, and writes LanceDB,
Tantivy and the manifest. When Ollama is down the keyword index still updates, the files are
marked as waiting for vectors, and a later reconciliation embeds them.
"""

from __future__ import annotations

import asyncio
import dataclasses
import datetime as dt
import logging
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
PROGRESS_BAR_FILES = 200  # show a progress bar for runs at least this long


@dataclass
class _Loaded:
    """One file of a batch after reading: what to store, or why not."""

    path: str
    entry: FileEntry
    chunks: list[IndexedChunk]


class Index:
    """The search index of one vault; all files live in settings.data_path / 'index'."""

    def __init__(self, settings: Settings, llm: LLM, stores: Stores) -> None:
        self.settings = settings
        self.llm = llm
        self.stores = stores
        self.model = settings.ollama.embed_model
        self._lock = asyncio.Lock()
        self._dirty: dict[str, None] = {}
        self._progress: tuple[int, int] | None = None
        self._last_refresh: str | None = None
        self._down_until = 0.0
        self.down_error = ""  # the last embedding failure, for the search notice
        self._recent: OrderedDict[str, np.ndarray] = OrderedDict()
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
                await asyncio.to_thread(self._delete, plan.delete)
                stats.deleted += len(plan.delete)
                self._advance(len(plan.delete), bar)
            for start in range(0, len(plan.read), BATCH_FILES):
                batch = plan.read[start : start + BATCH_FILES]
                await self._index_batch(batch, stats)
                self._advance(len(batch), bar)
            await asyncio.to_thread(st.vectors.maintain, force=big and total >= BATCH_FILES)
            st.manifest.set_meta("writing", "0")
        finally:
            bar.close()
            self._progress = None
            self._counts = st.manifest.counts()
            self._pending_vectors = st.manifest.count_pending_vectors()

    def _advance(self, n: int, bar: tqdm[Any]) -> None:
        done, total = self._progress or (0, 0)
        done += n
        self._progress = (done, total)
        bar.update(n)
        if total >= PROGRESS_BAR_FILES and (done * 10 // total) != ((done - n) * 10 // total):
            log.info("indexing: %d of %d notes", done, total)

    def _delete(self, paths: list[str]) -> None:
        st = self.stores
        known = [p for p in paths if p in st.stale or st.manifest.get(p) is not None]
        if len(known) <= RECENT_VECTORS:
            self._remember(st.vectors.vectors_for(known))
        st.vectors.replace(known, [], np.zeros((0, 0), np.float32))
        st.keywords.replace(paths, [])
        st.manifest.write([], paths)
        st.stale.difference_update(paths)

    def _remember(self, vectors: dict[str, np.ndarray]) -> None:
        for fp, vec in vectors.items():
            self._recent[fp] = vec
            self._recent.move_to_end(fp)
        while len(self._recent) > RECENT_VECTORS:
            self._recent.popitem(last=False)

    async def _index_batch(self, paths: list[str], stats: RefreshStats) -> None:
        st = self.stores
        loaded, gone = await asyncio.to_thread(self._load, paths, stats)
        if not loaded and not gone:
            return
        known = [p for p in [*(f.path for f in loaded), *gone] if self._known(p)]
        stored = await asyncio.to_thread(st.vectors.vectors_for, known) if known else {}
        vectors = await self._vectors_for(loaded, stored, stats)
        await asyncio.to_thread(self._write, loaded, gone, known, vectors)
        stats.deleted += len(gone)
        stats.indexed += sum(1 for item in loaded if not item.entry.skipped)

    def _known(self, path: str) -> bool:
        st = self.stores
        return path in st.stale or st.manifest.get(path) is not None

    def _load(self, paths: list[str], stats: RefreshStats) -> tuple[list[_Loaded], list[str]]:
        """Read and chunk the batch; files whose bytes did not change only get a new mtime."""
        s = self.settings
        loaded: list[_Loaded] = []
        gone: list[str] = []
        for path in paths:
            old = self.stores.manifest.get(path)
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

    def _write(
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
