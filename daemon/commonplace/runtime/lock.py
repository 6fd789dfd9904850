"""One daemon per vault: a lock file in the vault's data folder holding host and pid.

Two daemons on one vault would file the same capture twice and fight over the index. The lock
file is created with O_EXCL, so two starts at the same moment cannot both win. A lock left by
a crash is recognised when it names this computer and a process that is no longer alive; a lock
from another computer (a data folder on a shared drive) is never taken over, because from here
we cannot tell whether that daemon still runs: the message says how to remove it by hand.
"""

from __future__ import annotations

import contextlib
import dataclasses
import json
import os
import secrets
import socket
import time
from dataclasses import dataclass
from pathlib import Path

from commonplace.vault.layout import TEMP_SUFFIX

LOCK_NAME = "daemon.lock"


class LockHeld(Exception):
    """Another daemon holds the vault; the message says which and what to do."""


@dataclass(frozen=True)
class LockInfo:
    host: str
    pid: int
    started: float = 0.0
    port: int = 0  # the phone page's, once the server listens (0 before, and for old locks)
    vault: str = ""  # the vault it runs on, for `doctor` on another vault ("" in old locks)

    def describe(self) -> str:
        when = (
            time.strftime("%Y-%m-%d %H:%M", time.localtime(self.started)) if self.started else "?"
        )
        return f"pid {self.pid} on {self.host}, started {when}"


def pid_alive(pid: int) -> bool:
    """True if a process with this pid exists on this computer (signal 0 checks, sends nothing)."""
    if pid <= 0:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True  # it exists, it is just not ours
    return True


def running_daemon(data_path: Path) -> LockInfo | None:
    """The daemon running on this data folder on this computer (its lock), or None."""
    lock = read_lock(data_path / LOCK_NAME)
    if lock is None or lock.host != socket.gethostname() or not pid_alive(lock.pid):
        return None
    return lock


def daemons_elsewhere(data_dir: Path, data_path: Path) -> list[LockInfo]:
    """Daemons running on this computer on other vaults (other folders of `data_dir`): the
    one the owner may be looking at while asking about this vault, or the one holding the
    phone page's port."""
    found = []
    for lock_file in sorted(data_dir.glob(f"*/{LOCK_NAME}")):
        if lock_file.parent == data_path:
            continue
        lock = running_daemon(lock_file.parent)
        if lock is not None:
            found.append(lock)
    return found


def read_lock(path: Path) -> LockInfo | None:
    """The lock's content, or None when it is missing or unreadable (a torn write)."""
    try:
        raw = json.loads(path.read_text(encoding="utf-8"))
        port = int(raw.get("port", 0))
        vault = str(raw.get("vault", ""))
        return LockInfo(str(raw["host"]), int(raw["pid"]), float(raw["started"]), port, vault)
    except (OSError, ValueError, KeyError, TypeError):
        return None


@dataclass
class VaultLock:
    """Held for the life of `commonplace run`; `release()` removes the file only if it is ours."""

    path: Path
    info: LockInfo

    @classmethod
    def acquire(
        cls,
        data_path: Path,
        *,
        host: str | None = None,
        pid: int | None = None,
        vault: Path | None = None,
    ) -> VaultLock:
        data_path.mkdir(parents=True, exist_ok=True)
        path = data_path / LOCK_NAME
        me = LockInfo(
            host=host or socket.gethostname(),
            pid=pid or os.getpid(),
            started=time.time(),
            vault=str(vault) if vault is not None else "",
        )
        for _ in range(3):
            try:
                _write_new(path, me)
            except FileExistsError:
                _check_stale(path, me)
                continue  # the stale lock was removed: try again
            return cls(path=path, info=me)
        raise LockHeld(f"could not take the lock {path}; another commonplace is starting right now")

    def restore(self) -> LockInfo | None:
        """Put the lock file back if it went (the data folder was deleted while the daemon ran),
        so that a second daemon still cannot start on this vault. Returns the other daemon's
        lock when one took the vault meanwhile, else None."""
        current = read_lock(self.path)
        if current is not None:
            return (
                None if (current.host, current.pid) == (self.info.host, self.info.pid) else current
            )
        if self.path.exists():
            return None  # being written, or torn: looked at again next time
        self.path.parent.mkdir(parents=True, exist_ok=True)
        with contextlib.suppress(FileExistsError):  # another start made it this instant
            _write_new(self.path, self.info)
        return None

    def record_port(self, port: int) -> None:
        """Add the port the server listens on, for other programs on this computer: with
        `[web] port = 0` the system picked a free one, and this is where to find it. The file
        is replaced whole (never seen half-written)."""
        self.info = dataclasses.replace(self.info, port=port)
        tmp = self.path.with_name(f".{LOCK_NAME}.{secrets.token_hex(4)}{TEMP_SUFFIX}")
        with tmp.open("w", encoding="utf-8") as handle:  # a crash leaves it to the clean-up
            json.dump(_as_json(self.info), handle)
            handle.flush()
            os.fsync(handle.fileno())
        tmp.replace(self.path)

    def release(self) -> None:
        current = read_lock(self.path)
        if current is not None and (current.host, current.pid) == (self.info.host, self.info.pid):
            with contextlib.suppress(FileNotFoundError):
                self.path.unlink()


def _write_new(path: Path, me: LockInfo) -> None:
    """Create the lock file (never over another: FileExistsError) holding `me`."""
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
    with os.fdopen(fd, "w", encoding="utf-8") as handle:
        json.dump(_as_json(me), handle)
        handle.flush()
        os.fsync(handle.fileno())


def _as_json(info: LockInfo) -> dict[str, object]:
    found: dict[str, object] = {"host": info.host, "pid": info.pid, "started": info.started}
    found |= {"port": info.port} if info.port else {}
    return found | ({"vault": info.vault} if info.vault else {})


def _check_stale(path: Path, me: LockInfo) -> None:
    """Remove the lock if it is provably stale; otherwise raise LockHeld with what to do."""
    held = read_lock(path)
    if held is None:
        # Unreadable: a start that died between create and write, or one writing right now.
        try:
            age = time.time() - path.stat().st_mtime
        except FileNotFoundError:
            return
        if age < 5:
            raise LockHeld(f"another commonplace is starting on this vault (lock {path})")
        path.unlink(missing_ok=True)
        return
    if held.host != me.host:
        raise LockHeld(
            f"this vault is in use by commonplace {held.describe()}. If that daemon is not "
            f"running any more, delete {path} and start again"
        )
    if held.pid != me.pid and pid_alive(held.pid):
        raise LockHeld(
            f"commonplace is already running on this vault ({held.describe()}); "
            "stop it first (Ctrl-C in its terminal, or kill "
            f"{held.pid})"
        )
    path.unlink(missing_ok=True)  # same host, process gone: left by a crash
