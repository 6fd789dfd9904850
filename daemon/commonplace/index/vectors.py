"""LanceDB: each chunk's vector next to its text and metadata, in the data folder.

Writes are batched (one delete and one add per refresh batch). Every write makes a table version
and usually a small fragment, so the table is compacted and old versions removed every
`compact_every` writes: a note edited a thousand times must not leave a thousand versions on
disk. Past `ann_rows` rows a vector index is built, since a flat scan grows with the vault.

A search compares the query with every row the vector index does not cover yet, one by one
(about 4 ms per thousand rows here). During a long first indexing run that part would grow to
the whole vault (600,000 chunks for 20,000 long notes: seconds per search), so `keep_searchable`
builds the index early and brings it up to date whenever the rows it does not cover outnumber
those it does; and while more than FLAT_ROWS rows wait for it, searches skip them (LanceDB's
fast search) and `pending_rows` says how many, so the answer can say so.

LanceDB caches what searches read of the vector index (by default up to gigabytes), and every
build or update of the index is a new version whose pages are cached anew while the old ones
stay: a first run that updates the index five times would keep five versions' worth. So the
cache is bounded (INDEX_CACHE_BYTES: room for the whole index of a 20,000-note vault, 300 MB
on disk; measured with eval_suite/bench_daemon.py, 512 MB left searches as fast as
1 GiB and the first start's peak ~160 MB lower), and after the index is built or updated the
store starts a fresh one.

Bringing the index up to date (`optimize`) adds the new rows as a delta: a segment of its own,
searched next to the others, however few rows it holds. Searches slow down with big deltas (a
first run over 50,000 notes left four: 20,000, 20,000, 40,000 and 11,000 rows, and a LanceDB
query took 8.4-11.5 ms against 5.7-7.0 ms over one index of the same rows) and, more slowly,
with many small ones (0.15 ms each; one every `compact_every` writes). So when the new rows are
REBUILD_SHARE of the indexed ones or more, or the index has MAX_SEGMENTS segments, it is made
again over every row instead: during a first run the index is remade as the rows double (the
work stays proportional to the vault), and a daemon that runs for months keeps a bounded number
of deltas.

Compacting the table (`optimize`) starves every search in the process for as long as it runs
(measured: 40-80 s on a big table, whatever connection or API the search uses), so a search that
comes meanwhile gets VectorsBusy at once and the caller searches keywords only, and says so.

Searches run in memory while the vectors fit in MEMORY_BYTES (about 22,000 chunks of a
768-number model): a LanceDB query costs 4-8 ms of planning however small the table (measured
at 2,000 notes), an exact dot product over a few thousand vectors 0.1 ms. The copy is read from
LanceDB on the first search and kept in step by every write; past the budget the search goes to
LanceDB and its vector index. A search in memory needs no LanceDB, so a compaction never holds
it up.
"""

from __future__ import annotations

import logging
import threading
import warnings
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from datetime import timedelta
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from commonplace.index.chunking import IndexedChunk
from commonplace.index.filters import SearchFilter, page_pattern
from commonplace.index.lance import LOOP, IvfHnswSq, lancedb
from commonplace.index.models import SearchResult, Unread
from commonplace.index.nearest import Block, PassBroken, Shared, nearest_other_means
from commonplace.index.vector_api import VectorsBusy, VectorStoreError

__all__ = ["VectorStore", "VectorStoreError", "VectorsBusy"]

log = logging.getLogger(__name__)

FLAT_ROWS = 20_000  # rows a search may scan one by one (~100 ms) before it skips them
INDEX_CACHE_BYTES = 512 * 1024**2  # LanceDB's cache of the vector index (its default: 6 GiB)
METADATA_CACHE_BYTES = 128 * 1024**2  # ... of table and file metadata (its default: 1 GiB)

TABLE = "chunks"
RESULT_COLUMNS = ["path", "title", "heading", "text", "ordinal", "start_line", "note_date", "mtime"]
KEY_COLUMNS = ["path", "ordinal", "start_line", "mtime"]  # an Unread hit's (search, texts=False)
MEMORY_BYTES = 64 * 2**20  # vectors searched in memory up to this size (float32)
STREAM_ROWS = 4096  # rows read from LanceDB at once when neighbour_means streams the table
REBUILD_SHARE = 0.25  # new rows, as a share of the indexed ones, that make the index anew
MAX_SEGMENTS = 16  # the index's segments (itself and its deltas) before it is made anew
# Candidates the vector index's graph search keeps per result asked (HNSW's ef). Measured at
# 50,000 notes (eval_suite/bench_ann.py, a pool of 60, interleaved): ef 120 (2 per result) found
# 0.67 of the exact ten nearest in 10.9 ms, 240 found 0.76 in 11.3 ms, 480 0.86 in 13.3 ms, 960
# 0.92; the distances returned are exact either way (LanceDB reads the rows' vectors again).
# 4 a result: more would cost the search p50 its 20 ms goal at 50,000 notes on a loaded machine.
EF_PER_RESULT = 4


@dataclass(frozen=True)
class _InMemory:
    """Every row's result columns and its unit-length vector, in the same order."""

    rows: pa.Table
    matrix: np.ndarray


def _schema(dim: int) -> pa.Schema:
    return pa.schema(
        [
            pa.field("path", pa.string()),
            pa.field("title", pa.string()),
            pa.field("heading", pa.string()),
            pa.field("text", pa.string()),
            pa.field("ordinal", pa.int32()),
            pa.field("start_line", pa.int32()),
            pa.field("note_date", pa.string()),
            pa.field("mtime", pa.float64()),
            pa.field("fingerprint", pa.string()),
            pa.field("vector", pa.list_(pa.float32(), dim)),
        ]
    )


class VectorStore:
    def __init__(
        self,
        folder: Path,
        *,
        compact_every: int = 64,
        ann_rows: int = 2000,
        memory_bytes: int | None = None,
    ) -> None:
        self.folder = folder
        self.memory_bytes = memory_bytes  # None: MEMORY_BYTES
        self.compact_every = compact_every
        self.ann_rows = ann_rows
        self._writes = 0
        self._has_ann = False
        self._dim: int | None = None
        self._memory: _InMemory | None = None  # made by the first search that may use it
        self._memory_lock = threading.Lock()  # a write and the copy's first read never overlap
        self._unindexed = 0  # rows added since the vector index was last brought up to date
        self._segments = 0  # the vector index and its deltas (see the module's docstring)
        self._compacting = False  # set by the writer thread while optimize() runs
        self._rows = 0
        self._changes = 0  # writes, compactions and index builds: rows may have moved
        self._pass: Shared | None = None  # neighbour_means's pass over every row (nearest.py)
        try:
            self._connect()
            if self._table is not None:
                self._rows = int(self._table.count_rows())
                self._has_ann = any(i.index_type != "BTree" for i in self._table.list_indices())
                self._unindexed, self._segments = self._index_on_disk()
            else:
                self._rows = 0
        except Exception as exc:  # lance raises plain OSError/RuntimeError/ValueError
            raise VectorStoreError(f"{folder}: {exc}") from exc

    def _connect(self) -> None:
        """(Re)open the table with a cache of its own (see the module's docstring)."""
        self._changes += 1  # a compaction or a new index comes with a new handle
        self._session = lancedb.Session(
            index_cache_size_bytes=INDEX_CACHE_BYTES, metadata_cache_size_bytes=METADATA_CACHE_BYTES
        )
        self._db = lancedb.connect(self.folder, session=self._session)
        self._table: Any = self._db.open_table(TABLE) if TABLE in _table_names(self._db) else None

    @property
    def cache_bytes(self) -> int:
        """What LanceDB's cache holds now (for /api/state and the benchmark)."""
        return int(self._session.size_bytes)

    @property
    def dim(self) -> int | None:
        """The vector size (read from the table once: asking LanceDB costs a millisecond)."""
        if self._table is None:
            return None
        if self._dim is None:
            self._dim = int(self._table.schema.field("vector").type.list_size)
        return self._dim

    @property
    def rows(self) -> int:
        return self._rows

    @property
    def has_vector_index(self) -> bool:
        return self._has_ann

    @property
    def pending_rows(self) -> int:
        """Rows a search leaves out for now (see FLAT_ROWS); 0 when every row is searched."""
        return self._unindexed if self._skips_unindexed() else 0

    @property
    def skipped_rows(self) -> int:
        """Rows a search leaves out right now: none while searches run in memory."""
        return 0 if self._fits() else self.pending_rows

    def _skips_unindexed(self) -> bool:
        return self._has_ann and self._unindexed > FLAT_ROWS

    def _index_on_disk(self) -> tuple[int, int]:
        """Rows the vector index does not cover (a run cut off midway) and its segments, on
        opening."""
        if not self._has_ann:
            return self._rows, 0
        try:
            names = [i.name for i in self._table.list_indices() if i.index_type != "BTree"]
            stats = self._table.index_stats(names[0])
        except Exception:  # no statistics from this table: take it as up to date
            return 0, 1
        unindexed = int(getattr(stats, "num_unindexed_rows", 0) or 0)
        return unindexed, int(getattr(stats, "num_indices", 1) or 1)

    @property
    def index_segments(self) -> int:
        """The vector index and its deltas (0 without an index)."""
        return self._segments

    def _remake(self) -> bool:
        """Whether the rows waiting for the index should get a new index, not a delta."""
        if not self._has_ann or not self._unindexed:
            return False
        indexed = max(1, self._rows - self._unindexed)
        return self._unindexed >= REBUILD_SHARE * indexed or self._segments >= MAX_SEGMENTS

    def drop(self) -> None:
        """Remove every vector (a model change with a new dimension, or a corrupt table)."""
        with self._memory_lock:
            if self._table is not None:
                self._db.drop_table(TABLE)
            self._table = None
            self._dim = None
            self._rows = 0
            self._has_ann = False
            self._memory = None
            self._changes += 1

    def close(self) -> None:
        """Nothing to release: LanceDB's files are closed with the table (same interface as
        VectorProcess, whose close stops its process)."""

    def warm(self) -> None:
        """Nothing to start (VectorProcess starts its process)."""

    def paths(self) -> set[str]:
        if self._table is None or not self._rows:
            return set()
        data = self._table.search().select(["path"]).limit(None).to_arrow()
        return set(data.column("path").to_pylist())

    def vectors_for(self, paths: Sequence[str]) -> dict[str, np.ndarray]:
        """fingerprint -> vector for every chunk stored under these paths (for reuse)."""
        if self._table is None or not paths or not self._rows:
            return {}
        if self._compacting:  # never in the indexer (it compacts under the same lock)
            raise VectorsBusy("the vector index is being compacted")
        where = "path IN (" + ", ".join(_quote(p) for p in paths) + ")"
        data = (
            self._table.search().where(where).select(["fingerprint", "vector"]).limit(None)
        ).to_arrow()
        prints = data.column("fingerprint").to_pylist()
        vectors = _matrix(data.column("vector"))
        return dict(zip(prints, vectors, strict=True))

    def replace(
        self, delete_paths: Sequence[str], chunks: Sequence[IndexedChunk], vectors: np.ndarray
    ) -> None:
        """Drop every row of `delete_paths`, then add `chunks` with their `vectors`."""
        with self._memory_lock:
            self._changes += 1
            if delete_paths and self._table is not None and self._rows:
                for start in range(0, len(delete_paths), 500):
                    part = delete_paths[start : start + 500]
                    where = "path IN (" + ", ".join(_quote(p) for p in part) + ")"
                    done = self._table.delete(where)
                    self._rows -= int(getattr(done, "num_deleted_rows", 0) or 0)
                self._writes += 1
            batch = _batch(chunks, vectors) if chunks else None
            if batch is not None:
                if self._table is None:
                    self._table = self._db.create_table(TABLE, schema=_schema(vectors.shape[1]))
                self._table.add(batch)
                self._rows += len(chunks)
                self._unindexed += len(chunks)
                self._writes += 1
            if self._memory is not None:
                self._memory = _updated(self._memory, delete_paths, batch, self._fits())

    def _fits(self) -> bool:
        dim = self.dim or 0
        budget = MEMORY_BYTES if self.memory_bytes is None else self.memory_bytes
        return self._rows * dim * 4 <= budget

    def _in_memory(self) -> _InMemory | None:
        """The in-memory copy, read from LanceDB on first use; None past the budget."""
        memory = self._memory
        if memory is not None or self._table is None or not self._fits():
            return memory
        with self._memory_lock:
            if self._compacting:  # reading the table now would wait for the compaction
                return None
            if self._memory is None and self._table is not None and self._fits():
                data = self._table.search().select([*RESULT_COLUMNS, "vector"]).limit(None)
                table = data.to_arrow()
                matrix = _unit(_matrix(table.column("vector")))
                self._memory = _InMemory(table.select(RESULT_COLUMNS), matrix)
            return self._memory

    def search(
        self, vector: Sequence[float], limit: int, flt: SearchFilter, *, texts: bool = True
    ) -> list[SearchResult]:
        """The `limit` rows nearest `vector` by cosine that the filter keeps, best first.

        texts=False: past the memory budget, each hit's path, ordinal, first line and mtime
        only, as `Unread` results (their title, heading, text and date empty), for a caller
        that shows a few of many hits and reads those elsewhere (Searcher.run, from the
        keyword index). LanceDB reads the columns of its hits row by row after the search:
        at 50,000 notes the text, title, heading and date of 60 hits were about a quarter of
        the query (eval_suite/README.md, scale7). In memory the hits are whole either way."""
        if self._table is None or not self._rows or limit <= 0:
            return []
        memory = self._in_memory()
        if memory is not None:
            return _search_memory(memory, vector, limit, flt)
        if self._compacting:
            raise VectorsBusy("the vector index is being compacted")
        try:
            return self._search(vector, limit, flt, texts)
        except (OSError, RuntimeError, ValueError) as exc:
            # A compaction in the writer thread can remove the files of the version this
            # query started on; the next try reads the new version.
            log.debug("vector search retried after: %s", exc)
            return self._search(vector, limit, flt, texts)

    def search_later(
        self, vector: Sequence[float], limit: int, flt: SearchFilter, *, texts: bool = True
    ) -> Callable[[], list[SearchResult]]:
        """The search, run when its result is asked for (VectorProcess runs it meanwhile)."""
        return lambda: self.search(vector, limit, flt, texts=texts)

    def rows_at(self, keys: Sequence[tuple[str, int]]) -> list[SearchResult]:
        """The stored rows at these (path, ordinal) keys, whole (score 0), those that are
        stored: for the `Unread` hits a caller could not read elsewhere."""
        if self._table is None or not self._rows or not keys:
            return []
        wanted = set(keys)
        memory = self._in_memory()
        if memory is not None:
            found = memory.rows.filter(
                pc.is_in(memory.rows.column("path"), pa.array(sorted({p for p, _ in wanted})))
            ).to_pylist()
        else:
            if self._compacting:
                raise VectorsBusy("the vector index is being compacted")
            where = "path IN (" + ", ".join(_quote(p) for p in sorted({p for p, _ in wanted})) + ")"
            query = self._table.search().where(where).select(RESULT_COLUMNS).limit(None)
            found = query.to_arrow().to_pylist()
        return [_result(r, 0.0) for r in found if (r["path"], r["ordinal"]) in wanted]

    def _query(self, vector: Sequence[float] | np.ndarray, limit: int) -> Any:
        """LanceDB's query for the `limit` rows nearest `vector` by cosine, on the table's own
        asynchronous handle (see `_search`)."""
        query = self._table._table.query().nearest_to(np.asarray(vector, dtype=np.float32))
        query = query.column("vector").distance_type("cosine").limit(limit)
        if self._has_ann:
            query = query.ef(max(64, limit * EF_PER_RESULT))
        if self._skips_unindexed():
            query = query.fast_search()
        return query

    def _search(
        self, vector: Sequence[float], limit: int, flt: SearchFilter, texts: bool = True
    ) -> list[SearchResult]:
        """One query, run as one coroutine on LanceDB's event loop thread. The synchronous
        builder's `to_arrow` (the same query, the same plan) hands over to that thread three
        times (start, first batch, end of the stream), each a wait for the scheduler on a busy
        machine: measured at 50,000 notes, 7.3 ms against 8.4 ms at a load average of 4, 10.7
        against 12.2 ms at 10 (eval_suite/README.md, scale7). Filters are prefilters, as
        the asynchronous API's `where` always is."""
        query = self._query(vector, limit)
        where = flt.to_sql()
        if where:
            query = query.where(where)
        columns = RESULT_COLUMNS if texts else KEY_COLUMNS
        data: pa.Table = LOOP.run(  # type: ignore[no-untyped-call]
            query.select([*columns, "_distance"]).to_arrow()
        )
        if texts:
            return [_result(r, 1.0 - float(r["_distance"])) for r in data.to_pylist()]
        return [
            Unread(
                r["path"],
                "",
                "",
                "",
                1.0 - float(r["_distance"]),
                "",
                r["mtime"],
                r["start_line"],
                r["ordinal"],
            )
            for r in data.to_pylist()
        ]

    def neighbour_means(
        self,
        paths: Sequence[str],
        vectors: np.ndarray,
        k: int,
        ordinals: Sequence[int] | None = None,
        *,
        share: bool = False,
    ) -> list[float | None]:
        """For each passage (its note's path, its vector): the mean cosine of its k nearest
        passages in other notes (CSLS's r, hubness.py), None when no other note has one.
        Exact, and all the passages at once (nearest.py): the stored vectors are compared
        with them block by block, from memory or, past the memory budget, streamed from
        LanceDB (STREAM_ROWS at a time), so a call reads the table once whatever it asks.
        Why not a `search` each: a LanceDB query costs its planning per passage (6 ms) and
        answers from the approximate vector index; and no row's text is read or, through the
        store's process, sent.

        share=True (more calls for other stored passages follow, as in a first run; each
        passage's chunk `ordinals` given): the calls until the next write share one pass over
        the rows, so each pair of passages is compared once, not once from each side."""
        if len(paths) != len(vectors):
            raise ValueError("neighbour_means: paths and vectors differ in length")
        if self._table is None or not self._rows or not len(paths):
            return [None] * len(paths)
        queries = _unit(np.asarray(vectors, dtype=np.float32).reshape(len(paths), -1))
        memory = self._in_memory()
        if memory is None and self._compacting:
            raise VectorsBusy("the vector index is being compacted")
        shared = self._shared(memory, k, share) if ordinals is not None else None
        self._pass = None  # until this call is through: a failure leaves it half fed
        try:
            means = self._means(queries, paths, memory, k, ordinals, shared)
        except PassBroken as exc:
            log.debug("neighbour means without their pass: %s", exc)
            return self._means(queries, paths, memory, k, None, None)
        if shared is not None and not shared.finished:
            self._pass = shared
        return means

    def _shared(self, memory: _InMemory | None, k: int, start: bool) -> Shared | None:
        """The pass going on, if it still holds; else a new one if asked to start one."""
        current = self._pass
        if current is not None:
            rows = current.rows if memory is None else len(memory.matrix)
            if current.fits(rows, k, self._changes):
                return current
        if not start:
            return None
        rows = len(memory.matrix) if memory is not None else int(self._table.count_rows())
        return Shared(rows, k, self._changes)

    def _means(
        self,
        queries: np.ndarray,
        paths: Sequence[str],
        memory: _InMemory | None,
        k: int,
        ordinals: Sequence[int] | None,
        shared: Shared | None,
    ) -> list[float | None]:
        if memory is not None:
            block = (0, memory.rows.column("path"), memory.rows.column("ordinal"), memory.matrix)
            return nearest_other_means(queries, paths, [block], k, ordinals=ordinals, shared=shared)
        skip = shared.skips if shared is not None else None
        try:
            blocks = self._stored(skip)
            return nearest_other_means(queries, paths, blocks, k, ordinals=ordinals, shared=shared)
        except (OSError, RuntimeError) as exc:  # as in `search`
            if shared is not None:
                raise PassBroken(f"a read failed midway ({exc})") from exc
            log.debug("neighbour means retried after: %s", exc)
            return nearest_other_means(queries, paths, self._stored(), k)

    def _stored(self, skip: Callable[[int, int], bool] | None = None) -> Iterator[Block]:
        """Every row's position, path, ordinal and unit vector, read from LanceDB STREAM_ROWS
        at a time (leaving out blocks `skip` says are not needed). One query per block, not one
        streamed scan: a scan reads ahead (measured at 50,000 notes: +226 MB at its peak
        against +93 MB for the blocks, in the same 0.27 s). No write comes between two blocks:
        the only writer is the indexer, which is waiting for this."""
        start = 0
        while True:
            if skip is not None and skip(start, start + STREAM_ROWS):
                start += STREAM_ROWS
                continue
            query = self._table.search().select(["path", "ordinal", "vector"])
            block = query.offset(start).limit(STREAM_ROWS).to_arrow()
            if block.num_rows:
                matrix = _unit(_matrix(block.column("vector")))
                yield start, block.column("path"), block.column("ordinal"), matrix
            if block.num_rows < STREAM_ROWS:
                return
            start += STREAM_ROWS

    def maintain(self, *, force: bool = False) -> None:
        """Compact and clean up old versions every `compact_every` writes (or now, if forced),
        and build the vector index once the table is large enough."""
        if self._table is None or (not force and self._writes < self.compact_every):
            return
        if self._writes == 0 and not force:
            return
        if self._remake():  # before the compaction, so that it adds no delta to throw away
            self._build_index(again=True)
        with warnings.catch_warnings():
            # We are the only writer (the Tantivy writer lock makes sure), so removing every
            # old version at once is safe.
            warnings.simplefilter("ignore")
            self._compacting = True
            try:
                self._table.optimize(cleanup_older_than=timedelta(0), delete_unverified=True)
            finally:
                self._compacting = False
                self._changes += 1  # a compaction may move rows
        self._writes = 0
        if self._has_ann:
            if self._unindexed:
                self._segments += 1  # optimize() adds the new rows to the index as a delta
            self._unindexed = 0
            self._connect()  # the old version's cached pages go
        elif self._rows >= self.ann_rows:
            self._build_index()

    def keep_searchable(self) -> None:
        """Between the batches of a long run: build the vector index as soon as a flat scan
        would be slow, then bring it up to date each time the rows it does not cover outnumber
        those it does (so the work stays proportional to the vault, not to its square)."""
        if self._table is None or self._unindexed <= FLAT_ROWS:
            return
        if not self._has_ann:
            if self._rows >= self.ann_rows:
                self._build_index()
        elif self._unindexed >= self._rows - self._unindexed:
            log.info("updating the vector index: %d new chunks", self._unindexed)
            self.maintain(force=True)

    def _build_index(self, *, again: bool = False) -> None:
        if again:
            log.info(
                "making the vector index anew over %d chunks (%d new, %d segments)",
                self._rows,
                self._unindexed,
                self._segments,
            )
        else:
            log.info("building the vector index over %d chunks", self._rows)
        # A search during the build can wait for all of it (60,000 chunks: one search of 49
        # waited 47.5 s of a 48 s build): searches get VectorsBusy and use keywords meanwhile.
        self._compacting = True
        try:
            self._table.create_index(
                "vector", config=IvfHnswSq(distance_type="cosine"), replace=True
            )
        finally:
            self._compacting = False
        self._has_ann = True
        self._unindexed = 0
        self._segments = 1
        self._connect()


def _search_memory(
    memory: _InMemory, vector: Sequence[float], limit: int, flt: SearchFilter
) -> list[SearchResult]:
    """Exact cosine search over the in-memory copy, the filter applied before the cut."""
    query = np.asarray(vector, dtype=np.float32)
    query = query / (float(np.linalg.norm(query)) or 1.0)
    # einsum, not `@`: a matrix-vector product this small is faster on one core than waking
    # BLAS threads, which cost milliseconds on a busy machine (measured: 0.12 ms against 3-20 ms)
    scores = np.einsum("ij,j->i", memory.matrix, query)
    allowed = _allowed(memory.rows, flt)
    if allowed is not None:
        scores = np.where(allowed, scores, -np.inf)
    count = min(limit, int(scores.shape[0] if allowed is None else allowed.sum()))
    if count <= 0:
        return []
    top = np.argpartition(-scores, count - 1)[:count]
    top = top[np.argsort(-scores[top], kind="stable")]
    rows = memory.rows.take(pa.array(top)).to_pylist()
    return [_result(r, float(scores[i])) for r, i in zip(rows, top, strict=True)]


def _allowed(rows: pa.Table, flt: SearchFilter) -> np.ndarray | None:
    """Which rows the filter keeps (the same rule as SearchFilter.to_sql), None for all."""
    if flt.empty:
        return None
    paths = rows.column("path")
    keep = np.ones(rows.num_rows, dtype=bool)
    if flt.include:
        inside = np.zeros(rows.num_rows, dtype=bool)
        for folder in flt.include:
            inside |= _starts(paths, folder)
        keep &= inside
    for folder in flt.exclude:
        keep &= ~_starts(paths, folder)
    for start in flt.exclude_pages:
        found = pc.match_substring_regex(paths, pattern=f"^{page_pattern(start)}$")
        keep &= ~found.to_numpy(zero_copy_only=False)
    if flt.modified_after is not None:
        keep &= rows.column("mtime").to_numpy() > float(flt.modified_after)
    return keep


def _starts(paths: pa.ChunkedArray, folder: str) -> np.ndarray:
    found: np.ndarray = pc.starts_with(paths, pattern=folder + "/").to_numpy(zero_copy_only=False)
    return found


def _updated(
    memory: _InMemory, delete_paths: Sequence[str], batch: pa.Table | None, fits: bool
) -> _InMemory | None:
    """The in-memory copy after a write (None once it outgrows the budget)."""
    if not fits:
        return None
    rows, matrix = memory.rows, memory.matrix
    if delete_paths and rows.num_rows:
        gone = pc.is_in(rows.column("path"), value_set=pa.array(list(delete_paths), pa.string()))
        keep = pc.invert(gone)
        rows = rows.filter(keep)
        matrix = matrix[keep.to_numpy(zero_copy_only=False)]
    if batch is not None:
        added = _unit(_matrix(batch.column("vector")))
        if matrix.shape[0] and matrix.shape[1] != added.shape[1]:
            return None  # a new vector size: the copy is read again
        rows = pa.concat_tables([rows, batch.select(RESULT_COLUMNS).cast(rows.schema)])
        matrix = np.vstack([matrix, added]) if matrix.shape[0] else added
    return _InMemory(rows, matrix)


def _unit(matrix: np.ndarray) -> np.ndarray:
    matrix = np.asarray(matrix, dtype=np.float32)
    if not matrix.size:
        return matrix.reshape(0, matrix.shape[1] if matrix.ndim == 2 else 0)
    norms = np.linalg.norm(matrix, axis=1, keepdims=True)
    unit: np.ndarray = matrix / np.where(norms == 0, 1.0, norms)
    return unit


def _result(row: dict[str, Any], score: float) -> SearchResult:
    return SearchResult(
        path=row["path"],
        title=row["title"],
        heading=row["heading"],
        text=row["text"],
        score=score,
        note_date=row["note_date"],
        modified=row["mtime"],
        start_line=row["start_line"],
        ordinal=row["ordinal"],
    )


def _quote(value: str) -> str:
    return "'" + value.replace("'", "''") + "'"


def _matrix(column: pa.ChunkedArray | pa.Array) -> np.ndarray:
    flat = column.combine_chunks() if isinstance(column, pa.ChunkedArray) else column
    if len(flat) == 0:
        return np.zeros((0, 0), dtype=np.float32)
    dim = flat.type.list_size
    values: np.ndarray = flat.flatten().to_numpy(zero_copy_only=False)
    return values.reshape(-1, dim)


def _batch(chunks: Sequence[IndexedChunk], vectors: np.ndarray) -> pa.Table:
    dim = vectors.shape[1]
    return pa.table(
        {
            "path": [c.path for c in chunks],
            "title": [c.title for c in chunks],
            "heading": [c.heading for c in chunks],
            "text": [c.text for c in chunks],
            "ordinal": pa.array([c.ordinal for c in chunks], pa.int32()),
            "start_line": pa.array([c.start_line for c in chunks], pa.int32()),
            "note_date": [c.note_date for c in chunks],
            "mtime": pa.array([c.mtime for c in chunks], pa.float64()),
            "fingerprint": [c.fingerprint for c in chunks],
            "vector": pa.FixedSizeListArray.from_arrays(
                pa.array(vectors.astype(np.float32, copy=False).ravel()), dim
            ),
        },
        schema=_schema(dim),
    )


def _table_names(db: Any) -> list[str]:
    listed = db.list_tables()
    names = getattr(listed, "tables", listed)
    return [str(n) for n in names]
