"""Each passage's k nearest passages of other notes, exactly, over blocks of stored vectors.

The hubness correction (hubness.py) needs, for every passage written, the mean cosine of its
K nearest passages in other notes: for a first run, every passage against every other, O(rows²).
Asking a vector search per passage costs a query's planning each time (LanceDB: 6 ms, 91,690 of
them at 50,000 notes) and, past the memory budget, answers from the approximate vector index.
Here the passages asked for (the queries) are compared with the stored vectors block by block:
one matrix product per tile of queries × stored rows, each query's own note masked out, and each
query's best k so far kept. So the stored vectors are read once per call, from memory or streamed
from LanceDB, and what is held at once is one block of them and one tile of scores (TILE_BYTES),
whatever the vault's size.

Most of a tile's scores are below every query's k-th best so far once a few blocks are done, so
a tile is first compared with those thresholds and only the queries it improves are partitioned
(a partition costs about as much per score as the product itself).

A first run asks for every passage, a slice of them per call: each pair of passages would be
compared twice, once from each side. So such a run keeps a pass (Shared) from call to call: the
scores of a tile are also read the other way round, as the stored rows' own neighbours, and a
later call compares its passages only with the rows not asked yet, the earlier rows' share
coming with the pass. Every pair is then computed once, and a block of rows all asked already
is not read at all.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

TILE_BYTES = 8 * 2**20  # scores of one tile of queries × stored rows (float32)
QUERY_TILE = 512  # queries compared at once (fewer queries: wider tiles of stored rows)
SAME = 1e-6  # how far an asked passage's vector may be from its stored row's (float rounding)

# One block of stored rows: its first row's position in the table, then the rows' note paths,
# chunk ordinals and unit vectors, in the same order.
Block = tuple[int, pa.Array | pa.ChunkedArray, pa.Array | pa.ChunkedArray, np.ndarray]


class Shared:
    """What the calls of one long pass share (see the module's docstring): each stored row's
    k best so far against the passages asked before (the same tiles read the other way round)
    and which rows were asked already. Rows are known by position in the table, so a pass
    holds only while nothing is written (`token`: the store's count of writes)."""

    def __init__(self, rows: int, k: int, token: object) -> None:
        self.rows, self.k, self.token = rows, k, token
        self.best = np.full((rows, k), -np.inf, dtype=np.float32)
        self.floor = np.full(rows, -np.inf, dtype=np.float32)  # each row's k-th best
        self.done = np.zeros(rows, dtype=bool)  # rows asked in an earlier call

    def fits(self, rows: int, k: int, token: object) -> bool:
        """Whether a call can go on with this pass."""
        return (rows, k, token) == (self.rows, self.k, self.token) and not self.finished

    @property
    def finished(self) -> bool:
        return bool(self.done.all())

    def skips(self, start: int, stop: int) -> bool:
        """Whether every row of a block was asked already (it need not be read at all)."""
        return stop <= self.rows and bool(self.done[start:stop].all())


class PassBroken(Exception):
    """The rows are not what the pass took them for (a passage asked twice, or not stored as
    asked): the call's results and the pass are to be dropped, and the call made without one."""


class NearestOthers:
    """The k best cosines of each query among stored rows of other notes, fed block by block.

    `queries` are unit vectors (float32), `paths` the note each query belongs to. With a pass
    (`shared`), every query is a stored row, named by its path and chunk ordinal."""

    def __init__(
        self,
        queries: np.ndarray,
        paths: Sequence[str],
        k: int,
        *,
        ordinals: Sequence[int] | None = None,
        shared: Shared | None = None,
    ) -> None:
        if len(queries) != len(paths):
            raise ValueError("queries and paths differ in length")
        self.queries = np.ascontiguousarray(queries, dtype=np.float32)
        notes = dict.fromkeys(paths)
        self._notes = pa.array(list(notes), pa.string())
        index = {path: i for i, path in enumerate(notes)}
        self._codes = np.array([index[p] for p in paths], dtype=np.int64)
        self.k = k
        self.best = np.full((len(paths), k), -np.inf, dtype=np.float32)
        self._floor = np.full(len(paths), -np.inf, dtype=np.float32)  # each one's k-th best
        self.shared = shared
        self._asked: dict[tuple[int, int], int] = {}
        self._rows = np.full(len(paths), -1, dtype=np.int64)  # each query's stored row
        if shared is not None:
            if ordinals is None or len(ordinals) != len(paths):
                raise ValueError("a pass needs each passage's ordinal")
            codes = self._codes.tolist()
            self._asked = {
                (c, int(o)): i for i, (c, o) in enumerate(zip(codes, ordinals, strict=True))
            }
            if len(self._asked) != len(paths):
                raise PassBroken("a passage asked twice")

    def add(
        self,
        paths: pa.Array | pa.ChunkedArray,
        matrix: np.ndarray,
        *,
        start: int = 0,
        ordinals: pa.Array | pa.ChunkedArray | None = None,
    ) -> None:
        """Compare every query with one block of stored rows (their note paths and unit
        vectors, in the same order; with a pass, their ordinals and the first one's position
        in the table)."""
        if not len(matrix) or not len(self.queries) or self.k <= 0:
            return
        found = pc.index_in(paths, value_set=self._notes)  # which query note a row is of
        codes = pc.fill_null(found, -1).to_numpy(zero_copy_only=False).astype(np.int64)
        live = pending = None
        if self.shared is not None:
            live, pending = self._place(start, codes, ordinals, matrix)
        q_step = min(QUERY_TILE, len(self.queries))
        r_step = max(self.k, TILE_BYTES // (4 * q_step))
        for r0 in range(0, len(matrix), r_step):
            tile = slice(r0, r0 + r_step)
            stored, row_codes = matrix[tile], codes[tile]
            targets = positions = None
            if live is not None and pending is not None:
                cols = np.flatnonzero(live[tile])  # rows asked before are not compared again
                if not cols.size:
                    continue
                if cols.size < len(stored):
                    stored, row_codes = stored[cols], row_codes[cols]
                targets = np.flatnonzero(pending[tile][cols])  # rows fed the other way
                positions = start + r0 + cols[targets]
            shared = np.flatnonzero(row_codes >= 0)  # rows of a note some query belongs to
            for q0 in range(0, len(self.queries), q_step):
                scores = self._scores(slice(q0, q0 + q_step), stored, row_codes, shared)
                self._keep(slice(q0, q0 + q_step), scores)
                if targets is not None and positions is not None and targets.size:
                    self._feed(scores, targets, positions)

    def _place(
        self,
        start: int,
        codes: np.ndarray,
        ordinals: pa.Array | pa.ChunkedArray | None,
        matrix: np.ndarray,
    ) -> tuple[np.ndarray, np.ndarray]:
        """With a pass: which of a block's rows are compared (not asked before) and which are
        fed the other way (neither asked before nor now); finds each query's stored row."""
        shared = self.shared
        assert shared is not None
        stop = start + len(matrix)
        if ordinals is None or stop > shared.rows:
            raise PassBroken("the table is not the one the pass began with")
        live = ~shared.done[start:stop]
        pending = live.copy()
        mine = np.flatnonzero(codes >= 0)
        if mine.size:
            ords = pc.take(ordinals, pa.array(mine)).to_numpy(zero_copy_only=False)
            for row, code, ordinal in zip(
                mine.tolist(), codes[mine].tolist(), ords.tolist(), strict=True
            ):
                q = self._asked.get((code, int(ordinal)))
                if q is None:
                    continue
                if not live[row] or self._rows[q] >= 0:
                    raise PassBroken("a passage asked again within a pass")
                if np.abs(matrix[row] - self.queries[q]).max() > SAME:
                    raise PassBroken("a passage asked is not its stored row")
                self._rows[q] = start + row
                pending[row] = False
        return live, pending

    def _scores(
        self, qs: slice, stored: np.ndarray, row_codes: np.ndarray, shared: np.ndarray
    ) -> np.ndarray:
        scores: np.ndarray = self.queries[qs] @ stored.T  # queries × rows
        if shared.size:  # a query's own note is no neighbour of it
            own = self._codes[qs, None] == row_codes[None, shared]
            scores[:, shared] = np.where(own, -np.inf, scores[:, shared])
        return scores

    def _keep(self, qs: slice, scores: np.ndarray) -> None:
        """Each query's k best, after one tile."""
        floor = self._floor[qs]
        rows = np.flatnonzero((scores > floor[:, None]).any(axis=1))
        if rows.size:
            best = self.best[qs]  # a view: written through
            top = _merge(best[rows], scores[rows], self.k)
            best[rows] = top
            floor[rows] = top.min(axis=1)

    def _feed(self, scores: np.ndarray, targets: np.ndarray, positions: np.ndarray) -> None:
        """The same tile read by column: the k best of the stored rows not asked yet (the
        columns `targets`, at `positions` in the table)."""
        shared = self.shared
        assert shared is not None
        floor = np.full(scores.shape[1], np.inf, dtype=np.float32)
        floor[targets] = shared.floor[positions]
        cols = np.flatnonzero((scores > floor[None, :]).any(axis=0))
        if cols.size:
            at = positions[np.searchsorted(targets, cols)]  # cols are among targets
            top = _merge(shared.best[at], scores[:, cols].T, self.k)
            shared.best[at] = top
            shared.floor[at] = top.min(axis=1)

    def finish(self) -> None:
        """With a pass: each query's k best merged with what earlier calls left it, and its
        row marked asked. Raises PassBroken if a query was not found among the rows."""
        shared = self.shared
        if shared is None or not len(self.queries):
            return
        if (self._rows < 0).any():
            raise PassBroken("a passage asked is not stored")
        self.best = _merge(self.best, shared.best[self._rows], self.k)
        shared.done[self._rows] = True

    def means(self) -> list[float | None]:
        """Each query's mean of its k best (fewer if fewer rows of other notes were seen);
        None for a query that saw none."""
        finite = np.isfinite(self.best)
        counts = finite.sum(axis=1)
        sums = np.where(finite, self.best, 0.0).astype(np.float64).sum(axis=1)
        return [float(s / c) if c else None for s, c in zip(sums, counts, strict=True)]


def _merge(best: np.ndarray, found: np.ndarray, k: int) -> np.ndarray:
    """Row by row, the k best of both (best: k columns each; found: any number)."""
    width = found.shape[1]
    if width > k:
        found = np.partition(found, width - k, axis=1)[:, width - k :]
    merged = np.concatenate([best, found], axis=1)
    top: np.ndarray = np.partition(merged, merged.shape[1] - k, axis=1)[:, -k:]
    return top


def nearest_other_means(
    queries: np.ndarray,
    paths: Sequence[str],
    blocks: Iterable[Block],
    k: int,
    *,
    ordinals: Sequence[int] | None = None,
    shared: Shared | None = None,
) -> list[float | None]:
    """For each query (a unit vector, its note's path): the mean cosine of its k nearest
    stored rows of other notes, the stored rows given as blocks. With a pass (`shared`), each
    query is a stored row (its note's path and `ordinals`) not asked before in the pass; a
    PassBroken leaves the pass unusable."""
    nearest = NearestOthers(queries, paths, k, ordinals=ordinals, shared=shared)
    for start, block_paths, block_ordinals, matrix in blocks:
        nearest.add(block_paths, matrix, start=start, ordinals=block_ordinals)
    nearest.finish()
    return nearest.means()
