"""Each passage's neighbourhood for the hubness correction (VectorStore.neighbour_means): the
mean cosine of its k nearest passages in other notes, asked for many passages at once, exactly
the straightforward computation's, in memory and streamed from LanceDB past the memory budget,
holding one block of vectors and one tile of scores at a time (nearest.py)."""

from __future__ import annotations

import dataclasses
import tracemalloc
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from commonplace.index import nearest, vectors
from commonplace.index.chunking import IndexedChunk
from commonplace.index.filters import SearchFilter
from commonplace.index.vectors import VectorStore
from tests.index.test_vector_segments import chunks

K = 10


def notes_of(sizes: list[int], folder: str = "Notes") -> tuple[list[IndexedChunk], np.ndarray]:
    """Notes of the given numbers of passages, one after another."""
    rows, matrix = chunks(folder, sum(sizes))
    owners = [(n, o) for n, size in enumerate(sizes) for o in range(size)]
    rows = [
        dataclasses.replace(row, path=f"{folder}/Note {n}.md", ordinal=o)
        for row, (n, o) in zip(rows, owners, strict=True)
    ]
    return rows, matrix


def straightforward(
    paths: list[str], matrix: np.ndarray, stored_paths: list[str], stored: np.ndarray
) -> list[float | None]:
    """Every cosine, each passage's own note left out, the k best averaged."""
    unit = stored / np.linalg.norm(stored, axis=1, keepdims=True)
    out: list[float | None] = []
    for path, vector in zip(paths, matrix, strict=True):
        scores = unit @ (vector / np.linalg.norm(vector))
        others = sorted((s for s, p in zip(scores, stored_paths, strict=True) if p != path))
        best = others[::-1][:K]
        out.append(float(np.mean(best)) if best else None)
    return out


@pytest.fixture
def small_blocks(monkeypatch: pytest.MonkeyPatch) -> None:
    """Blocks and tiles far smaller than the data: every merge of partial results is used."""
    monkeypatch.setattr(vectors, "STREAM_ROWS", 7)
    monkeypatch.setattr(nearest, "QUERY_TILE", 8)
    monkeypatch.setattr(nearest, "TILE_BYTES", 4 * 8 * 16)  # 8 queries × 16 rows


@pytest.mark.parametrize("memory_bytes", [None, 0], ids=["in memory", "from LanceDB"])
@pytest.mark.usefixtures("small_blocks")
def test_each_passage_gets_the_mean_of_its_nearest_passages_in_other_notes(
    tmp_path: Path, memory_bytes: int | None
) -> None:
    rows, matrix = notes_of([1, 2, 3, 2, 1, 5] * 12)
    store = VectorStore(tmp_path / "vectors", memory_bytes=memory_bytes)
    store.replace([], rows, matrix)
    paths = [row.path for row in rows]
    means = store.neighbour_means(paths, matrix, K)
    assert (store._memory is None) == (memory_bytes == 0)
    expected = straightforward(paths, matrix, paths, matrix)
    assert means == pytest.approx(expected, abs=1e-6)
    # a passage not stored (an edit moments ago) is asked about the same way
    [fresh] = store.neighbour_means(["Elsewhere.md"], matrix[:1] + 0.5, K)
    assert fresh == pytest.approx(
        straightforward(["Elsewhere.md"], matrix[:1] + 0.5, paths, matrix)[0], abs=1e-6
    )
    # its own note's other passage is left out, though it is the nearest of all
    twin = matrix[1] + 1e-3
    store.replace([], [dataclasses.replace(rows[1], path="Twin.md")], twin[None, :])
    nearest_two = store.search(matrix[1].tolist(), 2, SearchFilter())
    assert {h.path for h in nearest_two} == {paths[1], "Twin.md"}
    [with_twin] = store.neighbour_means([paths[1]], matrix[1:2], K)
    assert with_twin is not None and with_twin > means[1]


def test_from_lancedb_the_same_as_in_memory_past_the_vector_index(tmp_path: Path) -> None:
    """Past the budget the stored vectors are read in full (not LanceDB's approximate index):
    the same figures as in memory, also once a vector index is built."""
    rows, matrix = notes_of([3, 1, 2] * 100)
    memory = VectorStore(tmp_path / "memory")
    memory.replace([], rows, matrix)
    streamed = VectorStore(tmp_path / "streamed", memory_bytes=0, ann_rows=256)
    streamed.replace([], rows, matrix)
    streamed.maintain(force=True)
    assert streamed.has_vector_index
    paths = [row.path for row in rows]
    np.testing.assert_allclose(
        np.array(streamed.neighbour_means(paths, matrix, K), dtype=float),
        np.array(memory.neighbour_means(paths, matrix, K), dtype=float),
        atol=1e-6,
    )


def test_streaming_holds_a_block_at_a_time_not_the_table(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """What a call holds (numpy's allocations, traced) does not grow with the table."""
    monkeypatch.setattr(vectors, "STREAM_ROWS", 256)
    monkeypatch.setattr(nearest, "TILE_BYTES", 16 * 1024)
    peaks = []
    for notes in (3000, 12000):  # 6,000 and 24,000 passages of 16 numbers
        rows, matrix = notes_of([2] * notes)
        store = VectorStore(tmp_path / str(notes), memory_bytes=0)
        store.replace([], rows, matrix)
        blocks: list[int] = []
        read = store._stored

        def counted(
            skip: Any = None, read: Any = read, blocks: list[int] = blocks
        ) -> Iterator[Any]:
            for block in read(skip):
                blocks.append(len(block[-1]))
                yield block

        monkeypatch.setattr(store, "_stored", counted)
        paths = [row.path for row in rows[:500]]
        store.neighbour_means(paths[:1], matrix[:1], K)  # anything made once, made now
        blocks.clear()
        tracemalloc.start()
        try:
            means = store.neighbour_means(paths, matrix[:500], K)
            peaks.append(tracemalloc.get_traced_memory()[1])
        finally:
            tracemalloc.stop()
        assert sum(blocks) == len(rows) and max(blocks) <= 256  # the table once, in blocks
        assert store._memory is None  # no copy of the table was made
        in_memory = VectorStore(tmp_path / f"{notes}-memory")
        in_memory.replace([], rows, matrix)
        assert means == pytest.approx(in_memory.neighbour_means(paths, matrix[:500], K), abs=1e-6)
    # four times the table, not four times the memory (the table's vectors: 384 KB, 1.5 MB)
    assert peaks[1] - peaks[0] < matrix.nbytes / 8 and peaks[1] < matrix.nbytes / 4, peaks


def test_a_vault_of_one_note_has_no_neighbourhood_and_bad_calls_are_refused(
    tmp_path: Path,
) -> None:
    rows, matrix = notes_of([2])
    store = VectorStore(tmp_path / "vectors")
    assert store.neighbour_means(["A.md"], matrix[:1], K) == [None]  # nothing stored
    store.replace([], rows, matrix)
    assert store.neighbour_means([rows[0].path] * 2, matrix, K) == [None, None]
    assert store.neighbour_means([], matrix[:0], K) == []
    with pytest.raises(ValueError, match="differ in length"):
        store.neighbour_means(["A.md"], matrix, K)


def slices(rows: list[IndexedChunk], order: list[int], size: int) -> Iterator[list[int]]:
    """Passage indexes, whole notes at a time, about `size` passages a call (as hubness asks)."""
    by_note: dict[str, list[int]] = {}
    for i, row in enumerate(rows):
        by_note.setdefault(row.path, []).append(i)
    notes = list(by_note)
    group: list[int] = []
    for n in order:
        group += by_note[notes[n]]
        if len(group) >= size:
            yield group
            group = []
    if group:
        yield group


def ask(store: VectorStore, rows: list[IndexedChunk], matrix: np.ndarray, at: list[int]) -> Any:
    paths = [rows[i].path for i in at]
    return store.neighbour_means(paths, matrix[at], K, [rows[i].ordinal for i in at], share=True)


@pytest.mark.parametrize("memory_bytes", [None, 0], ids=["in memory", "from LanceDB"])
@pytest.mark.parametrize("shuffled", [False, True], ids=["table order", "any order"])
@pytest.mark.usefixtures("small_blocks")
def test_a_pass_over_every_passage_compares_each_pair_once_with_the_same_results(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, memory_bytes: int | None, shuffled: bool
) -> None:
    sizes = [1, 2, 3, 2, 1, 5] * 12
    rows, matrix = notes_of(sizes)
    matrix[40] = matrix[3]  # the same passage in two notes: tied neighbours
    matrix[41] = matrix[3]
    matrix[100] = matrix[7]
    store = VectorStore(tmp_path / "vectors", memory_bytes=memory_bytes)
    store.replace([], rows, matrix)
    paths = [row.path for row in rows]
    expected = straightforward(paths, matrix, paths, matrix)
    compared = [0]
    scores = nearest.NearestOthers._scores

    def counted(self: Any, *args: Any) -> np.ndarray:
        found = scores(self, *args)
        compared[0] += found.size
        return found

    monkeypatch.setattr(nearest.NearestOthers, "_scores", counted)
    order = list(range(len(sizes)))
    if shuffled:
        np.random.default_rng(3).shuffle(order)
    alone: dict[int, float | None] = {}
    for at in slices(rows, order, 20):  # each call on its own, as before
        alone.update(
            zip(at, store.neighbour_means([paths[i] for i in at], matrix[at], K), strict=True)
        )
    compared_alone, compared[0] = compared[0], 0
    shared: dict[int, float | None] = {}
    for at in slices(rows, order, 20):
        shared.update(zip(at, ask(store, rows, matrix, at), strict=True))
    assert store._pass is None  # every passage asked: the pass is over
    assert [shared[i] for i in range(len(rows))] == pytest.approx(expected, abs=1e-6)
    assert [alone[i] for i in range(len(rows))] == pytest.approx(expected, abs=1e-6)
    # own notes left out on both sides: a note's twin passages are not each other's neighbours
    assert shared[40] == pytest.approx(alone[40], abs=1e-6)
    assert compared[0] < 0.6 * compared_alone  # about half: each pair once


@pytest.mark.usefixtures("small_blocks")
def test_a_pass_skips_blocks_asked_already_and_ends_with_a_write(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    rows, matrix = notes_of([2, 3, 1] * 20)
    store = VectorStore(tmp_path / "vectors", memory_bytes=0)
    store.replace([], rows[:100], matrix[:100])
    reads: list[int] = []
    read = store._stored

    def counted(skip: Any = None) -> Iterator[Any]:
        for block in read(skip):
            reads.append(block[0])
            yield block

    monkeypatch.setattr(store, "_stored", counted)
    calls = list(slices(rows[:100], list(range(50)), 10))
    paths = [row.path for row in rows]
    for at in calls[:6]:
        ask(store, rows, matrix, at)
    assert store._pass is not None and 0 not in reads[-3:]  # the first blocks: asked already
    # a note written meanwhile: the pass is dropped, the next calls are exact for the new table
    store.replace([], rows[100:], matrix[100:])
    for at in calls[6:7]:
        got = ask(store, rows, matrix, at)
        want = straightforward([paths[i] for i in at], matrix[at], paths, matrix)
        assert got == pytest.approx(want, abs=1e-6)
    # a passage asked twice within a pass, or one not stored: exact all the same
    again = ask(store, rows, matrix, calls[0] + calls[7])
    want = straightforward(
        [paths[i] for i in calls[0] + calls[7]], matrix[calls[0] + calls[7]], paths, matrix
    )
    assert again == pytest.approx(want, abs=1e-6)
    again = ask(store, rows, matrix, calls[0])
    assert again == pytest.approx(want[: len(calls[0])], abs=1e-6)
    moved = matrix[calls[8]] + 0.5  # not the stored rows
    got = store.neighbour_means(
        [paths[i] for i in calls[8]], moved, K, [rows[i].ordinal for i in calls[8]], share=True
    )
    want = straightforward([paths[i] for i in calls[8]], moved, paths, matrix)
    assert got == pytest.approx(want, abs=1e-6)
