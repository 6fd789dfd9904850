"""The few vault files the assistant may change (the tasks note, the memory note), read and
written the safe way: line by line with their endings kept, compared by content hash.

Only the gate's actions call `write_lines`; tools read.
"""

from __future__ import annotations

import errno
import logging
from dataclasses import dataclass
from pathlib import Path

from commonplace.assistant.actions import Stale, ToolError
from commonplace.config import Settings
from commonplace.vault import (
    FileChanged,
    FileRefused,
    atomic_write,
    content_hash,
    read_file,
    write_trouble,
)
from commonplace.vault.files import is_regular_file
from commonplace.vault.journals import DEFAULT_PAGES

log = logging.getLogger(__name__)


def note_path(settings: Settings, name: str) -> str:
    """Vault-relative path of a configured note ('Tasks.md'); in Logseq, in the graph's pages
    directory (pages/ unless `:pages-directory` says otherwise), where Logseq keeps the page.

    A graph whose `:pages-directory` was set after the daemon made the note keeps it in
    pages/: Logseq moves no page when the setting changes, and goes on showing and saving the
    page in its file there. So does the daemon, or the assistant would start an empty memory
    and tasks note beside the owner's (`earlier_pages_file`; doctor says where it is)."""
    name = name.strip().strip("/")
    if not name.lower().endswith((".md", ".markdown")):
        name += ".md"
    if settings.flavor == "logseq" and "/" not in name:
        return earlier_pages_file(settings, name) or f"{settings.pages_folder()}/{name}"
    return name


def earlier_pages_file(settings: Settings, name: str) -> str | None:
    """`pages/<name>` when the graph's pages directory is another one that has no such file
    and pages/ has it: the page as Logseq still keeps it. None otherwise."""
    pages = settings.pages_folder()
    if pages == DEFAULT_PAGES or is_regular_file(settings.vault / pages / name):
        return None
    earlier = f"{DEFAULT_PAGES}/{name}"
    return earlier if is_regular_file(settings.vault / earlier) else None


@dataclass(frozen=True)
class Snapshot:
    """A file's lines (endings kept) and the hash of the bytes they came from."""

    path: str
    lines: list[str]
    hash: str | None  # None: the file does not exist

    @property
    def exists(self) -> bool:
        return self.hash is not None

    def line(self, number: int) -> str | None:
        """Line `number` (0-based) without its ending, or None past the end."""
        if 0 <= number < len(self.lines):
            return self.lines[number].rstrip("\r\n")
        return None

    @property
    def newline(self) -> str:
        """The file's own line ending, so an added line matches the rest."""
        for line in self.lines:
            if line.endswith("\r\n"):
                return "\r\n"
            if line.endswith("\n"):
                return "\n"
        return "\n"


MAX_NOTE_BYTES = 1024 * 1024  # a tasks or memory note larger than this is left alone


def read_snapshot(vault: Path, path: str, max_bytes: int = MAX_NOTE_BYTES) -> Snapshot:
    """Read by the vault's rule (vault/files.py): an ordinary file, never through a link, never
    a FIFO, never more than `max_bytes`; anything else is left alone with the reason."""
    try:
        data, _ = read_file(vault, path, max_bytes)
    except (FileNotFoundError, NotADirectoryError):
        return Snapshot(path, [], None)
    except FileRefused as exc:
        raise Stale(f"{path} {exc.reason}, so it is left alone") from None
    except OSError as exc:
        raise Stale(f"{path} cannot be read ({exc.strerror or exc})") from None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        raise Stale(f"{path} is not UTF-8 text, so it is left alone") from None
    return Snapshot(path, text.splitlines(keepends=True), content_hash(data))


def write_lines(vault: Path, snapshot: Snapshot, lines: list[str]) -> None:
    """Replace the file with `lines` only if it still holds exactly what `snapshot` read."""
    try:
        atomic_write(vault / snapshot.path, "".join(lines), snapshot.hash)
    except FileChanged:
        raise Stale(f"{snapshot.path} changed just now, so nothing was written") from None
    except OSError as exc:  # the temp file or the rename failed: the note is as it was
        log.warning("assistant: %s could not be written (%s)", snapshot.path, _name(exc))
        trouble = write_trouble(exc)
        raise ToolError(
            f"{snapshot.path} could not be written ({trouble.why}), so it is as it was. "
            f"{trouble.action[0].upper()}{trouble.action[1:]}, then ask again."
        ) from None


def _name(exc: OSError) -> str:
    return errno.errorcode.get(exc.errno or 0, type(exc).__name__)


def appended(snapshot: Snapshot, new_lines: list[str]) -> list[str]:
    """The file's lines with `new_lines` added at the end, each ending like the file's own."""
    lines = list(snapshot.lines)
    nl = snapshot.newline
    if lines and not lines[-1].endswith(("\n", "\r")):
        lines[-1] += nl
    return lines + [line + nl for line in new_lines]


def check_unchanged(vault: Path, seen_hash: str | None, path: str) -> Snapshot:
    """Read again just before a write: the file must be what the Yes re-check saw."""
    now = read_snapshot(vault, path)
    if now.hash != seen_hash:
        raise Stale(f"{path} changed just now, so nothing was written")
    return now
