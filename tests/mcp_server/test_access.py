"""The way in is chosen at each call: the daemon while its lock names a live process here."""

from __future__ import annotations

import json
import os
import socket

from commonplace.config import Settings
from commonplace.lock import LOCK_NAME
from commonplace.mcp.access import VaultAccess, running_daemon
from commonplace.mcp.daemon_client import DaemonBackend
from commonplace.mcp.local import LocalBackend


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
