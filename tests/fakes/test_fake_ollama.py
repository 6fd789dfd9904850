"""The fake Ollama speaks the protocol: the REAL `ollama` client parses every answer it gives.

Async tests use `fake_ollama` (same loop); sync tests use `fake_ollama_thread`.
"""

from __future__ import annotations

import math
from typing import Any

import httpx
import ollama
import pytest

from tests.fakes.ollama import (
    FakeError,
    FakeOllama,
    Raw,
    Stall,
    StreamError,
    hashed_embedding,
)

CHAT = "qwen3.5:9b"
EMBED = "nomic-embed-text"
MSGS = [{"role": "user", "content": "hello"}]


def cosine(a: list[float], b: list[float]) -> float:
    return sum(x * y for x, y in zip(a, b, strict=True))


class TestHashedEmbedding:
    def test_deterministic_unit_length(self) -> None:
        v = hashed_embedding("Meeting notes about the garden project", 64)
        assert v == hashed_embedding("Meeting notes about the garden project", 64)
        assert len(v) == 64
        assert math.isclose(sum(x * x for x in v), 1.0)

    def test_empty_text_is_a_unit_vector(self) -> None:
        for text in ("", "the and of", "  \n"):
            v = hashed_embedding(text)
            assert math.isclose(sum(x * x for x in v), 1.0)

    def test_shared_words_are_closer(self) -> None:
        q = hashed_embedding("planning the garden beds for spring")
        near = hashed_embedding("Spring garden bed planning: tomatoes and beans")
        far = hashed_embedding("quarterly tax invoice from the accountant")
        assert cosine(q, near) > cosine(q, far) + 0.2


class TestAsyncClient:
    async def test_version_list_and_show(self, fake_ollama: FakeOllama) -> None:
        client = ollama.AsyncClient(host=fake_ollama.url)
        listed = await client.list()
        assert [m.model for m in listed.models] == [CHAT, "nomic-embed-text:latest"]
        assert listed.models[0].details is not None
        assert listed.models[0].details.parameter_size == "9B"
        show = await client.show(EMBED)
        assert show.capabilities == ["embedding"]
        assert (await client.show(CHAT)).capabilities == ["completion", "tools", "thinking"]
        with pytest.raises(ollama.ResponseError) as err:
            await client.show("nope:1b")
        assert err.value.status_code == 404
        async with httpx.AsyncClient(base_url=fake_ollama.url) as http:
            assert (await http.get("/api/version")).json() == {"version": "0.12.6"}
            assert (await http.get("/")).text == "Ollama is running"

    async def test_embed_batch(self, fake_ollama: FakeOllama) -> None:
        client = ollama.AsyncClient(host=fake_ollama.url)
        texts = ["garden beds in spring", "spring garden planning", "tax invoice"]
        out = await client.embed(model=EMBED, input=texts)
        assert len(out.embeddings) == 3
        assert len(out.embeddings[0]) == 384
        assert list(out.embeddings[0]) == hashed_embedding(texts[0])
        e = [list(v) for v in out.embeddings]
        assert cosine(e[0], e[1]) > cosine(e[0], e[2])
        assert fake_ollama.embed_requests() == [{"model": EMBED, "input": texts}]
        short = await client.embed(model=EMBED, input="one text", dimensions=32)
        assert len(short.embeddings[0]) == 32
        legacy = await client.embeddings(model=EMBED, prompt="garden beds in spring")
        assert list(legacy.embedding) == hashed_embedding("garden beds in spring")

    async def test_embed_errors(self, fake_ollama: FakeOllama) -> None:
        client = ollama.AsyncClient(host=fake_ollama.url)
        with pytest.raises(ollama.ResponseError) as err:
            await client.embed(model="missing", input="x")
        assert err.value.status_code == 404
        assert err.value.error == 'model "missing" not found, try pulling it first'
        fake_ollama.fail_embed = FakeError(503, "busy")
        with pytest.raises(ollama.ResponseError) as err:
            await client.embed(model=EMBED, input="x")
        assert (err.value.status_code, err.value.error) == (503, "busy")

    async def test_chat_with_schema(self, fake_ollama: FakeOllama) -> None:
        schema = {"type": "object", "properties": {"title": {"type": "string"}}}
        fake_ollama.enqueue_chat('{"title": "Garden"}')
        client = ollama.AsyncClient(host=fake_ollama.url)
        msgs = [{"role": "user", "content": "name it"}]
        resp = await client.chat(model=CHAT, messages=msgs, format=schema, options={"seed": 1})
        assert resp.message.content == '{"title": "Garden"}'
        assert resp.done and resp.done_reason == "stop"
        sent = fake_ollama.chat_requests()[0]
        assert sent["format"] == schema
        assert sent["stream"] is False
        assert sent["messages"] == msgs
        # Queue drained: the handler answers next, then the default "OK".
        fake_ollama.chat_handler = lambda body: f"echo {body['messages'][-1]['content']}"
        assert (await client.chat(model=CHAT, messages=msgs)).message.content == "echo name it"
        fake_ollama.chat_handler = None
        assert (await client.chat(model=CHAT, messages=msgs)).message.content == "OK"

    async def test_chat_stream_reassembles(self, fake_ollama: FakeOllama) -> None:
        text = "Here is  a streamed\nanswer, in pieces. "
        fake_ollama.enqueue_chat({"content": text, "thinking": "let me think"})
        client = ollama.AsyncClient(host=fake_ollama.url)
        parts = [p async for p in await client.chat(model=CHAT, messages=MSGS, stream=True)]
        assert len(parts) > 4
        assert "".join(p.message.content or "" for p in parts) == text
        assert "".join(p.message.thinking or "" for p in parts) == "let me think"
        assert parts[-1].done and not any(p.done for p in parts[:-1])

    @pytest.mark.parametrize("stream", [False, True])
    async def test_tool_calls(self, fake_ollama: FakeOllama, stream: bool) -> None:
        call = {"function": {"name": "search_notes", "arguments": {"query": "garden"}}}
        fake_ollama.enqueue_chat({"content": "", "tool_calls": [call]})
        client = ollama.AsyncClient(host=fake_ollama.url)
        tools: list[Any] = [{"type": "function", "function": {"name": "search_notes"}}]
        if stream:
            parts = [p async for p in await client.chat(CHAT, MSGS, tools=tools, stream=True)]
            calls = [c for p in parts for c in p.message.tool_calls or []]
        else:
            calls = list((await client.chat(CHAT, MSGS, tools=tools)).message.tool_calls or [])
        assert [(c.function.name, dict(c.function.arguments)) for c in calls] == [
            ("search_notes", {"query": "garden"})
        ]
        assert fake_ollama.chat_requests()[0]["tools"][0]["function"]["name"] == "search_notes"

    async def test_errors(self, fake_ollama: FakeOllama) -> None:
        client = ollama.AsyncClient(host=fake_ollama.url)
        fake_ollama.enqueue_chat(FakeError(500, "boom"), StreamError(2, "lost GPU"))
        with pytest.raises(ollama.ResponseError) as err:
            await client.chat(model=CHAT, messages=MSGS)
        assert (err.value.status_code, err.value.error) == (500, "boom")
        got: list[str] = []
        with pytest.raises(ollama.ResponseError, match="lost GPU"):
            async for part in await client.chat(model=CHAT, messages=MSGS, stream=True):
                got.append(part.message.content or "")
        assert len(got) == 2
        with pytest.raises(ollama.ResponseError) as err:
            await client.chat(model="ghost:7b", messages=MSGS)
        assert err.value.status_code == 404
        assert err.value.error == "model 'ghost:7b' not found"

    async def test_raw_malformed_body(self, fake_ollama: FakeOllama) -> None:
        fake_ollama.enqueue_chat(
            Raw("{not json"), Raw("<html>bad gateway</html>", 502, "text/html")
        )
        client = ollama.AsyncClient(host=fake_ollama.url)
        with pytest.raises(ValueError):
            await client.chat(model=CHAT, messages=MSGS)
        with pytest.raises(ollama.ResponseError) as err:
            await client.chat(model=CHAT, messages=MSGS)
        assert err.value.status_code == 502

    async def test_stall_times_out(self, fake_ollama: FakeOllama) -> None:
        fake_ollama.enqueue_chat(Stall(5))
        client = ollama.AsyncClient(host=fake_ollama.url, timeout=0.2)
        with pytest.raises(httpx.TimeoutException):
            await client.chat(model=CHAT, messages=MSGS)
        fake_ollama.enqueue_chat(Stall(0.01, "late but fine"))
        patient = ollama.AsyncClient(host=fake_ollama.url, timeout=30)  # room on a busy machine
        assert (await patient.chat(model=CHAT, messages=MSGS)).message.content == "late but fine"

    async def test_dead_port(self, dead_ollama_url: str) -> None:
        client = ollama.AsyncClient(host=dead_ollama_url)
        with pytest.raises(ConnectionError):
            await client.list()


class TestSyncClient:
    def test_thread_fixture_sets_env(self, fake_ollama_thread: FakeOllama) -> None:
        client = ollama.Client()  # host comes from OLLAMA_HOST
        fake_ollama_thread.enqueue_chat("hello from the thread")
        assert client.chat(model=CHAT, messages=MSGS).message.content == "hello from the thread"
        parts = list(client.chat(model=CHAT, messages=MSGS, stream=True))
        assert "".join(p.message.content or "" for p in parts) == "OK"
        assert len(client.embed(model=EMBED, input=["a", "b"]).embeddings) == 2
        assert fake_ollama_thread.requests[0].headers["User-Agent"].startswith("ollama-python/")

    def test_dead_port(self, dead_ollama_url: str) -> None:
        with pytest.raises(ConnectionError):
            ollama.Client(host=dead_ollama_url).list()
