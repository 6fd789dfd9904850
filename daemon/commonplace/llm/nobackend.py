"""No model server at all (`auto` found neither Ollama nor the built-in model): every call
says so, in the one message that names both ways (errors.NoModelServer), and nothing else
breaks: captures wait, search uses keywords, the page says what to do."""

from __future__ import annotations

from collections.abc import AsyncIterator, Sequence

from commonplace.config import Settings
from commonplace.llm.backend import ChatRequest
from commonplace.llm.errors import LLMError, NoModelServer
from commonplace.llm.servers import Server
from commonplace.llm.types import Capabilities, Chunk, ModelStatus, Reply


class NoBackend:
    def __init__(self, settings: Settings, why: str) -> None:
        self._error = NoModelServer(settings.ollama.host)
        self._server = Server("builtin", "")
        self.why = why

    @property
    def server(self) -> Server:
        return self._server

    async def prepare(self, model: str) -> None:
        raise self._error

    async def chat(self, request: ChatRequest) -> Reply:
        raise self._error

    async def stream(self, request: ChatRequest) -> AsyncIterator[Chunk]:
        raise self._error
        yield Chunk()  # pragma: no cover - makes this an async generator

    async def embed(self, model: str, texts: Sequence[str]) -> list[list[float]]:
        raise self._error

    async def status(self) -> ModelStatus:
        return ModelStatus(
            reachable=False, host="", backend="builtin", server="No model", error=str(self._error)
        )

    async def capabilities(self, model: str) -> Capabilities:
        raise self._error

    async def model_capabilities(self, model: str) -> tuple[str, ...] | None:
        raise self._error

    async def embed_context(self, model: str) -> int | None:
        raise self._error

    async def identity(self, model: str) -> str:
        raise self._error

    def profile_name(self, model: str) -> str:
        return ""

    def context_tokens(self) -> int:
        return 4096

    def translate(self, exc: BaseException, what: str, model: str, timeout: float) -> LLMError:
        return exc if isinstance(exc, LLMError) else self._error

    async def aclose(self) -> None:
        return None
