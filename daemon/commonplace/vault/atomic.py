"""Atomic writes that never clobber the user's words.

Every write goes to a temp file in the same folder, is fsynced, then renamed into place, so a
crash leaves either the old file or the new one, never half of each. Before the rename the
target is checked against what the caller read: if it changed in between (the user typed, a
sync tool delivered), the write is refused and the caller re-reads and tries again.
"""

from __future__ import annotations

import contextlib
import os
import secrets
from collections.abc import Iterator
from pathlib import Path

from commonplace.vault.files import FileRefused, read_file
from commonplace.vault.layout import TEMP_SUFFIX
from commonplace.vault.notes import content_hash


class FileChanged(Exception):
    """The file is not what the caller read; nothing was written."""

    def __init__(self, path: Path, why: str) -> None:
        super().__init__(f"{path}: not written, {why}")
        self.path = path


def file_hash(path: Path) -> str | None:
    """Content hash of the file, or None if it does not exist.

    Read by the vault's rule (files.py): a link, FIFO, socket or device at `path` raises
    FileRefused instead of being followed or blocking.
    """
    try:
        data, _ = read_file(path.parent, path.name)
    except (FileNotFoundError, NotADirectoryError):
        return None
    return content_hash(data)


def atomic_write(path: Path, text: str | bytes, expect: str | None, *, mode: int = 0o666) -> None:
    """Write `text` to `path` atomically.

    `expect` is the content hash the file had when it was read, or None for "the file must not
    exist yet". Text is written as UTF-8 exactly as given (no newline translation). `mode` is
    the new file's permission before the umask (0o600 for secrets: never readable by others,
    not even for a moment).
    """
    with _temp_beside(path, text, mode) as tmp:
        if expect is None:
            _link_new(tmp, path)
        else:
            try:
                current = file_hash(path)
            except FileRefused as exc:
                raise FileChanged(path, exc.reason) from None
            if current != expect:
                why = "it was deleted" if current is None else "it changed since it was read"
                raise FileChanged(path, why)
            tmp.replace(path)
        _fsync_dir(path.parent)


def replace_file(path: Path, text: str | bytes, *, mode: int = 0o666) -> None:
    """Atomically replace the daemon's own file (state in the data folder), whatever it holds.

    Never for notes: those go through `atomic_write`, which checks what the user may have done.
    """
    with _temp_beside(path, text, mode) as tmp:
        tmp.replace(path)
        _fsync_dir(path.parent)


@contextlib.contextmanager
def _temp_beside(path: Path, text: str | bytes, mode: int) -> Iterator[Path]:
    """A fsynced temp copy of `text` in `path`'s folder (so the rename is atomic), removed after."""
    data = text.encode("utf-8") if isinstance(text, str) else text
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{secrets.token_hex(4)}{TEMP_SUFFIX}")
    try:
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, mode)
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        yield tmp
    finally:
        with contextlib.suppress(FileNotFoundError):
            tmp.unlink()


def _link_new(tmp: Path, path: Path) -> None:
    """Put tmp at path only if nothing is there; a hard link makes the check-and-create atomic."""
    try:
        os.link(tmp, path)
    except FileExistsError:
        raise FileChanged(path, "a file with that name already exists") from None
    except OSError:
        # Some file systems (exFAT, some network mounts) have no hard links.
        if path.exists():
            raise FileChanged(path, "a file with that name already exists") from None
        tmp.replace(path)


def _fsync_dir(folder: Path) -> None:
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)
