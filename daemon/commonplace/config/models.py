"""The sections for the model: which server answers ([model]), and each server's own keys
([ollama], [openai]; the built-in engine's are in engine.py). Every key says what it does in
`metadata["doc"]`, which the reference is generated from.

[model] holds what every server shares: which backend, which models, the context, the time
limits. The keys that were in [ollama] before there was a choice of server (chat_model,
embed_model, num_ctx, timeout_s, ...) are still read there, as aliases of [model]'s
(load.py moves them; `ALIASES` lists them), so an existing config keeps working.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from commonplace.config.values import (
    DEFAULT_OLLAMA_HOST,
    ConfigError,
    bounds,
    is_cloud_model,
    keep_alive_value,
    one_of,
)

# [ollama] key -> [model] key: read in [ollama] as before, kept in [model].
ALIASES: dict[str, str] = {
    "chat_model": "chat_model",
    "embed_model": "embed_model",
    "embed_query_prefix": "embed_query_prefix",
    "embed_document_prefix": "embed_document_prefix",
    "timeout_s": "timeout_s",
    "embed_timeout_s": "embed_timeout_s",
    "retries": "retries",
    "backoff_s": "backoff_s",
    "embed_batch": "embed_batch",
    "num_ctx": "context",
    "think": "think",
}


@dataclass(frozen=True)
class ModelSettings:
    """Which model server answers, which models it runs, and how each call to it is made."""

    backend: str = field(
        default="auto",
        metadata={
            **one_of("auto", "ollama", "openai", "builtin"),
            "doc": "Which model server: 'ollama', 'openai' (any OpenAI-compatible server: LM "
            "Studio, llama.cpp's llama-server, vLLM, Jan), 'builtin' (the built-in llama.cpp "
            "engine), or 'auto': Ollama when it answers, else the built-in engine when its "
            "models are installed.",
        },
    )
    embed_backend: str = field(
        default="",
        metadata={
            **one_of("", "ollama", "openai", "builtin"),
            "doc": "Where embeddings come from when not from the chat's server ('' : the "
            "same), e.g. chat from a GPU box's vLLM and embeddings from this computer.",
        },
    )
    chat_model: str = field(
        default="",
        metadata={
            "doc": "The chat model tidy, Ask, the digest and the assistant use; '' : the "
            "server's default (Ollama: qwen3.5:9b; built-in: [builtin] chat_model; an "
            "OpenAI-compatible server: the first model it lists)."
        },
    )
    embed_model: str = field(
        default="",
        metadata={
            "doc": "The embedding model the search index is built with; '' : the server's "
            "default (Ollama: nomic-embed-text; built-in: [builtin] embed_model; an "
            "OpenAI-compatible server: the embedding model it lists)."
        },
    )
    context: int = field(
        default=0,
        metadata={
            **bounds(0, 1_048_576),
            "doc": "Chat context in tokens; 0: the server's own (Ollama: 4096 on a small GPU; "
            "the built-in engine: chosen from the model and the memory), and prompts are fitted "
            "to it.",
        },
    )
    # For a model the profile table (llm/profiles.py) does not know or knows wrongly.
    embed_query_prefix: str = field(
        default="",
        metadata={
            "doc": "An embedding model's own query prefix, e.g. 'query: ' for E5 models; both "
            "prefixes empty keep the profile table's (or none)."
        },
    )
    embed_document_prefix: str = field(
        default="",
        metadata={"doc": "An embedding model's own document prefix, e.g. 'passage: '."},
    )
    timeout_s: float = field(
        default=180.0, metadata={**bounds(1, 3600), "doc": "Longest wait for one chat call."}
    )
    embed_timeout_s: float = field(
        default=120.0,
        metadata={**bounds(1, 3600), "doc": "Longest wait for one batch of embeddings."},
    )
    retries: int = field(
        default=2,
        metadata={
            **bounds(0, 10),
            "doc": "Extra tries after a timeout or a connection failure.",
        },
    )
    backoff_s: float = field(
        default=1.0,
        metadata={**bounds(0, 60), "doc": "First wait before a retry; it doubles each time."},
    )
    embed_batch: int = field(
        default=32, metadata={**bounds(1, 1024), "doc": "Texts per embedding request."}
    )
    think: str = field(
        default="off",
        metadata={
            **one_of("off", "on", ""),
            "doc": "Thinking models: 'off' answers at once (Ollama: think=false, which every "
            "model accepts; other servers: the chat template's enable_thinking=false where it "
            "has one), 'on' thinks first, '' is the model's own default.",
        },
    )

    def __post_init__(self) -> None:
        if 0 < self.context < 512:
            raise ConfigError(
                f"model.context = {self.context} is too small; use 0 (the server's own) or 512+"
            )
        for key in ("chat_model", "embed_model"):
            name = getattr(self, key)
            if is_cloud_model(name):
                raise ConfigError(
                    f"model.{key} = {name!r} is one of Ollama's cloud models: Ollama would "
                    "send every note to ollama.com to run it; pick a model that runs on this "
                    "computer (e.g. qwen3.5:9b, nomic-embed-text)"
                )

    def backend_for(self, role: str) -> str:
        """The configured backend of 'chat' or 'embed' ('auto' until it is chosen)."""
        return (self.embed_backend or self.backend) if role == "embed" else self.backend


@dataclass(frozen=True)
class OllamaSettings:
    """Where Ollama is, and what only Ollama is told. (The keys that moved to [model] are
    still read here.)"""

    host: str = field(
        default=DEFAULT_OLLAMA_HOST,
        metadata={
            "doc": "Ollama's address, in the forms Ollama accepts ('0.0.0.0', 'host:port', "
            "'https://box/ollama')."
        },
    )
    keep_alive: str = field(
        default="10m",
        metadata={
            "numbers_as_text": True,
            "doc": "How long Ollama keeps a model loaded after a call: a Go duration ('10m', "
            "'1h30m') or a number of seconds (negative: for ever).",
        },
    )

    def __post_init__(self) -> None:
        if keep_alive_value(self.keep_alive) is None:
            raise ConfigError(
                f"ollama.keep_alive = {self.keep_alive!r} is not a duration; use a number of "
                "seconds or a Go duration such as '10m', '1h30m' or '90s' (units: ns, us, ms, "
                "s, m, h)"
            )


@dataclass(frozen=True)
class OpenAISettings:
    """An OpenAI-compatible server: LM Studio, llama.cpp's llama-server, vLLM, Jan, or Ollama's
    own /v1. Its API key is never read from this file (load.py refuses it): `api_key_file` or
    COMMONPLACE_OPENAI_API_KEY, or `commonplace models key` which keeps it in a file only you
    can read."""

    base_url: str = field(
        default="http://127.0.0.1:1234/v1",
        metadata={
            "doc": "The server's address with its /v1 (LM Studio: http://127.0.0.1:1234/v1; "
            "llama-server: http://127.0.0.1:8080/v1; vLLM: http://127.0.0.1:8000/v1)."
        },
    )
    embed_base_url: str = field(
        default="",
        metadata={
            "doc": "Another OpenAI-compatible server for embeddings ('' : base_url), e.g. "
            "chat from a GPU box and embeddings from this computer."
        },
    )
    api_key_file: str = field(
        default="",
        metadata={
            "doc": "A file holding the server's API key ('' : the key `commonplace models "
            "key` keeps, or COMMONPLACE_OPENAI_API_KEY, or none: local servers need none)."
        },
    )
    name: str = field(
        default="",
        metadata={
            **one_of("", "lmstudio", "llama.cpp", "vllm", "jan", "ollama-openai", "openai"),
            "doc": "What the server is, for its messages ('' : found from its answers and "
            "its port).",
        },
    )
