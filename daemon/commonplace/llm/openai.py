"""An OpenAI-compatible server behind the seam: LM Studio, llama.cpp's llama-server, vLLM, Jan,
Ollama's /v1, and the built-in engine (llama.cpp's server as our own child process).

What is sent follows what the server was found to do (probe.py), once per process: the schema
enforced where the server takes `response_format` json_schema, otherwise asked for in the prompt
(json_object where taken) and checked here all the same (a server that refuses json_schema in
the middle of a run gets the same fallback at once); tools with `tool_choice: "auto"` where taken.
A tool call printed as text is recognised in the façade (textcalls.py). Streaming is read from
server-sent events. httpx, not the `openai` package: the wire is small, the servers' own fields
(llama.cpp's timings, vLLM's max_model_len, LM Studio's error strings) are needed, and httpx is
already here for Ollama.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from dataclasses import dataclass, replace
from typing import Any

import httpx

from commonplace.config import ModelSettings
from commonplace.llm import budget, openai_wire
from commonplace.llm.backend import ChatRequest
from commonplace.llm.errors import BadAnswer as BadAnswerError
from commonplace.llm.errors import (
    LLMError,
    LLMTimeout,
    ModelBadReply,
    ModelFailed,
    ModelUnavailable,
)
from commonplace.llm.openai_wire import HTTPError
from commonplace.llm.probe import Probe, probe_server
from commonplace.llm.servers import Server
from commonplace.llm.types import Capabilities, Chunk, ModelStatus, Reply

log = logging.getLogger(__name__)
_CUTS = 8  # a text cut to 3/4 eight times is a tenth of itself


@dataclass(frozen=True)
class Endpoint:
    """Where the server is now and the key it wants ('' : none)."""

    base_url: str
    api_key: str = ""


EndpointSource = Callable[[], Awaitable[Endpoint]]


class SchemaRefused(Exception):
    """The server answered 400 to the schema's response_format: sent again without it."""


class OpenAIBackend:
    """One OpenAI-compatible server (chat, embeddings, or both)."""

    def __init__(
        self,
        settings: ModelSettings,
        endpoint: EndpointSource,
        server: Server,
        *,
        known: Capabilities | None = None,
        identity_extra: Callable[[str], Awaitable[str]] | None = None,
        status_extra: Callable[[ModelStatus], ModelStatus] | None = None,
        profile_name: Callable[[str], str] | None = None,
        embed_endpoint: EndpointSource | None = None,
    ) -> None:
        self.settings = settings
        self._endpoint = endpoint
        self._embed_endpoint = embed_endpoint or endpoint  # another server for embeddings
        self._server = server
        self._named = server.kind != "openai"  # named by the settings: the probe keeps it
        self._known = known  # what the server is known to do (the built-in engine): no probe
        self._probe: Probe | None = None
        self._probing = asyncio.Lock()
        self._identity_extra = identity_extra
        self._status_extra = status_extra
        self._profile_name = profile_name
        self._clients: dict[tuple[str, str, float], httpx.AsyncClient] = {}

    @property
    def server(self) -> Server:
        return self._server

    # -- the connection -------------------------------------------------------------------

    async def _client(self, limit_s: float, *, embed: bool = False) -> httpx.AsyncClient:
        """One HTTP client per address and time limit, kept for the process (connections are
        reused); a new address (the built-in engine restarted on another port) gets its own."""
        end = await (self._embed_endpoint if embed else self._endpoint)()
        key = (end.base_url, end.api_key, limit_s)
        client = self._clients.get(key)
        if client is None:
            headers = {"Authorization": f"Bearer {end.api_key}"} if end.api_key else {}
            client = httpx.AsyncClient(
                base_url=end.base_url.rstrip("/") + "/", headers=headers, timeout=limit_s
            )
            self._clients[key] = client
            if self._server.url != end.base_url and not embed:
                self._server = replace(self._server, url=end.base_url)
        return client

    async def _post(
        self, path: str, body: dict[str, Any], limit_s: float, *, embed: bool = False
    ) -> Any:
        client = await self._client(limit_s, embed=embed)
        response = await client.post(path, json=body)
        if response.status_code >= 400:
            raise HTTPError(response.status_code, response.text, path)
        return response.json()

    async def prepare(self, model: str) -> None:
        """The server is probed once per process, before its first request."""
        await self.probe()

    async def probe(self, *, again: bool = False) -> Probe:
        """What the server and model do (probe.py); the built-in engine's is known."""
        async with self._probing:
            if self._probe is None or again:
                client = await self._client(30.0)
                self._probe = await probe_server(
                    client,
                    self._server,
                    self.settings,
                    known=self._known,
                )
                if not self._named and self._probe.kind:
                    self._server = replace(self._server, kind=self._probe.kind)
            return self._probe

    def _found(self) -> Capabilities:
        return self._probe.capabilities if self._probe else (self._known or Capabilities())

    def chat_model(self) -> str:
        """The configured chat model, else the first the server lists (after the probe)."""
        if self.settings.chat_model:
            return self.settings.chat_model
        return self._probe.chat_model if self._probe else ""

    def embed_model(self) -> str:
        if self.settings.embed_model:
            return self.settings.embed_model
        return self._probe.embed_model if self._probe else ""

    # -- chat -----------------------------------------------------------------------------

    def _body(self, request: ChatRequest, *, stream: bool) -> dict[str, Any]:
        found = self._found()
        if found.json_schema is not False:
            mode = "json_schema"
        elif found.json_object:
            mode = "json_object"
        else:
            mode = "prompt"
        return openai_wire.chat_body(
            request.model,
            request.messages,
            tools=request.tools,
            schema=request.schema,
            schema_mode=mode,
            options=request.options,
            stream=stream,
            think=self.settings.think,
            template_kwargs=self._server.kind in ("llama.cpp", "vllm", "builtin"),
        )

    async def chat(self, request: ChatRequest) -> Reply:
        try:
            body = await self._post(
                "chat/completions", self._body(request, stream=False), self.settings.timeout_s
            )
        except HTTPError as exc:
            if request.schema is not None and exc.refuses_schema():
                self._schema_refused(exc)
                body = await self._post(
                    "chat/completions", self._body(request, stream=False), self.settings.timeout_s
                )
            else:
                raise
        reply = openai_wire.read_reply(body)
        if reply.bad_arguments:
            log.info(
                "the model's call(s) to %s had arguments that are no JSON object",
                ", ".join(reply.bad_arguments),
            )
        return Reply(text=reply.text, tool_calls=reply.calls, cut=reply.finish == "length")

    def _schema_refused(self, exc: HTTPError) -> None:
        """A server that refused the schema mid-run (another model loaded, LM Studio's
        json_object): from now on the schema is asked for in the prompt, and checked here."""
        log.warning(
            "%s refused the answer's schema (%s); asking for it in the prompt from now on",
            self._server.where,
            exc.message,
        )
        found = self._found()
        if found.json_schema is not False:
            found = replace(found, json_schema=False)
        else:
            found = replace(found, json_object=False)
        if self._probe is not None:
            self._probe = replace(self._probe, capabilities=found)
        else:
            self._known = found

    async def stream(self, request: ChatRequest) -> AsyncIterator[Chunk]:
        client = await self._client(self.settings.timeout_s)
        state = openai_wire.StreamState()
        body = self._body(request, stream=True)
        async with client.stream("POST", "chat/completions", json=body) as response:
            if response.status_code >= 400:
                text = (await response.aread()).decode("utf-8", "replace")
                raise HTTPError(response.status_code, text, "chat/completions")
            done = False
            async for line in response.aiter_lines():
                data = openai_wire.sse_data(line)
                if data is None:
                    continue
                if data == "":
                    done = True
                    break
                event = json.loads(data)
                if isinstance(event, dict) and event.get("error"):
                    message = openai_wire.error_message(-1, data)
                    raise ModelFailed(-1, message, self._server)
                text = state.feed(event)
                if text:
                    yield Chunk(text=text)
        done = done or bool(state.finish)
        yield Chunk(tool_calls=state.calls(), done=done, cut=state.finish == "length")

    def profile_name(self, model: str) -> str:
        """A server's own name for a model says nothing certain of what it is (a file named
        like a known model): none, unless the built-in engine verified the file."""
        return self._profile_name(model) if self._profile_name else ""

    def context_tokens(self) -> int:
        """The user's context, else what the server said (llama.cpp's /props, vLLM's
        max_model_len), else the smallest any of them runs with."""
        return self.settings.context or self._found().context or budget.OLLAMA_DEFAULT_CTX

    # -- embeddings -----------------------------------------------------------------------

    async def embed(self, model: str, texts: Sequence[str]) -> list[list[float]]:
        """As Ollama's `truncate`: an input longer than the model takes is cut, not refused.
        These servers refuse it instead (llama.cpp: "input is too large to process", past its
        batch; vLLM: "maximum context length"), so a refused batch is sent one text at a time
        and a refused text again with its end cut, until it fits."""
        try:
            return await self._embed(model, texts)
        except HTTPError as exc:
            if not exc.too_long():
                raise
        vectors = []
        for text in texts:
            for _ in range(_CUTS):
                try:
                    vectors += await self._embed(model, [text])
                    break
                except HTTPError as exc:
                    if not exc.too_long():
                        raise
                    log.info("a text too long for the embedding model was cut to fit")
                    text = text[: len(text) * 3 // 4]
            else:
                raise BadAnswerError("a text stayed too long for the embedding model")
        return vectors

    async def _embed(self, model: str, texts: Sequence[str]) -> list[list[float]]:
        body = {"model": model, "input": list(texts), "encoding_format": "float"}
        data = await self._post("embeddings", body, self.settings.embed_timeout_s, embed=True)
        rows = sorted(data["data"], key=lambda row: int(row.get("index", 0)))
        return [list(map(float, row["embedding"])) for row in rows]

    async def embed_context(self, model: str) -> int | None:
        await self.probe()
        return self._found().embed_context

    async def model_capabilities(self, model: str) -> tuple[str, ...] | None:
        return None  # no standard way to ask; the probe tries instead

    async def capabilities(self, model: str) -> Capabilities:
        await self.probe()
        return self._found()

    async def identity(self, model: str) -> str:
        """Server, model name and what the server says of the file behind it (llama.cpp: the
        model's path and size; the built-in engine: the GGUF's SHA-256), and the dimension."""
        probe = await self.probe()
        extra = await self._identity_extra(model) if self._identity_extra else probe.model_facts
        return f"{self._server.kind} {self._server.url} {model} {extra}".strip()

    # -- status ---------------------------------------------------------------------------

    async def status(self) -> ModelStatus:
        """The server, its models and what they were found to do, for doctor and the page."""
        try:
            client = await self._client(10.0)
            async with asyncio.timeout(10):
                listed = await client.get("models")
            if listed.status_code >= 400:
                raise HTTPError(listed.status_code, listed.text, "models")
            names = tuple(
                str(m.get("id") or "")
                for m in listed.json().get("data") or ()
                if isinstance(m, dict)
            )
            probe = await self.probe()
        except Exception as exc:  # any failure here means "not usable now"
            error = self.translate(exc, "list its models", "", 10)
            status = ModelStatus(
                reachable=False,
                host=self._server.url,
                backend="builtin" if self._server.kind == "builtin" else "openai",
                server=self._server.name,
                error=str(error),
            )
            return self._status_extra(status) if self._status_extra else status
        status = ModelStatus(
            reachable=True,
            host=self._server.url,
            backend="builtin" if self._server.kind == "builtin" else "openai",
            server=self._server.name,
            version=probe.version,
            models=names,
            capabilities=probe.capabilities,
        )
        return self._status_extra(status) if self._status_extra else status

    # -- the error boundary -----------------------------------------------------------------

    def translate(self, exc: BaseException, what: str, model: str, timeout: float) -> LLMError:
        server = self._server
        if isinstance(exc, LLMError):
            return exc
        if isinstance(exc, TimeoutError | httpx.TimeoutException):
            return LLMTimeout(what, timeout, server)
        if isinstance(exc, ConnectionError | httpx.TransportError):
            return ModelUnavailable(server)
        if isinstance(exc, HTTPError):
            return exc.translate(model, server, embed=what.startswith("embed"))
        if isinstance(exc, json.JSONDecodeError | KeyError | TypeError | IndexError | ValueError):
            return ModelBadReply(server)
        raise exc

    async def aclose(self) -> None:
        clients, self._clients = list(self._clients.values()), {}
        for client in clients:
            with contextlib.suppress(Exception):
                await client.aclose()
