"""Paths that come from outside (a client of the API, an MCP client): checked before any read.

A client names a note by its vault-relative path. Whatever it sends, the answer is a path that
stays inside the vault and names a note the program would read itself: no `..`, no absolute or
home path, no way out through a symlink, nothing in an app folder (`.obsidian/`, `.trash/`,
`.git/`), no hidden file, nothing that is not Markdown. The read that follows goes through the
vault's own reader, which refuses what is not an ordinary UTF-8 note.
"""

from __future__ import annotations

import unicodedata
from pathlib import Path, PurePosixPath

from commonplace.vault.layout import is_ignored

MAX_PATH_CHARS = 1024


class PathRefused(ValueError):
    """The path may not be read; `code` is "bad_path" (outside the vault, malformed) or
    "not_a_note" (an app folder, a hidden file, not Markdown)."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


def note_in_vault(vault: Path, raw: str) -> str:
    """The vault-relative path of a note a client asked for, or PathRefused."""
    rel = _relative(raw, "a note's path inside the vault, such as 'People/Maya Collins.md'")
    if is_ignored(rel):
        raise PathRefused(
            "not_a_note",
            f"{rel!r} is not a note Commonplace reads: app folders such as .obsidian/, hidden "
            "files and files that are not Markdown are never read",
        )
    _inside(vault, rel)
    return _as_stored(vault, rel)


def _as_stored(vault: Path, rel: str) -> str:
    """The path as the file system spells it, when only the Unicode form differs: a vault
    synced from a Mac keeps names in NFD ("Cre\u0300me"), a client (or a model, whose output
    is NFC) asks for "Crème", and on Linux, where names are bytes, that was "no note"."""
    if (vault / rel).exists():
        return rel
    found = [
        other
        for other in {unicodedata.normalize(f, rel) for f in ("NFC", "NFD")} - {rel}
        if (vault / other).exists()
    ]
    if len(found) != 1:
        return rel
    _inside(vault, found[0])
    return found[0]


def folder_in_vault(vault: Path, raw: str) -> str:
    """A vault-relative folder (for a search filter), or PathRefused."""
    rel = _relative(raw.strip().strip("/"), "a folder inside the vault, such as 'People'")
    if any(part.startswith(".") for part in PurePosixPath(rel).parts):
        raise PathRefused("not_a_note", f"{rel!r} is a hidden or app folder; it is never read")
    _inside(vault, rel)
    return rel


def _relative(raw: str, what: str) -> str:
    if not raw or "\x00" in raw or "\\" in raw or len(raw) > MAX_PATH_CHARS:
        raise PathRefused("bad_path", f"give {what}")
    pure = PurePosixPath(raw)
    if pure.is_absolute() or ".." in pure.parts or raw.startswith("~"):
        raise PathRefused("bad_path", "the path must stay inside the vault (no '..', no '/...')")
    return pure.as_posix()


def _inside(vault: Path, rel: str) -> None:
    """Following every symlink on the way, the path still ends inside the vault."""
    root = vault.resolve()
    try:
        target = (root / rel).resolve()
    except (OSError, RuntimeError):  # a link loop: RuntimeError before Python 3.13, then OSError
        raise PathRefused(
            "bad_path", "the path goes through a symbolic link that loops; links are never read"
        ) from None
    if not target.is_relative_to(root):
        raise PathRefused("bad_path", "the path leads out of the vault (through a link)")
