"""GET /api/capture/filed?ids=...: where the page's captures of today were filed, if they were.

The page lists what it saved today ("Saved today"); a capture saved to `Inbox/2026-12-02
0815.md` is soon filed as `Notes/2026-12-02 0815 Pruning roses.md`, and the old path then
points at nothing. Each save answers with the capture's id (capture.capture_id); this looks it up
among the filed notes of that minute, which tidy names by the capture's time
(filed_note.filed_name), so only a few files' first bytes are read: never a scan of the vault.
"""

from __future__ import annotations

import asyncio
import re

from aiohttp import web

from commonplace.config import Settings
from commonplace.server.context import SETTINGS
from commonplace.server.errors import ApiError

MAX_IDS = 30
HEAD_BYTES = 4096  # the frontmatter (or Logseq's properties) holding the id
_ID = re.compile(r"^[0-9a-f]{16}$")
_STAMP = re.compile(r"^\d{4}-\d{2}-\d{2} \d{4}$")


def find_filed(settings: Settings, capture_id: str, stamp: str) -> str | None:
    """The filed note of `capture_id`, captured at `stamp` ('2026-12-02 0815'), or None."""
    folder = settings.folder("filed")
    base = settings.vault / folder
    try:
        names = sorted(
            p.name for p in base.iterdir() if p.name.startswith(stamp) and p.name.endswith(".md")
        )
    except OSError:
        return None
    wanted = (
        f"capture_id: {capture_id}",
        f"capture_id: '{capture_id}'",
        f"capture-id:: {capture_id}",
    )
    for name in names[:50]:
        path = base / name
        if path.is_symlink() or not path.is_file():
            continue
        try:
            with path.open("rb") as handle:
                head = handle.read(HEAD_BYTES).decode("utf-8", errors="replace")
        except OSError:
            continue
        if any(w in head for w in wanted):
            return f"{folder}/{name}" if folder else name
    return None


async def filed(request: web.Request) -> web.Response:
    settings = request.app[SETTINGS]
    raw = request.query.get("ids", "")
    pairs = [p for p in raw.split(",") if p][:MAX_IDS]
    found: dict[str, str] = {}
    for pair in pairs:
        capture_id, _, stamp = pair.partition("@")
        if not _ID.match(capture_id) or not _STAMP.match(stamp):
            raise ApiError(400, "bad_query", "'ids' is a list of <capture id>@<YYYY-MM-DD HHMM>")
        where = await asyncio.to_thread(find_filed, settings, capture_id, stamp)
        if where:
            found[capture_id] = where
    return web.json_response({"filed": found})
