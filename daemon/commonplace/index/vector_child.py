"""The vector store's process: a VectorStore (LanceDB, pyarrow) answering the daemon over a pipe.

Started by vector_process.py as `python -m commonplace.index.vector_child FD`, FD being its end
of a socket pair. Messages are pickled tuples (the pair is private to the daemon and the child
it started, so nothing else can write to it):

    daemon -> child   (id, op, args, kwargs)         op: "open" first, then a VectorStore method
    child -> daemon   ("reply", id, ok, payload, state, seq)
                      ("log", logger, level, text)    the child's log records, for the daemon's log

Each request runs in a thread of its own pool, so a search is answered while a compaction or an
index build runs (and gets VectorsBusy from the store, as in one process). A reply carries the
store's state (rows, pending rows, ...) so the daemon reads those without asking.

The child never outlives the daemon: when the daemon closes its end (it stops the child when
idle or closing) or dies (the kernel closes it), reading gets EOF and the child exits at once.
Nothing is lost by exiting mid-write: each LanceDB write is one commit, made whole or not at all,
and the daemon records a write only after its reply (indexer.py). An error LanceDB cannot recover
from (a Rust panic, raised as a BaseException that is not an Exception) is answered as "fatal" and
the child exits, so the next call starts on a fresh process.
"""

from __future__ import annotations

import contextlib
import logging
import os
import pickle
import signal
import sys
import threading
from concurrent.futures import ThreadPoolExecutor
from multiprocessing.connection import Connection
from pathlib import Path
from typing import Any

from commonplace.index.vector_api import VectorsBusy, VectorStoreError

OPS = frozenset(
    [
        "drop",
        "paths",
        "vectors_for",
        "replace",
        "search",
        "rows_at",
        "neighbour_means",
        "maintain",
        "keep_searchable",
    ]
)
WORKERS = 8  # requests answered at once (the indexer writes one at a time; searches run beside)
FATAL_EXIT = 70


def error_kind(exc: BaseException) -> str:
    """How an error crosses to the daemon: as one of a few built-in kinds, never as LanceDB's own
    classes (unpickling those would import LanceDB in the daemon)."""
    if isinstance(exc, VectorsBusy):
        return "busy"
    if isinstance(exc, VectorStoreError):
        return "store"
    if isinstance(exc, OSError):
        return "os"
    if isinstance(exc, ValueError):
        return "value"
    if isinstance(exc, Exception):
        return "runtime"
    return "fatal"  # pyo3's PanicException: the store may be left in any state


class _Forward(logging.Handler):
    """Sends the child's log records to the daemon, which logs them as its own."""

    def __init__(self, send: Any) -> None:
        super().__init__()
        self.send = send
        self.setFormatter(logging.Formatter("%(message)s"))

    def emit(self, record: logging.LogRecord) -> None:
        with contextlib.suppress(Exception):  # the daemon is gone: nothing to log to
            self.send(("log", record.name, record.levelno, self.format(record)))


class Child:
    def __init__(self, conn: Connection) -> None:
        self.conn = conn
        self._send_lock = threading.Lock()
        self._state_lock = threading.Lock()
        self._seq = 0
        self.store: Any = None

    def send(self, message: tuple[Any, ...]) -> None:
        data = pickle.dumps(message, protocol=pickle.HIGHEST_PROTOCOL)
        with self._send_lock:
            self.conn.send_bytes(data)

    def state(self) -> tuple[dict[str, Any], int]:
        store = self.store
        with self._state_lock:
            self._seq += 1
            state = {
                "rows": store.rows,
                "dim": store.dim,
                "has_vector_index": store.has_vector_index,
                "pending_rows": store.pending_rows,
                "skipped_rows": store.skipped_rows,
                "index_segments": store.index_segments,
            }
            return state, self._seq

    def open(self, request: tuple[Any, ...]) -> bool:
        from commonplace.index.vectors import VectorStore  # LanceDB and pyarrow, here only

        ident, op, args, kwargs = request
        if op != "open":
            self.send(("reply", ident, False, ("store", f"expected open, got {op}"), None, 0))
            return False
        folder, level = args
        logging.getLogger().setLevel(level)
        try:
            self.store = VectorStore(Path(folder), **kwargs)
        except BaseException as exc:  # a panic too: the table is unreadable, the caller rebuilds
            message = str(exc) if isinstance(exc, VectorStoreError) else f"{folder}: {exc}"
            self.send(("reply", ident, False, ("store", message), None, 0))
            return False
        state, seq = self.state()
        self.send(("reply", ident, True, None, state, seq))
        return True

    def answer(self, ident: int, op: str, args: tuple[Any, ...], kwargs: dict[str, Any]) -> None:
        fatal = False
        try:
            if op not in OPS:
                raise ValueError(f"the vector store has no operation {op!r}")
            payload = getattr(self.store, op)(*args, **kwargs)
            ok = True
        except BaseException as exc:
            kind = error_kind(exc)
            fatal = kind == "fatal"
            if fatal:
                message = (
                    f"LanceDB failed in the vector store's process ({type(exc).__name__}: {exc}); "
                    "it starts again on the next call"
                )
            else:
                message = str(exc)
            payload, ok = (kind, message), False
        try:
            state, seq = self.state() if not fatal else (None, 0)
            self.send(("reply", ident, ok, payload, state, seq))
        except (OSError, EOFError):
            os._exit(0)  # the daemon is gone
        if fatal:
            logging.getLogger(__name__).error("vector store: LanceDB failed, exiting: %s", payload)
            os._exit(FATAL_EXIT)

    def serve(self) -> None:
        pool = ThreadPoolExecutor(max_workers=WORKERS, thread_name_prefix="vectors")
        while True:
            try:
                ident, op, args, kwargs = pickle.loads(self.conn.recv_bytes())
            except (EOFError, OSError):
                # The daemon closed its end (idle, or stopping) or died: no reply is awaited.
                # os._exit: a running write is one LanceDB commit, whole or not at all.
                os._exit(0)
            pool.submit(self.answer, ident, op, args, kwargs)


def main(argv: list[str]) -> None:
    # Ctrl-C in a terminal reaches the whole process group: the daemon stops, then closes the
    # pipe, and the child exits on EOF.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    conn = Connection(int(argv[1]))
    child = Child(conn)
    root = logging.getLogger()
    root.handlers[:] = [_Forward(child.send)]
    try:
        first = pickle.loads(conn.recv_bytes())
    except (EOFError, OSError):
        os._exit(0)
    if not child.open(first):
        os._exit(0)
    child.serve()


if __name__ == "__main__":
    main(sys.argv)
