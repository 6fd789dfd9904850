"""One daemon per vault: the lock file and its stale-lock rule."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from commonplace.runtime.lock import LOCK_NAME, LockHeld, VaultLock, read_lock


def test_lock_holds_host_and_pid(tmp_path: Path) -> None:
    lock = VaultLock.acquire(tmp_path)
    info = read_lock(tmp_path / LOCK_NAME)
    assert info is not None and info.pid == os.getpid() and info.host
    lock.release()
    assert not (tmp_path / LOCK_NAME).exists()


def test_the_port_the_server_got_is_recorded_for_other_programs(tmp_path: Path) -> None:
    """With `[web] port = 0` the system picks the port; the lock is where others find it."""
    lock = VaultLock.acquire(tmp_path)
    assert read_lock(tmp_path / LOCK_NAME) == lock.info and lock.info.port == 0
    lock.record_port(43121)
    info = read_lock(tmp_path / LOCK_NAME)
    assert info is not None and (info.pid, info.port) == (os.getpid(), 43121)
    assert [p.name for p in tmp_path.iterdir()] == [LOCK_NAME]  # replaced whole, no temp left
    with pytest.raises(LockHeld):  # still the same lock to a second start
        VaultLock.acquire(tmp_path, pid=os.getppid())
    lock.release()
    assert not (tmp_path / LOCK_NAME).exists()


def test_second_daemon_is_refused_while_the_first_runs(tmp_path: Path) -> None:
    sleeper = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(30)"])
    try:
        first = VaultLock.acquire(tmp_path, pid=sleeper.pid)
        with pytest.raises(LockHeld, match=f"already running on this vault.*kill {sleeper.pid}"):
            VaultLock.acquire(tmp_path)
        assert read_lock(first.path) == first.info  # untouched
    finally:
        sleeper.kill()
        sleeper.wait()


def test_stale_lock_from_a_dead_process_is_taken_over(tmp_path: Path) -> None:
    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait()
    VaultLock.acquire(tmp_path, pid=dead.pid)  # never released: the process "crashed"
    lock = VaultLock.acquire(tmp_path)
    assert lock.info.pid == os.getpid()


def test_lock_from_another_computer_is_never_taken_over(tmp_path: Path) -> None:
    VaultLock.acquire(tmp_path, host="other-laptop", pid=1)
    with pytest.raises(LockHeld) as caught:
        VaultLock.acquire(tmp_path)
    message = str(caught.value)
    assert "other-laptop" in message and str(tmp_path / LOCK_NAME) in message
    assert "delete" in message


def test_torn_lock_file_is_replaced_when_old(tmp_path: Path) -> None:
    path = tmp_path / LOCK_NAME
    path.write_text("{not json")
    os.utime(path, (1, 1))
    lock = VaultLock.acquire(tmp_path)
    assert json.loads(path.read_text())["pid"] == lock.info.pid


def test_release_leaves_someone_elses_lock(tmp_path: Path) -> None:
    mine = VaultLock.acquire(tmp_path)
    (tmp_path / LOCK_NAME).write_text(json.dumps({"host": "x", "pid": 5, "started": 0}))
    mine.release()
    assert (tmp_path / LOCK_NAME).exists()
