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
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

TILE_BYTES = 8 * 2**20  # scores of one tile of queries × stored rows (float32)
QUERY_TILE = 512  # queries compared at once (fewer queries: wider tiles of stored rows)


class NearestOthers:
    """The k best cosines of each query among stored rows of other notes, fed block by block.

    `queries` are unit vectors (float32), `paths` the note each query belongs to."""

    def __init__(self, queries: np.ndarray, paths: Sequence[str], k: int) -> None:
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

    def add(self, paths: pa.Array | pa.ChunkedArray, matrix: np.ndarray) -> None:
        """Compare every query with one block of stored rows (their note paths and unit
        vectors, in the same order)."""
        if not len(matrix) or not len(self.queries) or self.k <= 0:
            return
        found = pc.index_in(paths, value_set=self._notes)  # which query note a row is of
        codes = pc.fill_null(found, -1).to_numpy(zero_copy_only=False).astype(np.int64)
        q_step = min(QUERY_TILE, len(self.queries))
        r_step = max(self.k, TILE_BYTES // (4 * q_step))
        for r0 in range(0, len(matrix), r_step):
            stored = matrix[r0 : r0 + r_step]
            row_codes = codes[r0 : r0 + r_step]
            shared = np.flatnonzero(row_codes >= 0)  # rows of a note some query belongs to
            for q0 in range(0, len(self.queries), q_step):
                self._tile(slice(q0, q0 + q_step), stored, row_codes, shared)

    def _tile(
        self, qs: slice, stored: np.ndarray, row_codes: np.ndarray, shared: np.ndarray
    ) -> None:
        scores = self.queries[qs] @ stored.T  # queries × rows
        if shared.size:  # a query's own note is no neighbour of it
            own = self._codes[qs, None] == row_codes[None, shared]
            scores[:, shared] = np.where(own, -np.inf, scores[:, shared])
        floor = self._floor[qs]
        rows = np.flatnonzero((scores > floor[:, None]).any(axis=1))
        if not rows.size:
            return
        k, width = self.k, scores.shape[1]
        found = scores[rows]
        if width > k:
            found = np.partition(found, width - k, axis=1)[:, width - k :]
        best = self.best[qs]  # a view: written through
        merged = np.concatenate([best[rows], found], axis=1)
        top = np.partition(merged, merged.shape[1] - k, axis=1)[:, -k:]
        best[rows] = top
        floor[rows] = top.min(axis=1)

    def means(self) -> list[float | None]:
        """Each query's mean of its k best (fewer if fewer rows of other notes were seen);
        None for a query that saw none."""
        finite = np.isfinite(self.best)
        counts = finite.sum(axis=1)
        sums = np.where(finite, self.best, 0.0).astype(np.float64).sum(axis=1)
        return [float(s / c) if c else None for s, c in zip(sums, counts, strict=True)]


def nearest_other_means(
    queries: np.ndarray,
    paths: Sequence[str],
    blocks: Iterable[tuple[pa.Array | pa.ChunkedArray, np.ndarray]],
    k: int,
) -> list[float | None]:
    """For each query (a unit vector, its note's path): the mean cosine of its k nearest
    stored rows of other notes, the stored rows given as blocks of (paths, unit vectors)."""
    nearest = NearestOthers(queries, paths, k)
    for block_paths, matrix in blocks:
        nearest.add(block_paths, matrix)
    return nearest.means()
