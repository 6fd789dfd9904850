"""The one place that talks to Ollama.

Every call is bounded (a timeout around the whole call), retried with backoff when waiting may
help, and every failure leaves as one of the `LLMError`s in errors.py, whose message says what
to do. Nothing else in the program catches `ollama` or `httpx` exceptions.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import json
import logging
import math
import ssl
import time
from collections.abc import AsyncGenerator, Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, TypeVar

import httpx
import ollama
import pydantic

from commonplace.basics.backoff import backoff_s
from commonplace.config import OllamaSettings, is_cloud_model, keep_alive_value
from commonplace.llm import budget
from commonplace.llm.errors import (
    BadAnswer,
    CloudModel,
    LLMError,
    LLMTimeout,
    ModelMissing,
    ModelUnsuitable,
    OllamaBadReply,
    OllamaFailed,
    OllamaUnavailable,
)
from commonplace.llm.gate import ModelGate, is_for_a_person
from commonplace.llm.think import ThinkFilter, strip_code_fence, strip_think

log = logging.getLogger(__name__)
_CUT_REASON = (
    "it was cut off at the length limit (the model's context or num_predict) before it ended"
)
# llm/llama_server.go stops a model that repeats one token over and over and returns without
# its final response: Ollama's reply then never says `done` (and has no done_reason).
_UNFINISHED_REASON = (
    "Ollama stopped it before it ended (its runner does so to a model repeating itself)"
)

M = TypeVar("M", bound=pydantic.BaseModel)
T = TypeVar("T")
Message = Mapping[str, Any]
Recorder = Callable[[dict[str, Any]], None]


@dataclass(frozen=True)
class ToolCall:
    name: str
    arguments: dict[str, Any]


@dataclass(frozen=True)
class ChatReply:
    content: str  # drafts removed
    tool_calls: tuple[ToolCall, ...] = ()
    raw: str = ""  # the content exactly as the model sent it
    cut: bool = False  # stopped before its end: the length limit, or Ollama never said done


@dataclass
class StreamEnd:
    """How a `chat_stream` ended, filled in when it does: `cut` as in ChatReply."""

    cut: bool = False


def _cut_short(response: ollama.ChatResponse) -> bool:
    """The reply stopped before its end: at the length limit, or never marked done."""
    return response.done_reason == "length" or response.done is False


@dataclass(frozen=True)
class OllamaStatus:
    reachable: bool
    host: str
    version: str = ""
    models: tuple[str, ...] = ()
    error: str = ""
    digests: tuple[str, ...] = ()  # of `models`, in the same order
    # Pulled cloud models (a stub with a remote_host, under any name, e.g. after `ollama cp`):
    # Ollama sends their requests to remote_hosts, in the same order.
    remote: tuple[str, ...] = ()
    remote_hosts: tuple[str, ...] = ()

    def remote_host(self, name: str) -> str:
        """Where Ollama sends this model's requests ('' when it runs here)."""
        for model, host in zip(self.remote, self.remote_hosts, strict=False):
            if same_model(name, [model]):
                return host
        return ""

    def has_model(self, name: str) -> bool:
        return same_model(name, self.models)

    def digest(self, name: str) -> str:
        """The model's digest ('' if not pulled): it changes when the model is pulled anew."""
        for model, digest in zip(self.models, self.digests, strict=False):
            if same_model(name, [model]):
                return digest
        return ""


@dataclass
class LLM:
    """Async access to Ollama's chat and embedding APIs, with this program's error rules."""

    settings: OllamaSettings
    recorder: Recorder | None = None  # the eval suite keeps every request and reply
    # Every chat call waits here for its turn: one at a time, a person's first (gate.py).
    gate: ModelGate = field(default_factory=ModelGate)
    _chat_client: ollama.AsyncClient = field(init=False, repr=False)
    _embed_client: ollama.AsyncClient = field(init=False, repr=False)
    _remote: tuple[str, ...] = field(init=False, repr=False, default=())  # from status()
    _listed: bool = field(init=False, repr=False, default=False)  # /api/tags read once
    _listing: asyncio.Lock = field(init=False, repr=False, default_factory=asyncio.Lock)

    def __post_init__(self) -> None:
        s = self.settings
        self._chat_client = ollama.AsyncClient(host=s.host, timeout=s.timeout_s)
        self._embed_client = ollama.AsyncClient(host=s.host, timeout=s.embed_timeout_s)

    # -- chat ---------------------------------------------------------------------------------

    async def chat_json(
        self,
        messages: Sequence[Message],
        output: type[M],
        *,
        schema: Mapping[str, Any] | None = None,
        model: str | None = None,
        options: Mapping[str, Any] | None = None,
    ) -> M:
        """Ask for JSON in `schema` (default: `output`'s schema) and parse it into `output`.

        Ollama constrains the answer to the schema; the parse here still checks it, because a
        model (or an older Ollama) can return something else, and the caller then decides.
        """
        model = model or self.settings.chat_model
        fmt = dict(schema) if schema is not None else output.model_json_schema()
        response = await self._call(
            "answer",
            model,
            self.settings.timeout_s,
            gated=True,
            make=lambda: self._chat_client.chat(
                model=model,
                messages=list(messages),
                format=fmt,
                options=self._options(options),
                keep_alive=self._keep_alive(),
                think=self._think(),
                stream=False,
            ),
        )
        raw = response.message.content or ""
        self._record("chat_json", model, {"messages": list(messages), "format": fmt}, raw)
        if response.done_reason == "length":
            raise BadAnswer(_CUT_REASON, raw)
        if response.done is False:
            raise BadAnswer(_UNFINISHED_REASON, raw)
        text = strip_code_fence(strip_think(raw))
        if not text:
            raise BadAnswer("the answer was empty", raw)
        try:
            return output.model_validate_json(text)
        except pydantic.ValidationError as exc:
            first = exc.errors()[0]
            where = ".".join(str(p) for p in first["loc"]) or "answer"
            if first["type"] == "json_invalid":
                raise BadAnswer("it was not JSON", raw) from None
            raise BadAnswer(f"{where}: {first['msg']}", raw) from None

    async def chat(
        self,
        messages: Sequence[Message],
        *,
        tools: Sequence[Mapping[str, Any]] | None = None,
        model: str | None = None,
        options: Mapping[str, Any] | None = None,
    ) -> ChatReply:
        """A plain or tool-using chat turn; `cut` says if it stopped at the length limit."""
        model = model or self.settings.chat_model
        response = await self._call(
            "answer",
            model,
            self.settings.timeout_s,
            gated=True,
            make=lambda: self._chat_client.chat(
                model=model,
                messages=list(messages),
                tools=list(tools) if tools else None,
                options=self._options(options),
                keep_alive=self._keep_alive(),
                think=self._think(),
                stream=False,
            ),
        )
        raw = response.message.content or ""
        # Ollama always sends arguments as a JSON object; its client refuses anything else.
        calls = tuple(
            ToolCall(call.function.name, dict(call.function.arguments))
            for call in response.message.tool_calls or ()
        )
        self._record("chat", model, {"messages": list(messages), "tools": tools}, raw, calls)
        cut = _cut_short(response)
        if cut:
            log.warning("the %s answer was cut off before its end", model)
        return ChatReply(content=strip_think(raw), tool_calls=calls, raw=raw, cut=cut)

    async def chat_stream(
        self,
        messages: Sequence[Message],
        *,
        model: str | None = None,
        options: Mapping[str, Any] | None = None,
        end: StreamEnd | None = None,
    ) -> AsyncGenerator[str, None]:
        """Yield the answer's text as it arrives, drafts held back; `end` says, once the
        stream is over, whether the answer stopped before its end.

        Timed and gated as `_streamed` says: the model's turn is held until the stream ends or
        is closed, so iterate it under `contextlib.aclosing` when you may stop early."""
        model = model or self.settings.chat_model
        flt = ThinkFilter()
        parts: list[str] = []
        done = False
        async with contextlib.aclosing(self._streamed(model, messages, None, options)) as chunks:
            async for chunk in chunks:
                done = done or bool(chunk.done)
                if end is not None:
                    end.cut = end.cut or chunk.done_reason == "length"
                piece = chunk.message.content or ""
                parts.append(piece)
                out = flt.feed(piece)
                if out:
                    yield out
        if end is not None:
            end.cut = end.cut or not done
        rest = flt.flush()
        if rest:
            yield rest
        self._record("chat_stream", model, {"messages": list(messages)}, "".join(parts))

    async def chat_turn(
        self,
        messages: Sequence[Message],
        *,
        tools: Sequence[Mapping[str, Any]] | None = None,
        on_text: Callable[[str], Awaitable[None]] | None = None,
        model: str | None = None,
        options: Mapping[str, Any] | None = None,
    ) -> ChatReply:
        """One tool-using turn, streamed: text goes to `on_text` as it arrives (drafts held
        back), tool calls are collected from every chunk. Without `on_text` this is `chat`
        (with its retries); a stream is not retried, as its text may already be shown."""
        if on_text is None:
            return await self.chat(messages, tools=tools, model=model, options=options)
        model = model or self.settings.chat_model
        flt = ThinkFilter()
        parts: list[str] = []
        calls: list[ToolCall] = []
        cut = done = False
        async with contextlib.aclosing(self._streamed(model, messages, tools, options)) as chunks:
            async for chunk in chunks:
                cut = cut or chunk.done_reason == "length"
                done = done or bool(chunk.done)
                for call in chunk.message.tool_calls or ():  # arguments: always an object
                    calls.append(ToolCall(call.function.name, dict(call.function.arguments)))
                piece = chunk.message.content or ""
                parts.append(piece)
                out = flt.feed(piece)
                if out:
                    await on_text(out)
        cut = cut or not done
        rest = flt.flush()
        if rest:
            await on_text(rest)
        raw = "".join(parts)
        self._record("chat", model, {"messages": list(messages), "tools": tools}, raw, calls)
        return ChatReply(content=strip_think(raw), tool_calls=tuple(calls), raw=raw, cut=cut)

    async def _streamed(
        self,
        model: str,
        messages: Sequence[Message],
        tools: Sequence[Mapping[str, Any]] | None,
        options: Mapping[str, Any] | None,
    ) -> AsyncGenerator[ollama.ChatResponse, None]:
        """The chunks of one streamed chat call, for `chat_stream` and `chat_turn`.

        The model gets `timeout_s` in all, counted only while this waits for it: the time the
        caller spends with a chunk (a slow page, a slow write) is the caller's, and no timeout
        is left running across a `yield`, where it would cancel the caller's own work. The
        model's turn is held until the stream ends or is closed; every failure is an LLMError.
        """
        await self._local_only(model)
        timeout = self.settings.timeout_s
        budget = _ModelTime(timeout)
        async with self.gate.turn():
            try:
                stream = await budget.wait(
                    self._chat_client.chat(
                        model=model,
                        messages=list(messages),
                        tools=list(tools) if tools else None,
                        options=self._options(options),
                        keep_alive=self._keep_alive(),
                        think=self._think(),
                        stream=True,
                    )
                )
            except Exception as exc:
                raise self._translate(exc, "answer", model, timeout) from exc
            chunks = aiter(stream)
            done = False
            try:
                while True:
                    try:
                        chunk = await budget.wait(anext(chunks, None))
                    except Exception as exc:
                        raise self._translate(exc, "answer", model, timeout) from exc
                    if chunk is None:
                        if not done:
                            log.warning("the %s answer ended without Ollama's end", model)
                        return
                    done = done or bool(chunk.done)
                    if chunk.done_reason == "length":
                        log.warning("the %s answer was cut off at the length limit", model)
                    yield chunk
            finally:
                close = getattr(chunks, "aclose", None)
                if close is not None:
                    with contextlib.suppress(Exception):
                        await close()  # the HTTP stream ends now, not when collected

    # -- what every chat call sends -------------------------------------------------------

    def _think(self) -> bool | None:
        """The one think decision for every chat call (tidy, digest, ask, the assistant).

        False by default: Ollama accepts it from every model, and a thinking model then answers
        at once instead of reasoning first (which costs time and context on every call). True
        only when the user sets `[ollama] think = "on"` (models that cannot think refuse it);
        None sends nothing, so a thinking model follows its own default and thinks.
        """
        return {"on": True, "off": False}.get(self.settings.think)

    def _keep_alive(self) -> str | float:
        """A number of seconds goes as a number: Ollama refuses "600" as a duration string."""
        value = keep_alive_value(self.settings.keep_alive)
        return self.settings.keep_alive if value is None else value

    def _options(self, extra: Mapping[str, Any] | None) -> dict[str, Any]:
        """num_ctx only when the user set it: the server's own default is larger on big GPUs,
        and a different num_ctx on every client makes Ollama reload the model."""
        options: dict[str, Any] = {"temperature": 0}
        if self.settings.num_ctx:
            options["num_ctx"] = self.settings.num_ctx
        return {**options, **(extra or {})}

    def context_tokens(self) -> int:
        """The chat context the prompts must fit: the user's num_ctx, else Ollama's smallest
        default."""
        return self.settings.num_ctx or budget.OLLAMA_DEFAULT_CTX

    def prompt_room(self, messages: Sequence[Message]) -> int:
        """Tokens still free for more prompt text after `messages`, with the reply's room kept
        (more when the model may think first)."""
        reply = budget.REPLY_TOKENS
        if self.settings.think != "off":
            reply += budget.THINKING_TOKENS
        return self.context_tokens() - budget.messages_tokens(messages) - reply

    # -- embeddings ---------------------------------------------------------------------------

    async def embed(self, texts: Sequence[str], *, model: str | None = None) -> list[list[float]]:
        """Embed texts in batches of `embed_batch`; every vector is checked for shape."""
        model = model or self.settings.embed_model
        vectors: list[list[float]] = []
        size = self.settings.embed_batch
        for start in range(0, len(texts), size):
            batch = [t if t.strip() else " " for t in texts[start : start + size]]
            response = await self._call(
                "embed text",
                model,
                self.settings.embed_timeout_s,
                make=lambda batch=batch: self._embed_client.embed(  # type: ignore[misc]
                    model=model, input=batch, truncate=True, keep_alive=self._keep_alive()
                ),
            )
            got = [list(v) for v in response.embeddings]
            if len(got) != len(batch):
                raise BadAnswer(f"asked for {len(batch)} embeddings, got {len(got)}")
            vectors.extend(got)
        if vectors:
            dim = len(vectors[0])
            if dim == 0 or any(len(v) != dim or not all(map(math.isfinite, v)) for v in vectors):
                raise BadAnswer("the embeddings had mixed sizes or were not numbers")
        return vectors

    async def context_length(self, model: str) -> int | None:
        """The context Ollama embeds within for this model (/api/show), None if it says none.

        Not the trained context alone (`<arch>.context_length`): Ollama cuts each input at
        min(num_ctx, trained), and this program sends no num_ctx for embeddings, so num_ctx is
        the Modelfile's parameter or else the server's own default, at least 4096 (routes.go
        `modelOptions`, `EmbedHandler`). A chunk sized past it would lose its end silently.
        """
        response = await self._call(
            "describe the model", model, 30.0, lambda: self._embed_client.show(model)
        )
        info = response.modelinfo or {}
        value = info.get(f"{info.get('general.architecture', '')}.context_length")
        if not isinstance(value, int) or value <= 0:
            return None
        return min(value, _modelfile_num_ctx(response.parameters) or budget.OLLAMA_DEFAULT_CTX)

    async def capabilities(self, model: str) -> tuple[str, ...] | None:
        """What Ollama says the model can do (/api/show `capabilities`: completion, tools,
        thinking, embedding, vision, ...), None when this Ollama does not say (older than
        0.6.4). Ollama itself checks these when a request arrives, except for embeddings."""
        response = await self._call(
            "describe the model", model, 30.0, lambda: self._embed_client.show(model)
        )
        return tuple(str(c) for c in response.capabilities) if response.capabilities else None

    # -- status -------------------------------------------------------------------------------

    async def status(self) -> OllamaStatus:
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
            error = self._translate(exc, "list its models", "", 10)
            return OllamaStatus(reachable=False, host=host, error=str(error))
        names = tuple(str(m.get("model") or m.get("name") or "") for m in listed)
        remote = [
            (n, str(m["remote_host"]))
            for n, m in zip(names, listed, strict=True)
            if m.get("remote_host")
        ]
        self._remote = tuple(n for n, _ in remote)
        self._listed = True
        return OllamaStatus(
            reachable=True,
            host=host,
            version=str(version),
            models=names,
            digests=tuple(str(m.get("digest") or "") for m in listed),
            remote=self._remote,
            remote_hosts=tuple(h for _, h in remote),
        )

    # -- the error boundary -------------------------------------------------------------------

    async def _local_only(self, model: str) -> None:
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

    async def _call(
        self,
        what: str,
        model: str,
        limit_s: float,
        make: Callable[[], Awaitable[T]],
        *,
        gated: bool = False,
    ) -> T:
        """`make()` bounded by limit_s, retried with backoff; a `gated` (chat) call takes the
        model's turn for each attempt, and the time it waits for the turn is not in limit_s."""
        await self._local_only(model)
        for attempt in range(self.settings.retries + 1):
            try:
                async with self.gate.turn() if gated else contextlib.nullcontext():
                    async with asyncio.timeout(limit_s):
                        return await make()
            except Exception as exc:
                error = self._translate(exc, what, model, limit_s)
                # A person who already waited a whole timeout is told to ask again (the
                # message says so), not kept waiting two more while the model stays taken.
                timed_out = isinstance(error, LLMTimeout) and is_for_a_person()
                if not error.retryable or attempt == self.settings.retries or timed_out:
                    raise error from exc
                delay = backoff_s(self.settings.backoff_s, attempt + 1)
                log.info("%s. Trying again in %.1f s.", str(error).rstrip("."), delay)
                await asyncio.sleep(delay)
        raise AssertionError("unreachable")  # pragma: no cover

    def _translate(self, exc: BaseException, what: str, model: str, timeout: float) -> LLMError:
        if isinstance(exc, LLMError):
            return exc
        if isinstance(exc, TimeoutError | httpx.TimeoutException):
            return LLMTimeout(what, timeout)
        if isinstance(exc, ConnectionError | httpx.TransportError):
            return OllamaUnavailable(self.settings.host)
        if isinstance(exc, ollama.ResponseError):
            message = str(exc.error)
            if exc.status_code == 404 and "not found" in message and model:
                return ModelMissing(model)
            if exc.status_code == 400 and "does not support" in message and model:
                return ModelUnsuitable(model, message)
            if (exc.status_code == 501 or "support embeddings" in message) and model:
                # /api/embed to a model without the embedding capability: Ollama loads it,
                # then its llama-server (no --embedding) answers 501 (llm/llama_server.go).
                return ModelUnsuitable(model, message)
            return OllamaFailed(exc.status_code, message)
        if isinstance(exc, json.JSONDecodeError | pydantic.ValidationError | KeyError):
            # The HTTP body itself could not be read: Ollama's (or a proxy's) fault, not the
            # model's answer, so it is retried and never counts towards marking a capture.
            return OllamaBadReply()
        if isinstance(exc, ollama.RequestError):
            return OllamaFailed(400, str(exc))
        raise exc

    def _record(
        self,
        kind: str,
        model: str,
        request: Mapping[str, Any],
        reply: str,
        calls: Sequence[ToolCall] = (),
    ) -> None:
        if self.recorder is not None:
            self.recorder(
                {
                    "kind": kind,
                    "model": model,
                    "time": time.time(),
                    "request": dict(request),
                    "reply": reply,
                    "tool_calls": [{"name": c.name, "arguments": c.arguments} for c in calls],
                }
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


def same_model(name: str, available: Sequence[str]) -> bool:
    """The same model to Ollama: 'nomic-embed-text' is 'nomic-embed-text:latest', and
    'Qwen3.5:9B' or 'registry.ollama.ai/library/qwen3.5:9b' is 'qwen3.5:9b' (`model.ParseName`
    fills in the default host, namespace and tag; `getExistingName` ignores case)."""

    def norm(n: str) -> str:
        parts = n.split("/")
        parts = [*["registry.ollama.ai", "library"][: max(0, 3 - len(parts))], *parts]
        if ":" not in parts[-1]:
            parts[-1] += ":latest"
        return "/".join(parts).casefold()

    return norm(name) in {norm(a) for a in available}


class _ModelTime:
    """A streamed answer's time budget: only the waits for the model count."""

    def __init__(self, seconds: float) -> None:
        self.left = seconds

    async def wait(self, step: Awaitable[T]) -> T:
        started = time.monotonic()
        try:
            async with asyncio.timeout(max(self.left, 0.0)):
                return await step
        finally:
            self.left -= time.monotonic() - started
