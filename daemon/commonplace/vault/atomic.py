"""Atomic writes that never clobber the user's words.

Every write goes to a temp file in the same folder, is fsynced, then renamed into place, so a
crash leaves either the old file or the new one, never half of each. Before the rename the
target is checked against what the caller read: if it changed in between (the user typed, a
sync tool delivered), the write is refused and the caller re-reads and tries again.

While a git operation runs in the repository the file belongs to (git holds `.git/index.lock`
during a commit, checkout, pull, rebase...), writes wait a little, then give up with
`VaultBusy` and the stage tries again later: a file written mid-checkout can be overwritten by
git or end up half in a commit.
"""

from __future__ import annotations

import contextlib
import errno
import logging
import os
import re
import secrets
import threading
import time
from collections import OrderedDict
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from commonplace.vault.exclusive import rename_exclusive
from commonplace.vault.files import FileRefused, read_file
from commonplace.vault.layout import NAME_MAX_BYTES, TEMP_SUFFIX, fit_name
from commonplace.vault.notes import content_hash

log = logging.getLogger(__name__)

# `.<name>.<8 hex digits>.cpremoving`: a file `remove_file` moved aside to check and delete. Not a
# temp file: after a crash it may hold the only copy of words, so it is put back, never deleted.
REMOVING_SUFFIX = ".cpremoving"
GIT_WAIT_S = 5.0  # how long a write waits for a git operation before giving up for now
_GIT_POLL_S = 0.05
# Notes this process replaced (an Ask note's answer, a to-do ticked): their (mtime_ns, size)
# just after, by resolved path. A rename onto a file reaches the watcher as the file's creation
# (the event cannot say the name was taken), and `replaced_here` lets it say "modified" for
# the daemon's own rewrites. The last REPLACED_KEPT are kept: the watcher asks within seconds.
REPLACED_KEPT = 256
_replaced: OrderedDict[str, tuple[int, int]] = OrderedDict()
_replaced_lock = threading.Lock()


class VaultBusy(OSError):
    """A git operation holds the repository's index lock; nothing was written. Try later.

    An OSError (EBUSY), so that code which retries failed writes retries this one too."""

    def __init__(self, lock: Path) -> None:
        super().__init__(
            errno.EBUSY,
            f"a git operation is running ({lock} exists; if no git command is running, delete it)",
            str(lock),
        )
        self.lock = lock


@dataclass(frozen=True)
class WriteTrouble:
    """What a failed vault write tells the owner, worded once for every stage (capture, tidy,
    Ask, the assistant's tasks and memory notes)."""

    code: str  # "vault_busy" or "write_failed": for attention and the API
    why: str  # "a git operation is running in the vault", "the disk is full"
    action: str  # what to do about it, lower case: "free some space on the vault's disk"


_FULL = (errno.ENOSPC, errno.EDQUOT)  # out of space, or out of the user's quota
_NOT_ALLOWED = (errno.EACCES, errno.EPERM)
# where a write failed -> (its disk, the folders to let the daemon write in)
_PLACES = {
    "vault": ("the vault's disk", "the vault's folders"),
    "data folder": ("the data folder's disk", "the data folder"),
}
_RUST_OS_ERROR = re.compile(r"\(os error (\d+)\)")  # how Rust's std::io::Error ends
_SQLITE_FULL = 13  # sqlite3's "database or disk is full" (sqlite_errorcode)


def write_trouble(exc: OSError, place: Literal["vault", "data folder"] = "vault") -> WriteTrouble:
    """A failed write in the vault (VaultBusy included) or the data folder, as the owner is
    told about it: the causes an owner can fix (a git operation, a full disk, a read-only disk,
    permissions) in plain words, anything else as the system words it."""
    if isinstance(exc, VaultBusy):
        return WriteTrouble(
            "vault_busy",
            "a git operation is running in the vault",
            f"wait for git to finish; if no git command is running, delete {exc.lock}",
        )
    disk, folders = _PLACES[place]
    if exc.errno in _FULL:
        why, action = "the disk is full", f"free some space on {disk}"
    elif exc.errno == errno.EROFS:
        why = f"{disk} is read-only"
        action = "make the disk writable again (one that turned read-only by itself needs checking)"
    elif exc.errno in _NOT_ALLOWED:
        why = "permission denied"
        action = f"let the daemon's user write in {folders} (e.g. chmod u+w)"
    else:
        why = exc.strerror or type(exc).__name__
        action = f"check {disk} (free space, permissions)"
    return WriteTrouble("write_failed", why, action)


def os_error_of(exc: BaseException) -> OSError | None:
    """The system's error behind a failed write, however a library words it: an OSError (or
    one it was raised from); Tantivy's ValueError and LanceDB's RuntimeError, which end the
    system's words with Rust's `(os error 28)`; SQLite's "database or disk is full". None
    when there is none (a bug, a panic): that is no disk's fault."""
    seen: set[int] = set()
    current: BaseException | None = exc
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        if isinstance(current, OSError) and current.errno is not None:
            return current
        code = None
        if getattr(current, "sqlite_errorcode", None) == _SQLITE_FULL:
            code = errno.ENOSPC
        elif found := _RUST_OS_ERROR.search(str(current)):
            code = int(found[1])
        if code is not None:
            return OSError(code, os.strerror(code))
        current = current.__cause__ or current.__context__
    return None


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


def atomic_write(
    path: Path,
    text: str | bytes,
    expect: str | None,
    *,
    mode: int = 0o666,
    git_wait_s: float | None = None,
) -> None:
    """Write `text` to `path` atomically.

    `expect` is the content hash the file had when it was read, or None for "the file must not
    exist yet". Text is written as UTF-8 exactly as given (no newline translation). `mode` is
    the new file's permission before the umask (0o600 for secrets: never readable by others,
    not even for a moment). While git holds the repository's lock this waits up to
    `git_wait_s` (default GIT_WAIT_S; blocking: call it from a thread in async code), then
    raises VaultBusy.
    """
    wait_for_git(path, git_wait_s)
    with _temp_beside(path, text, mode) as tmp:
        wait_for_git(path, 0)  # git may have started while the temp file was written
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
            _note_replaced(path)
        _fsync_dir(path.parent)


def _note_replaced(path: Path) -> None:
    try:
        full = path.parent.resolve() / path.name
        st = full.stat()
    except OSError:
        return
    with _replaced_lock:
        _replaced[str(full)] = (st.st_mtime_ns, st.st_size)
        _replaced.move_to_end(str(full))
        while len(_replaced) > REPLACED_KEPT:
            _replaced.popitem(last=False)


def replaced_here(full: Path) -> bool:
    """True if this process replaced the note at `full` (a resolved path) with `atomic_write`
    and it is still as that write left it: the rename the watcher saw was a rewrite, not a new
    note. A change made after ours (another size or time) is not ours, and says False."""
    with _replaced_lock:
        written = _replaced.get(str(full))
    if written is None:
        return False
    try:
        st = full.stat()
    except OSError:
        return False
    return (st.st_mtime_ns, st.st_size) == written


def remove_file(path: Path, expect: str, *, git_wait_s: float | None = None) -> bool:
    """Delete `path` only if it still holds what the caller read (`expect`, its content hash).

    The file is first renamed aside, after any wait for git: the rename takes exactly what is
    at `path` at that instant, and that is checked and deleted. Checking first and deleting by
    name would delete whatever the name holds by then, such as a version a sync tool renamed
    into place in between; now such a version is a new file and stays. A file that changed
    since it was read is put back and FileChanged raised (if a newer one took the name
    meanwhile, both stay: see `put_back`). Returns False when the file was already gone.
    Blocking, like `atomic_write`: call it from a thread in async code."""
    wait_for_git(path, git_wait_s)
    aside = _aside(path)
    try:
        path.rename(aside)
    except (FileNotFoundError, NotADirectoryError):
        _drop_aside_folder(aside)
        return False
    try:
        try:
            current = file_hash(aside)
            why = "it changed since it was read"
        except FileRefused as exc:  # became a link, a FIFO...: not what was read
            current, why = "", exc.reason
    except BaseException:  # unreadable now (EIO on a network mount...): it is not deleted
        put_back(aside, path)
        raise
    if current is None:
        _drop_aside_folder(aside)
        return False  # deleted by someone else in the instant since the rename
    if current != expect:
        put_back(aside, path)
        raise FileChanged(path, why)
    aside.unlink()
    _drop_aside_folder(aside)
    _fsync_dir(path.parent)
    return True


def _aside(path: Path) -> Path:
    """Where `remove_file` moves a file: `.<name>.<tag>.cpremoving` beside it; for a name too
    long for that (a capture named after a long title), the file keeps its own name inside a
    hidden folder `.<tag>.cpremoving` beside it, so a crash still leaves its name to put back."""
    tag = secrets.token_hex(4)
    flat = path.with_name(f".{path.name}.{tag}{REMOVING_SUFFIX}")
    if len(flat.name.encode("utf-8")) <= NAME_MAX_BYTES:
        return flat
    folder = path.with_name(f".{tag}{REMOVING_SUFFIX}")
    folder.mkdir()
    return folder / path.name


def _in_aside_folder(aside: Path) -> bool:
    return _ASIDE_FOLDER.match(aside.parent.name) is not None


def _drop_aside_folder(aside: Path) -> None:
    if _in_aside_folder(aside):
        with contextlib.suppress(OSError):
            aside.parent.rmdir()


_ASIDE_FOLDER = re.compile(r"^\.[0-9a-f]{8}" + re.escape(REMOVING_SUFFIX) + "$")


def put_back(aside: Path, path: Path) -> Path:
    """Return a file `remove_file` moved aside to its name, and say where it went. If a new file
    took the name meanwhile, neither replaces the other: the one put back becomes a conflict
    copy beside it (`... (conflict 1a2b3c4d).md`), which the daemon shows the owner."""
    try:
        os.link(aside, path, follow_symlinks=False)  # only if the name is still free
    except FileExistsError:
        pass
    except OSError:  # no hard links here (exFAT, some network mounts; a folder)
        try:
            rename_exclusive(aside, path)  # never over a file delivered meanwhile
        except FileExistsError:
            pass
        else:
            _drop_aside_folder(aside)
            _fsync_dir(path.parent)
            return path
    else:
        aside.unlink()
        _drop_aside_folder(aside)
        _fsync_dir(path.parent)
        return path
    holder = aside.parent.name if _in_aside_folder(aside) else aside.name
    tag = holder.removesuffix(REMOVING_SUFFIX).rsplit(".", 1)[-1]
    kept = path.with_name(fit_name(f"{path.stem} (conflict {tag}){path.suffix}"))
    aside.rename(kept)
    _drop_aside_folder(aside)
    _fsync_dir(path.parent)
    log.warning("%s: a newer file took its name; the earlier one is kept as %s", path, kept.name)
    return kept


_clock = time.time  # for restore_removals: a test moves it on
# A file moved aside this recently may be a removal still in progress (its check reads the file):
# it is left alone until it is older. A rename sets ctime, so max(mtime, ctime) is when it moved.
RESTORE_AFTER_S = 10.0


def restore_removals(root: Path, older_than_s: float | None = None) -> list[str]:
    """Put back the files a crash left moved aside by `remove_file` (it may have been checking
    words written just before); they are then read again like any other change. Returns the
    paths they are back at, relative to `root`. One moved aside less than `older_than_s` ago
    (default RESTORE_AFTER_S) is left for a later call (`removal_wait_s` says when): the
    daemon calls this at start-up, when such a file is old enough, and at every periodic scan."""
    restored: list[str] = []
    cutoff = _clock() - (RESTORE_AFTER_S if older_than_s is None else older_than_s)
    for aside, original in _left_aside(root):
        try:
            if _moved_at(aside) < cutoff:
                back = put_back(aside, original)
                restored.append(back.relative_to(root).as_posix())
        except OSError as exc:
            log.warning("could not put back %s: %s", aside, exc)
    for folder in _aside_folders(root):  # empty: a crash between mkdir and rename
        with contextlib.suppress(OSError):
            if _moved_at(folder) < cutoff:  # a younger one may be a removal about to rename
                folder.rmdir()
    return restored


def removal_wait_s(root: Path, older_than_s: float | None = None) -> float | None:
    """In how many seconds the youngest file moved aside under `root` is old enough for
    `restore_removals`; None when there is none (0 when one is already old enough)."""
    after = RESTORE_AFTER_S if older_than_s is None else older_than_s
    times = []
    for aside, _ in _left_aside(root):
        with contextlib.suppress(OSError):
            times.append(_moved_at(aside))
    return max(0.0, max(times) + after - _clock()) if times else None


def _moved_at(path: Path) -> float:
    info = path.lstat()
    return max(info.st_mtime, info.st_ctime)


def _left_aside(root: Path) -> Iterator[tuple[Path, Path]]:
    """Each file `remove_file` moved aside under `root`, with the path it came from."""
    for folder, dirs, files in os.walk(root):
        for name in [d for d in dirs if _ASIDE_FOLDER.match(d)]:  # a long name's aside folder
            for entry in _entries(Path(folder) / name):
                yield entry, Path(folder) / entry.name
        dirs[:] = [d for d in dirs if not d.startswith(".")]
        for name in files:
            if name.startswith(".") and name.endswith(REMOVING_SUFFIX):
                original = name[1:].removesuffix(REMOVING_SUFFIX).rsplit(".", 1)[0]
                yield Path(folder) / name, Path(folder) / original


def _aside_folders(root: Path) -> Iterator[Path]:
    for folder, dirs, _ in os.walk(root):
        yield from (Path(folder) / d for d in dirs if _ASIDE_FOLDER.match(d))
        dirs[:] = [d for d in dirs if not d.startswith(".")]


def _entries(folder: Path) -> list[Path]:
    try:
        return list(folder.iterdir())
    except OSError:
        return []


def wait_for_git(path: Path, wait_s: float | None = None) -> None:
    """Return once no git operation holds the lock of the repository `path` is in (if any);
    raise VaultBusy if one still does after `wait_s` (default GIT_WAIT_S). Deletes in the
    vault call this too."""
    deadline = time.monotonic() + (GIT_WAIT_S if wait_s is None else wait_s)
    while (lock := git_lock(path)) is not None:
        if time.monotonic() >= deadline:
            raise VaultBusy(lock)
        time.sleep(_GIT_POLL_S)


def git_lock(path: Path) -> Path | None:
    """The `index.lock` of the git repository holding `path`, if it exists right now.

    The nearest `.git` above the file decides: a folder, or a file `gitdir: ...` (worktrees and
    submodules). A few stat calls per write, so a repository created later is noticed too."""
    for folder in path.parents:
        dot_git = folder / ".git"
        if dot_git.is_dir():
            lock = dot_git / "index.lock"
        elif dot_git.is_file():
            lock = _gitdir(dot_git) / "index.lock"
        else:
            continue
        return lock if lock.exists() else None
    return None


def _gitdir(dot_git: Path) -> Path:
    try:
        line = dot_git.read_text(encoding="utf-8").strip()
    except (OSError, UnicodeDecodeError):
        return dot_git
    target = Path(line.removeprefix("gitdir:").strip())
    return target if target.is_absolute() else dot_git.parent / target


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
    suffix = f".{secrets.token_hex(4)}{TEMP_SUFFIX}"
    # Cut to fit: a note whose own name is near the file system's limit can still be written.
    room = NAME_MAX_BYTES - 1 - len(suffix)
    stem = path.name.encode("utf-8")[:room].decode("utf-8", errors="ignore")
    tmp = path.with_name(f".{stem}{suffix}")
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
