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
from functools import lru_cache
from typing import Any

import numpy as np
from aiohttp import web


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
class Raw:
    """Send this body verbatim, possibly malformed."""

    text: str
    status: int = 200
    content_type: str = "application/json"


@dataclass(frozen=True)
class StreamError:
    """Stream `after_chunks` pieces of `content`, then an `{"error": message}` line.

    A non-streaming request gets HTTP 500 with that error, as Ollama does when generation fails.
    """

    after_chunks: int
    message: str
    content: str = "this answer is cut off before it can finish"


Reply = str | dict[str, Any] | FakeError | Stall | Raw | StreamError


@dataclass
class RecordedRequest:
    """One request as the fake saw it."""

    path: str
    method: str
    body: Any
    headers: dict[str, str]


Response = web.StreamResponse
_Handler = Callable[[web.Request, dict[str, Any]], Awaitable[Response]]

# --- deterministic embeddings ------------------------------------------------------------------

_WORD_RE = re.compile(r"\w+(?:['’]\w+)*")
_STOP_TEXT = """
a an and are as at be been but by can do does did for from had has have he her him his how i if in
into is it its me my no nor not of on or our she so than that the their them then there these they
this those to too was we were what when where which who whom why will with would you your s t
"""
_STOP_WORDS = frozenset(_STOP_TEXT.split())
_BIGRAM_MIX = np.uint64(0x9E3779B97F4A7C15)


def _stem(word: str) -> str:
    """Crude suffix stripping, so "notes"/"note" and "meetings"/"meet" share a feature."""
    if word.endswith(("'s", "’s")):
        word = word[:-2]
    if word.endswith("es") and len(word) >= 5 and word[:-2].endswith(("s", "x", "z", "ch", "sh")):
        word = word[:-2]
    elif word.endswith("s") and len(word) >= 4 and not word.endswith(("ss", "us", "is")):
        word = word[:-1]
    for suffix in ("ing", "ed"):
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            return word[: -len(suffix)]
    return word


@lru_cache(maxsize=1 << 18)
def _word_hash(word: str) -> int:
    """64-bit blake2b hash of the word's stem; 0 for stop words. Cached: vocabularies repeat."""
    stem = _stem(word)
    if word in _STOP_WORDS or stem in _STOP_WORDS:
        return 0
    digest = hashlib.blake2b(stem.encode(), digest_size=8).digest()
    return int.from_bytes(digest, "little") or 1


def hashed_embedding(text: str, dim: int = 384) -> list[float]:
    """Embed `text` as an L2-normalised hashed bag of stemmed words plus word bigrams.

    Deterministic, and texts sharing words land near each other by cosine, which is all retrieval
    tests and benchmarks need. Each feature's bucket is `hash % dim` and its sign is the hash's top
    bit; unigrams weigh 1 + log(count), bigrams (mixed from the two word hashes) half that.
    """
    hashes = [h for w in _WORD_RE.findall(text.lower()) if (h := _word_hash(w))]
    if not hashes:
        return [1.0 / math.sqrt(dim)] * dim
    words = np.array(hashes, dtype=np.uint64)
    bigrams = words[:-1] * _BIGRAM_MIX + (words[1:] ^ (words[1:] >> np.uint64(31)))
    uni, uni_counts = np.unique(words, return_counts=True)
    bi, bi_counts = np.unique(bigrams, return_counts=True)
    features = np.concatenate((uni, bi))
    weights = np.concatenate((1.0 + np.log(uni_counts), 0.5 * (1.0 + np.log(bi_counts))))
    signs = np.where((features >> np.uint64(63)).astype(bool), 1.0, -1.0)
    buckets = (features % np.uint64(dim)).astype(np.intp)
    vec = np.bincount(buckets, weights=signs * weights, minlength=dim)
    norm = float(np.sqrt(vec @ vec))
    if norm == 0.0:
        return [1.0 / math.sqrt(dim)] * dim
    unit: list[float] = (vec / norm).tolist()
    return unit


# --- the fake server -----------------------------------------------------------------------------

_PIECE_RE = re.compile(r"\S+\s*|\s+")
_STATS = {
    "total_duration": 1_200_000,
    "load_duration": 100_000,
    "prompt_eval_count": 12,
    "prompt_eval_duration": 300_000,
    "eval_count": 8,
    "eval_duration": 800_000,
}


def _now() -> str:
    return datetime.now(UTC).isoformat().replace("+00:00", "Z")


def _error(status: int, message: str) -> web.Response:
    return web.json_response({"error": message}, status=status)


def _not_found(model: str) -> web.Response:
    return _error(404, f'model "{model}" not found, try pulling it first')


def _truncated(vec: list[float], dims: int) -> list[float]:
    """Like Ollama's `dimensions`: keep the first dims, then renormalise."""
    if dims == len(vec):
        return vec
    norm = math.sqrt(sum(x * x for x in vec[:dims])) or 1.0
    return [x / norm for x in vec[:dims]]


def _is_embedding_model(name: str) -> bool:
    return "embed" in name or "minilm" in name


class FakeOllama:
    """Ollama's HTTP API with a scripted "model"; every request is recorded for assertions."""

    def __init__(
        self,
        models: Iterable[str] = ("qwen3.5:9b", "nomic-embed-text:latest"),
        dim: int = 384,
    ) -> None:
        self.models = list(models)
        self.dim = dim
        self.url = ""
        self.requests: list[RecordedRequest] = []
        self.chat_handler: Callable[[dict[str, Any]], Reply] | None = None
        self.generate_reply: Reply = "OK"
        self.delay = 0.0
        self.embed_delay = 0.0
        self.fail_embed: FakeError | None = None
        self.context_lengths: dict[str, int] = {}  # model -> what /api/show reports
        self.record = True  # off for long benchmark runs, where bodies would pile up
        self._chat_queue: deque[Reply] = deque()

    # scripting and inspection
    def enqueue_chat(self, *replies: Reply) -> None:
        """Queue replies, consumed one per /api/chat request in order."""
        self._chat_queue.extend(replies)

    def chat_requests(self) -> list[dict[str, Any]]:
        return [r.body for r in self.requests if r.path == "/api/chat"]

    def embed_requests(self) -> list[dict[str, Any]]:
        return [r.body for r in self.requests if r.path == "/api/embed"]

    def _resolve(self, name: str) -> str | None:
        """Match Ollama's naming: "nomic-embed-text" means "nomic-embed-text:latest"."""
        for candidate in (name, f"{name}:latest"):
            if name and candidate in self.models:
                return candidate
        return None

    def _next_chat_reply(self, body: dict[str, Any]) -> Reply:
        if self._chat_queue:
            return self._chat_queue.popleft()
        if self.chat_handler is not None:
            return self.chat_handler(body)
        return "OK"

    def _details(self, name: str) -> dict[str, Any]:
        embed = _is_embedding_model(name)
        family = "nomic-bert" if "nomic" in name else "bert"
        if not embed:
            family = re.sub(r"[^a-z].*", "", name) or "llama"
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

    def _model_entry(self, name: str) -> dict[str, Any]:
        digest = hashlib.sha256(name.encode()).hexdigest()
        return {
            "name": name,
            "model": name,
            "modified_at": "2025-06-01T12:00:00.000000000Z",
            "size": 274_302_450 if _is_embedding_model(name) else 6_600_000_000,
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
            if self.record:
                headers = dict(request.headers)
                self.requests.append(RecordedRequest(request.path, request.method, body, headers))
            if self.delay:
                await asyncio.sleep(self.delay)
            return await handler(request, body if isinstance(body, dict) else {})

        return wrapped

    async def _root(self, request: web.Request, body: dict[str, Any]) -> Response:
        return web.Response(text="Ollama is running")

    async def _version(self, request: web.Request, body: dict[str, Any]) -> Response:
        return web.json_response({"version": "0.12.6"})

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
        embed, arch = _is_embedding_model(model), details["family"]
        info = {
            "general.architecture": arch,
            f"{arch}.context_length": self.context_lengths.get(model, 8192 if embed else 32768),
            f"{arch}.embedding_length": self.dim if embed else 4096,
        }
        return web.json_response(
            {
                "license": "fake",
                "modelfile": f"FROM {model}\n",
                "parameters": "temperature 0.7",
                "template": "{{ .Prompt }}",
                "details": details,
                "model_info": info,
                "capabilities": ["embedding"] if embed else ["completion", "tools"],
                "modified_at": "2025-06-01T12:00:00.000000000Z",
            }
        )

    async def _embed_refusal(self, body: dict[str, Any]) -> Response | None:
        """Apply `embed_delay`, then `fail_embed` or the unknown-model 404, if any."""
        if self.embed_delay:
            await asyncio.sleep(self.embed_delay)
        if self.fail_embed is not None:
            return _error(self.fail_embed.status, self.fail_embed.message)
        name = str(body.get("model", ""))
        return _not_found(name) if self._resolve(name) is None else None

    async def _embed(self, request: web.Request, body: dict[str, Any]) -> Response:
        if refusal := await self._embed_refusal(body):
            return refusal
        texts = body.get("input", "")
        texts = [texts] if isinstance(texts, str) else texts
        if not isinstance(texts, list) or not all(isinstance(t, str) for t in texts):
            return _error(400, "invalid input type")
        dims = body.get("dimensions") or self.dim
        if not isinstance(dims, int) or not 0 < dims <= self.dim:
            return _error(400, f"dimensions must be between 1 and {self.dim}")
        vectors = [_truncated(hashed_embedding(t, self.dim), dims) for t in texts]
        return web.json_response(
            {
                "model": body["model"],
                "embeddings": vectors,
                "total_duration": 1_000 * (1 + len(texts)),
                "load_duration": 100,
                "prompt_eval_count": sum(len(t.split()) for t in texts),
            }
        )

    async def _embeddings(self, request: web.Request, body: dict[str, Any]) -> Response:
        if refusal := await self._embed_refusal(body):
            return refusal
        vector = hashed_embedding(str(body.get("prompt") or ""), self.dim)
        return web.json_response({"embedding": vector})

    async def _chat(self, request: web.Request, body: dict[str, Any]) -> Response:
        name = str(body.get("model", ""))
        if self._resolve(name) is None:
            return _not_found(name)
        reply = self._next_chat_reply(body)
        return await self._answer(request, reply, name, body.get("stream", True), chat=True)

    async def _generate(self, request: web.Request, body: dict[str, Any]) -> Response:
        name = str(body.get("model", ""))
        if self._resolve(name) is None:
            return _not_found(name)
        stream = body.get("stream", True)
        return await self._answer(request, self.generate_reply, name, stream, chat=False)

    async def _answer(
        self, request: web.Request, reply: Reply, model: str, stream: Any, *, chat: bool
    ) -> Response:
        """Turn a scripted Reply into Ollama's chat/generate response, streamed or not."""
        if isinstance(reply, Stall):
            await asyncio.sleep(reply.seconds)
            inner = "OK" if reply.reply is None else reply.reply
            return await self._answer(request, inner, model, stream, chat=chat)
        if isinstance(reply, FakeError):
            return _error(reply.status, reply.message)
        if isinstance(reply, Raw):
            return web.Response(
                body=reply.text.encode(), status=reply.status, content_type=reply.content_type
            )
        if isinstance(reply, StreamError) and not stream:
            return _error(500, reply.message)
        message: dict[str, Any] = {"content": reply} if isinstance(reply, str) else {}
        if isinstance(reply, dict):
            message = reply
        elif isinstance(reply, StreamError):
            message = {"content": reply.content}

        def chunk(done: bool, content: str, **extra: Any) -> dict[str, Any]:
            out: dict[str, Any] = {"model": model, "created_at": _now()}
            if chat:
                out["message"] = {"role": "assistant", "content": content, **extra}
            else:
                out |= {"response": content, **extra}
            out["done"] = done
            return out

        content = str(message.get("content") or "")
        thinking = message.get("thinking")
        tool_calls = message.get("tool_calls")
        if not stream:
            extra = {"thinking": thinking} if thinking else {}
            if tool_calls and chat:
                extra["tool_calls"] = tool_calls
            return web.json_response(
                chunk(True, content, **extra) | {"done_reason": "stop"} | _STATS
            )

        response = web.StreamResponse(headers={"Content-Type": "application/x-ndjson"})
        await response.prepare(request)
        lines = [chunk(False, "", thinking=p) for p in _PIECE_RE.findall(thinking or "")]
        lines += [chunk(False, p) for p in _PIECE_RE.findall(content)]
        if tool_calls and chat:
            lines.append(chunk(False, "", tool_calls=tool_calls))
        if isinstance(reply, StreamError):
            lines = [*lines[: reply.after_chunks], {"error": reply.message}]
        else:
            lines.append(chunk(True, "") | {"done_reason": "stop"} | _STATS)
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
    args = parser.parse_args(argv)
    fake = FakeOllama(dim=args.dim)
    fake.url = f"http://{args.host}:{args.port}"
    fake.record = False
    web.run_app(fake.app(), host=args.host, port=args.port, shutdown_timeout=1.0)


if __name__ == "__main__":
    main()
