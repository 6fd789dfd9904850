"""The aiohttp application: built by one factory from settings and services, thin handlers."""

from __future__ import annotations

import logging
from typing import Any

from aiohttp import web

from commonplace import __version__
from commonplace.config import Settings
from commonplace.llm import LLM
from commonplace.resources import resource_dir

log = logging.getLogger(__name__)

SETTINGS = web.AppKey("settings", Settings)
LLM_KEY = web.AppKey("llm", LLM)


def error_response(status: int, code: str, message: str) -> web.Response:
    """Every API error has this one shape, so the page and the plugin can show `message`."""
    return web.json_response({"error": {"code": code, "message": message}}, status=status)


async def index(request: web.Request) -> web.FileResponse:
    return web.FileResponse(resource_dir("web") / "index.html")


async def state(request: web.Request) -> web.Response:
    settings = request.app[SETTINGS]
    status = await request.app[LLM_KEY].status()
    body: dict[str, Any] = {
        "daemon": {"version": __version__, "vault": settings.vault.name, "flavor": settings.flavor},
        "ollama": {
            "reachable": status.reachable,
            "version": status.version,
            "error": status.error,
            "models": {
                name: status.has_model(name)
                for name in (settings.ollama.chat_model, settings.ollama.embed_model)
            }
            if status.reachable
            else {},
        },
    }
    return web.json_response(body)


def create_app(settings: Settings, llm: LLM) -> web.Application:
    app = web.Application(client_max_size=1024 * 1024)
    app[SETTINGS] = settings
    app[LLM_KEY] = llm
    app.router.add_get("/", index)
    app.router.add_get("/api/state", state)
    app.router.add_static("/static/", resource_dir("web"), follow_symlinks=False)
    return app
