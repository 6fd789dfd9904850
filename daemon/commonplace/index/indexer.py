"""The index that follows the vault: refresh (reconcile or targeted), pending changes, status.

A refresh reads changed files in batches; for each batch it chunks the notes, reuses every
vector whose fingerprint is already stored, embeds the rest in one call, and writes LanceDB,
Tantivy and the manifest. When the model is down the keyword index still updates, the files are
marked as waiting for vectors, and a later reconciliation embeds them.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import datetime as dt
import functools
import logging
import sqlite3
import threading
import time
from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np
from tqdm import tqdm

from commonplace.attachments import kinds as attachment_kinds
from commonplace.attachments.reader import AttachmentReader
from commonplace.config import Settings
from commonplace.index import hubness
from commonplace.index.batch import (
    BATCH_FILES,
    Batch,
    Loaded,
    add_stats,
    merge,
    read_files,
    stack,
)
from commonplace.index.chunking import IndexedChunk
from commonplace.index.embedmodel import identity_changed, prefixes_said, stored_model_name
from commonplace.index.logseq_pages import JOURNALS_META, journal_titles, read_blocks_once
from commonplace.index.manifest import FileEntry, read_neighbours
from commonplace.index.memory import VectorMemory
from commonplace.index.models import RefreshStats, SearchResponse
from commonplace.index.plan import Plan, normalize, plan_paths, plan_reconcile
from commonplace.index.searching import Searcher
from commonplace.index.store import Stores, open_stores
from commonplace.index.vector_api import VectorsBusy
from commonplace.llm import LLM, LLMError
from commonplace.llm.profiles import EmbedProfile, known_profile, unknown_profile, with_prefixes
from commonplace.vault import exclusions
from commonplace.vault.blockrefs import NOT_SHOWN, refs_in, shown_refs

log = logging.getLogger(__name__)

DOWN_RETRY_S = 30.0  # after an embedding failure, do not ask the model server again for this long
PROBE_TEXT = "commonplace"  # embedded to ask whether notes waiting for vectors can have them
PROGRESS_BAR_FILES = 200  # show a progress bar for runs at least this long
NEIGHBOURS = "1"  # the manifest's neighbourhoods layout: an index without it reads every note once
ATTACHMENT_BATCH = 4  # attachments per round: each may hold thousands of chunks


class Index:
    """The search index of one vault; all files live in settings.data_path / 'index'."""

    def __init__(
        self, settings: Settings, llm: LLM, stores: Stores, *, load_later: bool = False
    ) -> None:
        self.settings = settings
        self.llm = llm
        self.stores = stores
        self.model = llm.embed_model
        known = known_profile(llm.embed_profile_name())
        self.profile: EmbedProfile | None = known and self._configured(
            known
        )  # None: ask the server
        self._lock = asyncio.Lock()
        self._io = threading.Lock()  # held by every write in a worker thread, and by close()
        self._closed = False
        self._dirty: dict[str, None] = {}
        self._progress: tuple[int, int] | None = None
        self._last_refresh: str | None = None
        self._down_until = 0.0
        self.down_error = ""  # the last embedding failure, for the search notice
        self.memory = VectorMemory()
        if not settings.index.hubness:  # plain cosine: no neighbourhoods read or computed
            self.neighbourhoods = hubness.Neighbourhoods()
        elif load_later:  # the daemon: its start does not wait for them (hubness.py)
            self.neighbourhoods = hubness.Neighbourhoods()
            self.neighbourhoods.load_later(functools.partial(read_neighbours, stores.manifest.path))
        else:
            self.neighbourhoods = hubness.Neighbourhoods(stores.manifest.neighbours())
        self._neighbours_due = True  # a run cut off may have left notes without theirs
        self._counts = stores.manifest.counts()
        self._pending_vectors = stores.manifest.count_pending_vectors()
        self.searcher = Searcher(self)
        self.exclusions = exclusions.NONE  # read again at every reconciliation
        # The stored vectors were dropped (the model now returns another size): every note
        # waits for new ones, which only a reconciliation reads; IndexService runs one at once.
        self.vectors_dropped = False
        # PDFs and images: read in the background, outside this index's lock (attachments/).
        self.attachments = AttachmentReader(settings) if settings.attachments.enabled else None
        self._attachments_indexed = self._count_attachments()

    @classmethod
    def open(
        cls, settings: Settings, llm: LLM, *, read_only: bool = False, daemon: bool = False
    ) -> Index:
        """Open (or create, or rebuild) the index; raises IndexBusy if another process writes
        it and read_only is False. daemon=True runs the vector store in a child process that
        stops when idle (vector_process.py), unless vector_process_idle_minutes is 0; one-shot
        commands keep it in their own process (a child would only add its start)."""
        s = settings.index
        idle_s = s.vector_process_idle_minutes * 60 if daemon else 0.0
        stores = open_stores(
            settings.data_path / "index",
            model=stored_model_name(llm),
            writable=not read_only,
            compact_every=s.compact_every,
            ann_rows=s.vector_index_rows,
            vectors_idle_s=idle_s or None,
        )
        return cls(settings, llm, stores, load_later=daemon)

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

    async def apply_pending(self, *, neighbours: bool = True) -> None:
        """Index the paths marked dirty, unless a run is going (it picks them up at its end).
        neighbours=False (a search waiting): the notes' neighbourhoods are left to the next
        refresh; until then those notes count with the mean (hubness.py)."""
        if self._dirty and not self._lock.locked() and self.stores.keywords.writable:
            await self.refresh(paths=self._take_dirty(), neighbours=neighbours)

    async def refresh(
        self, paths: Sequence[str] | None = None, *, full: bool = False, neighbours: bool = True
    ) -> RefreshStats:
        """Bring the index in line with the vault: every file (paths=None) or just `paths`.

        full=True forgets what was indexed and reads every note again; vectors whose
        fingerprint is unchanged are still reused, so nothing is embedded twice. Then the
        passages' neighbourhoods that are due are computed (hubness.py), unless neighbours=False.
        """
        async with self._lock:
            stats = await self._run(None if paths is None else list(paths), full=full)
            while True:
                while self._dirty:  # changes that arrived while this run was going
                    more = await self._run(self._take_dirty(), full=False)
                    add_stats(stats, more)
                if not (neighbours and self._neighbours_due):
                    return stats
                if not await asyncio.to_thread(self._neighbours):
                    return stats

    def _neighbours(self) -> bool:
        """One slice of the hubness statistics (hubness.py); True if more notes wait."""
        with self._io:
            if (
                self._closed
                or not self.settings.index.hubness
                or not self.stores.keywords.writable
                or not self._neighbours_due
            ):
                return False
            try:
                self._neighbours_due = hubness.update(
                    self.stores, self.neighbourhoods, recent=self.memory.get
                )
            except VectorsBusy:
                return False
            except Exception as exc:  # a statistic must never fail a refresh: next time
                log.warning("passages' neighbourhoods not computed now: %s", exc)
                return False
            return self._neighbours_due

    async def search(
        self,
        query: str,
        limit: int = 10,
        mode: str = "hybrid",
        include_folders: Sequence[str] = (),
        exclude_folders: Sequence[str] = (),
        modified_after: float | dt.datetime | dt.date | None = None,
        group_by_note: bool = False,
        exclude_pages: Sequence[str] = (),
    ) -> SearchResponse:
        """Search, after applying pending changes; see searching.Searcher. `exclude_pages`
        leaves out Logseq's Ask pages (filters.SearchFilter)."""
        await self.apply_pending(neighbours=False)  # the search does not wait for them
        return await self.searcher.search(
            query,
            limit=limit,
            mode=mode,
            include_folders=tuple(include_folders),
            exclude_folders=tuple(exclude_folders),
            modified_after=modified_after,
            group_by_note=group_by_note,
            exclude_pages=tuple(exclude_pages),
        )

    def shown_refs(self, text: str) -> str:
        """A whole note's text with its Logseq block refs read as their blocks' text, looked up
        in the manifest as every search result's are (searching.Searcher.shown), for the phone
        page's whole note under a cited source. A failed lookup shows the refs as unknown."""
        wanted = refs_in(text) if self.settings.flavor == "logseq" else set()
        if not wanted:
            return text
        try:
            blocks = self.stores.manifest.block_texts(wanted)
        except sqlite3.Error as exc:
            log.warning("block refs shown as %s: %s", NOT_SHOWN, exc)
            blocks = {}
        return shown_refs(text, blocks)

    def _count_attachments(self) -> tuple[int, int]:
        return self.stores.manifest.attachment_count(attachment_kinds.SUFFIXES)

    async def read_attachments(self, *, on_file: Any = None) -> int:
        """Read every queued attachment's text (one at a time, each in the extraction child,
        outside this index's lock) and index it; returns the files read. A note changed
        meanwhile is indexed between two files, never after all of them. `on_file(path)` is
        called after each (progress, attention)."""
        reader = self.attachments
        if reader is None:
            return 0
        read = 0
        try:
            while reader.due and not self._closed:
                path = next(iter(reader.due))
                reader.reading = path
                await asyncio.to_thread(reader.read_now, path)
                reader.due.pop(path, None)
                read += 1
                reader.done += 1
                await self.refresh(paths=[path])
                reader.due.pop(path, None)  # its text is cached: a second miss is a new file
                if on_file is not None:
                    on_file(path)
        finally:
            reader.reading = None
            if not reader.due:
                reader.done = 0
        return read

    def status(self) -> dict[str, Any]:
        notes, chunks = self._counts
        done, total = self._progress or (0, 0)
        files, searchable = self._attachments_indexed
        return {
            "notes": notes - files,
            "attachments": {
                "indexed": searchable,
                **(self.attachments.status() if self.attachments is not None else {}),
            },
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

    async def _can_embed_now(self, entries: dict[str, FileEntry]) -> bool:
        """Whether a scan should read again the notes still waiting for their vectors: asked
        of the model with one short embedding first when some wait. Without it, every periodic
        scan while the model was down read all of them again, and wrote the keyword entries of
        the first batch again, only to fail at the embedding (README, "Quiet at idle")."""
        if self.embeddings_down:
            return False
        if all(entry.vectors_ok or entry.skipped for entry in entries.values()):
            return True
        try:
            await self.llm.embed([PROBE_TEXT], model=self.model)
        except LLMError as exc:
            self.embedding_failed(exc)
            return False
        return True

    async def embed_profile(self) -> EmbedProfile:
        """How this model wants its text (llm/profiles.py). A model the table does not know gets
        no prefixes and the context size the server reports; until it answers, the chunk_tokens
        setting alone sizes the chunks (and the notes are cut again once it answers)."""
        if self.profile is not None:
            return self.profile
        if not self.embeddings_down:
            try:
                context = await self.llm.context_length(self.model)
            except LLMError as exc:
                self.embedding_failed(exc)
            else:
                self.profile = self._configured(unknown_profile(self.model, context))
                log.info(
                    "embedding model %s is not in the profile table: %s, context %s tokens "
                    "(from the model server), chunks of at most %d tokens",
                    self.model,
                    prefixes_said(self.profile),
                    context if context is not None else "not reported",
                    min(self.settings.index.chunk_tokens, context or 10**9),
                )
                return self.profile
        return self._configured(unknown_profile(self.model, None))

    async def _model_changed(self) -> bool:
        """Is the embedding model another one than the index was built with, beyond its name
        (another server, a model pulled anew, a file named like another)? Then its vectors
        are dropped and every note embedded again: vectors of two models never mix. Not known
        while the server cannot be asked: the check waits for it."""
        if self.embeddings_down:
            return False
        try:
            identity = await self.llm.embed_identity()
        except LLMError:
            return False  # the embeddings themselves will say what is wrong
        changed = identity_changed(self.stores.manifest, identity, self._counts[0] > 0)
        if changed:
            await asyncio.to_thread(self._drop_vectors)
        return changed

    def _drop_vectors(self) -> None:
        st = self.stores
        st.vectors.drop()
        st.manifest.mark_all_pending()
        self.vectors_dropped = True
        self.neighbourhoods.clear()
        self.memory = VectorMemory()

    def _configured(self, profile: EmbedProfile) -> EmbedProfile:
        o = self.settings.model
        return with_prefixes(profile, o.embed_query_prefix, o.embed_document_prefix)

    # -- one run --------------------------------------------------------------------------

    async def _run(self, paths: list[str] | None, *, full: bool) -> RefreshStats:
        start = time.perf_counter()
        stats = RefreshStats()
        st = self.stores
        profile = await self.embed_profile()
        if await self._model_changed():
            paths, full = None, True
        stored = st.manifest.get_meta("profile")
        if stored != profile.signature:
            if stored is not None or self._counts[0]:
                log.info(
                    "the way %s is sent text changed: every note is read again once (chunks "
                    "whose text is unchanged keep their vectors)",
                    self.model,
                )
                paths, full = None, True
            st.manifest.set_meta("profile", profile.signature)
        if st.manifest.get_meta("neighbours") != NEIGHBOURS:
            if self._counts[0] and not full:
                log.info(
                    "the index keeps each passage's neighbourhood now: every note is read again "
                    "once (nothing is embedded again)"
                )
                paths, full = None, True
            st.manifest.set_meta("neighbours", NEIGHBOURS)
        if full:
            await asyncio.to_thread(self._forget_all)
        names = ""  # the journal settings a reconciliation made the titles with
        if paths is None:
            self.vectors_dropped = False  # this reconciliation reads every note waiting
            rules = await asyncio.to_thread(
                exclusions.load_exclusions, self.settings.vault, self.settings.index.exclude
            )
            exclusions.log_change(self.exclusions, rules)
            self.exclusions = rules
            entries = await asyncio.to_thread(st.manifest.all)
            plan = await asyncio.to_thread(
                plan_reconcile,
                self.settings.vault,
                entries,
                st.stale,
                retry_vectors=await self._can_embed_now(entries),
                excludes=rules.excludes,
                attachments=self.attachments is not None,
            )
            names, renamed = await asyncio.to_thread(
                journal_titles, self.settings, st.manifest, entries
            )
            gone = set(plan.delete)
            plan.again = {p for p in renamed if p not in gone}
            plan.read += sorted(plan.again.difference(plan.read))
        elif paths:
            plan = plan_paths(
                self.settings.vault,
                paths,
                st.manifest,
                st.stale,
                self.exclusions.excludes,
                attachments=self.attachments is not None,
            )
        else:
            plan = Plan()
        stats.checked = plan.checked
        if not plan.empty:
            await self._apply(plan, stats, profile, big=paths is None or full)
        if paths is None:
            st.manifest.set_meta(JOURNALS_META, names)
            await asyncio.to_thread(
                read_blocks_once,
                self.settings,
                st,
                set(plan.read),
                self._io,
                lambda: self._closed,
            )
        if paths is None and st.vectors.pending_rows and st.keywords.writable:
            # A reconciliation brings the vector index up to date (a long run was cut off).
            await asyncio.to_thread(self._maintain, True)
        stats.notes, stats.chunks = self._counts
        stats.notes -= self._attachments_indexed[0]
        stats.vectors_pending = self._pending_vectors
        stats.seconds = time.perf_counter() - start
        self._last_refresh = dt.datetime.now(dt.UTC).isoformat(timespec="seconds")
        return stats

    def _forget_all(self) -> None:
        st = self.stores
        st.stale |= st.vectors.paths()
        st.manifest.clear()
        st.keywords.clear()
        self.neighbourhoods.clear()
        self._counts = (0, 0)

    async def _apply(
        self, plan: Plan, stats: RefreshStats, profile: EmbedProfile, *, big: bool
    ) -> None:
        st = self.stores
        total = len(plan.read) + len(plan.delete)
        self._progress = (0, total)
        if total > BATCH_FILES:  # more than one round: minutes, with a slow embedder
            log.info(
                "indexing: %s; each round of %d is searchable once embedded",
                f"{len(plan.read)} notes to read"
                + (f" and {len(plan.delete)} to remove" if plan.delete else ""),
                BATCH_FILES,
            )
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
            await self._index_batches(plan, stats, profile, bar)
            await asyncio.to_thread(self._maintain, big and total >= BATCH_FILES)
            st.manifest.set_meta("writing", "0")
        finally:
            bar.close()
            self._progress = None
            self._counts = st.manifest.counts()
            self._attachments_indexed = self._count_attachments()
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
        # Every tenth, once there is more than one round (a round can take minutes).
        if total > BATCH_FILES and (done * 10 // total) != ((done - n) * 10 // total):
            log.info("indexing: %d of %d notes", done, total)

    def _delete(self, plan: Plan) -> None:
        with self._io:
            if not self._closed:
                self._delete_now(plan.delete, plan)

    def _delete_now(self, paths: list[str], plan: Plan) -> None:
        st = self.stores
        known = [p for p in paths if self._known(p, plan)]
        if len(known) <= self.memory.max_vectors:
            self.memory.remember(st.vectors.vectors_for(known))
        st.vectors.replace(known, [], np.zeros((0, 0), np.float32))
        st.keywords.replace(paths, [])
        st.manifest.write([], paths)
        st.manifest.write_blocks([], paths)
        st.manifest.note_chunks([], paths)
        self.neighbourhoods.forget(paths)
        self._neighbours_due = True
        st.stale.difference_update(paths)
        if self.attachments is not None:
            self.attachments.forget(paths)
        for path in paths:
            self.memory.forget_path(path)

    async def _index_batches(
        self, plan: Plan, stats: RefreshStats, profile: EmbedProfile, bar: tqdm[Any]
    ) -> None:
        """Read, embed, write, batch after batch, with reading the next batch and writing the
        last one overlapping the wait for embeddings (the model server works while we do)."""
        notes = [p for p in plan.read if not attachment_kinds.is_attachment(p)]
        later = [p for p in plan.read if attachment_kinds.is_attachment(p)]
        batches = [notes[i : i + BATCH_FILES] for i in range(0, len(notes), BATCH_FILES)]
        batches += [later[i : i + ATTACHMENT_BATCH] for i in range(0, len(later), ATTACHMENT_BATCH)]
        loading: asyncio.Task[Batch] | None = None
        writing: asyncio.Task[None] | None = None
        try:
            for i, paths in enumerate(batches):
                load = self._load
                batch = await (loading or asyncio.to_thread(load, paths, plan, stats, profile))
                loading = None
                if i + 1 < len(batches):
                    nxt = batches[i + 1]
                    loading = asyncio.create_task(
                        asyncio.to_thread(load, nxt, plan, stats, profile)
                    )
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

    def _known(self, path: str, plan: Plan) -> bool:
        """May LanceDB hold rows for this path (so they must be replaced, and can be reused)?"""
        return path in plan.entries or path in self.stores.stale

    def _load(
        self, paths: list[str], plan: Plan, stats: RefreshStats, profile: EmbedProfile
    ) -> Batch:
        """Read and chunk the batch and find the vectors already stored for it."""
        with self._io:
            if self._closed:
                return Batch([], [], [], {})
            loaded, gone = read_files(
                self.settings,
                profile,
                paths,
                plan,
                stats,
                stale=self.stores.stale,
                manifest=self.stores.manifest,
                unchanged_ok=self.embeddings_down,
                attachments=self.attachments,
            )
            known = [p for p in [*(f.path for f in loaded), *gone] if self._known(p, plan)]
            cached = self.memory.for_paths(known)
            lookup = [p for p in known if p not in cached]
            stored = self.stores.vectors.vectors_for(lookup) if lookup else {}
            stored.update(merge(cached.values()))
            return Batch(loaded, gone, known, stored)

    async def _vectors_for(
        self, loaded: list[Loaded], stored: dict[str, np.ndarray], stats: RefreshStats
    ) -> dict[str, np.ndarray]:
        """fingerprint -> vector for every chunk of the batch that can have one now."""
        have: dict[str, np.ndarray] = {}
        todo: dict[str, str] = {}  # fingerprint -> text, each distinct text embedded once
        for item in loaded:
            for c in item.chunks:
                vec = stored.get(c.fingerprint)
                if vec is None:
                    vec = self.memory.get(c.fingerprint)
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
                fresh = {
                    fp: np.asarray(v, dtype=np.float32) for fp, v in zip(todo, got, strict=True)
                }
                size = len(got[0]) if got else 0
                if any(vec.shape[0] != size for vec in have.values()):
                    # Same model name, new vector size (the model was replaced under its name):
                    # stored vectors no longer fit; `_write_now` starts the vectors afresh.
                    have = {}
                have.update(fresh)
                stats.embedded += len(todo)
            stats.embed_seconds += time.perf_counter() - started
        return have

    def _write(self, batch: Batch, vectors: dict[str, np.ndarray]) -> None:
        with self._io:
            if not self._closed:
                self._write_now(batch.loaded, batch.gone, batch.known, vectors)
                self.stores.vectors.keep_searchable()  # a long run: searches stay fast

    def _write_now(
        self,
        loaded: list[Loaded],
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
        matrix = stack([vectors[c.fingerprint] for c in rows])
        if rows and st.vectors.dim not in (None, matrix.shape[1]):
            log.warning(
                "the embedding model now returns %d numbers instead of %d; re-embedding all",
                matrix.shape[1],
                st.vectors.dim,
            )
            self._drop_vectors()
        st.vectors.replace(known, rows, matrix)
        st.keywords.replace(
            [item.path for item in loaded] + gone,
            [c for item in loaded for c in item.chunks],
            [item.note for item in loaded if item.note is not None],
        )
        st.manifest.write(entries, gone)
        st.manifest.write_blocks([(item.path, item.blocks) for item in loaded], gone)
        complete = [
            (item.path, [(c.ordinal, c.fingerprint) for c in item.chunks])
            for item, entry in zip(loaded, entries, strict=True)
            if entry.vectors_ok and not entry.skipped and item.chunks
        ]
        written = {path for path, _ in complete}
        removed = [*gone, *(item.path for item in loaded if item.path not in written)]
        st.manifest.note_chunks(complete, removed)
        self.neighbourhoods.forget([*written, *removed])
        self._neighbours_due = True
        st.stale.difference_update(known)
        for path in gone:
            self.memory.forget_path(path)
        for item, entry in zip(loaded, entries, strict=True):
            self.memory.forget_path(item.path)
            if entry.vectors_ok and not entry.skipped:
                self.memory.wrote(
                    item.path, {c.fingerprint: vectors[c.fingerprint] for c in item.chunks}
                )
