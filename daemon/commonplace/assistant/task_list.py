"""The open to-dos as one list for readers outside the chat: GET /api/tasks and MCP list_tasks.

The daemon's reader (assistant/tasks.py) stays read and current while it runs; an MCP server
that asks it instead of reading the vault again saves a big vault's first read (about 14 s of
CPU at 50,000 notes) each time a desktop client starts it. Both ways give this one shape.
"""

from __future__ import annotations

from datetime import date, timedelta
from typing import Any

from commonplace.assistant.tasks import MAX_DAYS_AHEAD, Task
from commonplace.basics.dates import day_name_near

MAX_TASKS = 60  # to-dos in one answer: a model reads them all


def task_list(
    tasks: list[Task], today: date, due_within_days: int | None, limit: int = MAX_TASKS
) -> dict[str, Any]:
    """`tasks` (sorted by due date, undated last, as TaskReader gives them), or only those due
    within `due_within_days` days of `today` (overdue included); at most `limit`, and how many
    more there were."""
    if due_within_days is not None:
        last = today + timedelta(days=min(due_within_days, MAX_DAYS_AHEAD))
        tasks = [t for t in tasks if t.due is not None and t.due <= last]
    shown = tasks[:limit]
    return {
        "today": today.isoformat(),
        "tasks": [_item(t, today) for t in shown],
        "more": len(tasks) - len(shown),
    }


def _item(task: Task, today: date) -> dict[str, Any]:
    due = task.due
    return {
        "text": task.text,
        "due": due.isoformat() if due else None,
        "due_day": day_name_near(due, today) if due is not None else None,
        "overdue": due is not None and due < today,
        "path": task.path,
        "note": task.note,  # the title the editor shows (a Logseq journal's date)
    }
