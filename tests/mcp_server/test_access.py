"""The way in is chosen at each call: the daemon while its lock names a live process here."""

from __future__ import annotations

import asyncio
import json
import os
import socket
import threading
from datetime import date

import pytest

from commonplace.assistant import tasks as tasks_module
from commonplace.config import Settings
from commonplace.mcp.access import VaultAccess, running_daemon
from commonplace.mcp.daemon_client import DaemonBackend
from commonplace.mcp.local import LocalBackend
from commonplace.runtime.lock import LOCK_NAME


def hold_lock(settings: Settings, pid: int, host: str | None = None) -> None:
    settings.data_path.mkdir(parents=True, exist_ok=True)
    lock = {"host": host or socket.gethostname(), "pid": pid, "started": 0.0}
    (settings.data_path / LOCK_NAME).write_text(json.dumps(lock))


def a_dead_pid() -> int:
    pid = 999_999
    while True:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return pid
        except PermissionError:
            pass
        pid -= 1


async def test_the_daemon_while_it_runs_and_the_local_way_otherwise(
    mcp_settings: Settings,
) -> None:
    access = VaultAccess(mcp_settings, lambda: "token")
    try:
        assert running_daemon(mcp_settings) is None
        assert isinstance(await access.backend(), LocalBackend)  # no lock at all

        hold_lock(mcp_settings, os.getpid())  # a live process on this computer
        assert running_daemon(mcp_settings) == os.getpid()
        assert isinstance(await access.backend(), DaemonBackend)

        hold_lock(mcp_settings, a_dead_pid())  # left by a crash
        assert isinstance(await access.backend(), LocalBackend)

        hold_lock(mcp_settings, os.getpid(), host="another-computer")  # a shared data folder
        assert running_daemon(mcp_settings) is None
        assert isinstance(await access.backend(), LocalBackend)
    finally:
        await access.close()


async def test_with_no_daemon_the_todos_are_read_ahead_as_soon_as_the_way_in_is_chosen(
    mcp_settings: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`commonplace mcp` chooses its way in as it starts: with no daemon keeping the to-dos
    read, it reads them ahead itself, so a first list_tasks on a big vault finds them read."""
    access = VaultAccess(mcp_settings, lambda: "token")
    try:
        local = await access.backend()
        assert isinstance(local, LocalBackend)
        [ahead] = [t for t in threading.enumerate() if t.name == "task list read-ahead"]
        await asyncio.to_thread(ahead.join, 20)  # it runs in a thread of its own
        assert not ahead.is_alive()

        def no_more_reading(*args: object) -> object:
            raise AssertionError("read when asked, not ahead")

        monkeypatch.setattr(tasks_module, "read_note", no_more_reading)
        found = await local.tasks(date(2026, 10, 26), None)
        assert "Order timber for the shed roof" in [t["text"] for t in found["tasks"]]
    finally:
        await access.close()
