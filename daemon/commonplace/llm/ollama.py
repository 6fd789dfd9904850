"""Ollama behind the seam: its wire code, its options, its errors.

What only Ollama has lives here: `format` for the schema, `keep_alive`, `think`, `num_ctx` in
`options`, `/api/show` for a model's context and capabilities, `/api/tags` for what is pulled,
and cloud models, which Ollama itself would send to ollama.com (never a note: `prepare`
refuses them before any request). Nothing outside this module catches `ollama` or `httpx`
exceptions for Ollama.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import json
import ssl
from collections.abc import AsyncIterator, Mapping, Sequence
from typing import Any

import httpx
import ollama
import pydantic

from commonplace.config import ModelSettings, OllamaSettings, is_cloud_model, keep_alive_value
from commonplace.llm import budget
from commonplace.llm.backend import ChatRequest
from commonplace.llm.errors import (
    CloudModel,
    LLMError,
    LLMTimeout,
    ModelBadReply,
    ModelFailed,
    ModelMissing,
    ModelUnavailable,
    ModelUnsuitable,
)
from commonplace.llm.messages import to_ollama
from commonplace.llm.names import same_model
from commonplace.llm.servers import Server
from commonplace.llm.types import Capabilities, Chunk, ModelStatus, Reply, ToolCall


class OllamaBackend:
    """Async access to Ollama's chat and embedding APIs."""

    def __init__(self, model: ModelSettings, ollama_settings: OllamaSettings) -> None:
        self.model_settings = model
        self.settings = ollama_settings
        self._server = Server("ollama", ollama_settings.host)
        self._chat = ollama.AsyncClient(host=ollama_settings.host, timeout=model.timeout_s)
        self._embed = ollama.AsyncClient(host=ollama_settings.host, timeout=model.embed_timeout_s)
        self._remote: tuple[str, ...] = ()  # from status()
        self._listed = False  # /api/tags read once
        self._listing = asyncio.Lock()
        self._digests: dict[str, str] = {}

    @property
    def server(self) -> Server:
        return self._server

    # -- chat -----------------------------------------------------------------------------

    async def chat(self, request: ChatRequest) -> Reply:
        response = await self._chat.chat(
            model=request.model,
            messages=to_ollama(request.messages),
            tools=list(request.tools) or None,
            format=dict(request.schema) if request.schema is not None else None,
            options=self._options(request.options),
            keep_alive=self._keep_alive(),
            think=self._think(),
            stream=False,
        )
        return Reply(
            text=response.message.content or "",
            tool_calls=_calls(response.message.tool_calls),
            cut=response.done_reason == "length",
            # llm/llama_server.go stops a model that repeats one token over and over and
            # returns without its final response: the reply never says `done`.
            unfinished=response.done is False,
        )

    async def stream(self, request: ChatRequest) -> AsyncIterator[Chunk]:
        stream = await self._chat.chat(
            model=request.model,
            messages=to_ollama(request.messages),
            tools=list(request.tools) or None,
            options=self._options(request.options),
            keep_alive=self._keep_alive(),
            think=self._think(),
            stream=True,
        )
        chunks = aiter(stream)
        try:
            async for chunk in chunks:
                yield Chunk(
                    text=chunk.message.content or "",
                    tool_calls=_calls(chunk.message.tool_calls),
                    done=bool(chunk.done),
                    cut=chunk.done_reason == "length",
                )
        finally:
            close = getattr(chunks, "aclose", None)
            if close is not None:
                with contextlib.suppress(Exception):
                    await close()  # the HTTP stream ends now, not when collected

    def _think(self) -> bool | None:
        """The one think decision for every chat call (tidy, digest, ask, the assistant).

        False by default: Ollama accepts it from every model, and a thinking model then answers
        at once instead of reasoning first (which costs time and context on every call). True
        only when the user sets `[model] think = "on"` (models that cannot think refuse it);
        None sends nothing, so a thinking model follows its own default and thinks.
        """
        return {"on": True, "off": False}.get(self.model_settings.think)

    def _keep_alive(self) -> str | float:
        """A number of seconds goes as a number: Ollama refuses "600" as a duration string."""
        value = keep_alive_value(self.settings.keep_alive)
        return self.settings.keep_alive if value is None else value

    def _options(self, extra: Mapping[str, Any]) -> dict[str, Any]:
        """num_ctx only when the user set it: the server's own default is larger on big GPUs,
        and a different num_ctx on every client makes Ollama reload the model. The neutral
        `max_tokens` is Ollama's num_predict."""
        options: dict[str, Any] = {"temperature": 0}
        if self.model_settings.context:
            options["num_ctx"] = self.model_settings.context
        extra = dict(extra)
        if "max_tokens" in extra:
            extra["num_predict"] = extra.pop("max_tokens")
        return {**options, **extra}

    def profile_name(self, model: str) -> str:
        """Ollama's names are its library's: the table knows them by these."""
        return model

    def context_tokens(self) -> int:
        """The chat context the prompts must fit: the user's, else Ollama's smallest default."""
        return self.model_settings.context or budget.OLLAMA_DEFAULT_CTX

    # -- embeddings -----------------------------------------------------------------------

    async def embed(self, model: str, texts: Sequence[str]) -> list[list[float]]:
        response = await self._embed.embed(
            model=model, input=list(texts), truncate=True, keep_alive=self._keep_alive()
        )
        return [list(v) for v in response.embeddings]

    async def embed_context(self, model: str) -> int | None:
        """The context Ollama embeds within for this model (/api/show), None if it says none.

        Not the trained context alone (`<arch>.context_length`): Ollama cuts each input at
        min(num_ctx, trained), and this program sends no num_ctx for embeddings, so num_ctx is
        the Modelfile's parameter or else the server's own default, at least 4096 (routes.go
        `modelOptions`, `EmbedHandler`). A chunk sized past it would lose its end silently.
        """
        response = await self._embed.show(model)
        info = response.modelinfo or {}
        value = info.get(f"{info.get('general.architecture', '')}.context_length")
        if not isinstance(value, int) or value <= 0:
            return None
        return min(value, _modelfile_num_ctx(response.parameters) or budget.OLLAMA_DEFAULT_CTX)

    async def model_capabilities(self, model: str) -> tuple[str, ...] | None:
        """What Ollama says the model can do (/api/show `capabilities`: completion, tools,
        thinking, embedding, vision, ...), None when this Ollama does not say (older than
        0.6.4). Ollama itself checks these when a request arrives, except for embeddings."""
        response = await self._embed.show(model)
        return tuple(str(c) for c in response.capabilities) if response.capabilities else None

    async def capabilities(self, model: str) -> Capabilities:
        """Ollama enforces a `format` schema (0.5.0+) and returns tool calls as calls; what a
        model can do beyond that, /api/show says (`model_capabilities`)."""
        return Capabilities(json_schema=True, tools=True, tool_calls_as_text=False)

    async def identity(self, model: str) -> str:
        """Name, digest and server: a model pulled anew (another digest) or the same name on
        another Ollama is another model."""
        if model not in self._digests:
            status = await self.status()
            if not status.reachable:
                raise ModelUnavailable(self._server)
            if not status.digest(model):
                raise ModelMissing(model, self._server)
            self._digests[model] = status.digest(model)
        return f"ollama {self.settings.host} {model}@{self._digests[model][:16]}"

    # -- status ---------------------------------------------------------------------------

    async def status(self) -> ModelStatus:
        """Is Ollama there, which version, which models: for `doctor` and /api/state."""
        host = self.settings.host
        try:
            async with httpx.AsyncClient(base_url=host, timeout=5, verify=_tls()) as http:
                version = (await http.get("/api/version")).json().get("version", "")
                # asyncio.timeout, not wait_for: on Python 3.11 wait_for can swallow a cancel
                # that arrives as the call completes, and the task (and a shutdown waiting on
                # it) hangs. Read as JSON here: the ollama client's list drops remote_host.
                async with asyncio.timeout(10):
                    tags = await http.get("/api/tags", timeout=10)
                if tags.status_code >= 400:
                    raise ollama.ResponseError(tags.text, tags.status_code)
                listed = [m for m in tags.json().get("models") or () if isinstance(m, dict)]
        except Exception as exc:  # any failure here means "not usable now"
            error = self.translate(exc, "list its models", "", 10)
            return ModelStatus(reachable=False, host=host, error=str(error))
        names = tuple(str(m.get("model") or m.get("name") or "") for m in listed)
        remote = [
            (n, str(m["remote_host"]))
            for n, m in zip(names, listed, strict=True)
            if m.get("remote_host")
        ]
        self._remote = tuple(n for n, _ in remote)
        self._listed = True
        return ModelStatus(
            reachable=True,
            host=host,
            version=str(version),
            models=names,
            digests=tuple(str(m.get("digest") or "") for m in listed),
            remote=self._remote,
            remote_hosts=tuple(h for _, h in remote),
            capabilities=Capabilities(json_schema=True, tools=True, tool_calls_as_text=False),
        )

    # -- the error boundary -----------------------------------------------------------------

    async def prepare(self, model: str) -> None:
        """Principle: no note leaves this computer. Ollama itself sends a cloud model's request
        on to ollama.com (server/cloud_proxy.go): a cloud name, or a pulled cloud stub under
        any name, is refused before any request. Which names are stubs only /api/tags says, so
        it is read before the first request (the daemon's start-up status() runs alongside its
        first jobs, and a capture filed before it ended was sent on); read again while Ollama
        cannot be asked, since the request itself then fails too."""
        if is_cloud_model(model):
            raise CloudModel(model)
        if not self._listed:
            async with self._listing:
                if not self._listed:
                    await self.status()
        if same_model(model, self._remote):
            raise CloudModel(model)

    def translate(self, exc: BaseException, what: str, model: str, timeout: float) -> LLMError:
        if isinstance(exc, LLMError):
            return exc
        if isinstance(exc, TimeoutError | httpx.TimeoutException):
            return LLMTimeout(what, timeout, self._server)
        if isinstance(exc, ConnectionError | httpx.TransportError):
            return ModelUnavailable(self._server)
        if isinstance(exc, ollama.ResponseError):
            message = str(exc.error)
            if exc.status_code == 404 and "not found" in message and model:
                return ModelMissing(model, self._server)
            if exc.status_code == 400 and "does not support" in message and model:
                return ModelUnsuitable(model, message, self._server)
            if (exc.status_code == 501 or "support embeddings" in message) and model:
                # /api/embed to a model without the embedding capability: Ollama loads it,
                # then its llama-server (no --embedding) answers 501 (llm/llama_server.go).
                return ModelUnsuitable(model, message, self._server)
            return ModelFailed(exc.status_code, message, self._server)
        if isinstance(exc, json.JSONDecodeError | pydantic.ValidationError | KeyError):
            # The HTTP body itself could not be read: Ollama's (or a proxy's) fault, not the
            # model's answer, so it is retried and never counts towards marking a capture.
            return ModelBadReply(self._server)
        if isinstance(exc, ollama.RequestError):
            return ModelFailed(400, str(exc), self._server)
        raise exc

    async def aclose(self) -> None:
        """Nothing to stop: Ollama runs by itself."""


def _calls(calls: Sequence[Any] | None) -> tuple[ToolCall, ...]:
    """Ollama always sends arguments as a JSON object (its client refuses anything else);
    0.12 and later give each call an id."""
    return tuple(
        ToolCall(
            call.function.name,
            dict(call.function.arguments),
            id=str(getattr(call, "id", "") or f"call_{i}"),
        )
        for i, call in enumerate(calls or ())
    )


def _modelfile_num_ctx(parameters: str | None) -> int | None:
    """num_ctx from /api/show's `parameters`, one `name value` line per Modelfile PARAMETER."""
    for line in (parameters or "").splitlines():
        name, _, value = line.strip().partition(" ")
        if name == "num_ctx":
            with contextlib.suppress(ValueError):
                return int(float(value.strip()))
    return None


@functools.cache
def _tls() -> ssl.SSLContext:
    """The TLS settings httpx would make for `status()`'s client, made once: making them reads
    and parses the system's whole CA bundle (about 20 ms of CPU), even for a plain-http Ollama,
    and /api/state asks for the status every few seconds while the phone page is open."""
    return httpx.create_ssl_context()
