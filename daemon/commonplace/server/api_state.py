"""GET /api/state: is the daemon well, can it reach Ollama, what is waiting."""

from __future__ import annotations

import asyncio
import time
from typing import Any

from aiohttp import web

from commonplace import __version__
from commonplace.config import Settings
from commonplace.llm import OllamaStatus
from commonplace.runtime.attention import summary
from commonplace.server.api_pair import PAIRING
from commonplace.server.context import LLM_KEY, SERVICES, SETTINGS, Services
from commonplace.speech import SpeechUnavailable, WhisperTranscriber, model_path
from commonplace.vault import iter_note_paths

OLLAMA_CACHE_S = 5.0  # the page polls; Ollama is asked at most this often


async def state(request: web.Request) -> web.Response:
    app = request.app
    settings, services = app[SETTINGS], app[SERVICES]
    ollama = await _ollama_status(request)
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
        "ollama": {
            "reachable": ollama.reachable,
            "host": ollama.host,
            "version": ollama.version,
            "error": ollama.error,
            "models": {
                name: ollama.has_model(name)
                for name in (settings.ollama.chat_model, settings.ollama.embed_model)
            }
            if ollama.reachable
            else {},
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
        # The one model queue (llm/gate.py): who has the model, how many calls wait behind.
        "model": app[LLM_KEY].gate.status(),
        "search": services.index is not None,
        "speech": _speech_state(settings, services),
        # Obsidian devices asking to pair: the page shows them with their codes to confirm.
        "pairing_waiting": len(app[PAIRING].waiting()) if PAIRING in app else 0,
        "server_time": time.time(),
    }
    return web.json_response(body)


def captures_waiting(settings: Settings) -> int:
    """Captures still in the inbox: saved, not yet filed (e.g. while Ollama is down)."""
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


async def _ollama_status(request: web.Request) -> OllamaStatus:
    """Ollama as last seen. A status older than OLLAMA_CACHE_S is still answered at once and
    refreshed in the background: a busy Ollama (embedding a big vault, loading a model) takes
    seconds to list its models, and the page's state must not wait for it. Only the very first
    request waits."""
    services = request.app[SERVICES]
    hit = services.ollama_cache
    if hit is None:
        return await _refresh(request.app)
    stale = time.monotonic() - hit[0] >= OLLAMA_CACHE_S
    task = services.ollama_refresh
    if stale and (task is None or task.done()):
        services.ollama_refresh = asyncio.create_task(_refresh(request.app))
    return hit[1]


async def _refresh(app: web.Application) -> OllamaStatus:
    status = await app[LLM_KEY].status()
    app[SERVICES].ollama_cache = (time.monotonic(), status)
    return status
