"""What the rest of the program sees of any model server: neutral replies, tool calls, status.

Every backend (Ollama, an OpenAI-compatible server, the built-in engine) translates its wire
format into these at its edge, so no stage knows which server answered. A tool call keeps the
server's id (OpenAI-style servers want it back with the tool's answer) and its arguments both
as the text the model wrote and as an object.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any, Literal

from commonplace.llm.names import same_model

Backend = Literal["ollama", "openai", "builtin"]
# How a chat model makes tool calls (LLM.tool_calling): as calls, printed as text, or not at all.
ToolCalling = Literal["calls", "text", "none"]
BACKENDS: tuple[Backend, ...] = ("ollama", "openai", "builtin")


@dataclass(frozen=True)
class ToolCall:
    name: str
    arguments: dict[str, Any]
    id: str = ""  # the server's call id ("" where the server has none, as Ollama before 0.12)
    arguments_json: str = ""  # the arguments as the model wrote them ("" : json of `arguments`)
    as_text: bool = False  # recognised in the reply's text, not returned as a call by the server

    def json_arguments(self) -> str:
        return self.arguments_json or json.dumps(self.arguments, ensure_ascii=False)


@dataclass(frozen=True)
class ChatReply:
    content: str  # drafts removed
    tool_calls: tuple[ToolCall, ...] = ()
    raw: str = ""  # the content exactly as the model sent it
    cut: bool = False  # stopped before its end: the length limit, or the server never said done


@dataclass
class StreamEnd:
    """How a `chat_stream` ended, filled in when it does: `cut` as in ChatReply."""

    cut: bool = False


@dataclass(frozen=True)
class Chunk:
    """One piece of a streamed answer, as every backend yields it."""

    text: str = ""
    tool_calls: tuple[ToolCall, ...] = ()
    done: bool = False  # the server said the answer is complete
    cut: bool = False  # the server said it stopped at the length limit


@dataclass(frozen=True)
class Reply:
    """A whole (not streamed) answer from a backend, before the façade's rules."""

    text: str
    tool_calls: tuple[ToolCall, ...] = ()
    cut: bool = False  # stopped at the length limit
    unfinished: bool = False  # the server stopped it without its end (Ollama's runner does)


@dataclass(frozen=True)
class Capabilities:
    """What a server and its models were found to do (a probe, or what the server declares).

    None: not known (not probed yet, or the server cannot say)."""

    json_schema: bool | None = None  # response_format json_schema (Ollama: `format`) enforced
    json_object: bool | None = None  # response_format json_object accepted
    tools: bool | None = None  # `tools` accepted with tool_choice "auto"
    tool_calls_as_text: bool | None = None  # the model prints its calls instead of making them
    embeddings: bool | None = None
    embed_dimension: int | None = None
    context: int | None = None  # the chat model's context in tokens, where the server says
    embed_context: int | None = None  # tokens an embedding input may have, where it says
    rerank: bool | None = None
    notes: tuple[str, ...] = ()  # what the probe found, each a short sentence

    def line(self) -> str:
        """One line for doctor, `service status` and the page."""

        def said(value: bool | None, yes: str, no: str | None) -> str | None:
            return None if value is None else (yes if value else no)

        parts = [
            said(self.json_schema, "schema enforced", "schema not enforced (checked here)"),
            said(
                self.tools and not self.tool_calls_as_text,
                "tool calls",
                "tool calls through a schema answer",
            )
            if self.tools is not None
            else None,
            f"embeddings ({self.embed_dimension} dims)"
            if self.embeddings and self.embed_dimension
            else said(self.embeddings, "embeddings", "no embeddings"),
            f"context {self.context}" if self.context else None,
            said(self.rerank, "rerank", None) if self.rerank else None,
        ]
        return ", ".join(p for p in parts if p)

    def as_json(self) -> dict[str, Any]:
        return {
            "json_schema": self.json_schema,
            "json_object": self.json_object,
            "tools": self.tools,
            "tool_calls_as_text": self.tool_calls_as_text,
            "embeddings": self.embeddings,
            "embed_dimension": self.embed_dimension,
            "context": self.context,
            "embed_context": self.embed_context,
            "rerank": self.rerank,
            "notes": list(self.notes),
        }


@dataclass(frozen=True)
class ModelStatus:
    """Is the model server there, which one, which models: for `doctor`, /api/state, the page.

    `server` names it for a person ("Ollama", "LM Studio", "llama.cpp's server", "the built-in
    model"); `host` is where it is. `models` and `digests` list what it has (Ollama: pulled
    models; an OpenAI-compatible server: what /v1/models lists)."""

    reachable: bool
    host: str
    backend: Backend = "ollama"
    server: str = "Ollama"
    version: str = ""
    models: tuple[str, ...] = ()
    error: str = ""
    digests: tuple[str, ...] = ()  # of `models`, in the same order
    # Ollama's pulled cloud models (a stub with a remote_host, under any name, e.g. after
    # `ollama cp`): Ollama sends their requests to remote_hosts, in the same order.
    remote: tuple[str, ...] = ()
    remote_hosts: tuple[str, ...] = ()
    capabilities: Capabilities = field(default_factory=Capabilities)
    device: str = ""  # the built-in engine: "CPU", "Metal", ...
    detail: str = ""  # the built-in engine's own line, with its state (loaded, stopped, ...)
    why: str = ""  # why this backend runs (backend = "auto")

    def line(self, chat_model: str) -> str:
        """One line for the page, doctor and `service status`: 'built-in model · CPU ·
        qwen2.5-coder-1.5b-instruct', 'Ollama at http://127.0.0.1:11434 · qwen3.5:9b'."""
        if self.backend == "builtin":
            parts = [self.detail or f"built-in model · {self.device or 'CPU'}", chat_model]
        else:
            parts = [f"{self.server} at {self.host}", chat_model]
        if self.backend == "openai":
            parts.append(self.capabilities.line())
        if not self.reachable:
            parts.append("not answering")
        return " · ".join(p for p in parts if p)

    def label(self) -> str:
        """A few words for the page's header: 'built-in model · CPU', 'Ollama', 'LM Studio'."""
        if self.backend == "builtin":
            return f"built-in model · {self.device or 'CPU'}"
        return self.server

    def remote_host(self, name: str) -> str:
        """Where Ollama sends this model's requests ('' when it runs here)."""
        for model, host in zip(self.remote, self.remote_hosts, strict=False):
            if same_model(name, [model]):
                return host
        return ""

    def has_model(self, name: str) -> bool:
        if self.backend != "ollama":
            return name in self.models
        return same_model(name, self.models)

    def digest(self, name: str) -> str:
        """The model's digest ('' if not known): it changes when the model is pulled anew."""
        for model, digest in zip(self.models, self.digests, strict=False):
            if (model == name) if self.backend != "ollama" else same_model(name, [model]):
                return digest
        return ""
