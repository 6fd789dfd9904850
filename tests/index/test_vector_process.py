"""The daemon's vector store in a child process (vector_process.py, vector_child.py): real LanceDB
in a real child, killed, idle and restarted. Each child costs 1-2 s to start, so the tests are few
and each checks several things."""

from __future__ import annotations

import logging
import os
import signal
import threading
import time
from pathlib import Path

import numpy as np
import pytest

from commonplace.config import Settings
from commonplace.index import Index
from commonplace.index.filters import SearchFilter
from commonplace.index.vector_api import VectorsBusy, VectorStoreError, VectorStoreGone
from commonplace.index.vector_child import error_kind
from commonplace.index.vector_process import VectorProcess, _error
from commonplace.index.vectors import VectorStore
from commonplace.llm import make_llm
from tests.index.test_vector_segments import DIM, chunks


def running(pid: int) -> bool:
    """True while the process exists and is not a zombie."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] != "Z"


def wait_for(check: object, what: str, timeout: float = 60.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if callable(check) and check():
            return
        time.sleep(0.05)
    raise AssertionError(f"not within {timeout} s: {what}")


def test_the_child_answers_as_the_store_in_this_process_does(tmp_path: Path) -> None:
    rows, matrix = chunks("Base", 300)
    local = VectorStore(tmp_path / "local")
    local.replace([], rows, matrix)
    remote = VectorProcess(tmp_path / "remote", idle_s=60)
    try:
        assert remote.rows == 0 and remote.dim is None
        remote.replace([], rows, matrix)
        assert (remote.rows, remote.dim) == (300, DIM)
        assert remote.paths() == local.paths()
        flt = SearchFilter.make(exclude=["Base/Note 1.md"])
        for i in (0, 7, 299):
            query = matrix[i].tolist()
            assert remote.search(query, 10, SearchFilter()) == local.search(
                query, 10, SearchFilter()
            )
            assert remote.search(query, 5, flt) == local.search(query, 5, flt)
            later = remote.search_later(query, 5, flt)  # sent now, read when asked
            assert later() == local.search_later(query, 5, flt)() == local.search(query, 5, flt)
        paths = [row.path for row in rows[:70]]  # the hubness pass's question, all at once
        assert remote.neighbour_means(paths, matrix[:70], 10) == (
            local.neighbour_means(paths, matrix[:70], 10)
        )
        stored = remote.vectors_for(["Base/Note 7.md"])
        assert list(stored) == ["Base-7"]
        np.testing.assert_array_equal(stored["Base-7"], matrix[7])

        remote.replace(["Base/Note 7.md"], [], np.zeros((0, DIM), np.float32))
        remote.maintain(force=True)
        assert remote.rows == 299 and "Base/Note 7.md" not in remote.paths()
        with pytest.raises(ValueError, match="no operation"):
            remote._call("_connect")  # only the store's public methods cross
        remote.drop()
        assert remote.rows == 0 and remote.paths() == set()
        assert remote.starts == 1  # one child did all of it
    finally:
        remote.close()
    assert remote.pid is None


def test_a_search_is_answered_during_an_index_build_and_a_killed_child_is_replaced(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """The child answers calls at once (a search does not queue behind a long build: it gets
    VectorsBusy, as in one process); kill -9 mid-call gives the caller a clear error, the next
    call a new child, and every committed row is still there."""
    caplog.set_level(logging.INFO, logger="commonplace")  # the child sends INFO records too
    store = VectorProcess(tmp_path / "vectors", ann_rows=300, memory_bytes=0, idle_s=60)
    try:
        rows, matrix = chunks("Base", 6000)
        store.replace([], rows, matrix)
        outcome: list[object] = []

        def build() -> None:
            try:
                store.maintain(force=True)  # compaction, then the vector index over 6,000 rows
                outcome.append("built")
            except Exception as exc:
                outcome.append(exc)

        builder = threading.Thread(target=build)
        builder.start()
        answered = []
        while builder.is_alive() and not answered:
            try:
                store.search(matrix[0].tolist(), 5, SearchFilter())
            except VectorsBusy as exc:
                if builder.is_alive():
                    answered.append(str(exc))
        builder.join()
        assert answered == ["the vector index is being compacted"]
        assert outcome == ["built"] and store.has_vector_index

        first = store.pid
        assert first is not None
        more, extra = chunks("More", 4000)
        builder = threading.Thread(target=build)
        store.replace([], more, extra)
        builder.start()
        wait_for(
            lambda: any("anew over 10000 chunks" in r.getMessage() for r in caplog.records),
            "the child logged that it makes the index anew (it then builds it)",
        )
        os.kill(first, signal.SIGKILL)
        builder.join(timeout=30)
        assert len(outcome) == 2 and isinstance(outcome[1], VectorStoreGone)
        assert "stopped (killed by SIGKILL); it starts again on the next search" in str(outcome[1])
        assert any(
            "stopped unexpectedly (killed by SIGKILL)" in r.getMessage() for r in caplog.records
        )

        found = store.search(extra[3].tolist(), 1, SearchFilter())  # a new child
        assert found[0].path == "More/Note 3.md"
        assert store.rows == 10_000 and store.starts == 2 and store.pid not in (None, first)
        assert not running(first)
    finally:
        store.close()


def test_the_child_stops_when_idle_and_the_next_search_starts_it_again(tmp_path: Path) -> None:
    store = VectorProcess(tmp_path / "vectors", idle_s=0.5)
    try:
        rows, matrix = chunks("Base", 50)
        store.replace([], rows, matrix)
        store.search_later(matrix[1].tolist(), 1, SearchFilter())  # an answer nobody reads
        first = store.pid
        assert first is not None
        wait_for(lambda: store.pid is None, "the child stopped when idle")
        wait_for(lambda: not running(first), "its process gone")
        assert store.rows == 50  # the state is known without a child

        found = store.search(matrix[9].tolist(), 1, SearchFilter())
        assert found[0].path == "Base/Note 9.md"
        assert store.starts == 2 and store.pid not in (None, first)

        wait_for(lambda: store.pid is None, "the second child stopped when idle")
        store.warm()  # returns at once; the child starts in the background
        wait_for(lambda: store.pid is not None, "the child started by warm()")
        store.warm()  # one runs: nothing more
        assert store.search(matrix[2].tolist(), 1, SearchFilter())[0].path == "Base/Note 2.md"
        assert store.starts == 3
    finally:
        store.close()
    assert store.pid is None
    with pytest.raises(VectorStoreError, match="closed"):
        store.search(matrix[2].tolist(), 1, SearchFilter())


def test_errors_cross_as_built_in_kinds_and_a_panic_is_fatal() -> None:
    """LanceDB's own exception classes never cross (unpickling them would import LanceDB in
    the daemon); pyo3's PanicException is a BaseException, not an Exception: the child exits."""

    class PanicException(BaseException):
        pass

    kinds = [VectorsBusy("x"), VectorStoreError("x"), FileNotFoundError(), ValueError(), KeyError()]
    assert [error_kind(e) for e in kinds] == ["busy", "store", "os", "value", "runtime"]
    assert error_kind(PanicException("index out of bounds")) == "fatal"
    assert isinstance(_error(("fatal", "PanicException: boom")), VectorStoreGone)
    assert isinstance(_error(("busy", "compacting")), VectorsBusy)


async def test_an_unreadable_table_is_rebuilt_through_the_child(
    isettings: Settings, caplog: pytest.LogCaptureFixture
) -> None:
    """The daemon's path of test_broken_index_is_rebuilt_from_the_vault[vectors]: the child
    cannot open the table, says so, and the index is rebuilt from the vault."""
    first = Index.open(isettings, make_llm(isettings))
    built = await first.refresh()
    first.close()
    for f in (isettings.data_path / "index" / "vectors").rglob("*.manifest"):
        f.write_bytes(b"garbage")
    caplog.set_level("WARNING")
    index = Index.open(isettings, make_llm(isettings), daemon=True)
    try:
        assert isinstance(index.stores.vectors, VectorProcess)
        assert "rebuilding the search index from the vault: the vector table is unreadable" in (
            caplog.text
        )
        stats = await index.refresh()
        assert stats.chunks == built.chunks and stats.embedded == built.chunks
        found = await index.search("flight to Lisbon", limit=3, mode="vector")
        assert found.mode == "vector" and found.results[0].path == "Travel/Lisbon Trip.md"
    finally:
        index.close()
    assert index.stores.vectors.pid is None  # closing the index stopped the child
