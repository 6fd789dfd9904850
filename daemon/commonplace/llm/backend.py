"""The seam under the façade: what a model server's backend does, and nothing more.

The façade (client.LLM) keeps the rules every server shares: one chat call at a time (gate.py),
the time limit of each call, retries with backoff, leaked drafts, parsing a JSON answer against
its schema, the token budget, and the record the eval suite keeps. A backend only speaks its
wire: it sends a request, turns the server's answer into the neutral types (types.py), turns
the server's failures into the neutral errors (errors.py), and says what the server is and can
do. Only `llm/` imports a backend; the rest of the program sees the façade.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from commonplace.llm.errors import LLMError
from commonplace.llm.servers import Server
from commonplace.llm.types import Capabilities, Chunk, ModelStatus, Reply

Message = Mapping[str, Any]


@dataclass(frozen=True)
class ChatRequest:
    """One chat call, in neutral terms; each backend writes it in its own wire form."""

    model: str
    messages: Sequence[Message]
    tools: Sequence[Mapping[str, Any]] = ()  # OpenAI function format (what Ollama takes too)
    schema: Mapping[str, Any] | None = None  # the JSON schema the answer must follow
    options: Mapping[str, Any] = field(default_factory=dict)  # temperature, max_tokens, ...


class ModelBackend(Protocol):
    """A model server, as the façade uses it."""

    @property
    def server(self) -> Server:
        """Which server, for the errors' sentences (it may change once the probe has run)."""
        ...

    async def prepare(self, model: str) -> None:
        """Before a request: what must hold first (Ollama: no cloud model; the built-in
        engine: started; an OpenAI-compatible server: probed once). Raises an LLMError."""
        ...

    async def chat(self, request: ChatRequest) -> Reply: ...

    def stream(self, request: ChatRequest) -> AsyncIterator[Chunk]:
        """The answer as it comes. Closing the iterator ends the HTTP stream."""
        ...

    async def embed(self, model: str, texts: Sequence[str]) -> list[list[float]]: ...

    async def status(self) -> ModelStatus: ...

    async def capabilities(self, model: str) -> Capabilities:
        """What the server and this model were found to do (probed once, then remembered)."""
        ...

    async def model_capabilities(self, model: str) -> tuple[str, ...] | None:
        """What the server lists for this model (Ollama's /api/show `capabilities`), None when
        it does not say."""
        ...

    async def embed_context(self, model: str) -> int | None:
        """Tokens one embedding input may have, where the server says (None: not known)."""
        ...

    async def identity(self, model: str) -> str:
        """The model's identity beyond its name, for the index's signature: the same name on
        two servers, or a file named like a known model, must not reuse vectors."""
        ...

    def profile_name(self, model: str) -> str:
        """The name to find the model's embedding profile by ('' : not known for certain)."""
        ...

    def context_tokens(self) -> int:
        """The chat context the prompts must fit."""
        ...

    def translate(self, exc: BaseException, what: str, model: str, timeout: float) -> LLMError:
        """Any failure of a call as one of the neutral errors."""
        ...

    async def aclose(self) -> None: ...
