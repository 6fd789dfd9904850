"""`backend = "auto"`: which model server answers, and why, in words.

Ollama when it answers, else the built-in engine when its models are installed, else one
message that names both ways (errors.NoModelServer). The choice is remembered in the data
folder once it was made with Ollama answering: an index built with Ollama's embedding model is
not rebuilt with another one because the daemon started at login a few seconds before Ollama
did (it waits for Ollama instead, as it always has); and a computer without Ollama that later
gets it moves to it at the next start, since then Ollama answers. `doctor` and the page say
which runs and why; `[model] backend` set to a server always wins.
"""

from __future__ import annotations

import json
import logging
import os
import time
from dataclasses import dataclass
from pathlib import Path

import httpx

from commonplace.config import Settings

log = logging.getLogger(__name__)

OLLAMA_ASK_S = 1.5  # a local Ollama answers /api/version in milliseconds
RECORD = "model-backend.json"


@dataclass(frozen=True)
class Choice:
    backend: str  # ollama | openai | builtin | none
    why: str


def choose(settings: Settings, *, builtin_ready: bool | None = None) -> Choice:
    """The backend for the chat (and, unless [model] embed_backend says otherwise, the
    embeddings). `builtin_ready` is asked of the engine's models when not given."""
    configured = settings.model.backend
    if configured != "auto":
        return Choice(configured, f"[model] backend = {configured!r}")
    host = settings.ollama.host
    if ollama_answers(host):
        _remember(settings, "ollama")
        return Choice("ollama", f"auto: Ollama answers at {host}")
    remembered = _remembered(settings)
    if remembered and remembered[0] == "ollama":
        return Choice(
            "ollama",
            f"auto: Ollama was chosen on {remembered[1]} and is not answering now at {host} "
            '(start it, or set [model] backend = "builtin")',
        )
    if builtin_ready is None:
        builtin_ready = _builtin_ready(settings)
    if builtin_ready:
        _remember(settings, "builtin")
        return Choice(
            "builtin", f"auto: Ollama is not answering at {host}; the built-in model is installed"
        )
    return Choice(
        "none", f"auto: Ollama is not answering at {host} and the built-in model is not installed"
    )


def ollama_answers(host: str) -> bool:
    try:
        response = httpx.get(f"{host.rstrip('/')}/api/version", timeout=OLLAMA_ASK_S)
    except httpx.HTTPError:
        return False
    try:
        return response.status_code == 200 and "version" in response.json()
    except ValueError:
        return False


def _builtin_ready(settings: Settings) -> bool:
    """Are the built-in engine's chat and embedding models on this computer?"""
    from commonplace.llm.builtin import models_ready

    return models_ready(settings)


def _path(settings: Settings) -> Path:
    return settings.data_path / RECORD


def _remembered(settings: Settings) -> tuple[str, str] | None:
    try:
        data = json.loads(_path(settings).read_text(encoding="utf-8"))
        return str(data["backend"]), str(data["since"])
    except (OSError, ValueError, KeyError, TypeError):
        return None


def _remember(settings: Settings, backend: str) -> None:
    """Kept when it changes; a data folder that cannot be written only loses the memory."""
    if (_remembered(settings) or ("",))[0] == backend:
        return
    path = _path(settings)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(f"{RECORD}.{os.getpid()}.tmp")
        since = time.strftime("%Y-%m-%d")
        tmp.write_text(json.dumps({"backend": backend, "since": since}), encoding="utf-8")
        tmp.replace(path)
    except OSError as exc:
        log.info("the model server chosen could not be remembered: %s", exc)
