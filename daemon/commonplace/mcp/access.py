"""Which way in, at each call: this vault's daemon when it runs on this computer, else local.

Desktop clients start their MCP servers when they start and keep them for hours; the daemon
comes and goes. So the choice is made per call, from the daemon's lock file in the vault's data
folder (a live process on this computer holds it): a client started before the daemon uses it
as soon as it runs, and one whose daemon stopped carries on read-only instead of failing.
"""

from __future__ import annotations

import socket
from collections.abc import Callable

from commonplace.assistant.engine import Clock
from commonplace.config import Settings
from commonplace.mcp.backend import Backend
from commonplace.mcp.daemon_client import DaemonBackend
from commonplace.mcp.local import LocalBackend
from commonplace.runtime.lock import LOCK_NAME, pid_alive, read_lock

TokenSource = Callable[[], str]


def running_daemon(settings: Settings) -> int | None:
    """The pid of the daemon serving this vault on this computer, or None."""
    held = read_lock(settings.data_path / LOCK_NAME)
    if held is None or held.host != socket.gethostname() or not pid_alive(held.pid):
        return None
    return held.pid


class VaultAccess:
    def __init__(self, settings: Settings, token: TokenSource, *, clock: Clock | None = None):
        self.settings = settings
        self.token = token
        self.clock = clock
        self._local: LocalBackend | None = None
        self._daemon: DaemonBackend | None = None

    async def backend(self) -> Backend:
        if running_daemon(self.settings) is not None:
            if self._local is not None:
                await self._local.close()  # let go of the index files while the daemon runs
            if self._daemon is None:
                self._daemon = DaemonBackend(self.settings, self.token)
            return self._daemon
        if self._local is None:
            self._local = LocalBackend(self.settings, clock=self.clock)
        self._local.read_tasks_ahead()  # no daemon keeps the to-dos read (once; again after close)
        return self._local

    async def close(self) -> None:
        for backend in (self._local, self._daemon):
            if backend is not None:
                await backend.close()
