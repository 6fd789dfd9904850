"""What the daemon last saw of its model server, kept in the data folder for `service status`
(which reads files only, and works while the daemon is stopped)."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

from commonplace.config import Settings
from commonplace.llm.types import ModelStatus

FILE_NAME = "model.json"


def status_record(status: ModelStatus, chat_model: str, embed_model: str) -> dict[str, Any]:
    return {
        "line": status.line(chat_model),
        "why": status.why,
        "backend": status.backend,
        "chat_model": chat_model,
        "embed_model": embed_model,
        "reachable": status.reachable,
        "seen": time.time(),
    }


def status_path(settings: Settings) -> Path:
    return settings.data_path / FILE_NAME


def summary(settings: Settings, record: dict[str, Any] | None) -> str:
    """'built-in model · CPU · qwen... (auto: Ollama is not answering ...)', or what the
    settings say when the daemon has not run yet."""
    if record and isinstance(record.get("line"), str):
        why = f" ({record['why']})" if record.get("why") else ""
        return f"{record['line']}{why}"
    backend = settings.model.backend
    if backend == "auto":
        return "auto: Ollama when it answers, else the built-in model (not started yet)"
    return f"{backend} (not started yet)"
