"""One factory builds the model client from the settings: the only place that picks a backend.

`make_llm(settings)` chooses the server (`[model] backend`, or `auto`: choose.py), builds its
backend (and the embeddings' own, when `[model] embed_backend` names another server), resolves
the model names ('' in the settings: the server's default) and hands back the façade. Nothing
outside `llm/` imports a backend.
"""

from __future__ import annotations

from dataclasses import replace

from commonplace.config import DEFAULT_CHAT_MODEL, DEFAULT_EMBED_MODEL, Settings
from commonplace.engine.process import AttentionSink
from commonplace.llm.backend import ModelBackend
from commonplace.llm.choose import Choice, choose
from commonplace.llm.client import LLM, Recorder
from commonplace.llm.gate import ModelGate
from commonplace.llm.keys import read_api_key
from commonplace.llm.nobackend import NoBackend
from commonplace.llm.ollama import OllamaBackend
from commonplace.llm.openai import Endpoint, OpenAIBackend
from commonplace.llm.servers import Server, guess_kind


def make_llm(
    settings: Settings,
    *,
    recorder: Recorder | None = None,
    gate: ModelGate | None = None,
    retries: int | None = None,
    choice: Choice | None = None,
    attention: AttentionSink | None = None,
    share_engine: bool = False,
) -> LLM:
    """The façade for these settings. `retries` overrides [model] retries (a search and
    doctor try once); `choice` skips `auto`'s question to Ollama when the caller asked it
    already; `attention` hears the built-in engine's troubles (the daemon's attention list);
    `share_engine` publishes the built-in engine for the commands run beside (the daemon)."""
    model = settings.model if retries is None else replace(settings.model, retries=retries)
    choice = choice or choose(settings)
    backends: dict[str, ModelBackend] = {}

    def backend(kind: str) -> ModelBackend:
        if kind not in backends:
            backends[kind] = _backend(kind, settings, model, choice, attention, share_engine)
        return backends[kind]

    chat = backend(choice.backend)
    embed_kind = model.embed_backend or choice.backend
    # Another OpenAI-compatible server for the embeddings ([openai] embed_base_url).
    separate = embed_kind == "openai" and settings.openai.embed_base_url
    embed = backend("openai-embed" if separate else embed_kind)
    chat_name, embed_name = _names(settings, choice.backend, embed_kind)
    llm = LLM(
        settings=model,
        chat_backend=chat,
        embed_backend=embed,
        chat_model=chat_name,
        embed_model=embed_name,
        recorder=recorder,
        gate=gate or ModelGate(settings.limits.model_wait_s),
        why=choice.why,
    )
    if isinstance(chat, OpenAIBackend) or isinstance(embed, OpenAIBackend):
        llm._resolve = lambda: (
            chat_name or (chat.chat_model() if isinstance(chat, OpenAIBackend) else ""),
            embed_name or (embed.embed_model() if isinstance(embed, OpenAIBackend) else ""),
        )
    return llm


def _backend(
    kind: str,
    settings: Settings,
    model: object,
    choice: Choice,
    attention: AttentionSink | None,
    share: bool,
) -> ModelBackend:
    from commonplace.config import ModelSettings

    assert isinstance(model, ModelSettings)
    if kind == "ollama":
        return OllamaBackend(model, settings.ollama)
    if kind in ("openai", "openai-embed"):
        return openai_backend(settings, model, embed=kind == "openai-embed")
    if kind == "builtin":
        from commonplace.llm.builtin import builtin_backend

        return builtin_backend(settings, model, attention, share=share)
    return NoBackend(settings, choice.why)


def openai_backend(settings: Settings, model: object, *, embed: bool = False) -> OpenAIBackend:
    from commonplace.config import ModelSettings

    assert isinstance(model, ModelSettings)
    o = settings.openai
    url = (o.embed_base_url or o.base_url) if embed else o.base_url
    key = read_api_key(settings)
    endpoint = Endpoint(url.rstrip("/"), key)

    async def where() -> Endpoint:
        return endpoint

    return OpenAIBackend(model, where, Server(o.name or guess_kind(url), endpoint.base_url))


def _names(settings: Settings, chat_kind: str, embed_kind: str) -> tuple[str, str]:
    """The model names as the servers know them; '' where the server's own default is only
    known once it has been asked (an OpenAI-compatible server's first model)."""
    m = settings.model

    def name(kind: str, role: str) -> str:
        configured = m.chat_model if role == "chat" else m.embed_model
        if kind == "ollama":
            return configured or (DEFAULT_CHAT_MODEL if role == "chat" else DEFAULT_EMBED_MODEL)
        if kind == "builtin":
            from commonplace.llm.builtin import builtin_name

            return builtin_name(settings, role)
        return configured

    return name(chat_kind, "chat"), name(embed_kind, "embed")
