"""Which files in the vault are notes, and which folder each belongs to.

One rule set, used by the start-up scan and by the watcher, so that the two never disagree
about what is a note: editor temp files, app folders (`.obsidian/`, `.trash/`, `logseq/bak/`),
version control and sync-tool leftovers are never notes.
"""

from __future__ import annotations

import logging
import os
import re
import time
from collections.abc import Callable, Iterator
from pathlib import Path, PurePosixPath

from commonplace.vault.files import folder_problem, kind_problem
from commonplace.vault.notes import NOTE_SUFFIXES

log = logging.getLogger(__name__)

# Our own temp files (see atomic.py) start with '.' and end with this.
TEMP_SUFFIX = ".cptmp"
# `.<name>.<8 hex digits>.cptmp`: what atomic.py makes; nothing else is ever removed as ours.
_OUR_TEMP = re.compile(r"^\..+\.[0-9a-f]{8}" + re.escape(TEMP_SUFFIX) + "$")

NAME_MAX_BYTES = 255  # the longest file name ext4, APFS, NTFS and most others allow, in bytes


def fit_name(name: str, max_bytes: int = NAME_MAX_BYTES) -> str:
    """`name` cut (never mid-character) so that it fits in `max_bytes` of UTF-8, keeping its
    extension: for the names the daemon makes from a note's name (its temp file, the archive
    copy of a capture), which add to a name that may already be near the limit."""
    if len(name.encode("utf-8")) <= max_bytes:
        return name
    stem, dot, ext = name.rpartition(".")
    if not dot or not stem or len(ext.encode("utf-8")) > 16:
        stem, ext = name, ""
    tail = f".{ext}" if ext else ""
    room = max(1, max_bytes - len(tail.encode("utf-8")))
    return stem.encode("utf-8")[:room].decode("utf-8", errors="ignore") + tail


_IGNORED_DIRS = {
    "node_modules",
    "@eaDir",
    "__pycache__",
    ".stversions",
    ".stfolder",
}
_IGNORED_DIR_PATHS = {"logseq/bak", "logseq/.recycle", "logseq/version-files"}
_CONFLICT = re.compile(
    r"(\.sync-conflict-|conflicted copy|\(conflict|\bconflict-\d|\.orig$|\.bak$)", re.IGNORECASE
)


def is_ignored(rel_path: str) -> bool:
    """True for files that are never notes; `rel_path` is vault-relative with '/' separators."""
    parts = PurePosixPath(rel_path).parts
    if not parts:
        return True
    for i, part in enumerate(parts[:-1]):
        if part.startswith(".") or part in _IGNORED_DIRS:
            return True
        if "/".join(parts[: i + 1]) in _IGNORED_DIR_PATHS:
            return True
    name = parts[-1]
    if name.startswith((".", "~", "#")) or name.endswith(("~", TEMP_SUFFIX, ".tmp", ".swp")):
        return True
    if not name.lower().endswith(NOTE_SUFFIXES):
        return True
    return bool(_CONFLICT.search(name))


def is_conflict_copy(name: str) -> bool:
    """A sync tool's copy of a note two computers changed (not a note: daemon/conflicts.py)."""
    return name.lower().endswith(NOTE_SUFFIXES) and bool(_CONFLICT.search(name))


Refused = Callable[[str, str], None]  # (vault-relative path, reason)


def count_by_suffix(vault: Path, suffixes: tuple[str, ...]) -> dict[str, int]:
    """How many files below the vault end with each of `suffixes` (lower case), walked as
    `iter_note_paths` walks it (the same folders skipped, no link followed): for files that
    hold the owner's words in a format no stage reads, so doctor can say so."""
    counts: dict[str, int] = {}
    for rel, entry in _walk(vault, ""):
        suffix = next((x for x in suffixes if entry.name.lower().endswith(x)), None)
        try:
            if (
                suffix
                and entry.is_file(follow_symlinks=False)
                and not is_ignored(rel[: -len(suffix)] + ".md")
            ):
                counts[suffix] = counts.get(suffix, 0) + 1
        except OSError:
            continue
    return counts


def iter_note_paths(
    vault: Path, under: str = "", *, refused: Refused | None = None
) -> Iterator[str]:
    """Vault-relative paths of every note (below the folder `under`, if given), found with
    os.scandir, so that a stage interested in one folder never walks the whole vault.

    Only ordinary files count and no link is followed (files.py says why): a symbolic link, a
    FIFO, a socket or a device with a note's name, and a linked folder, are passed to `refused`
    with the reason instead, so a stage can show them; they are never yielded.
    """
    under = under.strip("/")
    problem = folder_problem(vault, under)
    if problem:
        if refused is not None:
            refused(under, problem)
        return
    for rel, entry in _walk(vault, under):
        try:
            if entry.is_file(follow_symlinks=False):
                if not is_ignored(rel):
                    yield rel
            elif refused is not None:
                _refuse(entry, rel, refused)
        except OSError:
            continue


def _walk(vault: Path, under: str) -> Iterator[tuple[str, os.DirEntry[str]]]:
    """(vault-relative path, entry) of everything below `under` that is not a folder, in name
    order within a folder; folders are entered unless ignored, never through a link."""
    stack = [(under, str(vault / under) if under else str(vault))]
    while stack:
        rel_dir, abs_dir = stack.pop()
        try:
            entries = list(os.scandir(abs_dir))
        except OSError:
            continue
        for entry in sorted(entries, key=lambda e: e.name):
            rel = f"{rel_dir}/{entry.name}" if rel_dir else entry.name
            try:
                if entry.is_dir(follow_symlinks=False):
                    if not is_ignored(f"{rel}/x.md"):
                        stack.append((rel, entry.path))
                    continue
            except OSError:
                continue
            yield rel, entry


def _refuse(entry: os.DirEntry[str], rel: str, refused: Refused) -> None:
    """Tell `refused` about an entry that looks like a note (or a notes folder) but is not read."""
    if entry.is_symlink():
        try:
            to_folder = entry.is_dir()  # follows the link only to tell the user what it points at
        except OSError:  # a loop of links (ELOOP): still a link with a note's name, so listed
            if not is_ignored(rel):
                refused(
                    rel, "is a symbolic link that loops back to itself (links are not followed)"
                )
            return
        if is_ignored(f"{rel}/x.md" if to_folder else rel):
            return
        what = "a folder" if to_folder else "a file"
        refused(rel, f"is a symbolic link to {what} (links are not followed)")
    elif not is_ignored(rel):
        refused(rel, kind_problem(entry.stat(follow_symlinks=False).st_mode) or "is not a file")


TEMP_AFTER_S = 10.0  # a temp file younger than this may belong to a write in progress
_clock = time.time  # for the temp files' age: a test moves it on


def remove_stale_temp_files(root: Path, older_than_s: float = TEMP_AFTER_S) -> list[str]:
    """Delete our own temp files (see atomic.py) older than `older_than_s` under `root`;
    returns the removed paths, relative to `root` (`sweep_temp_files` says more)."""
    return sweep_temp_files(root, older_than_s)[0]


def sweep_temp_files(
    root: Path, older_than_s: float = TEMP_AFTER_S
) -> tuple[list[str], float | None]:
    """Delete our own temp files (see atomic.py) older than `older_than_s` under `root`, and
    say in how many seconds the youngest one left is old enough (None: none is left).

    A crash between writing a temp file and renaming it leaves one behind; it is never a note
    (is_ignored) and its content is in the target or was never meant to be. Younger ones may
    belong to a write in progress (a CLI command), so they stay, for a later sweep. Folders
    the daemon never writes into (hidden ones, `.git`, `.obsidian`, ...) are not walked."""
    removed: list[str] = []
    young: list[float] = []
    now = _clock()
    for folder, dirs, files in os.walk(root):
        dirs[:] = [d for d in dirs if not d.startswith(".") and d not in _IGNORED_DIRS]
        for name in files:
            if not _OUR_TEMP.match(name):
                continue
            full = Path(folder) / name
            try:
                age = now - full.lstat().st_mtime
                if age > older_than_s:
                    full.unlink()
                    removed.append(full.relative_to(root).as_posix())
                else:
                    young.append(older_than_s - age)
            except FileNotFoundError:
                continue  # renamed into place or removed by its writer meanwhile
            except OSError as exc:
                log.warning("could not remove the leftover temp file %s: %s", full, exc)
    return removed, max(0.0, min(young)) if young else None


def in_folder(rel_path: str, folder: str) -> bool:
    """True if the note is inside `folder` (vault-relative), at any depth."""
    folder = folder.strip("/")
    return not folder or rel_path == folder or rel_path.startswith(folder + "/")


def relative(vault: Path, path: Path) -> str | None:
    """The vault-relative '/' path of `path`, or None if it is outside the vault."""
    try:
        return path.resolve().relative_to(vault.resolve()).as_posix()
    except ValueError:
        return None
