"""How many open to-dos are due on a day, and how many are overdue, read from the vault.

Counted the way the assistant reads tasks: every note but the inbox (captures are counted once
filed), Ask notes and digests (which only repeat to-dos); a ticked to-do is not open.
"""

from __future__ import annotations

from datetime import date

from commonplace.config import Settings
from commonplace.vault import NoteSkipped, in_folder, iter_note_paths, read_note


def due_counts(settings: Settings, day: date) -> tuple[int, int]:
    """(due on `day`, due before it and still open)."""
    skip = [settings.folder(k) for k in ("inbox", "ask", "digests")]
    due = overdue = 0
    for path in iter_note_paths(settings.vault):
        if any(in_folder(path, folder) for folder in skip):
            continue
        try:
            note = read_note(
                settings.vault, path, settings.flavor, settings.index.max_note_kb * 1024
            )
        except NoteSkipped:
            continue
        for todo in note.todos:
            if todo.done or todo.due is None:
                continue
            due += todo.due == day
            overdue += todo.due < day
    return due, overdue
