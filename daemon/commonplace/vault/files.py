"""The one rule for reading a file in the vault: ordinary files only, never through a link.

A note, a capture or an Ask note is read only when it is an ordinary file reached from the
vault's folder without following a symbolic link at any step. A link can lead anywhere
(`Inbox/x.md -> ~/.ssh/id_rsa` would be sent to the model, filed and indexed), and a FIFO, a
socket or a device can block a read for ever or never end. A link that stays inside the vault
is not followed either: the note it points at is read under its own path already, so following
it would only index, file or answer the same note twice, and in Inbox/ and Ask/ it would make
the daemon file or write through the link. (The vault folder itself may be a link.)

On POSIX the check and the read are one act: each folder on the way is opened relative to the
previous one with O_NOFOLLOW, the entry is looked at with lstat (so a device is never even
opened), then opened with O_NOFOLLOW | O_NONBLOCK and checked again with fstat before a byte is
read. Nothing can be swapped in between the check and the read, and no open or read can block.
"""

from __future__ import annotations

import contextlib
import errno
import os
import stat
from pathlib import Path, PurePosixPath
from typing import IO, NoReturn

_DIR_FLAGS = os.O_RDONLY | getattr(os, "O_DIRECTORY", 0) | getattr(os, "O_CLOEXEC", 0)
_FILE_FLAGS = (
    os.O_RDONLY
    | getattr(os, "O_NOFOLLOW", 0)
    | getattr(os, "O_NONBLOCK", 0)
    | getattr(os, "O_NOCTTY", 0)
    | getattr(os, "O_CLOEXEC", 0)
    | getattr(os, "O_BINARY", 0)
)
# Opening relative to a folder's descriptor, without following links, is what makes the rule
# race-free. Windows has neither: there each step is checked with lstat before the open.
_RACE_FREE = hasattr(os, "O_NOFOLLOW") and os.open in os.supports_dir_fd
_LINK_ERRNOS = {errno.ELOOP, errno.EMLINK, errno.ENOTDIR}


class FileRefused(Exception):
    """An entry the daemon will not read, with the reason shown in the log, /api/state and
    `doctor`. It is left exactly where it is: never moved, changed or deleted."""

    def __init__(self, path: str, reason: str, *, size: int | None = None) -> None:
        super().__init__(f"{path}: {reason}")
        self.path = path
        self.reason = reason
        self.size = size  # set when the file is refused only for being over the size limit


def kind_problem(mode: int) -> str | None:
    """Why an entry of this kind (from lstat) is not read, or None for an ordinary file."""
    if stat.S_ISREG(mode):
        return None
    if stat.S_ISLNK(mode):
        return "is a symbolic link (links are not followed)"
    if stat.S_ISFIFO(mode):
        return "is a named pipe (FIFO), not a file"
    if stat.S_ISSOCK(mode):
        return "is a socket, not a file"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "is a device, not a file"
    if stat.S_ISDIR(mode):
        return "is a folder"
    return "is not an ordinary file"


def entry_problem(vault: Path, rel: str) -> str | None:
    """Why `rel` would not be read, or None when it is an ordinary file or is not there at all.

    Looks only (lstat at each step); for deciding before anything is queued or reported.
    """
    parts = _parts(rel)
    here = vault
    for i, part in enumerate(parts):
        here = here / part
        try:
            mode = here.lstat().st_mode
        except (FileNotFoundError, NotADirectoryError):
            return None
        except OSError as exc:
            return f"cannot be looked at ({exc.strerror or exc})"
        if i < len(parts) - 1:
            if stat.S_ISLNK(mode):
                return f"is inside {'/'.join(parts[: i + 1])}/, a symbolic link (not followed)"
            if not stat.S_ISDIR(mode):
                return None
            continue
        return kind_problem(mode)
    return None


def is_regular_file(path: Path) -> bool:
    """An ordinary file itself, not a link to one (for callers that hold a full path)."""
    try:
        return stat.S_ISREG(path.lstat().st_mode)
    except OSError:
        return False


def read_file(vault: Path, rel: str, max_bytes: int | None = None) -> tuple[bytes, os.stat_result]:
    """The bytes and fstat of the ordinary file `rel` inside `vault`, by the rule above.

    FileNotFoundError when nothing is there (or a folder on the way is missing); FileRefused
    for a link, FIFO, socket, device or folder, or a file over `max_bytes`; other OSErrors
    (permissions, I/O) pass through.
    """
    parts = _parts(rel)
    if _RACE_FREE:
        return _read_posix(vault, rel, parts, max_bytes)
    return _read_checked(vault, rel, parts, max_bytes)


def _parts(rel: str) -> list[str]:
    pure = PurePosixPath(rel)
    parts = list(pure.parts)
    if not parts or pure.is_absolute() or any(p in ("..", ".") for p in parts):
        raise FileRefused(rel, "is not a path inside the vault")
    return parts


def _read_posix(
    vault: Path, rel: str, parts: list[str], max_bytes: int | None
) -> tuple[bytes, os.stat_result]:
    folder = os.open(vault, _DIR_FLAGS)
    try:
        for i, part in enumerate(parts[:-1]):
            try:
                inner = os.open(part, _DIR_FLAGS | os.O_NOFOLLOW, dir_fd=folder)
            except OSError as exc:
                if exc.errno not in _LINK_ERRNOS:
                    raise
                _raise_for_folder(folder, part, rel, "/".join(parts[: i + 1]))
            os.close(folder)
            folder = inner
        name = parts[-1]
        before = os.stat(name, dir_fd=folder, follow_symlinks=False)
        _check(rel, before, max_bytes)
        try:
            fd = os.open(name, _FILE_FLAGS, dir_fd=folder)
        except OSError as exc:
            if exc.errno in _LINK_ERRNOS:
                raise FileRefused(rel, "became a symbolic link while it was read") from None
            raise
        with os.fdopen(fd, "rb") as handle:
            after = os.fstat(handle.fileno())
            if (after.st_dev, after.st_ino) != (before.st_dev, before.st_ino):
                raise FileRefused(rel, "was replaced while it was read; it is read again later")
            _check(rel, after, max_bytes)
            return _bounded_read(handle, rel, max_bytes), after
    finally:
        os.close(folder)


def _raise_for_folder(folder: int, part: str, rel: str, prefix: str) -> NoReturn:
    """A folder on the way could not be opened without following a link: say why."""
    try:
        mode = os.stat(part, dir_fd=folder, follow_symlinks=False).st_mode
    except FileNotFoundError:
        raise FileNotFoundError(errno.ENOENT, "no such file", rel) from None
    if stat.S_ISLNK(mode):
        raise FileRefused(rel, f"is inside {prefix}/, a symbolic link (not followed)")
    raise FileNotFoundError(errno.ENOENT, f"{prefix} is not a folder", rel)


def _read_checked(
    vault: Path, rel: str, parts: list[str], max_bytes: int | None
) -> tuple[bytes, os.stat_result]:
    """Where the race-free way is missing: the same rule, checked step by step."""
    problem = entry_problem(vault, rel)
    if problem:
        raise FileRefused(rel, problem)
    full = vault.joinpath(*parts)
    _check(rel, full.lstat(), max_bytes)
    with full.open("rb") as handle:
        after = os.fstat(handle.fileno())
        _check(rel, after, max_bytes)
        return _bounded_read(handle, rel, max_bytes), after


def _check(rel: str, st: os.stat_result, max_bytes: int | None) -> None:
    problem = kind_problem(st.st_mode)
    if problem:
        raise FileRefused(rel, problem)
    if max_bytes is not None and st.st_size > max_bytes:
        raise FileRefused(rel, _too_big(st.st_size, max_bytes), size=st.st_size)


def _bounded_read(handle: IO[bytes], rel: str, max_bytes: int | None) -> bytes:
    """Read at most max_bytes + 1, so a file that grows while it is read cannot fill memory."""
    data = handle.read() if max_bytes is None else handle.read(max_bytes + 1)
    if max_bytes is not None and len(data) > max_bytes:
        raise FileRefused(rel, _too_big(len(data), max_bytes), size=len(data))
    return data


def _too_big(size: int, limit: int) -> str:
    return f"is {size // 1024} KB, over the {limit // 1024} KB limit"


def folder_problem(vault: Path, under: str) -> str | None:
    """Why the folder `under` (vault-relative) would not be walked: a link on the way."""
    if not under:
        return None
    here = vault
    for i, part in enumerate(PurePosixPath(under).parts):
        here = here / part
        with contextlib.suppress(OSError):
            if stat.S_ISLNK(here.lstat().st_mode):
                name = "/".join(PurePosixPath(under).parts[: i + 1])
                return f"{name}/ is a symbolic link (links are not followed)"
    return None
