"""Settings and model clients for tests, in the terms tests used before there was a choice of
model server: `with_model(settings, host=..., retries=0, chat_model=...)` puts each key where it
now lives ([ollama] host and keep_alive, everything else in [model]; num_ctx is [model]
context), and `llm_for` makes the client from the result."""

from __future__ import annotations

import dataclasses
from typing import Any

from commonplace.config import Settings
from commonplace.llm import LLM, make_llm

OLLAMA_KEYS = ("host", "keep_alive")


def with_model(settings: Settings, **changes: Any) -> Settings:
    ollama = {k: v for k, v in changes.items() if k in OLLAMA_KEYS}
    model = {
        ("context" if k == "num_ctx" else k): v for k, v in changes.items() if k not in OLLAMA_KEYS
    }
    return dataclasses.replace(
        settings,
        ollama=dataclasses.replace(settings.ollama, **ollama),
        model=dataclasses.replace(settings.model, **model),
    )


def llm_for(settings: Settings, **changes: Any) -> LLM:
    return make_llm(with_model(settings, **changes))
