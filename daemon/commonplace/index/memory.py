"""Vectors kept in memory for a while, so the common edits cost no LanceDB scan and no model call.

Two cases: a note edited again (its vectors were written moments ago) and a note moved or
renamed (its vectors were deleted moments ago under the old path). Both are bounded LRUs.
"""

from __future__ import annotations

from collections import OrderedDict

import numpy as np

RECENT_VECTORS = 4096  # fingerprint -> vector entries
RECENT_PATHS = 1024  # notes whose every vector is among them


class VectorMemory:
    def __init__(self, vectors: int = RECENT_VECTORS, paths: int = RECENT_PATHS) -> None:
        self.max_vectors = vectors
        self.max_paths = paths
        self._vectors: OrderedDict[str, np.ndarray] = OrderedDict()
        self._paths: OrderedDict[str, frozenset[str]] = OrderedDict()

    def get(self, fingerprint: str) -> np.ndarray | None:
        return self._vectors.get(fingerprint)

    def remember(self, vectors: dict[str, np.ndarray]) -> None:
        for fp, vec in vectors.items():
            self._vectors[fp] = vec
            self._vectors.move_to_end(fp)
        while len(self._vectors) > self.max_vectors:
            self._vectors.popitem(last=False)

    def wrote(self, path: str, vectors: dict[str, np.ndarray]) -> None:
        """`path` now holds exactly these vectors."""
        self.remember(vectors)
        self._paths.pop(path, None)
        self._paths[path] = frozenset(vectors)
        while len(self._paths) > self.max_paths:
            self._paths.popitem(last=False)

    def forget_path(self, path: str) -> None:
        """The path's rows changed without us knowing all its vectors (or it is gone)."""
        self._paths.pop(path, None)

    def for_paths(self, paths: list[str]) -> dict[str, dict[str, np.ndarray]]:
        """path -> its stored vectors, for the paths whose vectors are all still here."""
        out: dict[str, dict[str, np.ndarray]] = {}
        for path in paths:
            prints = self._paths.get(path)
            if prints is not None and all(fp in self._vectors for fp in prints):
                out[path] = {fp: self._vectors[fp] for fp in prints}
        return out
