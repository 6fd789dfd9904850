"""The data folder deleted under a running daemon: the lock is put back and the owner told."""

from __future__ import annotations

import asyncio
import json
import shutil
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from commonplace.daemon.datafolder import SOURCE, keep_lock
from commonplace.runtime.attention import Attention, attention_file
from commonplace.runtime.lock import LOCK_NAME, LockHeld, VaultLock, read_lock


@pytest.fixture
def daemon_pid() -> Iterator[int]:
    """A live process standing for the running daemon (the test's own pid would be taken for
    a lock left by a crash of this same process)."""
    sleeper = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    yield sleeper.pid
    sleeper.kill()
    sleeper.wait()


async def _until(check: Callable[[], bool]) -> None:
    """Polls up to 60 s (returning as soon as it holds): the keeper took 0.4-8 s here on a
    busy machine, and ran past a 10 s bound once in make test."""
    deadline = time.monotonic() + 60.0
    while time.monotonic() < deadline:
        if check():
            return
        await asyncio.sleep(0.02)


async def test_a_deleted_data_folder_gets_its_lock_back_and_says_restart(
    tmp_path: Path, daemon_pid: int
) -> None:
    data = tmp_path / "data" / "Notes-3f9a2c1d"
    lock = VaultLock.acquire(data, pid=daemon_pid)
    attention = Attention(attention_file(data))
    task = asyncio.create_task(keep_lock(lock, attention, every_s=0.05))
    try:
        await asyncio.sleep(0.2)
        assert attention.entries() == []  # nothing to say while the folder is there
        shutil.rmtree(tmp_path / "data")
        await _until(lambda: attention.get(SOURCE) is not None)
    finally:
        task.cancel()
    entry = attention.get(SOURCE)
    assert entry is not None and entry.code == "data_folder_deleted"
    assert str(data) in entry.reason and "restart the daemon" in entry.action
    assert read_lock(data / LOCK_NAME) == lock.info
    with pytest.raises(LockHeld, match="already running on this vault"):
        VaultLock.acquire(data)  # a second `commonplace run` is refused again


async def test_a_lock_another_daemon_took_meanwhile_is_said_not_taken_back(
    tmp_path: Path, daemon_pid: int
) -> None:
    lock = VaultLock.acquire(tmp_path, pid=daemon_pid)
    attention = Attention()
    other = {"host": "vm-other", "pid": 4242, "started": time.time()}
    (tmp_path / LOCK_NAME).write_text(json.dumps(other), encoding="utf-8")
    task = asyncio.create_task(keep_lock(lock, attention, every_s=0.05))
    try:
        await _until(lambda: attention.get(SOURCE) is not None)
    finally:
        task.cancel()
    entry = attention.get(SOURCE)
    assert entry is not None and entry.code == "lock_taken" and "pid 4242" in entry.reason
    held = read_lock(tmp_path / LOCK_NAME)
    assert held is not None and held.pid == 4242  # never overwritten
