"""GET /api/state: is the daemon well, can it reach its model server, what is waiting.

`model` says which server answers (Ollama, an OpenAI-compatible server, the built-in model),
why, its models and what they were found to do, in one `line` the page and the plugin show.
`ollama` keeps the fields an older plugin reads (reachable, host, version, error, models) for
one release, filled from the same status whatever the server is.
"""

from __future__ import annotations

import asyncio
import time
from typing import Any

from aiohttp import web

from commonplace import __version__
from commonplace.config import Settings
from commonplace.llm import ModelStatus
from commonplace.runtime.attention import summary
from commonplace.server.api_pair import PAIRING
from commonplace.server.context import LLM_KEY, SERVICES, SETTINGS, Services
from commonplace.speech import SpeechUnavailable, WhisperTranscriber, model_path
from commonplace.vault import iter_note_paths

MODEL_CACHE_S = 5.0  # the page polls; the model server is asked at most this often


async def state(request: web.Request) -> web.Response:
    app = request.app
    settings, services = app[SETTINGS], app[SERVICES]
    status = await _model_status(request)
    llm = app[LLM_KEY]
    names = [n for n in (llm.chat_model, llm.embed_model) if n]
    stages = {name: dict(source.status()) for name, source in services.stages.items()}
    jobs = services.jobs
    body: dict[str, Any] = {
        "daemon": {
            "version": __version__,
            "vault": settings.vault.name,
            "flavor": settings.flavor,
            "timezone": settings.tz.key,  # the page shows the daemon's times in it
            "uptime_s": round(time.time() - services.started),
            "jobs": {
                "pending": jobs.pending if jobs else 0,
                "running": jobs.stats.running if jobs else "",
                "last": jobs.stats.last if jobs else "",
                "done": jobs.stats.done if jobs else 0,
                "failed": jobs.stats.failed if jobs else 0,
            },
            "notes": list(services.notes),
        },
        # Kept for one release: what plugins before 0.2 read (see the module's docstring).
        "ollama": {
            "reachable": status.reachable,
            "host": status.host,
            "version": status.version,
            "error": status.error,
            "models": {name: status.has_model(name) for name in names} if status.reachable else {},
        },
        "captures_waiting": await asyncio.to_thread(captures_waiting, settings),
        "index": stages.pop("index", {}),
        "watcher": stages.pop("watcher", None),
        "lease": stages.pop("lease", None),
        "stages": stages,
        # Files skipped or failing and parts that had to be restarted, each with what to do.
        "attention": services.attention.as_json(),
        # The same, files with one trouble grouped (attention.summary): what the page shows.
        "attention_summary": [e.as_json() for e in summary(services.attention.entries())],
        # The model server, and the one model queue (llm/gate.py): who has the model, how
        # many calls wait behind.
        "model": {**model_json(status, llm.chat_model, llm.embed_model), **llm.gate.status()},
        "search": services.index is not None,
        "speech": _speech_state(settings, services),
        # Obsidian devices asking to pair: the page shows them with their codes to confirm.
        "pairing_waiting": len(app[PAIRING].waiting()) if PAIRING in app else 0,
        "server_time": time.time(),
    }
    return web.json_response(body)


def captures_waiting(settings: Settings) -> int:
    """Captures still in the inbox: saved, not yet filed (e.g. while the model is down)."""
    return sum(1 for _ in iter_note_paths(settings.vault, under=settings.folder("inbox")))


def _speech_state(settings: Settings, services: Services) -> dict[str, Any]:
    """Can dictation work? The page asks before recording, so nobody talks for nothing."""
    limits = {
        "max_seconds": settings.speech.max_seconds,
        "max_upload_mb": settings.speech.max_upload_mb,
    }
    if services.transcriber is None:
        return {"available": False, "message": "dictation is not running in this daemon", **limits}
    if isinstance(services.transcriber, WhisperTranscriber):
        try:
            model_path(settings.speech)
        except SpeechUnavailable as exc:
            return {"available": False, "message": str(exc), **limits}
    return {"available": True, "message": "", **limits}


def model_json(status: ModelStatus, chat_model: str, embed_model: str) -> dict[str, Any]:
    """The model server for the page, the plugin and `service status`: one line each."""
    return {
        "backend": status.backend,
        "server": status.server,
        "host": status.host,
        "reachable": status.reachable,
        "version": status.version,
        "error": status.error,
        "why": status.why,
        "device": status.device,
        "chat_model": chat_model,
        "embed_model": embed_model,
        "models": {n: status.has_model(n) for n in (chat_model, embed_model) if n}
        if status.reachable
        else {},
        "capabilities": status.capabilities.as_json(),
        "line": status.line(chat_model),
        "label": status.label(),
    }


async def _model_status(request: web.Request) -> ModelStatus:
    """The model server as last seen. A status older than MODEL_CACHE_S is still answered at
    once and refreshed in the background: a busy server (embedding a big vault, loading a
    model) takes seconds to list its models, and the page's state must not wait for it. Only
    the very first request waits."""
    services = request.app[SERVICES]
    hit = services.model_cache
    if hit is None:
        return await _refresh(request.app)
    stale = time.monotonic() - hit[0] >= MODEL_CACHE_S
    task = services.model_refresh
    if stale and (task is None or task.done()):
        services.model_refresh = asyncio.create_task(_refresh(request.app))
    return hit[1]


async def _refresh(app: web.Application) -> ModelStatus:
    status = await app[LLM_KEY].status()
    app[SERVICES].model_cache = (time.monotonic(), status)
    return status
