"""The daemon's vector store: VectorStore's interface, answered by a child process that stops
when idle, so that LanceDB and Arrow hold no memory in an idle daemon.

Why a process: once a table is opened and searched, LanceDB's library keeps ~100 MB of its code
resident and Arrow's ~60 MB; the daemon with neither imported holds ~110 MB at idle against ~300
(README, "What holds the memory of an idle daemon"). Memory given back by a library cannot be had
any other way than by ending the process that mapped it.

How: `subprocess` runs `python -m commonplace.index.vector_child` with one end of a socket pair
(not multiprocessing: its 'spawn' would run the daemon's main module again in the child, and
'fork' is unsafe in a process with threads). Calls are pickled over the pair; a reader thread
hands each reply to the thread that waits for it, so calls from several threads run at once in
the child (a search is answered during an index build, which still gives VectorsBusy). The
store's state (rows, pending rows, ...) comes with each reply, so reading it costs no call and
never wakes a stopped child.

Lifetime: the child starts on the first call, and the daemon stops it after `idle_s` without a
call (none in flight). A stopped or crashed child is started again by the next call, which pays
its start (1-3 s: Python, LanceDB and Arrow's imports, the table opened, and for a search the
vectors read into memory). A call in flight when the child dies (kill -9, LanceDB's Rust code
failing) raises VectorStoreGone, a VectorsBusy: a search falls back to keywords and says so, a
write fails and is retried by the indexer (nothing is recorded in the manifest until the store
answered). The child reads its end of the pair and exits on EOF, so it never outlives the
daemon, even one killed with SIGKILL.
"""

from __future__ import annotations

import contextlib
import logging
import pickle
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Sequence
from concurrent.futures import Future
from multiprocessing.connection import Connection
from pathlib import Path
from typing import TYPE_CHECKING, Any

from commonplace.index.vector_api import VectorsBusy, VectorStoreError, VectorStoreGone

if TYPE_CHECKING:
    import numpy as np

    from commonplace.index.chunking import IndexedChunk
    from commonplace.index.filters import SearchFilter
    from commonplace.index.models import SearchResult

log = logging.getLogger(__name__)

OPEN_TIMEOUT_S = 300.0  # the child's start and the table's opening (a slow disk, a big table)
STOP_WAIT_S = 10.0  # for the child to exit once told to, before it is killed
ERRORS: dict[str, type[Exception]] = {
    "busy": VectorsBusy,
    "store": VectorStoreError,
    "os": OSError,
    "value": ValueError,
    "runtime": RuntimeError,
    "fatal": VectorStoreGone,
}


IDLE = "stopped when idle"


class _Retired(Exception):
    """The child was stopped (idle) or died before this call was sent: start another."""


class _Child:
    """One child process, its pipe, and the calls waiting for its replies."""

    def __init__(self, proc: subprocess.Popen[bytes], conn: Connection, generation: int) -> None:
        self.proc = proc
        self.conn = conn
        self.generation = generation  # which start of the store this is (orders states)
        self._lock = threading.Lock()  # pending, inflight, gone
        self._send_lock = threading.Lock()
        self._pending: dict[int, Future[tuple[bool, Any, Any, int]]] = {}
        self._next = 0
        self.inflight = 0
        self.last_used = time.monotonic()
        self.gone: str | None = None  # why it stopped; set once
        self.stopped = threading.Event()
        self._reader = threading.Thread(target=self._read, name="vector-store-reader", daemon=True)
        self._reader.start()

    def submit(
        self, op: str, args: tuple[Any, ...], kwargs: dict[str, Any]
    ) -> Future[tuple[bool, Any, Any, int]]:
        future: Future[tuple[bool, Any, Any, int]] = Future()
        with self._lock:
            if self.gone is not None:
                raise _Retired(self.gone)
            self._next += 1
            ident = self._next
            self._pending[ident] = future
            self.inflight += 1
        future.add_done_callback(self._finished)  # answered or failed, awaited or not
        data = pickle.dumps((ident, op, args, kwargs), protocol=pickle.HIGHEST_PROTOCOL)
        try:
            with self._send_lock:
                self.conn.send_bytes(data)
        except OSError:  # it died before reading this: the reader fails the call
            pass
        return future

    def _finished(self, _: object) -> None:
        with self._lock:
            self.inflight -= 1
            self.last_used = time.monotonic()

    def retire_if_idle(self, idle_s: float) -> bool:
        """Take the child out of use if no call is in flight and none came for idle_s (the
        caller then stops it); True if it is out of use."""
        with self._lock:
            if self.gone is not None:
                return True
            if self.inflight or time.monotonic() - self.last_used < idle_s:
                return False
            self.gone = IDLE
            return True

    def idle_wait(self, idle_s: float) -> float:
        """Seconds until the child may be idle for idle_s (idle_s while a call is in flight)."""
        with self._lock:
            if self.inflight:
                return idle_s
            return max(0.05, self.last_used + idle_s - time.monotonic())

    def stop(self, why: str) -> None:
        with self._lock:
            if self.gone is None:
                self.gone = why
        self._close()

    def _close(self) -> None:
        """Shutting our end down makes the child read EOF and exit (and wakes our reader, which
        closes the pipe); the child is killed if it does not exit."""
        self.stopped.set()
        with contextlib.suppress(OSError, ValueError):
            # shutdown, not close: a close leaves the reader thread's read() blocked
            sock = socket.fromfd(self.conn.fileno(), socket.AF_UNIX, socket.SOCK_STREAM)
            sock.shutdown(socket.SHUT_RDWR)
            sock.close()
        try:
            self.proc.wait(timeout=STOP_WAIT_S)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()

    def _read(self) -> None:
        while True:
            try:
                message = pickle.loads(self.conn.recv_bytes())
            except (EOFError, OSError):
                break
            if message[0] == "log":
                _, name, level, text = message
                logging.getLogger(name).log(level, "%s", text)
                continue
            _, ident, ok, payload, state, seq = message
            with self._lock:
                future = self._pending.pop(ident, None)
            if future is not None:
                future.set_result((ok, payload, state, seq))
        self._ended()

    def _ended(self) -> None:
        """The pipe closed: fail every call still waiting, with what became of the child."""
        with self._lock:
            expected = self.gone is not None
            if not expected:
                self.gone = "its pipe closed"  # from now on, calls go to a new child
            pending, self._pending = self._pending, {}
        why = self.gone if expected else _exit_reason(self.proc)
        with self._lock:
            self.gone = why
        self.stopped.set()
        if not expected:
            log.warning(
                "vector store: its process (pid %d) stopped unexpectedly (%s); the next call "
                "starts it again",
                self.proc.pid,
                why,
            )
        for future in pending.values():
            future.set_exception(
                VectorStoreGone(
                    f"the vector store's process stopped ({why}); it starts again on the next "
                    "search"
                )
            )
        with contextlib.suppress(OSError):
            self.conn.close()


def _exit_reason(proc: subprocess.Popen[bytes]) -> str:
    try:
        code = proc.wait(timeout=5)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()
        return "its pipe closed; killed"
    if code < 0:
        with contextlib.suppress(ValueError):
            return f"killed by {signal.Signals(-code).name}"
        return f"killed by signal {-code}"
    return f"exit code {code}"


class VectorProcess:
    """VectorStore's methods and properties, run in a child process (see the module docstring).

    Thread-safe like VectorStore: the indexer writes from one thread while searches run in
    others."""

    def __init__(
        self,
        folder: Path,
        *,
        compact_every: int = 64,
        ann_rows: int = 2000,
        idle_s: float = 300.0,
        memory_bytes: int | None = None,
    ) -> None:
        self.folder = folder
        self.idle_s = idle_s
        self._options: dict[str, Any] = {"compact_every": compact_every, "ann_rows": ann_rows}
        if memory_bytes is not None:
            self._options["memory_bytes"] = memory_bytes
        self._lock = threading.Lock()  # starting and stopping children
        self._child: _Child | None = None
        self._closed = False
        self.starts = 0  # children started (for the tests and the benchmark)
        self._state: dict[str, Any] = {}
        self._seq = (0, 0)  # (start, seq) of the state kept: replies can come out of order
        with self._lock:
            self._running()  # opens the table now: an unreadable one raises VectorStoreError

    # -- the child ------------------------------------------------------------------------

    @property
    def pid(self) -> int | None:
        """The running child's process id, None while none runs."""
        child = self._child
        return child.proc.pid if child is not None and child.gone is None else None

    def _running(self) -> _Child:
        """The running child, started if none runs (call with self._lock held)."""
        if self._closed:
            raise VectorStoreError(f"{self.folder}: the vector store is closed")
        child = self._child
        if child is not None and child.gone is None:
            return child
        started = time.perf_counter()
        ours, theirs = socket.socketpair()
        try:
            proc = subprocess.Popen(
                [sys.executable, "-m", "commonplace.index.vector_child", str(theirs.fileno())],
                pass_fds=(theirs.fileno(),),
                stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL,
            )
        finally:
            theirs.close()
        child = _Child(proc, Connection(ours.detach()), self.starts + 1)
        level = logging.getLogger("commonplace").getEffectiveLevel()
        future = child.submit("open", (str(self.folder), level), self._options)
        try:
            ok, payload, state, seq = future.result(timeout=OPEN_TIMEOUT_S)
        except Exception:
            child.stop("could not start")
            raise
        if not ok:
            child.stop("could not open the table")
            raise _error(payload)
        self.starts += 1
        self._child = child
        self._keep((child.generation, seq), state)
        threading.Thread(
            target=self._stop_when_idle, args=(child,), name="vector-store-idle", daemon=True
        ).start()
        log.info(
            "vector store: process %d started in %.2f s (%d chunks)",
            proc.pid,
            time.perf_counter() - started,
            state["rows"],
        )
        return child

    def _stop_when_idle(self, child: _Child) -> None:
        while not child.stopped.wait(timeout=child.idle_wait(self.idle_s)):
            with self._lock:
                if not child.retire_if_idle(self.idle_s):
                    continue
                if self._child is child:
                    self._child = None
            expected = child.gone == IDLE
            child.stop(IDLE)
            if expected:
                log.info(
                    "vector store: process %d stopped after %.0f s idle",
                    child.proc.pid,
                    self.idle_s,
                )
            return

    def _call(self, op: str, *args: Any, **kwargs: Any) -> Any:
        return self._send(op, *args, **kwargs)()

    def _send(self, op: str, *args: Any, **kwargs: Any) -> Callable[[], Any]:
        """Send the call now; the function returned waits for its answer (or raises)."""
        while True:
            with self._lock:
                child = self._running()
            try:
                future = child.submit(op, args, kwargs)
            except _Retired:  # stopped when idle between the two lines above
                continue
            break

        def answer() -> Any:
            ok, payload, state, seq = future.result()
            if state is not None:
                self._keep((child.generation, seq), state)
            if not ok:
                raise _error(payload)
            return payload

        return answer

    def _keep(self, seq: tuple[int, int], state: dict[str, Any]) -> None:
        if seq > self._seq:
            self._seq, self._state = seq, state

    def close(self) -> None:
        """Stop the child (the daemon is stopping); later calls raise VectorStoreError."""
        with self._lock:
            self._closed = True
            child, self._child = self._child, None
        if child is not None:
            child.stop("closed")

    def warm(self) -> None:
        """Start the child now if none runs, without waiting for it (a search is likely soon:
        the phone page was opened). It stops after idle_s like any other if nothing comes."""
        if self._closed or self.pid is not None:
            return

        def start() -> None:
            try:
                with self._lock:
                    self._running()
            except Exception as exc:  # the next call starts it, and raises what went wrong
                log.debug("vector store: warming up failed: %s", exc)

        threading.Thread(target=start, name="vector-store-warm", daemon=True).start()

    def stop(self) -> None:
        """Stop the child now, as if idle (the next call starts another)."""
        with self._lock:
            child, self._child = self._child, None
        if child is not None:
            child.stop("stopped")

    # -- VectorStore's interface ----------------------------------------------------------

    @property
    def rows(self) -> int:
        return int(self._state["rows"])

    @property
    def dim(self) -> int | None:
        dim = self._state["dim"]
        return None if dim is None else int(dim)

    @property
    def has_vector_index(self) -> bool:
        return bool(self._state["has_vector_index"])

    @property
    def pending_rows(self) -> int:
        return int(self._state["pending_rows"])

    @property
    def skipped_rows(self) -> int:
        return int(self._state["skipped_rows"])

    @property
    def index_segments(self) -> int:
        return int(self._state["index_segments"])

    def drop(self) -> None:
        self._call("drop")

    def paths(self) -> set[str]:
        found: set[str] = self._call("paths")
        return found

    def vectors_for(self, paths: Sequence[str]) -> dict[str, np.ndarray]:
        found: dict[str, np.ndarray] = self._call("vectors_for", list(paths))
        return found

    def replace(
        self, delete_paths: Sequence[str], chunks: Sequence[IndexedChunk], vectors: np.ndarray
    ) -> None:
        self._call("replace", list(delete_paths), list(chunks), vectors)

    def search(
        self, vector: Sequence[float], limit: int, flt: SearchFilter, *, texts: bool = True
    ) -> list[SearchResult]:
        found: list[SearchResult] = self._call("search", list(vector), limit, flt, texts=texts)
        return found

    def search_later(
        self, vector: Sequence[float], limit: int, flt: SearchFilter, *, texts: bool = True
    ) -> Callable[[], list[SearchResult]]:
        """The search, sent now and awaited when asked: the child searches while the caller
        searches the keywords (one in each process, so at once)."""
        answer: Callable[[], list[SearchResult]] = self._send(
            "search", list(vector), limit, flt, texts=texts
        )
        return answer

    def rows_at(self, keys: Sequence[tuple[str, int]]) -> list[SearchResult]:
        found: list[SearchResult] = self._call("rows_at", list(keys))
        return found

    def neighbour_means(
        self,
        paths: Sequence[str],
        vectors: np.ndarray,
        k: int,
        ordinals: Sequence[int] | None = None,
        *,
        share: bool = False,
    ) -> list[float | None]:
        asked = None if ordinals is None else list(ordinals)
        means: list[float | None] = self._call(
            "neighbour_means", list(paths), vectors, k, asked, share=share
        )
        return means

    def maintain(self, *, force: bool = False) -> None:
        self._call("maintain", force=force)

    def keep_searchable(self) -> None:
        self._call("keep_searchable")


def _error(payload: tuple[str, str]) -> Exception:
    kind, message = payload
    return ERRORS.get(kind, RuntimeError)(message)
