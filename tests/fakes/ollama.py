"""A fake Ollama server that speaks the HTTP API, so tests run the real `ollama` client.

Why at the HTTP boundary: the daemon's real client code (request building, streaming, error
mapping, timeouts) must run in tests, while the test scripts what the "model" answers, including
hostile and malformed answers. See DESIGN.md, "Running without the real services".

Run standalone with `python -m tests.fakes.ollama --port 11434`.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import hashlib
import json
import math
import re
import socket
import threading
from collections import deque
from collections.abc import Awaitable, Callable, Iterable, Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from aiohttp import web

from tests.fakes import ollama_rules as rules
from tests.fakes.embedding import hashed_embedding
from tests.fakes.stand_in_models import STAND_INS


@dataclass(frozen=True)
class FakeError:
    """Answer with this HTTP status and body `{"error": message}`."""

    status: int
    message: str


@dataclass(frozen=True)
class Stall:
    """Sleep, then answer `reply` (default "OK"): to exercise client timeouts."""

    seconds: float
    reply: Reply | None = None


@dataclass(frozen=True)
class Hold:
    """Wait until the test sets `release`, then answer `reply` (default "OK"): a call that holds
    the model exactly as long as the test needs, whatever the machine's load."""

    release: asyncio.Event
    reply: Reply | None = None


@dataclass(frozen=True)
class Raw:
    """Send this body verbatim, possibly malformed."""

    text: str
    status: int = 200
    content_type: str = "application/json"


@dataclass(frozen=True)
class StreamError:
    """Generation fails after `after_chunks` pieces of `content` were streamed.

    As in Ollama's `streamResponse`: once a chunk was written the error is an `{"error": ...}`
    line; before the first chunk (after_chunks=0), and for a non-streaming request, it is the
    HTTP `status` with a JSON body.
    """

    after_chunks: int
    message: str
    content: str = "this answer is cut off before it can finish"
    status: int = 500


@dataclass(frozen=True)
class Unfinished:
    """The runner returns before its final response, so the reply never says done.

    As in `llm/llama_server.go` `Completion`, which stops a model repeating one token more
    than 30 times by returning `ctx.Err()` (nil) without the `Stop` event (and `Chat`, when
    llama-server's stream ends without a finish_reason): without streaming, Ollama's answer is
    the last chunk, `done: false` and no `done_reason`; streamed, no done line ever comes.
    """

    content: str


Reply = str | dict[str, Any] | FakeError | Stall | Hold | Raw | StreamError | Unfinished


@dataclass
class RecordedRequest:
    """One request as the fake saw it, and what the "model" made of it."""

    path: str
    method: str
    body: Any
    headers: dict[str, str]
    thought: bool = False  # the model reasoned before answering (think on, or its default)
    truncated: bool = False  # the prompt did not fit num_ctx and Ollama cut it
    prompt_tokens: int = 0
    done_reason: str = ""


Response = web.StreamResponse
_RECORD = web.RequestKey("record", RecordedRequest)
_Handler = Callable[[web.Request, dict[str, Any]], Awaitable[Response]]

# --- the fake server -----------------------------------------------------------------------------

_PIECE_RE = re.compile(r"\S+\s*|\s+")
_DURATIONS = {"total_duration": 1_200_000, "load_duration": 100_000, "eval_duration": 800_000}
DEFAULT_THINKING = "The person wants an answer; I will give it in the form asked for."


def _now() -> str:
    return datetime.now(UTC).isoformat().replace("+00:00", "Z")


def _error(status: int, message: str) -> web.Response:
    return web.json_response({"error": message}, status=status)


def _not_found(model: str) -> web.Response:
    """The scheduler's wording (`handleScheduleError`), used by /api/embed and /api/generate."""
    return _error(404, f'model "{model}" not found, try pulling it first')


def _truncated(vec: list[float], dims: int) -> list[float]:
    """Like Ollama's `dimensions`: keep the first dims, then renormalise."""
    if dims == len(vec):
        return vec
    norm = math.sqrt(sum(x * x for x in vec[:dims])) or 1.0
    return [x / norm for x in vec[:dims]]


def _cut(text: str, tokens: int) -> str:
    """The first `tokens` tokens of text, by the fake's tokenizer (four bytes a token)."""
    data = text.encode("utf-8")[: max(0, tokens) * 4]
    return data.decode("utf-8", errors="ignore")


@dataclass
class _Generation:
    """What the "model" produced for one request, after Ollama's rules."""

    content: str
    thinking: str
    tool_calls: list[Any]
    done_reason: str
    prompt_tokens: int
    eval_tokens: int


class FakeOllama:
    """Ollama's HTTP API with a scripted "model"; every request is recorded for assertions.

    Models are listed by name; what each can do (`capabilities`) and its trained context
    (`context_length`) follow Ollama's library unless a test sets them. The server refuses what
    Ollama refuses (see tests/fakes/ollama_rules.py for where each rule comes from).
    """

    def __init__(
        self,
        models: Iterable[str] = ("qwen3.5:9b", "nomic-embed-text:latest"),
        dim: int = 384,
    ) -> None:
        self.models = list(models)
        self.capabilities: dict[str, tuple[str, ...]] = {
            m: rules.default_capabilities(m) for m in self.models
        }
        self.context_length: dict[str, int] = {}  # trained context; default by kind
        self.model_num_ctx: dict[str, int] = {}  # a Modelfile's PARAMETER num_ctx
        self.default_num_ctx = rules.DEFAULT_NUM_CTX  # the server's own, when none is sent
        self.dim = dim
        self.url = ""
        self.requests: list[RecordedRequest] = []
        self.chat_handler: Callable[[dict[str, Any]], Reply] | None = None
        self.generate_reply: Reply = "OK"
        self.delay = 0.0
        self.embed_delay = 0.0
        self.fail_embed: FakeError | None = None
        self.record = True  # off for long benchmark runs, where bodies would pile up
        self.version = "0.12.6"  # what /api/version reports (an old one, to test the warning)
        self.chats_in_flight = 0  # /api/chat requests being answered now
        self.max_chats_in_flight = 0  # the most at once: the daemon sends one at a time
        self.max_queue = 0  # when set, a chat finding this many in flight gets 503 server busy
        self.sent_to_cloud = 0  # requests real Ollama would have sent on to ollama.com
        self.remote_host: dict[str, str] = {}  # pulled cloud stubs: where Ollama sends them
        self._chat_queue: deque[Reply] = deque()

    # scripting and inspection
    def enqueue_chat(self, *replies: Reply) -> None:
        """Queue replies, consumed one per /api/chat request in order."""
        self._chat_queue.extend(replies)

    def add_model(
        self,
        name: str,
        *capabilities: str,
        context_length: int = 0,
        num_ctx: int = 0,
        remote_host: str = "",
    ) -> None:
        """Serve another model; capabilities default to what Ollama's library lists for it.
        `num_ctx` is its Modelfile's parameter, which beats the server's default;
        `remote_host` makes it a pulled cloud model, which Ollama runs there, not here."""
        if remote_host:
            self.remote_host[name] = remote_host
        self.models.append(name)
        self.capabilities[name] = capabilities or rules.default_capabilities(name)
        if context_length:
            self.context_length[name] = context_length
        if num_ctx:
            self.model_num_ctx[name] = num_ctx

    def chat_requests(self) -> list[dict[str, Any]]:
        return [r.body for r in self.requests if r.path == "/api/chat"]

    def chat_records(self) -> list[RecordedRequest]:
        return [r for r in self.requests if r.path == "/api/chat"]

    def embed_requests(self) -> list[dict[str, Any]]:
        return [r.body for r in self.requests if r.path == "/api/embed"]

    def _resolve(self, name: str) -> str | None:
        """Match Ollama's naming: "nomic-embed-text" means "nomic-embed-text:latest", and
        "Qwen3.5:9B" or "registry.ollama.ai/library/qwen3.5:9b" mean "qwen3.5:9b"."""
        if not name:
            return None
        wanted = rules.canonical_name(name)
        return next((m for m in self.models if rules.canonical_name(m) == wanted), None)

    def _caps(self, model: str) -> tuple[str, ...]:
        return self.capabilities.get(model) or rules.default_capabilities(model)

    def _train_ctx(self, model: str) -> int:
        embed = "embedding" in self._caps(model)
        return self.context_length.get(model, 2048 if embed else 262144)

    def _next_chat_reply(self, body: dict[str, Any]) -> Reply:
        if self._chat_queue:
            return self._chat_queue.popleft()
        if self.chat_handler is not None:
            return self.chat_handler(body)
        return "OK"

    def _details(self, name: str) -> dict[str, Any]:
        embed = "embedding" in self._caps(name)
        family = "nomic-bert" if "nomic" in name else "bert"
        if not embed:
            family = re.sub(r"[^a-z].*", "", name) or "llama"
            if name.lower().startswith(rules.DEEPSEEK2_MODELS):
                family = "deepseek2"
        tag = name.split(":")[1] if ":" in name else ""
        size = tag.upper() if re.fullmatch(r"[\d.]+[bm]", tag) else ("137M" if embed else "7B")
        quant = "F16" if embed else "Q4_K_M"
        return {
            "parent_model": "",
            "format": "gguf",
            "family": family,
            "families": [family],
            "parameter_size": size,
            "quantization_level": quant,
        }

    def _remote(self, name: str) -> dict[str, str]:
        """`remote_model` and `remote_host`, in /api/tags and /api/show, for a cloud stub."""
        host = self.remote_host.get(name)
        return {"remote_model": name, "remote_host": host} if host else {}

    def _model_entry(self, name: str) -> dict[str, Any]:
        digest = hashlib.sha256(name.encode()).hexdigest()
        return self._remote(name) | {
            "name": name,
            "model": name,
            "modified_at": "2025-06-01T12:00:00.000000000Z",
            "size": 274_302_450 if "embedding" in self._caps(name) else 6_600_000_000,
            "digest": digest,
            "details": self._details(name),
        }

    # the aiohttp application
    def app(self) -> web.Application:
        app = web.Application(client_max_size=64 * 1024**2)
        routes: list[tuple[str, str, _Handler]] = [
            ("GET", "/", self._root),
            ("GET", "/api/version", self._version),
            ("GET", "/api/tags", self._tags),
            ("GET", "/api/ps", self._ps),
            ("POST", "/api/show", self._show),
            ("POST", "/api/embed", self._embed),
            ("POST", "/api/embeddings", self._embeddings),
            ("POST", "/api/chat", self._chat),
            ("POST", "/api/generate", self._generate),
            ("POST", "/api/pull", self._pull),
        ]
        for method, path, handler in routes:
            app.router.add_route(method, path, self._recorded(handler))
        return app

    def _recorded(self, handler: _Handler) -> Callable[[web.Request], Awaitable[Response]]:
        """Wrap a handler: parse the JSON body, record the request, apply `delay`."""

        async def wrapped(request: web.Request) -> Response:
            raw = await request.read()
            try:
                body = json.loads(raw) if raw else None
            except ValueError:
                return _error(400, "invalid character in request body")
            record = RecordedRequest(request.path, request.method, body, dict(request.headers))
            if self.record:
                self.requests.append(record)
            if self.delay:
                await asyncio.sleep(self.delay)
            request[_RECORD] = record
            try:
                return await handler(request, body if isinstance(body, dict) else {})
            except rules.RuleError as exc:
                return _error(exc.status, exc.message)

        return wrapped

    async def _root(self, request: web.Request, body: dict[str, Any]) -> Response:
        return web.Response(text="Ollama is running")

    async def _version(self, request: web.Request, body: dict[str, Any]) -> Response:
        return web.json_response({"version": self.version})

    async def _tags(self, request: web.Request, body: dict[str, Any]) -> Response:
        return web.json_response({"models": [self._model_entry(m) for m in self.models]})

    async def _ps(self, request: web.Request, body: dict[str, Any]) -> Response:
        return web.json_response({"models": []})

    async def _pull(self, request: web.Request, body: dict[str, Any]) -> Response:
        return _error(404, "pull is disabled in the fake")

    async def _show(self, request: web.Request, body: dict[str, Any]) -> Response:
        name = str(body.get("model") or body.get("name") or "")
        model = self._resolve(name)
        if model is None:
            return _error(404, f"model '{name}' not found")
        details = self._details(model)
        arch = details["family"]
        embed = "embedding" in self._caps(model)
        info = {
            "general.architecture": arch,
            f"{arch}.context_length": self._train_ctx(model),
            f"{arch}.embedding_length": self.dim if embed else 4096,
        }
        params = {"temperature": 0.7} | (
            {"num_ctx": self.model_num_ctx[model]} if model in self.model_num_ctx else {}
        )
        return web.json_response(
            self._remote(model)
            | {
                "license": "fake",
                "modelfile": f"FROM {model}\n",
                # ShowHandler: one `%-30s %#v` line per Modelfile parameter
                "parameters": "\n".join(f"{k:<30} {json.dumps(v)}" for k, v in params.items()),
                "template": "{{ .Prompt }}",
                "details": details,
                "model_info": info,
                "capabilities": list(self._caps(model)),
                "modified_at": "2025-06-01T12:00:00.000000000Z",
            }
        )

    async def _embed_refusal(self, body: dict[str, Any]) -> Response | None:
        """Apply `embed_delay`, then `fail_embed` or the unknown-model 404, if any."""
        if self.embed_delay:
            await asyncio.sleep(self.embed_delay)
        rules.check_keep_alive(body.get("keep_alive"))
        if self.fail_embed is not None:
            return _error(self.fail_embed.status, self.fail_embed.message)
        name = str(body.get("model", ""))
        return _not_found(name) if self._resolve(name) is None else None

    async def _embed(self, request: web.Request, body: dict[str, Any]) -> Response:
        """EmbedHandler's order: the body (keep_alive, dimensions), the input's type, the model,
        then the runner (which is loaded even when there is nothing to embed)."""
        rules.check_keep_alive(body.get("keep_alive"))
        dims = body.get("dimensions") or 0
        if not isinstance(dims, int):
            kind = "string" if isinstance(dims, str) else "number"
            raise rules.RuleError(
                400,
                f"json: cannot unmarshal {kind} into Go struct field "
                "EmbedRequest.dimensions of type int",
            )
        texts = body.get("input")
        texts = ([texts] if texts else []) if isinstance(texts, str) else texts
        if texts is None:
            texts = []
        self._to_cloud(str(body.get("model", "")))
        if not isinstance(texts, list) or not all(isinstance(t, str) for t in texts):
            return _error(400, "invalid input type")
        if refusal := await self._embed_refusal(body):
            return refusal
        model = self._resolve(body["model"]) or ""
        if not texts:  # the model is loaded, nothing is embedded
            return web.json_response({"model": body["model"], "embeddings": []})
        if "embedding" not in self._caps(model):
            return _error(501, rules.EMBED_UNSUPPORTED)
        options = body.get("options") if isinstance(body.get("options"), dict) else {}
        limit = self._num_ctx(model, options or {})
        if body.get("truncate") is False and any(rules.count_tokens(t) > limit for t in texts):
            return _error(400, "the input length exceeds the context length")
        vectors = [hashed_embedding(_cut(t, limit), self.dim) for t in texts]
        if 0 < dims < self.dim:  # a larger or negative `dimensions` is ignored
            vectors = [_truncated(v, dims) for v in vectors]
        return web.json_response(
            {
                "model": body["model"],
                "embeddings": vectors,
                "total_duration": 1_000 * (1 + len(texts)),
                "load_duration": 100,
                "prompt_eval_count": sum(min(rules.count_tokens(t), limit) for t in texts),
            }
        )

    async def _embeddings(self, request: web.Request, body: dict[str, Any]) -> Response:
        """The old endpoint: an empty prompt only loads the model; a runner's error is 500."""
        if refusal := await self._embed_refusal(body):
            return refusal
        prompt = str(body.get("prompt") or "")
        if not prompt:
            return web.json_response({"embedding": []})
        if "embedding" not in self._caps(self._resolve(body["model"]) or ""):
            return _error(500, rules.EMBED_UNSUPPORTED)
        return web.json_response({"embedding": hashed_embedding(prompt, self.dim)})

    def _to_cloud(self, name: str) -> None:
        """A cloud model's request goes on to ollama.com: answered as a signed-out Ollama."""
        if rules.is_cloud(name):
            self.sent_to_cloud += 1
            raise rules.RuleError(401, "unauthorized")

    def _admit(self, body: dict[str, Any], *, chat: bool) -> tuple[str, bool]:
        """ChatHandler's checks before any generation, in its order: (model, thinks)."""
        rules.check_keep_alive(body.get("keep_alive"))
        rules.check_think(body.get("think"))
        name = str(body.get("model", ""))
        self._to_cloud(name)
        model = self._resolve(name)
        if model is None:
            message = f"model '{name}' not found" if chat else f'model "{name}" not found'
            raise rules.RuleError(404, message if chat else f"{message}, try pulling it first")
        if model in self.remote_host:  # ChatHandler: a stub's chat goes to its RemoteHost
            self.sent_to_cloud += 1
            raise rules.RuleError(401, "unauthorized")
        caps = self._caps(model)
        think = body.get("think")
        if "thinking" in caps:
            thinks = think is None or rules.wants_thinking(think)
        elif rules.wants_thinking(think):
            raise rules.RuleError(400, f"{json.dumps(name)} does not support thinking")
        else:
            thinks = False
        if "completion" not in caps:
            kind = "chat" if chat else "generate"
            raise rules.RuleError(400, f"{json.dumps(name)} does not support {kind}")
        if chat and body.get("tools") and "tools" not in caps:
            raise rules.RuleError(400, f"{rules.full_name(model)} does not support tools")
        return model, thinks

    def _num_ctx(self, model: str, options: dict[str, Any]) -> int:
        """`modelOptions` then `effectiveContext`: the request's num_ctx, else the Modelfile's,
        else the server's default; never more than the model was trained for."""
        asked = options.get("num_ctx") or self.model_num_ctx.get(model) or self.default_num_ctx
        return max(1, min(int(asked), self._train_ctx(model)))

    def _generate_reply(
        self,
        body: dict[str, Any],
        record: RecordedRequest,
        model: str,
        reply: dict[str, Any],
        thinks: bool,
    ) -> _Generation:
        """Apply the context and length rules to one scripted reply."""
        options = body.get("options") if isinstance(body.get("options"), dict) else {}
        assert isinstance(options, dict)
        num_ctx = self._num_ctx(model, options)
        tools = body.get("tools") or []
        messages = body.get("messages") or [{"role": "user", "content": body.get("prompt", "")}]
        kept = rules.fit_messages(messages, tools, num_ctx)
        used = rules.prompt_tokens(kept, tools)
        shift = rules.context_shift(model, body.get("shift"))
        if used > num_ctx - 1:
            if not shift:
                raise rules.RuleError(400, rules.PROMPT_TOO_LONG)
            record.truncated = True
            used = rules.context_shift_limit(num_ctx)
        record.prompt_tokens = used
        thinking = str(reply.get("thinking") or (DEFAULT_THINKING if thinks else ""))
        thinking = thinking if thinks else ""
        content = str(reply.get("content") or "")
        calls = list(reply.get("tool_calls") or []) if tools else []
        if not rules.tool_arguments_ok(calls):
            raise AssertionError("fake Ollama: a tool call's arguments must be a JSON object")
        budget = rules.OPEN_ENDED_MULTIPLIER * num_ctx
        predict = options.get("num_predict")
        if isinstance(predict, int) and predict > 0:
            budget = min(budget, predict)
        if not shift:
            budget = min(budget, num_ctx - used)
        done_reason = str(reply.get("done_reason") or "stop")
        out_thinking, out_content = thinking, content
        if rules.count_tokens(thinking) >= budget:
            out_thinking, out_content, calls = _cut(thinking, budget), "", []
            done_reason = "length"
        elif rules.count_tokens(thinking + content) > budget:
            out_content, calls = _cut(content, budget - rules.count_tokens(thinking)), []
            done_reason = "length"
        record.thought = bool(out_thinking)
        record.done_reason = done_reason
        tokens = rules.count_tokens(out_thinking + out_content)
        return _Generation(out_content, out_thinking, calls, done_reason, used, tokens)

    async def _chat(self, request: web.Request, body: dict[str, Any]) -> Response:
        model, thinks = self._admit(body, chat=True)
        messages = body.get("messages") or []
        for message in messages:
            if not rules.tool_arguments_ok(message.get("tool_calls")):
                raise rules.RuleError(
                    400, "json: cannot unmarshal string into Go value of type map[string]any"
                )
        if not messages:
            reason = "unload" if body.get("keep_alive") in (0, "0", "0s") else "load"
            return web.json_response(
                {
                    "model": body["model"],
                    "created_at": _now(),
                    "message": {"role": "assistant", "content": ""},
                    "done_reason": reason,
                    "done": True,
                }
            )
        if self.max_queue and self.chats_in_flight >= self.max_queue:
            raise rules.RuleError(503, rules.SERVER_BUSY)
        reply = self._next_chat_reply(body)
        self.chats_in_flight += 1
        self.max_chats_in_flight = max(self.max_chats_in_flight, self.chats_in_flight)
        try:
            return await self._answer(request, body, reply, model, thinks, chat=True)
        finally:
            self.chats_in_flight -= 1

    async def _generate(self, request: web.Request, body: dict[str, Any]) -> Response:
        model, thinks = self._admit(body, chat=False)
        return await self._answer(request, body, self.generate_reply, model, thinks, chat=False)

    async def _answer(
        self,
        request: web.Request,
        body: dict[str, Any],
        reply: Reply,
        model: str,
        thinks: bool,
        *,
        chat: bool,
    ) -> Response:
        """Turn a scripted Reply into Ollama's chat/generate response, streamed or not."""
        stream = body.get("stream", True)
        if isinstance(reply, Stall | Hold):
            if isinstance(reply, Hold):
                await reply.release.wait()
            else:
                await asyncio.sleep(reply.seconds)
            inner = "OK" if reply.reply is None else reply.reply
            return await self._answer(request, body, inner, model, thinks, chat=chat)
        if isinstance(reply, FakeError):
            return _error(reply.status, reply.message)
        if isinstance(reply, Raw):
            return web.Response(
                body=reply.text.encode(), status=reply.status, content_type=reply.content_type
            )
        if isinstance(reply, StreamError) and (not stream or reply.after_chunks == 0):
            return _error(reply.status, reply.message)
        message: dict[str, Any] = {"content": reply} if isinstance(reply, str) else {}
        if isinstance(reply, dict):
            message = reply
        elif isinstance(reply, StreamError | Unfinished):
            message = {"content": reply.content}
        gen = self._generate_reply(body, request[_RECORD], model, message, thinks)
        name = str(body.get("model"))

        def chunk(done: bool, content: str, **extra: Any) -> dict[str, Any]:
            out: dict[str, Any] = {"model": name, "created_at": _now()}
            if chat:
                out["message"] = {"role": "assistant", "content": content, **extra}
            else:
                out |= {"response": content, **extra}
            out["done"] = done
            return out

        final = {
            "done_reason": gen.done_reason,
            "prompt_eval_count": gen.prompt_tokens,
            "eval_count": gen.eval_tokens,
            "prompt_eval_duration": 300_000,
            **_DURATIONS,
        }
        unfinished = isinstance(reply, Unfinished)
        if not stream:
            extra: dict[str, Any] = {"thinking": gen.thinking} if gen.thinking else {}
            if gen.tool_calls and chat:
                extra["tool_calls"] = gen.tool_calls
            if unfinished:  # writeChatResponse: the last chunk it had, with all the text
                return web.json_response(chunk(False, gen.content, **extra))
            return web.json_response(chunk(True, gen.content, **extra) | final)

        response = web.StreamResponse(headers={"Content-Type": "application/x-ndjson"})
        await response.prepare(request)
        lines = [chunk(False, "", thinking=p) for p in _PIECE_RE.findall(gen.thinking)]
        lines += [chunk(False, p) for p in _PIECE_RE.findall(gen.content)]
        if gen.tool_calls and chat:
            lines.append(chunk(False, "", tool_calls=gen.tool_calls))
        if isinstance(reply, StreamError):
            lines = [*lines[: reply.after_chunks], {"error": reply.message}]
        elif not unfinished:
            lines.append(chunk(True, "") | final)
        for line in lines:
            await response.write(json.dumps(line).encode() + b"\n")
        await response.write_eof()
        return response


# --- running it ----------------------------------------------------------------------------------


@contextlib.contextmanager
def run_in_thread(fake: FakeOllama, host: str = "127.0.0.1", port: int = 0) -> Iterator[str]:
    """Serve `fake` from a thread with its own loop, for sync code that calls asyncio.run."""
    loop = asyncio.new_event_loop()
    thread = threading.Thread(target=loop.run_forever, name="fake-ollama", daemon=True)
    thread.start()
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind((host, port))
    holder: list[web.AppRunner] = []

    async def start() -> None:
        runner = web.AppRunner(fake.app(), handler_cancellation=True, shutdown_timeout=1.0)
        await runner.setup()
        holder.append(runner)
        await web.SockSite(runner, sock).start()

    try:
        asyncio.run_coroutine_threadsafe(start(), loop).result(timeout=10)
        fake.url = f"http://{host}:{sock.getsockname()[1]}"
        yield fake.url
    finally:
        if holder:
            asyncio.run_coroutine_threadsafe(holder[0].cleanup(), loop).result(timeout=10)
        sock.close()
        loop.call_soon_threadsafe(loop.stop)
        thread.join(timeout=10)
        loop.close()


def main(argv: list[str] | None = None) -> None:
    """Serve the fake until Ctrl-C, for benchmarks and manual runs."""
    parser = argparse.ArgumentParser(description="Fake Ollama HTTP server")
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=11434)
    parser.add_argument("--dim", type=int, default=384)
    parser.add_argument(
        "--models",
        default="qwen3.5:9b,nomic-embed-text:latest",
        help="the models it has, comma-separated (an embedder alone: no chat model)",
    )
    parser.add_argument(
        "--stand-in",
        choices=sorted(STAND_INS),
        help="answer every chat with this known-bad stand-in model (tests/fakes/stand_in_models)",
    )
    args = parser.parse_args(argv)
    fake = FakeOllama(models=args.models.split(","), dim=args.dim)
    if args.stand_in:
        fake.chat_handler = STAND_INS[args.stand_in]
    fake.url = f"http://{args.host}:{args.port}"
    fake.record = False
    web.run_app(fake.app(), host=args.host, port=args.port, shutdown_timeout=1.0)


if __name__ == "__main__":
    main()
