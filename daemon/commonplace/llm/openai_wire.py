"""The OpenAI-compatible wire, as plain functions: the request body, the reply read back, a
streamed reply put together, an error body read. No I/O here (openai.py does that).

Servers differ in what they take (servers.py names them): LM Studio answers 400 to
`response_format: json_object` (lmstudio-bug-tracker #189, #307) and to `tool_choice` as an
object; older llama-server builds refuse `tools` without `--jinja` (llama.cpp #10920);
llama.cpp does not enforce number bounds, `multipleOf` or `uniqueItems`; vLLM switches grammar
engines silently. So what is sent follows what the probe found, and every answer is checked
here against the whole schema whatever the server promised (the façade's parse).
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from commonplace.llm.errors import LLMError, ModelFailed, ModelMissing, ModelUnsuitable
from commonplace.llm.messages import to_openai
from commonplace.llm.servers import Server
from commonplace.llm.types import ToolCall

# Sent when the server does not enforce a schema: the schema goes into the prompt instead.
SCHEMA_PROMPT = (
    "Answer with one JSON object only, no other text, that follows this JSON schema:\n{schema}"
)


def chat_body(
    model: str,
    messages: Sequence[Mapping[str, Any]],
    *,
    tools: Sequence[Mapping[str, Any]] = (),
    schema: Mapping[str, Any] | None = None,
    schema_mode: str = "json_schema",  # json_schema | json_object | prompt
    options: Mapping[str, Any] | None = None,
    stream: bool = False,
    think: str = "off",
    template_kwargs: bool = False,
) -> dict[str, Any]:
    """The body of POST /chat/completions. `schema_mode` says how a schema is asked for:
    enforced by the server (`json_schema`), JSON asked for and the schema in the prompt
    (`json_object`), or the schema in the prompt alone (`prompt`)."""
    wire = to_openai(messages)
    body: dict[str, Any] = {"model": model, "messages": wire, "temperature": 0, "stream": stream}
    if tools:
        body["tools"] = [dict(t) for t in tools]
        body["tool_choice"] = "auto"  # a string: LM Studio refuses tool_choice objects
    if schema is not None:
        if schema_mode == "json_schema":
            body["response_format"] = {
                "type": "json_schema",
                "json_schema": {"name": "answer", "strict": True, "schema": dict(schema)},
            }
        else:
            if schema_mode == "json_object":
                body["response_format"] = {"type": "json_object"}
            body["messages"] = [*wire, {"role": "system", "content": schema_prompt(schema)}]
    if stream:
        body["stream_options"] = {"include_usage": True}
    if template_kwargs and think in ("on", "off"):
        # llama.cpp's server and vLLM pass these to the model's chat template: Qwen 3 and
        # others then answer at once instead of reasoning first.
        body["chat_template_kwargs"] = {"enable_thinking": think == "on"}
    for key, value in (options or {}).items():
        body[key] = value  # max_tokens, temperature, seed, ... (the neutral names are OpenAI's)
    return body


def schema_prompt(schema: Mapping[str, Any]) -> str:
    return SCHEMA_PROMPT.format(schema=json.dumps(schema, ensure_ascii=False))


@dataclass(frozen=True)
class WireReply:
    text: str
    calls: tuple[ToolCall, ...]
    finish: str  # stop | length | tool_calls | "" (never said)
    bad_arguments: tuple[str, ...] = ()  # calls whose arguments were not a JSON object


def read_reply(body: Mapping[str, Any]) -> WireReply:
    """The first choice of a /chat/completions answer; KeyError/TypeError when the body is
    not one (the backend's error boundary reads that as a reply it could not read)."""
    choice = body["choices"][0]
    message = choice.get("message") or {}
    text = message.get("content") or ""
    if not isinstance(text, str):  # content parts: keep the text ones
        text = "".join(p.get("text", "") for p in text if isinstance(p, dict))
    calls, bad = _calls(message.get("tool_calls") or ())
    return WireReply(text, calls, str(choice.get("finish_reason") or ""), bad)


def _calls(raw: Sequence[Any]) -> tuple[tuple[ToolCall, ...], tuple[str, ...]]:
    calls: list[ToolCall] = []
    bad: list[str] = []
    for i, call in enumerate(raw):
        if not isinstance(call, Mapping):
            continue
        function = call.get("function") or {}
        name = str(function.get("name") or "")
        text = function.get("arguments")
        arguments, ok = parse_arguments(text)
        if not ok:
            bad.append(name)
        calls.append(
            ToolCall(
                name,
                arguments,
                id=str(call.get("id") or f"call_{i}"),
                arguments_json=text if isinstance(text, str) else json.dumps(arguments),
            )
        )
    return tuple(calls), tuple(bad)


def parse_arguments(text: Any) -> tuple[dict[str, Any], bool]:
    """A call's arguments as an object. OpenAI sends JSON text; some servers send an object,
    or "" for no arguments. Text that is no JSON object gives {} and False (the tool then
    says which argument it is missing, and the model can try again)."""
    if isinstance(text, dict):
        return text, True
    if text is None or (isinstance(text, str) and not text.strip()):
        return {}, True
    try:
        value = json.loads(text)
    except (TypeError, ValueError):
        return {}, False
    if isinstance(value, str):  # JSON inside a string: a small model's habit
        try:
            value = json.loads(value)
        except ValueError:
            return {}, False
    return (value, True) if isinstance(value, dict) else ({}, False)


@dataclass
class StreamState:
    """A streamed answer put together from its server-sent events: tool calls arrive in
    fragments, keyed by their index, with the id and name in the first (LiteLLM does the same)."""

    finish: str = ""
    _calls: dict[int, dict[str, str]] = field(default_factory=dict)

    def feed(self, event: Mapping[str, Any]) -> str:
        """One event's data; returns its text."""
        choices = event.get("choices") or ()
        if not choices:
            return ""  # the usage event at the end
        choice = choices[0]
        if choice.get("finish_reason"):
            self.finish = str(choice["finish_reason"])
        delta = choice.get("delta") or {}
        for part in delta.get("tool_calls") or ():
            index = int(part.get("index", len(self._calls)))
            call = self._calls.setdefault(index, {"id": "", "name": "", "arguments": ""})
            call["id"] = call["id"] or str(part.get("id") or "")
            function = part.get("function") or {}
            call["name"] += str(function.get("name") or "")
            arguments = function.get("arguments")
            if isinstance(arguments, dict):  # an object in one piece
                call["arguments"] = json.dumps(arguments)
            elif arguments:
                call["arguments"] += str(arguments)
        text = delta.get("content")
        return text if isinstance(text, str) else ""

    def calls(self) -> tuple[ToolCall, ...]:
        raw = [
            {
                "id": c["id"] or f"call_{i}",
                "function": {"name": c["name"], "arguments": c["arguments"]},
            }
            for i, c in sorted(self._calls.items())
        ]
        return _calls(raw)[0]


def sse_data(line: str) -> str | None:
    """The data of one server-sent event line ('' for the end marker), None for other lines."""
    if not line.startswith("data:"):
        return None
    data = line[5:].strip()
    return "" if data == "[DONE]" else data


def error_message(status: int, text: str) -> str:
    """The server's own words from an error body: OpenAI's {"error": {"message"}}, llama.cpp's
    {"error": {"code", "message", "type"}}, vLLM's {"object": "error", "message"}, LM Studio's
    {"error": "..."}, FastAPI's {"detail": ...}; else the start of the body."""
    try:
        body = json.loads(text)
    except ValueError:
        return text.strip()[:300] or f"HTTP {status}"
    if isinstance(body, dict):
        error = body.get("error")
        if isinstance(error, dict) and error.get("message"):
            return str(error["message"])
        if isinstance(error, str):
            return error
        if body.get("message"):
            return str(body["message"])
        if body.get("detail"):
            return str(body["detail"])
    return text.strip()[:300]


class HTTPError(Exception):
    """An HTTP error answer, read into the server's own words."""

    def __init__(self, status: int, text: str, path: str) -> None:
        self.status = status
        self.message = error_message(status, text)
        self.path = path
        super().__init__(f"{status}: {self.message}")

    def refuses_schema(self) -> bool:
        words = self.message.lower()
        return self.status in (400, 422) and any(
            w in words for w in ("response_format", "json_schema", "json_object", "grammar")
        )

    def too_long(self) -> bool:
        """An input longer than the model takes (llama.cpp past its batch, vLLM past
        max_model_len, OpenAI's context_length_exceeded)."""
        words = self.message.lower()
        return self.status in (400, 413, 500) and any(
            w in words
            for w in (
                "too large",
                "too long",
                "maximum context length",
                "context_length",
                "exceeds",
            )
        )

    def translate(self, model: str, server: Server, *, embed: bool) -> LLMError:
        words = self.message.lower()
        key = "embed_model" if embed else "chat_model"
        if self.status == 404 and ("model" in words or self.path.startswith("models")) and model:
            return ModelMissing(model, server, key)
        if "model" in words and ("not found" in words or "does not exist" in words) and model:
            return ModelMissing(model, server, key)
        if embed and (
            self.status == 501 or ("embedding" in words and ("support" in words or "not" in words))
        ):
            # llama-server without --embeddings answers 501 "This server does not support
            # embeddings"; LM Studio 400 when the model is no embedding model.
            return ModelUnsuitable(
                model, f"{self.message} (it does not support embeddings)", server
            )
        if self.status == 400 and "tool" in words and ("jinja" in words or "support" in words):
            # llama-server before --jinja was the default: "tools param requires --jinja flag".
            return ModelUnsuitable(model, f"{self.message} (it does not support tools)", server)
        return ModelFailed(self.status, self.message, server)
