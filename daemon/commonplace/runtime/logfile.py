"""The daemon's log file: where a user finds what it did while no terminal was open.

A daemon started by systemd or launchd has no terminal, so its log also goes to a file in the
platform's place for logs: `$XDG_STATE_HOME/commonplace/` (~/.local/state/commonplace/) on
Linux, ~/Library/Logs/Commonplace/ on macOS (where Console.app looks), the platform's local
app-data Logs folder on Windows. One file per vault (named like its data folder, since one
daemon runs per vault), rotated at MAX_BYTES with BACKUPS older files kept, so it never
grows past (BACKUPS + 1) x MAX_BYTES. It holds what stderr holds: the same records at the
same level, so the rule on what may be logged (no words of a note at INFO or above,
cli/common.py `setup_logging`) holds for it too. Only the owner may read it: its lines
name notes.
"""

from __future__ import annotations

import contextlib
import io
import logging
import logging.handlers
import os
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TextIO

import platformdirs

from commonplace.config import APP, Settings

MAX_BYTES = 5 * 1024 * 1024
BACKUPS = 3
FORMAT = "%(asctime)s %(levelname)s %(name)s: %(message)s"


class PrivateRotatingFileHandler(logging.handlers.RotatingFileHandler):
    """A rotating log whose files (each new one after a rotation too) only the owner reads."""

    def _open(self) -> io.TextIOWrapper:
        fd = os.open(self.baseFilename, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
        return open(fd, "a", encoding=self.encoding, errors=self.errors)  # noqa: PTH123


def log_dir() -> Path:
    """The folder the daemon's log files go in, on this platform."""
    if sys.platform == "darwin":
        return Path.home() / "Library" / "Logs" / "Commonplace"
    if sys.platform == "win32":
        return platformdirs.user_log_path(APP, appauthor=False)
    return platformdirs.user_state_path(APP, appauthor=False)  # honours $XDG_STATE_HOME


def log_path(settings: Settings) -> Path:
    """This vault's log file (named like its data folder: `Notes-1a2b3c4d.log`)."""
    return log_dir() / f"{settings.data_path.name}.log"


@contextlib.contextmanager
def logging_to_file(settings: Settings) -> Iterator[Path | None]:
    """Send the log to this vault's file as well as stderr while the block runs; yields its
    path, or None when it cannot be opened (said once on stderr: the daemon runs without)."""
    path = log_path(settings)
    try:
        path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        handler = PrivateRotatingFileHandler(
            path, maxBytes=MAX_BYTES, backupCount=BACKUPS, encoding="utf-8"
        )
        with contextlib.suppress(OSError):
            path.chmod(0o600)  # made by an earlier version, or by hand
    except OSError as exc:
        logging.getLogger(__name__).warning("no log file: cannot write %s (%s)", path, exc)
        yield None
        return
    handler.setFormatter(logging.Formatter(FORMAT))
    root = logging.getLogger()
    root.addHandler(handler)
    try:
        yield path
    finally:
        root.removeHandler(handler)
        handler.close()


def quiet_stream_handlers() -> None:
    """Warnings and errors only on stderr (the file keeps everything): for a launchd agent,
    whose stderr goes to a file launchd never rotates."""
    for handler in logging.getLogger().handlers:
        if type(handler) is logging.StreamHandler:
            handler.setLevel(logging.WARNING)


def log_files(path: Path) -> list[Path]:
    """The log file and its rotated copies that exist, oldest first."""
    older = [path.with_name(f"{path.name}.{n}") for n in range(BACKUPS, 0, -1)]
    return [p for p in (*older, path) if p.is_file()]


def tail(path: Path, lines: int) -> list[str]:
    """The last `lines` lines of the log (reaching into the rotated copy when the file was
    just rotated)."""
    found: list[str] = []
    for file in reversed(log_files(path)):
        with file.open(encoding="utf-8", errors="replace") as handle:
            found = handle.read().splitlines(keepends=True) + found
        if len(found) >= lines:
            break
    return found[-lines:] if lines > 0 else []


def follow(
    path: Path,
    write: Callable[[str], object],
    *,
    sleep: Callable[[float], object] = time.sleep,
    keep_going: Callable[[], bool] = lambda: True,
    poll_s: float = 0.5,
) -> None:
    """Write what is added to the log from now on, as `tail -F` does: a rotation (the file
    replaced by a new one) or a file that appears later is followed too. Until `keep_going`
    says no (Ctrl-C for a person)."""
    handle: TextIO | None = None
    inode: int | None = None
    first = True  # the file as found when following starts is shown from its end
    try:
        while keep_going():
            try:
                st = path.stat()
            except FileNotFoundError:
                st = None
            if st is not None and (handle is None or st.st_ino != inode):
                if handle is not None:  # rotated: what was left in the old one first
                    write(handle.read())
                    handle.close()
                    handle = None
                handle = path.open(encoding="utf-8", errors="replace")
                if first:
                    handle.seek(0, os.SEEK_END)
                inode = st.st_ino
            elif st is not None and handle is not None and st.st_size < handle.tell():
                handle.seek(0)  # cut short in place (truncated by hand)
            first = False
            if handle is not None and (text := handle.read()):
                write(text)
            sleep(poll_s)
    finally:
        if handle is not None:
            handle.close()
