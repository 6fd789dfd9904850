"""GET /api/tasks: the vault's open to-dos from the daemon's reader, which it keeps read.

`?due_within_days=N` (0-3660) keeps those due within N days, overdue included; `today=YYYY-MM-DD`
is the day they count from (the caller's today: an MCP client's clock; default the daemon's).
The answer is `{"today", "tasks": [{"text", "due", "due_day", "overdue", "path"}], "more"}`,
overdue and soonest first, then the undated; 503 `tasks_not_ready` while a first read of a big
vault is still going (it carries on; ask again in a minute).
"""

from __future__ import annotations

import asyncio
from datetime import date, datetime

from aiohttp import web

from commonplace.assistant.task_list import task_list
from commonplace.assistant.tasks import MAX_DAYS_AHEAD, TasksNotReady
from commonplace.server.api_search import _int_param
from commonplace.server.context import SERVICES, SETTINGS
from commonplace.server.errors import ApiError


async def tasks(request: web.Request) -> web.StreamResponse:
    reader = request.app[SERVICES].tasks
    settings = request.app[SETTINGS]
    within_text = request.query.get("due_within_days", "")
    within = _int_param(within_text, "due_within_days", 0, MAX_DAYS_AHEAD) if within_text else None
    own = datetime.now(settings.tz).date()
    today = _day(request.query.get("today", "")) or own
    if abs((today - own).days) > MAX_DAYS_AHEAD:  # a clock that far off is a mistake
        raise ApiError(
            400, "bad_param", f"today must be within ten years of {own.isoformat()}, YYYY-MM-DD"
        )
    if reader is None:
        raise ApiError(503, "tasks_unavailable", "the task list is not kept by this daemon")
    try:
        found = await asyncio.to_thread(reader.open_tasks_within)
    except TasksNotReady as exc:
        raise ApiError(503, "tasks_not_ready", str(exc), headers={"Retry-After": "30"}) from None
    return web.json_response(task_list(found, today, within))


def _day(text: str) -> date | None:
    if not text:
        return None
    try:
        return date.fromisoformat(text)
    except ValueError:
        raise ApiError(400, "bad_param", "today must be a date, YYYY-MM-DD") from None
