"""The MCP read that needs no index: one note's text.

It reads the vault directly, with the vault's own reader, whether the daemon runs or not: a
read changes nothing and needs nothing the daemon holds. A note's path comes from the client,
so it is confined to the vault first (vault/paths.py), and the text handed back is cut to a
size a model can take.
"""

from __future__ import annotations

import stat
from pathlib import Path

from commonplace.config import Settings
from commonplace.mcp.backend import BackendError
from commonplace.mcp.models import NoteText
from commonplace.vault import NoteSkipped, read_note
from commonplace.vault.paths import PathRefused, note_in_vault


def note_text(settings: Settings, raw_path: str, max_chars: int) -> NoteText:
    """The text of the note at `raw_path`, or BackendError saying why it cannot be read."""
    try:
        rel = note_in_vault(settings.vault, raw_path.strip())
        _ordinary_file(settings.vault / rel)
        note = read_note(settings.vault, rel, settings.flavor, settings.index.max_note_kb * 1024)
    except PathRefused as exc:
        raise BackendError(exc.message) from None
    except NoteSkipped as exc:
        if exc.missing:
            raise BackendError(f"there is no note {exc.path!r}; search_notes gives paths") from None
        raise BackendError(f"{exc.path!r} cannot be read: it {exc.reason}") from None
    text = note.text
    cut = len(text) > max_chars
    if cut:
        text = text[:max_chars] + f"\n\n[Cut here: the note has {len(note.text)} characters.]"
    return NoteText(
        path=note.path, title=note.title, text=text, chars=len(note.text), truncated=cut
    )


def _ordinary_file(path: Path) -> None:
    """A FIFO or a device named like a note would block the read (or never end): refuse it
    before opening. A missing file is left to the reader, which says so."""
    try:
        mode = path.stat().st_mode
    except OSError:
        return
    if not stat.S_ISREG(mode) and not stat.S_ISDIR(mode):
        raise BackendError(f"{path.name!r} is not an ordinary file; it is never read")
