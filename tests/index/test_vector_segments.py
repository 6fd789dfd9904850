"""The vector index stays one index plus a few small deltas, whatever the writes (vectors.py)."""

from __future__ import annotations

import logging
from pathlib import Path

import numpy as np
import pytest

from commonplace.index import vectors
from commonplace.index.chunking import IndexedChunk
from commonplace.index.filters import SearchFilter
from commonplace.index.vectors import VectorStore

DIM = 16


def chunks(folder: str, n: int) -> tuple[list[IndexedChunk], np.ndarray]:
    rng = np.random.default_rng(len(folder) * 1000 + n)
    rows = [
        IndexedChunk(
            path=f"{folder}/Note {i}.md",
            title=f"Note {i}",
            heading="",
            text=f"text {i}",
            ordinal=0,
            start_line=1,
            note_date="",
            mtime=0.0,
            embed_text=f"text {i}",
            fingerprint=f"{folder}-{i}",
        )
        for i in range(n)
    ]
    return rows, rng.normal(size=(n, DIM)).astype(np.float32)


def add(store: VectorStore, folder: str, n: int) -> np.ndarray:
    rows, matrix = chunks(folder, n)
    store.replace([], rows, matrix)
    store.maintain(force=True)
    return matrix


def segments_on_disk(folder: Path) -> int:
    reopened = VectorStore(folder)
    return reopened.index_segments


def test_new_rows_become_a_delta_until_they_are_a_quarter_of_the_index(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    store = VectorStore(tmp_path / "vectors", ann_rows=300)
    add(store, "Base", 400)
    assert store.has_vector_index and store.index_segments == 1

    add(store, "Few", 40)  # 10% of the indexed rows: a delta
    assert store.index_segments == 2 == segments_on_disk(tmp_path / "vectors")
    assert store.pending_rows == 0

    with caplog.at_level(logging.INFO, logger="commonplace.index.vectors"):
        many = add(store, "Many", 150)  # 34%: the index is made anew over every row
    assert store.index_segments == 1 == segments_on_disk(tmp_path / "vectors")
    assert any(
        "making the vector index anew over 590 chunks" in r.getMessage() for r in caplog.records
    )
    assert store.rows == 590
    # every row is still found, the new ones through the new index
    found = store.search(many[7], 1, SearchFilter())
    assert found[0].path == "Many/Note 7.md"


def test_many_small_deltas_are_merged_into_one_index(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(vectors, "MAX_SEGMENTS", 3)
    store = VectorStore(tmp_path / "vectors", ann_rows=300)
    add(store, "Base", 400)
    add(store, "One", 5)
    add(store, "Two", 5)
    assert store.index_segments == 3
    add(store, "Three", 5)  # a fourth segment would pass MAX_SEGMENTS
    assert store.index_segments == 1 == segments_on_disk(tmp_path / "vectors")
    add(store, "Four", 5)
    assert store.index_segments == 2


def test_a_compaction_with_nothing_new_adds_no_segment(tmp_path: Path) -> None:
    store = VectorStore(tmp_path / "vectors", ann_rows=300)
    add(store, "Base", 400)
    store.replace(["Base/Note 1.md"], [], np.zeros((0, DIM), dtype=np.float32))
    store.maintain(force=True)
    assert store.index_segments == 1 and store.rows == 399


def test_searches_are_turned_away_while_the_vector_index_is_built(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A search during create_index could wait for the whole build (tens of seconds at
    50,000 notes): it gets VectorsBusy at once, and the caller searches keywords."""
    monkeypatch.setattr(vectors, "MEMORY_BYTES", 0)  # a vault too big to search in memory
    store = VectorStore(tmp_path / "vectors", ann_rows=300)
    matrix = add(store, "Base", 400)
    seen: list[str] = []
    table = store._table
    real = table.create_index

    def build(*args: object, **kwargs: object) -> object:
        try:
            store.search(matrix[0].tolist(), 5, SearchFilter())
        except vectors.VectorsBusy as exc:
            seen.append(str(exc))
        return real(*args, **kwargs)

    table.create_index = build  # type: ignore[method-assign]
    store._build_index(again=True)
    assert seen == ["the vector index is being compacted"]
    assert store.search(matrix[0].tolist(), 5, SearchFilter())[0].path == "Base/Note 0.md"
