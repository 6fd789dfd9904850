"""The façade every stage calls: `LLM`, whatever server answers under it.

The rules every server shares live here, once: one chat call at a time (gate.py), the time
limit of each call, retries with backoff when waiting may help, leaked drafts, an answer parsed
against its whole JSON schema (whatever the server promised: llama.cpp does not enforce number
bounds, vLLM switches grammar engines silently, a server may refuse the schema), one retry that
names the errors when the server did not enforce it, tool calls printed as text read back, the
token budget, and the record the eval suite keeps. A backend (backend.py) only speaks its wire.

Every failure leaves as one of the `LLMError`s in errors.py, whose message names the server and
says what to do. Nothing else in the program catches a server's or `httpx`'s exceptions.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import math
import time
from collections.abc import AsyncGenerator, AsyncIterator, Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, TypeVar

import jsonschema
import pydantic

from commonplace.basics.backoff import backoff_s
from commonplace.config import ModelSettings
from commonplace.llm import budget
from commonplace.llm.backend import ChatRequest, ModelBackend
from commonplace.llm.errors import BadAnswer, LLMError, LLMTimeout
from commonplace.llm.gate import ModelGate, is_for_a_person
from commonplace.llm.probe import TOOL, TOOL_MAX_TOKENS, TOOL_QUESTION
from commonplace.llm.servers import Server
from commonplace.llm.textcalls import calls_in_text
from commonplace.llm.think import ThinkFilter, strip_code_fence, strip_think
from commonplace.llm.types import (
    Capabilities,
    ChatReply,
    Chunk,
    ModelStatus,
    StreamEnd,
    ToolCall,
    ToolCalling,
)

log = logging.getLogger(__name__)
_CUT_REASON = (
    "it was cut off at the length limit (the model's context or its answer limit) before it ended"
)
_UNFINISHED_REASON = (
    "the server stopped it before it ended (Ollama's runner does so to a model repeating itself)"
)
_FIX_IT = (
    "Your answer did not follow the JSON schema: {errors}. Answer again with one JSON object "
    "that follows it, and nothing else."
)

M = TypeVar("M", bound=pydantic.BaseModel)
T = TypeVar("T")
Message = Mapping[str, Any]
Recorder = Callable[[dict[str, Any]], None]


@dataclass
class LLM:
    """Async access to the model server's chat and embeddings, with this program's rules.

    `chat` and `embed` are the backends (the same object when one server does both); the
    factory (factory.py) builds them from the settings. `chat_model` and `embed_model` are the
    names as resolved ('' in the settings: the server's default)."""

    settings: ModelSettings
    chat_backend: ModelBackend
    embed_backend: ModelBackend
    chat_model: str = ""
    embed_model: str = ""
    recorder: Recorder | None = None  # the eval suite keeps every request and reply
    # Every chat call waits here for its turn: one at a time, a person's first (gate.py).
    gate: ModelGate = field(default_factory=ModelGate)
    why: str = ""  # why this backend answers (backend = "auto"), for doctor and the page
    # Called to read the resolved names from a backend that learns them (an OpenAI server's
    # first model) after its probe.
    _resolve: Callable[[], tuple[str, str]] | None = field(default=None, repr=False)
    # How each chat model makes tool calls, once found (tool_calling).
    _tool_calling: dict[str, ToolCalling] = field(default_factory=dict, repr=False)

    @property
    def server(self) -> Server:
        return self.chat_backend.server

    @property
    def embed_server(self) -> Server:
        return self.embed_backend.server

    def embed_store_name(self) -> str:
        """The embedding model as the index records it: its name, with its server kind in
        front unless it is Ollama (whose indexes, built before there was a choice of server,
        hold the bare name: they are not rebuilt by an upgrade)."""
        kind = self.embed_backend.server.kind
        return self.embed_model if kind == "ollama" else f"{kind}:{self.embed_model}"

    def embed_profile_name(self) -> str:
        """The name to look the embedding model up by in the profile table (profiles.py), or
        '' when its identity is not certain (a server's own name for a file): a wrong prefix
        costs quality silently, so an unknown model gets none."""
        return self.embed_backend.profile_name(self.embed_model)

    def with_retries(self, retries: int) -> LLM:
        """The same model and queue, another retry count (a search tries once)."""
        return replace(self, settings=replace(self.settings, retries=retries))

    async def _model(self, role: str, given: str | None) -> str:
        if given:
            return given
        name = self.chat_model if role == "chat" else self.embed_model
        if not name and self._resolve is not None:
            backend = self.chat_backend if role == "chat" else self.embed_backend
            await self._guarded("describe the model", "", 60.0, backend, backend.status)
            self.chat_model, self.embed_model = self._resolve()
            name = self.chat_model if role == "chat" else self.embed_model
        return name

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

        Where the server constrains the answer to the schema, the check here still runs,
        against the whole schema, because a model (or a server) can return something else,
        and the caller then decides. Where it does not, one more call names the errors."""
        model = await self._model("chat", model)
        fmt = dict(schema) if schema is not None else output.model_json_schema()
        messages = list(messages)
        request = ChatRequest(model, messages, schema=fmt, options=dict(options or {}))
        raw = await self._call("answer", model, self.settings.timeout_s, request)
        value, errors = _check(raw, fmt)
        if errors and not await self._enforced(model):
            log.info(
                "the %s answer did not follow its schema (%s); asked once more",
                model,
                _where(errors[0]),
            )
            said = "; ".join(_said(e) for e in errors[:3])
            again = [
                *messages,
                {"role": "assistant", "content": raw},
                {"role": "user", "content": _FIX_IT.format(errors=said)},
            ]
            raw = await self._call(
                "answer", model, self.settings.timeout_s, replace(request, messages=again)
            )
            value, errors = _check(raw, fmt)
        if errors:
            # The stage's own checks decide each field (a tag that is not one word is
            # dropped, the rest kept): the answer is not thrown away for one bad part.
            log.info(
                "the %s answer breaks its schema (%s); the checks decide", model, _where(errors[0])
            )
        try:
            return output.model_validate(value)
        except pydantic.ValidationError as exc:
            first = exc.errors()[0]
            where = ".".join(str(p) for p in first["loc"]) or "answer"
            raise BadAnswer(f"{where}: {first['msg']}", raw) from None

    async def _enforced(self, model: str) -> bool:
        """Does the server hold answers to their schema (then a wrong answer is not asked
        again: the same request gets the same answer)?"""
        with contextlib.suppress(LLMError):
            return (await self.chat_backend.capabilities(model)).json_schema is not False
        return True

    async def tool_calling(self, model: str | None = None) -> ToolCalling:
        """How the chat model makes tool calls, from what was found, never from its name:
        "calls" (it makes them), "text" (it prints them as text: they are read back, but a
        schema answer serves such a model better) or "none" (the server refuses tools, or the
        model made no call when told to use one). The server's probe says where it has one
        (probe.py); where it cannot (the built-in engine runs whatever model it is given), one
        short call with a tool finds out, once per model. A model later seen printing a call
        is "text" from then on."""
        model = await self._model("chat", model)
        known = self._tool_calling.get(model)
        if known is not None:
            return known
        found: Capabilities | None = None
        with contextlib.suppress(LLMError):
            found = await self.chat_backend.capabilities(model)
        if found is not None and found.tools is False:
            way: ToolCalling = "none"
        elif found is not None and found.tool_calls_as_text is not None:
            way = "text" if found.tool_calls_as_text else "calls"
        else:
            way = await self._try_a_tool(model)
        self._tool_calling.setdefault(model, way)
        return self._tool_calling[model]

    async def _try_a_tool(self, model: str) -> ToolCalling:
        """probe.py's tool question, through this façade (its printed calls read back)."""
        reply = await self.chat(
            [{"role": "user", "content": TOOL_QUESTION}],
            tools=[TOOL],
            model=model,
            options={"max_tokens": TOOL_MAX_TOKENS},
        )
        if not reply.tool_calls:
            log.info("the %s model made no tool call when told to use one", model)
            return "none"
        return "text" if any(c.as_text for c in reply.tool_calls) else "calls"

    def _printed(self, model: str, calls: Sequence[ToolCall]) -> None:
        """A call read back from the reply's text: this model prints its calls."""
        if any(c.as_text for c in calls) and self._tool_calling.get(model) != "text":
            self._tool_calling[model] = "text"
            log.info("the %s model printed a tool call as text", model)

    async def chat(
        self,
        messages: Sequence[Message],
        *,
        tools: Sequence[Mapping[str, Any]] | None = None,
        model: str | None = None,
        options: Mapping[str, Any] | None = None,
    ) -> ChatReply:
        """A plain or tool-using chat turn; `cut` says if it stopped at the length limit."""
        model = await self._model("chat", model)
        request = ChatRequest(
            model, list(messages), tools=list(tools or ()), options=dict(options or {})
        )
        raw, calls, cut = await self._call(
            "answer", model, self.settings.timeout_s, request, kind="chat"
        )
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
        model = await self._model("chat", model)
        flt = ThinkFilter()
        parts: list[str] = []
        done = False
        request = ChatRequest(model, list(messages), options=dict(options or {}))
        async with contextlib.aclosing(self._streamed(request)) as chunks:
            async for chunk in chunks:
                done = done or chunk.done
                if end is not None:
                    end.cut = end.cut or chunk.cut
                parts.append(chunk.text)
                out = flt.feed(chunk.text)
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
        model = await self._model("chat", model)
        flt = ThinkFilter()
        parts: list[str] = []
        calls: list[ToolCall] = []
        cut = done = False
        request = ChatRequest(
            model, list(messages), tools=list(tools or ()), options=dict(options or {})
        )
        async with contextlib.aclosing(self._streamed(request)) as chunks:
            async for chunk in chunks:
                cut = cut or chunk.cut
                done = done or chunk.done
                calls.extend(chunk.tool_calls)
                parts.append(chunk.text)
                out = flt.feed(chunk.text)
                if out:
                    await on_text(out)
        cut = cut or not done
        rest = flt.flush()
        if rest:
            await on_text(rest)
        raw = "".join(parts)
        found = tuple(calls) or _printed_calls(raw, tools)
        self._printed(model, found)
        self._record("chat", model, {"messages": list(messages), "tools": tools}, raw, found)
        return ChatReply(
            content=_text_without_calls(raw, found), tool_calls=found, raw=raw, cut=cut
        )

    async def _streamed(self, request: ChatRequest) -> AsyncGenerator[Chunk, None]:
        """The chunks of one streamed chat call, for `chat_stream` and `chat_turn`.

        The model gets `timeout_s` in all, counted only while this waits for it: the time the
        caller spends with a chunk (a slow page, a slow write) is the caller's, and no timeout
        is left running across a `yield`, where it would cancel the caller's own work. The
        model's turn is held until the stream ends or is closed; every failure is an LLMError.
        """
        backend = self.chat_backend
        model = request.model
        timeout = self.settings.timeout_s
        left = _ModelTime(timeout)
        try:
            await backend.prepare(model)
        except Exception as exc:
            raise backend.translate(exc, "answer", model, timeout) from exc
        async with self.gate.turn():
            stream: AsyncIterator[Chunk] = backend.stream(request)
            done = False
            try:
                while True:
                    try:
                        chunk = await left.wait(anext(stream, None))
                    except Exception as exc:
                        raise backend.translate(exc, "answer", model, timeout) from exc
                    if chunk is None:
                        if not done:
                            log.warning("the %s answer ended without the server's end", model)
                        return
                    done = done or chunk.done
                    if chunk.cut:
                        log.warning("the %s answer was cut off at the length limit", model)
                    yield chunk
            finally:
                close = getattr(stream, "aclose", None)
                if close is not None:
                    with contextlib.suppress(Exception):
                        await close()  # the HTTP stream ends now, not when collected

    # -- the context ----------------------------------------------------------------------

    def context_tokens(self) -> int:
        """The chat context the prompts must fit: the user's, else what the server runs with
        (where it says), else Ollama's smallest default."""
        return self.chat_backend.context_tokens()

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
        model = await self._model("embed", model)
        backend = self.embed_backend
        vectors: list[list[float]] = []
        size = self.settings.embed_batch
        for start in range(0, len(texts), size):
            batch = [t if t.strip() else " " for t in texts[start : start + size]]
            got = await self._guarded(
                "embed text",
                model,
                self.settings.embed_timeout_s,
                backend,
                lambda batch=batch: backend.embed(model, batch),  # type: ignore[misc]
            )
            if len(got) != len(batch):
                raise BadAnswer(f"asked for {len(batch)} embeddings, got {len(got)}")
            vectors.extend(got)
        if vectors:
            dim = len(vectors[0])
            if dim == 0 or any(len(v) != dim or not all(map(math.isfinite, v)) for v in vectors):
                raise BadAnswer("the embeddings had mixed sizes or were not numbers")
        return vectors

    async def context_length(self, model: str) -> int | None:
        """The context the server embeds within for this model, None if it does not say."""
        backend = self.embed_backend
        return await self._guarded(
            "describe the model", model, 30.0, backend, lambda: backend.embed_context(model)
        )

    async def capabilities(self, model: str) -> tuple[str, ...] | None:
        """What the server lists for this model (Ollama's /api/show `capabilities`), None
        when it does not say."""
        backend = self.embed_backend if model == self.embed_model else self.chat_backend
        return await self._guarded(
            "describe the model", model, 30.0, backend, lambda: backend.model_capabilities(model)
        )

    async def found(self) -> Capabilities:
        """What the chat server was found to do (its probe), for doctor and the page."""
        model = await self._model("chat", None)
        backend = self.chat_backend
        return await self._guarded(
            "describe the model", model, 120.0, backend, lambda: backend.capabilities(model)
        )

    async def embed_identity(self) -> str:
        """The embedding model's identity beyond its name (backend.identity): the index keeps
        it, and a change means new vectors, never old ones reused."""
        model = await self._model("embed", None)
        backend = self.embed_backend
        return await self._guarded(
            "describe the model", model, 60.0, backend, lambda: backend.identity(model)
        )

    # -- status -------------------------------------------------------------------------------

    async def status(self) -> ModelStatus:
        """Is the chat server there, which one, which models: for `doctor` and /api/state."""
        status = await self.chat_backend.status()
        if self._resolve is not None and status.reachable:
            self.chat_model, self.embed_model = self._resolve()
        return replace(status, why=self.why)

    async def embed_status(self) -> ModelStatus:
        """The embedding server's status, when it is another server than the chat's."""
        if self.embed_backend is self.chat_backend:
            return await self.status()
        return await self.embed_backend.status()

    async def aclose(self) -> None:
        """Stop what the backends started (the built-in engine) and close their connections."""
        await self.chat_backend.aclose()
        if self.embed_backend is not self.chat_backend:
            await self.embed_backend.aclose()

    # -- the error boundary -------------------------------------------------------------------

    async def _call(
        self,
        what: str,
        model: str,
        limit_s: float,
        request: ChatRequest,
        *,
        kind: str = "chat_json",
    ) -> Any:
        """A chat call, gated: its text (chat_json) or (text, calls, cut) (chat)."""
        backend = self.chat_backend
        reply = await self._guarded(
            what, model, limit_s, backend, lambda: backend.chat(request), gated=True
        )
        record: dict[str, Any] = {"messages": list(request.messages)}
        if kind == "chat_json":
            record["format"] = request.schema
            self._record("chat_json", model, record, reply.text)
            if reply.cut:
                raise BadAnswer(_CUT_REASON, reply.text)
            if reply.unfinished:
                raise BadAnswer(_UNFINISHED_REASON, reply.text)
            return reply.text
        calls = reply.tool_calls or _printed_calls(reply.text, request.tools)
        self._printed(model, calls)
        record["tools"] = list(request.tools) or None
        self._record("chat", model, record, reply.text, calls)
        text = (
            _text_without_calls(reply.text, calls) if calls and not reply.tool_calls else reply.text
        )
        return text, calls, reply.cut or reply.unfinished

    async def _guarded(
        self,
        what: str,
        model: str,
        limit_s: float,
        backend: ModelBackend,
        make: Callable[[], Awaitable[T]],
        *,
        gated: bool = False,
    ) -> T:
        """`make()` bounded by limit_s, retried with backoff; a `gated` (chat) call takes the
        model's turn for each attempt, and the time it waits for the turn is not in limit_s."""
        for attempt in range(self.settings.retries + 1):
            try:
                await backend.prepare(model)
                async with self.gate.turn() if gated else contextlib.nullcontext():
                    async with asyncio.timeout(limit_s):
                        return await make()
            except Exception as exc:
                error = backend.translate(exc, what, model, limit_s)
                # A person who already waited a whole timeout is told to ask again (the
                # message says so), not kept waiting two more while the model stays taken.
                timed_out = isinstance(error, LLMTimeout) and is_for_a_person()
                if not error.retryable or attempt == self.settings.retries or timed_out:
                    raise error from exc
                delay = backoff_s(self.settings.backoff_s, attempt + 1)
                log.info("%s. Trying again in %.1f s.", str(error).rstrip("."), delay)
                await asyncio.sleep(delay)
        raise AssertionError("unreachable")  # pragma: no cover

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
                    "tool_calls": [
                        {"name": c.name, "arguments": c.arguments, "as_text": c.as_text}
                        if c.as_text
                        else {"name": c.name, "arguments": c.arguments}
                        for c in calls
                    ],
                }
            )


def _check(raw: str, schema: Mapping[str, Any]) -> tuple[Any, list[jsonschema.ValidationError]]:
    """The answer as JSON, and where it breaks the whole schema (enums, bounds, patterns,
    sizes: what a server may not have enforced); a BadAnswer keeps what the model said."""
    text = strip_code_fence(strip_think(raw))
    if not text:
        raise BadAnswer("the answer was empty", raw)
    try:
        value = json.loads(text)
    except ValueError:
        raise BadAnswer("it was not JSON", raw) from None
    found = sorted(
        jsonschema.Draft202012Validator(schema).iter_errors(value), key=lambda e: list(e.path)
    )
    return value, found


def _where(error: jsonschema.ValidationError) -> str:
    """For the log: where and which rule ('links.0: enum'), never the value (the words of a
    capture or a note never go to the log)."""
    return f"{'.'.join(str(p) for p in error.absolute_path) or 'answer'}: {error.validator}"


def _said(error: jsonschema.ValidationError) -> str:
    """For the model: where and what was wrong, with its value, so it can put it right."""
    return f"{'.'.join(str(p) for p in error.absolute_path) or 'answer'}: {error.message}"


def _printed_calls(text: str, tools: Sequence[Mapping[str, Any]] | None) -> tuple[ToolCall, ...]:
    """Tool calls the model wrote as text, for the tools it was given (textcalls.py)."""
    if not tools:
        return ()
    names = [str((t.get("function") or {}).get("name") or "") for t in tools]
    found = calls_in_text(strip_think(text), names)
    if found:
        log.info("the model printed %d tool call(s) as text; read back as calls", len(found))
    return found


def _text_without_calls(raw: str, calls: Sequence[ToolCall]) -> str:
    """The reply's text; when its calls were printed in it, nothing: the printed calls are not
    words for the owner."""
    if calls and all(c.as_text for c in calls):
        return ""
    return strip_think(raw)


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
