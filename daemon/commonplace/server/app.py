"""The aiohttp application: built by one factory from settings and services, thin handlers.

Middleware order, outermost first: the security checks (a refused request never reaches a
handler, nor the error handler's logging of its body), then the error boundary that turns every
failure into the one JSON error shape, then the mark that makes background loops pause while a
request is answered (runtime/foreground.py). Security headers are added to every response as it is
prepared, streamed answers and errors included.
"""

from __future__ import annotations

import logging
from pathlib import Path

from aiohttp import web

from commonplace.basics.resources import resource_dir
from commonplace.config import Settings
from commonplace.llm import LLM
from commonplace.plugin.apitoken import token_path
from commonplace.plugin.devices import devices_path
from commonplace.runtime.foreground import foreground
from commonplace.server import (
    api_ask,
    api_capture,
    api_filed,
    api_photo,
    api_related,
    api_search,
    api_share,
    api_state,
    api_tasks,
)
from commonplace.server.api_assistant import add_assistant_routes
from commonplace.server.api_pair import add_pair_routes
from commonplace.server.context import LLM_KEY, SENT, SERVICES, SETTINGS, Services
from commonplace.server.errors import Handler, error_middleware
from commonplace.server.limits import LIMITER, RateLimiter
from commonplace.server.page import add_page_routes
from commonplace.server.push_api import add_push_routes
from commonplace.server.security import Policy, add_security_headers, security_middleware
from commonplace.server.sent import SentCaptures
from commonplace.server.share_target import SHARE_TARGET, share_target

log = logging.getLogger(__name__)

__all__ = ["IDLE_TIMEOUT_S", "LLM_KEY", "MAX_LINE_BYTES", "SERVICES", "SETTINGS", "create_app"]

# The longest request line (method, address, version) the HTTP parser reads before the app sees
# the request; aiohttp's default is 8,190 bytes. Past it the client got aiohttp's own plain-text
# 400, not the API's JSON error: a search may hold 1,000 characters, which take up to 12 KB in a
# URL (percent-encoded UTF-8), with a folder beside it. With this room every address the API
# could accept reaches it, and its own checks answer (`bad_query`, `not_found`) in JSON. The
# daemon's runner is given it (daemon.start_server).
MAX_LINE_BYTES = 64 * 1024

# How long a connection may stay open without a request being answered on it: from the moment it
# opens (or its last answer) until its request's headers are complete. aiohttp's default is an
# hour, so connections that send their headers slowly or never each held a socket that long
# (800 of them were still open after a minute). A request's headers are a few KB: a phone on a
# slow link sends them within a second or two; a browser or `tailscale serve` opens a new
# connection when an idle one was closed. The body is bounded in errors.read_body. The daemon's
# runner is given it (daemon.start_server).
IDLE_TIMEOUT_S = 30.0


@web.middleware
async def foreground_middleware(request: web.Request, handler: Handler) -> web.StreamResponse:
    with foreground():
        return await handler(request)


def create_app(
    settings: Settings,
    llm: LLM,
    services: Services | None = None,
    *,
    web_root: Path | None = None,
) -> web.Application:
    """The whole server. `services` holds what the daemon runs (index, jobs, transcriber...);
    a test passes only what it needs, and the API says 503 for a part that is missing."""
    upload_limit = int(
        max(
            settings.speech.max_upload_mb,
            settings.attachments.max_photo_mb + 1,
            settings.clip.max_share_mb + 2,
        )
        * 1024
        * 1024
    )  # a recording, a photo and its capture's words, or a share's files and words
    policy = Policy.from_settings(
        settings.web,
        token_file=token_path(settings.data_path),
        devices_file=devices_path(settings.data_path),
    )
    app = web.Application(
        middlewares=[security_middleware(policy), error_middleware, foreground_middleware],
        client_max_size=max(upload_limit, settings.web.max_json_kb * 1024),
    )
    app[SETTINGS] = settings
    app[LLM_KEY] = llm
    app[SERVICES] = services or Services()
    app[LIMITER] = RateLimiter.from_settings(settings.limits)
    app[SENT] = SentCaptures(settings.data_path)
    app.on_response_prepare.append(add_security_headers)
    app.router.add_get("/api/state", api_state.state)
    app.router.add_post("/api/capture", api_capture.capture)
    app.router.add_get("/api/capture/filed", api_filed.filed)  # where "Saved today" went
    app.router.add_post("/api/share", api_share.share)  # the share target, the iPhone Shortcut
    app.router.add_post(SHARE_TARGET, share_target)  # a share the service worker did not take
    app.router.add_post("/api/capture/photo", api_photo.capture_photo)
    app.router.add_post("/api/transcribe", api_capture.transcribe)
    app.router.add_get("/api/search", api_search.search)
    app.router.add_get("/api/note", api_search.note)
    app.router.add_get("/api/related", api_related.related)
    app.router.add_post("/api/ask", api_ask.ask)
    app.router.add_get("/api/tasks", api_tasks.tasks)
    add_assistant_routes(app)  # /api/assistant/message, /answer, /today
    add_pair_routes(app)  # /api/pair/request, /poll (the plugin), /pending, /confirm, /deny
    add_push_routes(app)  # GET /api/push/key, POST /api/push/subscribe, /unsubscribe
    add_page_routes(app, web_root or resource_dir("web"))
    return app
