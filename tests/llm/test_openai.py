"""The OpenAI-compatible backend against each server's dialect (tests/fakes/openai_server.py):
what the probe finds, the fallbacks it leads to, and errors that name the real server."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Callable
from typing import Any

import pydantic
import pytest
import pytest_asyncio
from aiohttp.test_utils import TestServer

from commonplace.config import Settings
from commonplace.llm import (
    LLM,
    ModelFailed,
    ModelMissing,
    ModelUnavailable,
    ModelUnsuitable,
    make_llm,
)
from tests.fakes.openai_server import FakeOpenAI, Refuse
from tests.models import with_model

MSGS = [{"role": "user", "content": "hello"}]
TOOLS = [
    {
        "type": "function",
        "function": {
            "name": "list_events",
            "description": "Events on a day.",
            "parameters": {
                "type": "object",
                "properties": {"day": {"type": "string"}},
                "required": ["day"],
            },
        },
    }
]


class Title(pydantic.BaseModel):
    title: str
    tags: list[str]


SCHEMA = {
    "type": "object",
    "properties": {
        "title": {"type": "string", "maxLength": 20},
        "tags": {"type": "array", "items": {"type": "string", "pattern": "^[a-z]+$"}},
    },
    "required": ["title", "tags"],
}

Serve = Callable[..., Any]


@pytest_asyncio.fixture
async def serve() -> AsyncIterator[Serve]:
    """Start a fake server of a dialect; returns (fake, llm)."""
    servers: list[TestServer] = []
    llms: list[LLM] = []

    async def start(settings: Settings, **fake_options: Any) -> tuple[FakeOpenAI, LLM]:
        name = fake_options.pop("name", "")
        fake = FakeOpenAI(**fake_options)
        server = TestServer(fake.app(), host="127.0.0.1")
        await server.start_server()
        servers.append(server)
        fake.url = f"http://127.0.0.1:{server.port}/v1"
        s = with_model(settings, backend="openai", retries=0, timeout_s=10)
        s = _openai(s, base_url=fake.url, name=name)
        llm = make_llm(s)
        llms.append(llm)
        return fake, llm

    yield start
    for llm in llms:
        await llm.aclose()
    for server in servers:
        await server.close()


def _openai(settings: Settings, **changes: Any) -> Settings:
    import dataclasses

    name = changes.pop("name", "")
    return dataclasses.replace(
        settings, openai=dataclasses.replace(settings.openai, name=name, **changes)
    )


async def test_llama_cpp_is_probed_and_the_schema_is_enforced(
    serve: Serve, settings: Settings
) -> None:
    fake, llm = await serve(settings, dialect="llama.cpp", name="")
    found = await llm.found()
    assert llm.server.kind == "llama.cpp" and llm.server.name == "llama.cpp's server"
    assert (found.json_schema, found.tools, found.tool_calls_as_text) == (True, True, False)
    assert found.embeddings and found.embed_dimension and found.context == 8192
    assert found.rerank is True
    fake.enqueue_chat(json.dumps({"title": "Pears", "tags": ["fruit"]}))
    got = await llm.chat_json(MSGS, Title, schema=SCHEMA)
    assert got == Title(title="Pears", tags=["fruit"])
    body = fake.chat_requests()[-1]
    assert body["response_format"]["type"] == "json_schema"
    assert body["response_format"]["json_schema"]["schema"] == SCHEMA
    assert body["temperature"] == 0 and body["model"] == "qwen2.5-7b-instruct"


async def test_a_server_that_refuses_json_schema_gets_it_in_the_prompt_and_one_retry(
    serve: Serve, settings: Settings
) -> None:
    """The schema goes into the prompt; an answer that breaks it is asked again once, with
    what was wrong; the second answer is used."""
    fake, llm = await serve(settings, dialect="openai", json_schema=False)
    found = await llm.found()
    assert found.json_schema is False and "refuses json_schema" in " ".join(found.notes)
    fake.requests.clear()
    fake.enqueue_chat(
        json.dumps({"title": "Pears", "tags": ["Fruit Bowl"]}),  # the pattern is broken
        json.dumps({"title": "Pears", "tags": ["fruit"]}),
    )
    got = await llm.chat_json(MSGS, Title, schema=SCHEMA)
    assert got.tags == ["fruit"]
    first, second = fake.chat_requests()
    assert first.get("response_format", {}).get("type") != "json_schema"
    assert '"pattern": "^[a-z]+$"' in first["messages"][-1]["content"]
    told = second["messages"][-2]["content"]  # then the schema again, last
    assert "did not follow the JSON schema" in told and "tags.0" in told


async def test_a_refusal_in_the_middle_of_a_run_falls_back_at_once(
    serve: Serve, settings: Settings
) -> None:
    """Probed with one model, then another loaded that refuses the schema: the request is sent
    again with the schema in the prompt, and later ones start there."""
    fake, llm = await serve(settings, dialect="llama.cpp")
    await llm.found()
    fake.json_schema = False
    fake.requests.clear()
    fake.enqueue_chat(
        json.dumps({"title": "a", "tags": []}), json.dumps({"title": "b", "tags": []})
    )
    assert (await llm.chat_json(MSGS, Title, schema=SCHEMA)).title == "a"
    assert (await llm.chat_json(MSGS, Title, schema=SCHEMA)).title == "b"
    kinds = [b.get("response_format", {}).get("type") for b in fake.chat_requests()]
    assert kinds[0] == "json_schema" and "json_schema" not in kinds[1:]


async def test_lm_studio_json_object_refused_and_tool_calls_printed_as_text(
    serve: Serve, settings: Settings
) -> None:
    fake, llm = await serve(
        settings, dialect="lmstudio", tool_calls_as_text=True, json_schema=True, name=""
    )
    found = await llm.found()
    assert llm.server.name == "LM Studio"
    assert found.json_object is False and found.tool_calls_as_text is True
    fake.enqueue_chat({"tool_calls": [{"name": "list_events", "arguments": {"day": "2026-10-29"}}]})
    reply = await llm.chat(MSGS, tools=TOOLS)
    (call,) = reply.tool_calls
    assert (call.name, call.arguments, call.as_text) == ("list_events", {"day": "2026-10-29"}, True)
    assert reply.content == ""  # the printed call is not words for the owner
    body = fake.chat_requests()[-1]
    assert body["tool_choice"] == "auto"  # a string: LM Studio refuses objects


async def test_tool_calls_streamed_in_fragments_are_put_together(
    serve: Serve, settings: Settings
) -> None:
    fake, llm = await serve(settings, dialect="vllm")
    await llm.found()
    fake.enqueue_chat({"tool_calls": [{"name": "list_events", "arguments": {"day": "2026-10-29"}}]})
    shown: list[str] = []

    async def on_text(piece: str) -> None:
        shown.append(piece)

    reply = await llm.chat_turn(MSGS, tools=TOOLS, on_text=on_text)
    (call,) = reply.tool_calls
    assert call.name == "list_events" and call.arguments == {"day": "2026-10-29"}
    assert call.id == "call_0" and not call.as_text
    fake.enqueue_chat("The answer streams in pieces.")
    text = "".join([p async for p in llm.chat_stream(MSGS)])
    assert text == "The answer streams in pieces."


async def test_no_embeddings_names_the_server_and_what_to_set(
    serve: Serve, settings: Settings
) -> None:
    _, llm = await serve(settings, dialect="llama.cpp", embeddings=False)
    found = await llm.found()
    assert found.embeddings is False
    with pytest.raises(ModelUnsuitable) as caught:
        await llm.embed(["some text"])
    text = str(caught.value)
    assert "llama.cpp's server" in text and "[model] embed_model" in text
    assert "Ollama" not in text


async def test_vllm_says_its_embedding_context_and_it_is_kept(
    serve: Serve, settings: Settings
) -> None:
    """vLLM serving an embedding model of 512 tokens refuses longer inputs: its max_model_len
    sizes the index's chunks (llm.context_length), so nothing is refused."""
    fake, llm = await serve(settings, dialect="vllm", embed_context=512)
    assert await llm.context_length(llm.embed_model) == 512
    vectors = await llm.embed(["short text", "another"])
    assert len(vectors) == 2 and len(vectors[0]) == len(vectors[1]) > 0
    # Longer than that is cut to fit, as Ollama's `truncate` does, never refused.
    (long,) = await llm.embed([" ".join(["word"] * 600)])
    assert len(long) == len(vectors[0])
    refused = [r for r in fake.requests if r["path"].endswith("/embeddings")]
    assert len(refused[-1]["body"]["input"][0].split()) <= 510


async def test_a_model_the_server_lacks_names_it_and_what_to_do(
    serve: Serve, settings: Settings
) -> None:
    _, llm = await serve(with_model(settings, chat_model="llama-3-8b"), dialect="lmstudio")
    with pytest.raises(ModelMissing) as caught:
        await llm.chat(MSGS)
    text = str(caught.value)
    assert "LM Studio" in text and "llama-3-8b" in text and "lms load" in text


async def test_an_unreachable_server_is_named(settings: Settings, dead_ollama_url: str) -> None:
    s = _openai(
        with_model(settings, backend="openai", retries=0),
        base_url=f"{dead_ollama_url}/v1",
        name="lmstudio",
    )
    llm = make_llm(s)
    try:
        with pytest.raises(ModelUnavailable) as caught:
            await llm.chat(MSGS)
        text = str(caught.value)
        assert text.startswith(f"LM Studio at {dead_ollama_url}/v1 did not answer")
        assert "Developer tab" in text and "[openai] base_url" in text
        status = await llm.status()
        assert not status.reachable and "LM Studio" in status.error
    finally:
        await llm.aclose()


async def test_the_api_key_is_sent_and_a_wrong_one_is_said(
    serve: Serve, settings: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("COMMONPLACE_OPENAI_API_KEY", "sk-local")
    fake, llm = await serve(settings, dialect="vllm", api_key="sk-local")
    await llm.found()
    fake.enqueue_chat("hi")
    assert (await llm.chat(MSGS)).content == "hi"
    monkeypatch.setenv("COMMONPLACE_OPENAI_API_KEY", "sk-wrong")
    _, wrong = await serve(settings, dialect="vllm", api_key="sk-local")
    with pytest.raises(ModelFailed, match="401"):
        await wrong.chat(MSGS)


async def test_a_refusal_is_read_in_each_dialect(serve: Serve, settings: Settings) -> None:
    for dialect in ("llama.cpp", "lmstudio", "vllm"):
        fake, llm = await serve(settings, dialect=dialect)
        await llm.found()
        fake.enqueue_chat(Refuse(400, "the prompt is too long for this model"))
        with pytest.raises(ModelFailed) as caught:
            await llm.chat(MSGS)
        assert "the prompt is too long for this model" in str(caught.value)
        assert not caught.value.retryable


async def test_chat_from_one_server_and_embeddings_from_another(
    serve: Serve, settings: Settings, fake_ollama: Any
) -> None:
    """Scale-out: the chat on a GPU box's server, the embeddings from another: [openai]
    embed_base_url, or [model] embed_backend naming another kind of server (here Ollama)."""
    chat_fake, _ = await serve(settings, dialect="vllm")
    embed_fake, _ = await serve(settings, dialect="llama.cpp")
    s = _openai(
        with_model(settings, backend="openai", retries=0),
        base_url=chat_fake.url,
        embed_base_url=embed_fake.url,
    )
    llm = make_llm(s)
    try:
        await llm.found()
        chat_fake.enqueue_chat("hello from the GPU box")
        assert (await llm.chat(MSGS)).content == "hello from the GPU box"
        asked = len(chat_fake.requests)
        await llm.embed(["a passage"])
        assert any(r["path"] == "/v1/embeddings" for r in embed_fake.requests)
        assert len(chat_fake.requests) == asked  # nothing of the embeddings went to the chat's
        assert llm.server.kind == "vllm" and llm.embed_server.url == embed_fake.url
    finally:
        await llm.aclose()
    mixed = with_model(
        _openai(with_model(settings, backend="openai", retries=0), base_url=chat_fake.url),
        embed_backend="ollama",
        host=fake_ollama.url,
    )
    llm = make_llm(mixed)
    try:
        assert llm.embed_server.kind == "ollama" and llm.embed_model == "nomic-embed-text"
        await llm.embed(["a passage"])
        assert any(r.path == "/api/embed" for r in fake_ollama.requests)
    finally:
        await llm.aclose()
