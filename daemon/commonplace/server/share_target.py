"""POST /share: a share from another app that reached the daemon instead of the service worker.

The manifest's share_target has the browser post what is shared (title, text, url, files) to
/share, where the page's service worker keeps it and the page sends it to /api/share. When no
worker takes it (it does not control the page yet, the browser evicted it, it is being updated,
or a browser installed the page without one), the browser sends that POST here. It was refused
(403, a JSON body shown in place of the page) and what the person shared was lost.

Now the daemon saves it exactly as the page would have sent it: one capture, through
api_share.save_share, with the same checks and limits. security.py lets it in from the page's
own origin, or as the browser's own navigation from the share sheet, and never from another
site. The answer is a redirect to the page, which says where the share was saved, or why it was
not. Only a share target's fields are read (title, text, url and files); the ones the page adds
itself (id, captured, via) are not taken from a form here. The same share coming again, this
way or through the worker, is saved once (sent.py).
"""

from __future__ import annotations

import json
import logging
from urllib.parse import urlencode

from aiohttp import web

from commonplace.server.api_share import read_share, save_share
from commonplace.server.context import SETTINGS
from commonplace.server.errors import ApiError
from commonplace.server.security import SHARE_TARGET

log = logging.getLogger(__name__)

__all__ = ["SHARE_TARGET", "share_target"]

SHARE_FIELDS = ("title", "text", "url")  # the manifest's params besides files


def page_address(**query: str) -> str:
    """The page, with what it is to say about the share (app.js reads `shared`)."""
    return "/?" + urlencode(query)


async def share_target(request: web.Request) -> web.Response:
    settings = request.app[SETTINGS]
    max_bytes = int(settings.clip.max_share_mb * 1024 * 1024)
    try:
        fields, files = await read_share(request, max_bytes)
        shared = {name: fields[name] for name in SHARE_FIELDS if name in fields}
        saved = await save_share(request, shared, files)
    except ApiError as exc:
        log.warning("a share posted to %s was not saved: %s", SHARE_TARGET, exc.code)
        where = page_address(shared="failed", why=exc.message)
        return web.Response(status=303, headers={"Location": where})
    answer = json.loads(saved.text or "{}")
    query = {"shared": "saved", "path": answer.get("path", "")}
    if answer.get("capture"):
        query["capture"] = answer["capture"]
    if answer.get("repeat"):
        query["repeat"] = "1"  # the same share had come already (the worker sent it)
    return web.Response(status=303, headers={"Location": page_address(**query)})
