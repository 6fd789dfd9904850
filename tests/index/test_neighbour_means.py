"""Each passage's neighbourhood for the hubness correction (VectorStore.neighbour_means): the
mean cosine of its k nearest passages in other notes, asked for many passages at once, the same
in memory and from LanceDB as a search each would give."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import numpy as np
import pytest

from commonplace.index.filters import SearchFilter
from commonplace.index.vectors import VectorStore
from tests.index.test_vector_segments import chunks

K = 10


def notes_of_two_passages(n: int) -> tuple[list, np.ndarray]:
    rows, matrix = chunks("Pairs", 2 * n)
    rows = [
        dataclasses.replace(row, path=f"Pairs/Note {i // 2}.md", ordinal=i % 2)
        for i, row in enumerate(rows)
    ]
    return rows, matrix


def by_searching(store: VectorStore, path: str, vector: np.ndarray, limit: int) -> float | None:
    hits = store.search(vector.tolist(), limit, SearchFilter())
    others = [h.score for h in hits if h.path != path][:K]
    return float(np.mean(others)) if others else None


@pytest.mark.parametrize("memory_bytes", [None, 0], ids=["in memory", "from LanceDB"])
def test_each_passage_gets_the_mean_of_its_nearest_passages_in_other_notes(
    tmp_path: Path, memory_bytes: int | None
) -> None:
    rows, matrix = notes_of_two_passages(60)
    store = VectorStore(tmp_path / "vectors", memory_bytes=memory_bytes)
    store.replace([], rows, matrix)
    paths = [row.path for row in rows]
    means = store.neighbour_means(paths, matrix, K, [K + 2] * len(rows))
    assert len(means) == len(rows)
    for path, vector, mean in zip(paths, matrix, means, strict=True):
        assert mean == pytest.approx(by_searching(store, path, vector, K + 2), abs=1e-5)
    # its own note's other passage is left out, though it is the nearest of all
    twin = matrix[0] + 1e-3
    store.replace([], [dataclasses.replace(rows[1], path="Twin.md")], twin[None, :])
    nearest = store.search(matrix[0].tolist(), 2, SearchFilter())
    assert {h.path for h in nearest} == {"Pairs/Note 0.md", "Twin.md"}
    [with_twin] = store.neighbour_means([paths[0]], matrix[:1], K, [K + 2])
    assert with_twin is not None and with_twin > means[0]


def test_a_vault_of_one_note_has_no_neighbourhood_and_bad_calls_are_refused(
    tmp_path: Path,
) -> None:
    rows, matrix = notes_of_two_passages(1)
    store = VectorStore(tmp_path / "vectors")
    assert store.neighbour_means(["A.md"], matrix[:1], K, [K]) == [None]  # nothing stored
    store.replace([], rows, matrix)
    assert store.neighbour_means([rows[0].path] * 2, matrix, K, [K + 2] * 2) == [None, None]
    assert store.neighbour_means([], matrix[:0], K, []) == []
    with pytest.raises(ValueError, match="differ in length"):
        store.neighbour_means(["A.md"], matrix, K, [K])
