"""The built-in engine behind the seam: the OpenAI-compatible backend pointed at llama.cpp's
server, run as our own supervised child process (engine/). Filled in once the engine lands."""

from __future__ import annotations

from collections.abc import Callable

from commonplace.config import ModelSettings, Settings
from commonplace.llm.errors import ModelUnavailable
from commonplace.llm.openai import Endpoint, OpenAIBackend
from commonplace.llm.servers import Server
from commonplace.llm.types import Capabilities

BUILTIN = Server("builtin", "")
KNOWN = Capabilities(
    json_schema=True, json_object=True, tools=True, tool_calls_as_text=None, embeddings=True
)


def models_ready(settings: Settings) -> bool:
    return False


def builtin_name(settings: Settings, role: str) -> str:
    return settings.model.chat_model if role == "chat" else settings.model.embed_model


def builtin_backend(
    settings: Settings, model: ModelSettings, on_trouble: Callable[[str], None] | None
) -> OpenAIBackend:
    async def where() -> Endpoint:
        raise ModelUnavailable(BUILTIN, "the built-in engine is not installed yet")

    return OpenAIBackend(model, where, BUILTIN, known=KNOWN)
