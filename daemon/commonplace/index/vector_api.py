"""What callers of the vector store see, without LanceDB or Arrow: its interface and its errors.

The store itself (vectors.py) needs LanceDB and pyarrow, whose libraries hold about 150 MB of
memory once used. The daemon runs it in a process of its own (vector_process.py) that stops when
idle, so the daemon's modules (searching, related, store) import only this module.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    import numpy as np

    from commonplace.index.chunking import IndexedChunk
    from commonplace.index.filters import SearchFilter
    from commonplace.index.models import SearchResult


class VectorsBusy(Exception):
    """The table is being compacted: a vector search now would wait for it to finish."""


class VectorStoreError(Exception):
    """The LanceDB table cannot be used; the caller rebuilds it."""


class VectorStoreGone(VectorsBusy):
    """The vector store's process stopped while answering this call (killed, or LanceDB failed
    inside). The next call starts a new one; a search meanwhile uses keywords."""


class Vectors(Protocol):
    """The vector store's interface: VectorStore in this process, VectorProcess in a child."""

    @property
    def rows(self) -> int: ...

    @property
    def dim(self) -> int | None: ...

    @property
    def has_vector_index(self) -> bool: ...

    @property
    def pending_rows(self) -> int: ...

    @property
    def skipped_rows(self) -> int: ...

    @property
    def index_segments(self) -> int: ...

    def drop(self) -> None: ...

    def paths(self) -> set[str]: ...

    def vectors_for(self, paths: Sequence[str]) -> dict[str, np.ndarray]: ...

    def replace(
        self, delete_paths: Sequence[str], chunks: Sequence[IndexedChunk], vectors: np.ndarray
    ) -> None: ...

    def search(
        self, vector: Sequence[float], limit: int, flt: SearchFilter, *, texts: bool = True
    ) -> list[SearchResult]: ...

    def search_later(
        self, vector: Sequence[float], limit: int, flt: SearchFilter, *, texts: bool = True
    ) -> Callable[[], list[SearchResult]]: ...

    def rows_at(self, keys: Sequence[tuple[str, int]]) -> list[SearchResult]: ...

    def neighbour_means(
        self,
        paths: Sequence[str],
        vectors: np.ndarray,
        k: int,
        ordinals: Sequence[int] | None = None,
        *,
        share: bool = False,
    ) -> list[float | None]: ...

    def maintain(self, *, force: bool = False) -> None: ...

    def keep_searchable(self) -> None: ...

    def warm(self) -> None: ...

    def close(self) -> None: ...
