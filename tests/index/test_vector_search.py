"""A vector search past the memory budget asks LanceDB once, as one coroutine (vectors.py)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from commonplace.index import vectors
from commonplace.index.filters import SearchFilter
from commonplace.index.models import SearchResult
from commonplace.index.vectors import RESULT_COLUMNS, VectorStore
from tests.index.test_vector_segments import add, chunks


def synchronous(store: VectorStore, vector: Any, limit: int, flt: SearchFilter) -> list[Any]:
    """The same query through LanceDB's synchronous builder (what the store asked before)."""
    query = store._table.search(np.asarray(vector, dtype=np.float32), vector_column_name="vector")
    query = query.distance_type("cosine").limit(limit).ef(max(64, limit * vectors.EF_PER_RESULT))
    where = flt.to_sql()
    if where:
        query = query.where(where, prefilter=True)
    rows = query.select([*RESULT_COLUMNS, "_distance"]).to_arrow().to_pylist()
    return [(r["path"], r["ordinal"], r["title"], r["text"], 1.0 - r["_distance"]) for r in rows]


def answer(hits: list[SearchResult]) -> list[Any]:
    return [(h.path, h.ordinal, h.title, h.text, h.score) for h in hits]


def test_a_search_from_lancedb_answers_as_its_synchronous_query_did(tmp_path: Path) -> None:
    """The vector index, a delta of it and rows it does not cover yet, with and without a
    filter: the same rows, in the same order, with the same scores."""
    store = VectorStore(tmp_path / "vectors", ann_rows=300, memory_bytes=0)
    base = add(store, "Base", 400)
    add(store, "Few", 40)  # a delta
    rows, late = chunks("Late", 30)
    store.replace([], rows, late)  # not in the vector index yet: searched one by one
    assert store.has_vector_index and store.index_segments == 2 and store.pending_rows == 0
    assert store._memory is None
    rng = np.random.default_rng(7)
    queries = [base[3], late[5], *rng.normal(size=(6, base.shape[1])).astype(np.float32)]
    filters = [
        SearchFilter(),
        SearchFilter.make(exclude=["Few"]),
        SearchFilter.make(include=["Late", "Few"]),
        SearchFilter.make(exclude_pages=["Base/note 1"]),
    ]
    left_out = 0
    for vector in queries:
        for flt in filters:
            for limit in (1, 10, 60):
                got = answer(store.search(vector.tolist(), limit, flt))
                assert got == synchronous(store, vector, limit, flt)
                assert len(got) == limit and all(flt.matches(path, 0.0) for path, *_ in got)
                every = answer(store.search(vector.tolist(), limit, SearchFilter()))
                left_out += sum(not flt.matches(path, 0.0) for path, *_ in every)
    assert left_out  # the filters had rows to leave out
    assert answer(store.search(late[5].tolist(), 1, SearchFilter()))[0][:2] == ("Late/Note 5.md", 0)
