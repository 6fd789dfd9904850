"""How a chat model makes tool calls (LLM.tool_calling), from what was found, never from its
name: what the server's probe found, else one short call with a tool, and what the model did
since. The assistant answers in schema steps unless the model makes real calls."""

from __future__ import annotations

import dataclasses
from collections.abc import AsyncIterator
from typing import Any

import pytest
import pytest_asyncio
from aiohttp.test_utils import TestServer

from commonplace.config import Settings
from commonplace.llm import LLM, Capabilities, make_llm
from commonplace.llm.openai import Endpoint, OpenAIBackend
from commonplace.llm.servers import Server
from tests.fakes.ollama import FakeOllama
from tests.fakes.openai_server import FakeOpenAI
from tests.models import with_model

TOOLS = [
    {
        "type": "function",
        "function": {
            "name": "list_events",
            "description": "Events on a day.",
            "parameters": {"type": "object", "properties": {"day": {"type": "string"}}},
        },
    }
]
MSGS = [{"role": "user", "content": "What's on Thursday?"}]
# What the built-in engine knows of itself: its server takes tools, but what the model it runs
# does with them is not known until asked.
NOT_SAID = Capabilities(json_schema=True, json_object=True, tools=True, embeddings=True)


@pytest_asyncio.fixture
async def server() -> AsyncIterator[Any]:
    started: list[TestServer] = []

    async def start(fake: FakeOpenAI) -> str:
        server = TestServer(fake.app(), host="127.0.0.1")
        await server.start_server()
        started.append(server)
        return f"http://127.0.0.1:{server.port}/v1"

    yield start
    for s in started:
        await s.close()


def known_backend(settings: Settings, url: str, known: Capabilities) -> LLM:
    """An OpenAI-compatible backend that is not probed, as the built-in engine's is not."""
    s = with_model(settings, backend="openai", retries=0, timeout_s=10)

    async def endpoint() -> Endpoint:
        return Endpoint(url)

    backend = OpenAIBackend(s.model, endpoint, Server("builtin", ""), known=known)
    return LLM(s.model, backend, backend, chat_model="qwen2.5-7b-instruct")


async def test_ollama_makes_calls_and_is_not_asked(
    fake_ollama: FakeOllama, settings: Settings
) -> None:
    llm = make_llm(with_model(settings, host=fake_ollama.url))
    assert await llm.tool_calling() == "calls"
    assert fake_ollama.chat_requests() == []


async def test_what_the_probe_found_decides(server: Any, settings: Settings) -> None:
    fake = FakeOpenAI(dialect="lmstudio", tool_calls_as_text=True)
    s = with_model(settings, backend="openai", retries=0, timeout_s=10)
    url = await server(fake)
    llm = make_llm(dataclasses.replace(s, openai=dataclasses.replace(s.openai, base_url=url)))
    assert await llm.tool_calling() == "text"
    probed = len(fake.chat_requests())
    assert await llm.tool_calling() == "text" and len(fake.chat_requests()) == probed


@pytest.mark.parametrize(
    ("prints", "scripted", "way"),
    [
        (True, None, "text"),  # the probe's call printed as a fenced JSON block
        (False, None, "calls"),
        (False, "I can't tell the time.", "none"),  # no call when told to use the tool
    ],
)
async def test_a_server_that_cannot_say_is_asked_once(
    server: Any, settings: Settings, prints: bool, scripted: str | None, way: str
) -> None:
    fake = FakeOpenAI(tool_calls_as_text=prints)
    if scripted is not None:
        fake.enqueue_chat(scripted)
    llm = known_backend(settings, await server(fake), NOT_SAID)
    assert await llm.tool_calling() == way
    (asked,) = fake.chat_requests()
    assert asked["tools"][0]["function"]["name"] == "get_time" and asked["max_tokens"] == 64
    assert await llm.tool_calling() == way
    assert len(fake.chat_requests()) == 1  # remembered for the process


async def test_a_server_that_refuses_tools_is_not_asked(server: Any, settings: Settings) -> None:
    fake = FakeOpenAI()
    refuses = Capabilities(json_schema=True, tools=False)
    llm = known_backend(settings, await server(fake), refuses)
    assert await llm.tool_calling() == "none"
    assert fake.chat_requests() == []


async def test_a_model_seen_printing_a_call_prints_from_then_on(
    server: Any, settings: Settings
) -> None:
    fake = FakeOpenAI()  # makes real calls when probed
    llm = known_backend(settings, await server(fake), NOT_SAID)
    assert await llm.tool_calling() == "calls"
    fake.enqueue_chat('```json\n{"name": "list_events", "arguments": {"day": "2026-10-29"}}\n```')
    reply = await llm.chat(MSGS, tools=TOOLS)
    assert reply.tool_calls[0].as_text
    assert await llm.tool_calling() == "text"
