"""`commonplace run` keeps LanceDB and Arrow out of its own process: the vector store runs in a
child that stops when idle, comes back on the next search, and never outlives the daemon."""

from __future__ import annotations

import os
import signal
import time
import urllib.request
from pathlib import Path

import pytest

from tests.daemon_process import WAIT_S, Daemon
from tests.fakes.ollama import FakeOllama

pytestmark = pytest.mark.skipif(not Path("/proc/self/maps").exists(), reason="reads /proc")

NATIVE = ("lancedb", "pyarrow", "libarrow")  # what LanceDB and Arrow map into a process


def children(pid: int) -> list[int]:
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text()
            except OSError:
                continue
            state, ppid = stat.rsplit(")", 1)[1].split()[:2]
            if int(ppid) == pid and state != "Z":
                found.append(int(entry.name))
    return found


def vector_child(pid: int) -> int | None:
    for child in children(pid):
        try:
            cmdline = Path(f"/proc/{child}/cmdline").read_bytes()
        except OSError:
            continue
        if b"commonplace.index.vector_child" in cmdline:
            return child
    return None


def mapped(pid: int) -> set[str]:
    maps = Path(f"/proc/{pid}/maps").read_text()
    return {name for name in NATIVE if name in maps}


def alive(pid: int) -> bool:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] != "Z"


@pytest.mark.slow
def test_the_daemon_searches_through_a_child_that_stops_when_idle(
    vault: Path, tmp_path: Path, fake_ollama_thread: FakeOllama
) -> None:
    daemon = Daemon(vault=vault, data=tmp_path / "data", ollama_url=fake_ollama_thread.url)
    daemon.config = "[index]\nvector_process_idle_minutes = 0.05\n"  # 3 s
    daemon.start()
    try:
        assert daemon.proc is not None
        pid = daemon.proc.pid

        def search() -> dict[str, object] | None:
            status, found = daemon.call("/api/search?q=sourdough%20starter")
            ok = status == 200 and found["results"] and found["mode"] == "hybrid"
            return dict(found) if ok else None

        daemon.wait_until(search, "a hybrid search answers (the index is built)")
        first = vector_child(pid)
        assert first is not None, "the vector store runs in a child of the daemon"
        assert mapped(first) == set(NATIVE)
        assert mapped(pid) == set(), "LanceDB or Arrow loaded in the daemon's own process"

        daemon.wait_until(lambda: vector_child(pid) is None, "the child stopped when idle")
        assert not alive(first)
        found = search()  # the next search starts a new child
        assert found is not None and "sourdough" in str(found["results"]).lower()
        second = vector_child(pid)
        assert second is not None and second != first
        assert mapped(pid) == set()

        daemon.wait_until(lambda: vector_child(pid) is None, "the second child stopped too")
        with urllib.request.urlopen(f"http://127.0.0.1:{daemon.port}/", timeout=WAIT_S) as page:
            assert page.status == 200  # the phone page opened: the child starts before a search
        daemon.wait_until(lambda: vector_child(pid) is not None, "the child warmed up")
        third = vector_child(pid)
        assert search() is not None and vector_child(pid) == third
        second = third

        os.kill(pid, signal.SIGKILL)  # the daemon dies without closing anything
        daemon.proc.wait(timeout=10)
        deadline = time.monotonic() + 10
        while alive(second) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert not alive(second), "the vector store's process outlived the daemon"
    finally:
        daemon.stop()
