"""The two MCP reads that need no index: one note's text, and the open to-dos.

Both read the vault directly, with the vault's own readers, whether the daemon runs or not:
a read changes nothing and needs nothing the daemon holds. A note's path comes from the
client, so it is confined to the vault first (vault/paths.py), and the text handed back is cut
to a size a model can take.
"""

from __future__ import annotations

import stat
from datetime import date, timedelta
from pathlib import Path

from commonplace.assistant.tasks import MAX_DAYS_AHEAD, Task, TaskReader, TasksNotReady
from commonplace.config import Settings
from commonplace.dates import day_name_near
from commonplace.mcp.backend import BackendError
from commonplace.mcp.models import NoteText, TaskItem, TaskList
from commonplace.vault import NoteSkipped, read_note
from commonplace.vault.paths import PathRefused, note_in_vault

MAX_TASKS = 60  # to-dos in one answer


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


def task_list(reader: TaskReader, today: date, due_within_days: int | None) -> TaskList:
    """Open to-dos by due date (overdue first), then those with none; or only those due
    within `due_within_days` days (overdue included). A first read of a big vault that takes
    longer than a client should wait is a BackendError saying so (TaskReader.open_tasks_within)."""
    try:
        tasks = reader.open_tasks_within()  # sorted: by due date, undated last
    except TasksNotReady as exc:
        raise BackendError(str(exc)) from None
    if due_within_days is not None:
        last = today + timedelta(days=min(due_within_days, MAX_DAYS_AHEAD))
        tasks = [t for t in tasks if t.due is not None and t.due <= last]
    shown = tasks[:MAX_TASKS]
    return TaskList(
        today=today.isoformat(),
        tasks=[_item(t, today) for t in shown],
        more=len(tasks) - len(shown),
    )


def _item(task: Task, today: date) -> TaskItem:
    due = task.due
    return TaskItem(
        text=task.text,
        due=due.isoformat() if due else None,
        due_day=day_name_near(due, today) if due is not None else None,
        overdue=due is not None and due < today,
        path=task.path,
    )
