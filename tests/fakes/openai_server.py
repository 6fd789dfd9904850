"""A fake OpenAI-compatible server, speaking the HTTP API, in the dialect of each real one.

Why at the HTTP boundary: the daemon's real backend (llm/openai.py, probe.py: request bodies,
server-sent events, error bodies, the fallbacks) must run in the tests, while the test scripts
what the "model" answers. Each dialect refuses what its server refuses, from its public docs
and bug trackers (cited at each rule). The real llama.cpp server itself runs in the real-model
tests (tests/engine/); this fake is for what no real server here does.

    fake = FakeOpenAI(dialect="lmstudio"); fake.enqueue_chat('{"title": "x"}')
"""

from __future__ import annotations

import asyncio
import json
from collections import deque
from dataclasses import dataclass, field
from typing import Any

from aiohttp import web

from tests.fakes.embedding import hashed_embedding

# What each server's /v1/models says of its models.
OWNERS = {
    "llama.cpp": "llamacpp",  # llama.cpp tools/server: "owned_by": "llamacpp"
    "lmstudio": "organization_owner",  # JetBrains/koog#139 shows LM Studio's /v1/models
    "vllm": "vllm",  # vllm/entrypoints/openai/serving_models.py: owned_by="vllm"
    "jan": "jan",
    "openai": "someone",
}


@dataclass(frozen=True)
class Refuse:
    """Answer with this HTTP status and an error body in the dialect's shape."""

    status: int
    message: str


@dataclass(frozen=True)
class Stall:
    seconds: float
    reply: str = "OK"


@dataclass
class FakeOpenAI:
    dialect: str = "llama.cpp"  # llama.cpp | lmstudio | vllm | jan | openai
    chat_models: tuple[str, ...] = ("qwen2.5-7b-instruct",)
    embed_models: tuple[str, ...] = ("text-embedding-nomic-embed-text-v1.5",)
    embeddings: bool = True  # False: llama-server started without --embeddings
    json_schema: bool = True  # False: response_format json_schema refused (400)
    tool_calls_as_text: bool = False  # the model prints its calls (LM Studio #810, #2120)
    embed_context: int = 8192  # vLLM serving an embedding model: its max_model_len
    api_key: str = ""
    context: int = 8192
    url: str = ""
    requests: list[dict[str, Any]] = field(default_factory=list)
    _chat: deque[Any] = field(default_factory=deque)

    def enqueue_chat(self, *replies: Any) -> None:
        """Text, a {"tool_calls": [...]} dict (name, arguments), Refuse or Stall, in order."""
        self._chat.extend(replies)

    def chat_requests(self) -> list[dict[str, Any]]:
        return [r["body"] for r in self.requests if r["path"].endswith("/chat/completions")]

    # -- the app -----------------------------------------------------------------------------

    def app(self) -> web.Application:
        app = web.Application(middlewares=[self._auth])
        app.router.add_get("/v1/models", self._models)
        app.router.add_post("/v1/chat/completions", self._chat_completions)
        app.router.add_post("/v1/embeddings", self._embeddings)
        app.router.add_post("/v1/rerank", self._rerank)
        if self.dialect == "llama.cpp":
            app.router.add_get("/props", self._props)
            app.router.add_get("/health", self._health)
        if self.dialect == "vllm":
            app.router.add_get("/version", self._version)
        return app

    @web.middleware
    async def _auth(self, request: web.Request, handler: Any) -> web.StreamResponse:
        body = await request.json() if request.can_read_body else None
        self.requests.append({"path": request.path, "body": body})
        request["body"] = body
        if self.api_key and request.headers.get("Authorization") != f"Bearer {self.api_key}":
            return self._error(401, "Invalid API Key")
        return await handler(request)

    def _error(self, status: int, message: str) -> web.Response:
        """Each server's error body: LM Studio a bare string (lmstudio-bug-tracker #189),
        vLLM an `object: error` (vllm/entrypoints/openai/protocol.py ErrorResponse), llama.cpp
        and OpenAI an `error` object with code, message and type."""
        if self.dialect == "lmstudio":
            body: dict[str, Any] = {"error": message}
        elif self.dialect == "vllm":
            body = {
                "object": "error",
                "message": message,
                "type": "BadRequestError",
                "code": status,
            }
        else:
            body = {"error": {"code": status, "message": message, "type": "invalid_request_error"}}
        return web.json_response(body, status=status)

    async def _models(self, request: web.Request) -> web.Response:
        entry: dict[str, Any] = {"object": "model", "owned_by": OWNERS.get(self.dialect, "x")}
        data = []
        for name in (*self.chat_models, *self.embed_models):
            item = {**entry, "id": name}
            if self.dialect == "vllm":
                item["max_model_len"] = (
                    self.embed_context if name in self.embed_models else self.context
                )
            if self.dialect == "llama.cpp":
                item["meta"] = {"n_ctx_train": 32768, "n_params": 1543714304, "size": 986046464}
            data.append(item)
        return web.json_response({"object": "list", "data": data})

    async def _props(self, request: web.Request) -> web.Response:
        return web.json_response(
            {
                "default_generation_settings": {"n_ctx": self.context},
                "model_path": f"/models/{self.chat_models[0]}.gguf",
                "build_info": "b6500-fake",
            }
        )

    async def _health(self, request: web.Request) -> web.Response:
        return web.json_response({"status": "ok"})

    async def _version(self, request: web.Request) -> web.Response:
        return web.json_response({"version": "0.11.0"})

    async def _chat_completions(self, request: web.Request) -> web.StreamResponse:
        body = request["body"] or {}
        model = body.get("model")
        if model not in self.chat_models:
            return self._error(404, f"The model `{model}` does not exist.")
        fmt = body.get("response_format") or {}
        if fmt.get("type") == "json_schema" and not self.json_schema:
            return self._error(400, "response_format json_schema is not supported")
        if fmt.get("type") == "json_object" and self.dialect == "lmstudio":
            # lmstudio-bug-tracker #189, #307
            return self._error(400, "'response_format.type' must be 'json_schema' or 'text'")
        if isinstance(body.get("tool_choice"), dict) and self.dialect == "lmstudio":
            return self._error(400, "Invalid tool_choice: only 'auto', 'none', 'required'")
        reply = self._chat.popleft() if self._chat else _default_reply(body)
        if isinstance(reply, Refuse):
            return self._error(reply.status, reply.message)
        if isinstance(reply, Stall):
            await asyncio.sleep(reply.seconds)
            reply = reply.reply
        message: dict[str, Any] = {"role": "assistant", "content": ""}
        finish = "stop"
        if isinstance(reply, dict) and "tool_calls" in reply:
            calls = reply["tool_calls"]
            if self.tool_calls_as_text:
                message["content"] = "```json\n" + json.dumps(calls[0]) + "\n```"
            else:
                message["tool_calls"] = [
                    {
                        "id": f"call_{i}",
                        "type": "function",
                        "function": {"name": c["name"], "arguments": json.dumps(c["arguments"])},
                    }
                    for i, c in enumerate(calls)
                ]
                finish = "tool_calls"
        else:
            message["content"] = str(reply)
        if body.get("stream"):
            return await self._stream(request, message, finish)
        return web.json_response(
            {
                "id": "chatcmpl-1",
                "object": "chat.completion",
                "model": model,
                "choices": [{"index": 0, "message": message, "finish_reason": finish}],
                "usage": {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15},
            }
        )

    async def _stream(
        self, request: web.Request, message: dict[str, Any], finish: str
    ) -> web.StreamResponse:
        """Server-sent events as every one of these servers sends them: content in pieces,
        tool calls in fragments by index (the id and name first, the arguments after)."""
        response = web.StreamResponse(headers={"Content-Type": "text/event-stream"})
        await response.prepare(request)

        async def send(delta: dict[str, Any], reason: str | None = None) -> None:
            event = {"choices": [{"index": 0, "delta": delta, "finish_reason": reason}]}
            await response.write(f"data: {json.dumps(event)}\n\n".encode())

        text = message.get("content") or ""
        for i in range(0, len(text), 4):
            await send({"content": text[i : i + 4]})
        for i, call in enumerate(message.get("tool_calls") or ()):
            fn = call["function"]
            await send(
                {
                    "tool_calls": [
                        {
                            "index": i,
                            "id": call["id"],
                            "type": "function",
                            "function": {"name": fn["name"], "arguments": ""},
                        }
                    ]
                }
            )
            args = fn["arguments"]
            for j in range(0, len(args), 5):
                await send(
                    {"tool_calls": [{"index": i, "function": {"arguments": args[j : j + 5]}}]}
                )
        await send({}, finish)
        await response.write(b"data: [DONE]\n\n")
        await response.write_eof()
        return response

    async def _embeddings(self, request: web.Request) -> web.Response:
        body = request["body"] or {}
        model = body.get("model")
        if not self.embeddings:
            # llama.cpp tools/server: a server started without --embeddings
            return self._error(
                501, "This server does not support embeddings. Start it with `--embeddings`"
            )
        if model not in self.embed_models:
            if self.dialect == "lmstudio" and model in self.chat_models:
                return self._error(400, f"Model '{model}' is not an embedding model")
            return self._error(404, f"The model `{model}` does not exist.")
        texts = body.get("input")
        texts = [texts] if isinstance(texts, str) else list(texts or ())
        for text in texts:
            tokens = len(text.split()) + 2
            if tokens > self.embed_context:
                # vLLM's words when an input is longer than max_model_len
                return self._error(
                    400,
                    f"This model's maximum context length is {self.embed_context} tokens. "
                    f"However, you requested {tokens} tokens in the input for embedding "
                    "generation. Please reduce the length of the input.",
                )
        data = [
            {"object": "embedding", "index": i, "embedding": hashed_embedding(t)}
            for i, t in enumerate(texts)
        ]
        return web.json_response({"object": "list", "data": data, "model": model})

    async def _rerank(self, request: web.Request) -> web.Response:
        if self.dialect != "llama.cpp":
            return self._error(404, "Not Found")
        docs = (request["body"] or {}).get("documents") or []
        results = [{"index": i, "relevance_score": 1.0 / (i + 1)} for i in range(len(docs))]
        return web.json_response({"results": results})


def _default_reply(body: dict[str, Any]) -> Any:
    """With nothing scripted, a model that does what it is asked (the probe's questions): a
    call of the first tool offered, or JSON that follows the schema, or "OK"."""
    tools = body.get("tools") or []
    if tools:
        fn = tools[0]["function"]
        args = {name: "Paris" for name in fn.get("parameters", {}).get("required", [])}
        return {"tool_calls": [{"name": fn["name"], "arguments": args}]}
    fmt = body.get("response_format") or {}
    schema = (fmt.get("json_schema") or {}).get("schema") or fmt.get("schema")
    if schema or fmt.get("type") == "json_object":
        return json.dumps(_example(schema or {"type": "object"}))
    return "OK"


def _example(schema: dict[str, Any]) -> Any:
    if "enum" in schema:
        return schema["enum"][0]
    kind = schema.get("type")
    if kind == "object":
        return {k: _example(v) for k, v in (schema.get("properties") or {}).items()}
    if kind == "array":
        return []
    if kind in ("integer", "number"):
        return 0
    if kind == "boolean":
        return False
    return "x"
