"""What an OpenAI-compatible server and its models actually do, found by asking them.

Promises differ from behaviour (servers.py, openai_wire.py), so at start and on `doctor` the
program tries each thing once, with the smallest request that shows it, and records what
happened: `response_format` json_schema accepted and obeyed (and json_object), tools with
tool_choice "auto" accepted, a call returned as a call or printed as text, embeddings and their
dimension, the context (llama.cpp's `/props`, vLLM's `max_model_len` in `/v1/models`), and
`/v1/rerank`. What it found decides what is sent (openai.py): nothing in the stages asks
which server it is.

A probe costs a few short model calls (max_tokens 48), once per process; the built-in engine's
capabilities are known and not probed.
"""

from __future__ import annotations

import asyncio
import json
import logging
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit, urlunsplit

import httpx

from commonplace.config import ModelSettings
from commonplace.llm import openai_wire, textcalls
from commonplace.llm.servers import Server, kind_from_probe
from commonplace.llm.types import Capabilities

log = logging.getLogger(__name__)

PROBE_TIMEOUT_S = 60.0  # a CPU server loading its model answers the first call slowly
_SCHEMA = {
    "type": "object",
    "properties": {"colour": {"type": "string", "enum": ["red", "green"]}},
    "required": ["colour"],
    "additionalProperties": False,
}
TOOL = {
    "type": "function",
    "function": {
        "name": "get_time",
        "description": "The current time in a city.",
        "parameters": {
            "type": "object",
            "properties": {"city": {"type": "string"}},
            "required": ["city"],
        },
    },
}


@dataclass(frozen=True)
class Probe:
    kind: str = ""  # what the server turned out to be ("" : could not tell)
    version: str = ""
    chat_model: str = ""  # the first model it lists that is not an embedding model
    embed_model: str = ""  # the first embedding model it lists
    models: tuple[str, ...] = ()
    model_facts: str = ""  # llama.cpp's model path and size: part of the identity
    capabilities: Capabilities = field(default_factory=Capabilities)


async def probe_server(
    client: httpx.AsyncClient,
    server: Server,
    settings: ModelSettings,
    *,
    known: Capabilities | None = None,
) -> Probe:
    """Ask the server (at `client`'s base URL) what it has and does; never raises for a
    refusal (that is a finding), but a server that cannot be reached at all raises the
    transport's error, which the caller translates."""
    listed = await _get_json(client, "models", required=True)
    entries = [m for m in (listed or {}).get("data") or () if isinstance(m, dict)]
    models = tuple(str(m.get("id") or "") for m in entries)
    owned_by = str(entries[0].get("owned_by") or "") if entries else ""
    props = (
        await _get_json(client, "../props")
        if server.kind in ("llama.cpp", "openai", "builtin")
        else None
    )
    vllm = (
        await _get_json(client, _root(client, "version"))
        if server.kind in ("vllm", "openai")
        else None
    )
    ollama = (
        await _get_json(client, _root(client, "api/version"))
        if server.kind in ("ollama-openai", "openai")
        else None
    )
    kind = kind_from_probe(
        owned_by, props=props is not None, vllm_version=vllm is not None, ollama=ollama is not None
    )
    chat_model = settings.chat_model or next((m for m in models if not _embedding_name(m)), "")
    embed_model = settings.embed_model or next((m for m in models if _embedding_name(m)), "")
    context, embed_context, facts = _sizes(entries, props, chat_model, embed_model)
    version = str((vllm or ollama or {}).get("version") or (props or {}).get("build_info") or "")
    if known is not None:
        found = known
        if context and not found.context:
            found = Capabilities(**{**found.as_json(), "context": context, "notes": ()})
        return Probe(kind or server.kind, version, chat_model, embed_model, models, facts, found)
    notes: list[str] = []
    found = Capabilities(context=context, embed_context=embed_context)
    if chat_model:
        schema_ok, object_ok = await _schema(client, chat_model, notes)
        tools_ok, as_text = await _tools(client, chat_model, notes)
    else:
        schema_ok = object_ok = tools_ok = as_text = None
        notes.append("no chat model is loaded")
    dimension = await _embeddings(client, embed_model or chat_model, notes)
    rerank = await _rerank(client, chat_model, notes)
    found = Capabilities(
        json_schema=schema_ok,
        json_object=object_ok,
        tools=tools_ok,
        tool_calls_as_text=as_text,
        embeddings=dimension is not None,
        embed_dimension=dimension,
        context=context,
        embed_context=embed_context,
        rerank=rerank,
        notes=tuple(notes),
    )
    log.info("%s: %s", server.where, found.line() or "nothing found")
    return Probe(kind or server.kind, version, chat_model, embed_model, models, facts, found)


def _root(client: httpx.AsyncClient, path: str) -> str:
    """An address at the server's root, outside its /v1 (vLLM's /version, Ollama's
    /api/version)."""
    base = urlsplit(str(client.base_url))
    return urlunsplit((base.scheme, base.netloc, "/" + path, "", ""))


def _embedding_name(model: str) -> bool:
    name = model.lower()
    return any(w in name for w in ("embed", "minilm", "bge-", "e5-", "gte-", "arctic"))


def _sizes(
    entries: list[dict[str, Any]], props: dict[str, Any] | None, chat: str, embed: str
) -> tuple[int | None, int | None, str]:
    """The chat context, the embedding context and the chat model's facts: vLLM's
    max_model_len per model in /v1/models, llama.cpp's n_ctx (/props) and its `meta` (n_params,
    size, n_embd) in /v1/models."""
    by_id = {str(e.get("id")): e for e in entries}
    lone = entries[0] if len(entries) == 1 else {}
    chat_entry = by_id.get(chat) or lone
    embed_entry = by_id.get(embed) or lone

    def length(entry: dict[str, Any]) -> int | None:
        value = entry.get("max_model_len")
        return value if isinstance(value, int) and value > 0 else None

    context, embed_context = length(chat_entry), length(embed_entry)
    meta = chat_entry.get("meta")
    facts = ""
    if isinstance(meta, dict):
        facts = " ".join(f"{k}={meta[k]}" for k in ("n_params", "size", "n_embd") if k in meta)
    if props:
        settings = props.get("default_generation_settings") or {}
        n_ctx = settings.get("n_ctx") or props.get("n_ctx")
        if isinstance(n_ctx, int) and n_ctx > 0:
            context = n_ctx
        if props.get("model_path"):
            facts = f"{props['model_path']} {facts}".strip()
    return context, embed_context, facts


async def _get_json(client: httpx.AsyncClient, path: str, *, required: bool = False) -> Any:
    try:
        response = await client.get(path, timeout=10)
    except httpx.TransportError:
        if required:
            raise
        return None
    if response.status_code >= 400:
        if required:
            raise openai_wire.HTTPError(response.status_code, response.text, path)
        return None
    try:
        return response.json()
    except ValueError:
        return None


async def _chat(client: httpx.AsyncClient, body: dict[str, Any]) -> tuple[int, Any]:
    try:
        async with asyncio.timeout(PROBE_TIMEOUT_S):
            response = await client.post("chat/completions", json=body, timeout=PROBE_TIMEOUT_S)
    except (httpx.TransportError, TimeoutError) as exc:
        return -1, str(exc)
    try:
        return response.status_code, response.json()
    except ValueError:
        return response.status_code, response.text


async def _schema(
    client: httpx.AsyncClient, model: str, notes: list[str]
) -> tuple[bool | None, bool | None]:
    """json_schema: accepted and obeyed? json_object: accepted?"""
    messages = [{"role": "user", "content": "Which colour is grass? Answer in JSON."}]
    body = openai_wire.chat_body(model, messages, schema=_SCHEMA, options={"max_tokens": 48})
    status, answer = await _chat(client, body)
    schema_ok: bool | None = None
    if status == 200:
        try:
            text = openai_wire.read_reply(answer).text
            schema_ok = json.loads(text).get("colour") in ("red", "green")
        except (ValueError, KeyError, TypeError, AttributeError, IndexError):
            schema_ok = False
        if not schema_ok:
            notes.append("accepts json_schema but did not follow it")
    elif status > 0:
        schema_ok = False
        notes.append(f"refuses json_schema ({status})")
    body = openai_wire.chat_body(
        model, messages, schema=_SCHEMA, schema_mode="json_object", options={"max_tokens": 48}
    )
    status, _ = await _chat(client, body)
    object_ok = status == 200 if status > 0 else None
    if object_ok is False:
        notes.append(f"refuses json_object ({status})")
    return schema_ok, object_ok


TOOL_QUESTION = "What time is it in Paris? Use the tool."
TOOL_MAX_TOKENS = 64


async def _tools(
    client: httpx.AsyncClient, model: str, notes: list[str]
) -> tuple[bool | None, bool | None]:
    """tools accepted? and the call made as a call, or printed as text?"""
    messages = [{"role": "user", "content": TOOL_QUESTION}]
    body = openai_wire.chat_body(
        model, messages, tools=[TOOL], options={"max_tokens": TOOL_MAX_TOKENS}
    )
    status, answer = await _chat(client, body)
    if status != 200:
        if status > 0:
            notes.append(f"refuses tools ({status})")
        return (False if status > 0 else None), None
    try:
        reply = openai_wire.read_reply(answer)
    except (KeyError, TypeError, IndexError):
        return True, None
    if reply.calls:
        return True, False
    if textcalls.calls_in_text(reply.text, ["get_time"]):
        notes.append("prints its tool calls as text (they are read back)")
        return True, True
    notes.append("made no tool call when asked to")
    return True, None


async def _embeddings(client: httpx.AsyncClient, model: str, notes: list[str]) -> int | None:
    if not model:
        return None
    try:
        response = await client.post(
            "embeddings", json={"model": model, "input": ["probe"]}, timeout=PROBE_TIMEOUT_S
        )
    except httpx.TransportError:
        return None
    if response.status_code >= 400:
        notes.append(f"no embeddings from {model} ({response.status_code})")
        return None
    try:
        return len(response.json()["data"][0]["embedding"])
    except (ValueError, KeyError, IndexError, TypeError):
        return None


async def _rerank(client: httpx.AsyncClient, model: str, notes: list[str]) -> bool | None:
    try:
        response = await client.post(
            "rerank",
            json={"model": model, "query": "a", "documents": ["a", "b"]},
            timeout=PROBE_TIMEOUT_S,
        )
    except httpx.TransportError:
        return None
    return response.status_code == 200
