"""The fake refuses what Ollama refuses: one test per rule read from Ollama's Go source.

The real `ollama` client talks to the fake, so each status and error text is checked the way
the project meets it. Requests the client cannot send (`shift`) go through plain httpx.
"""

from __future__ import annotations

import asyncio
from typing import Any

import httpx
import ollama
import pytest

from tests.fakes import ollama_rules as rules
from tests.fakes.ollama import FakeError, FakeOllama, Hold, StreamError, Unfinished

CHAT = "qwen3.5:9b"  # a thinking model, as in Ollama's library
PLAIN = "llama3.2:3b"  # completion and tools, no thinking
EMBED = "nomic-embed-text"
MSGS = [{"role": "user", "content": "hello"}]


@pytest.fixture
def client(fake_ollama: FakeOllama) -> ollama.AsyncClient:
    fake_ollama.add_model(PLAIN)
    return ollama.AsyncClient(host=fake_ollama.url)


async def refused(call: Any) -> tuple[int, str]:
    with pytest.raises(ollama.ResponseError) as err:
        await call
    return err.value.status_code, str(err.value.error)


class TestThinking:
    async def test_think_true_to_a_model_without_thinking_is_400(
        self, client: ollama.AsyncClient
    ) -> None:
        got = await refused(client.chat(PLAIN, MSGS, think=True))
        assert got == (400, '"llama3.2:3b" does not support thinking')
        got = await refused(client.chat(PLAIN, MSGS, think="high"))
        assert got == (400, '"llama3.2:3b" does not support thinking')

    async def test_think_false_is_accepted_by_every_chat_model(
        self, client: ollama.AsyncClient, fake_ollama: FakeOllama
    ) -> None:
        for model in (PLAIN, CHAT):
            reply = await client.chat(model, MSGS, think=False)
            assert reply.message.content == "OK"
            assert not reply.message.thinking
        assert [r.thought for r in fake_ollama.chat_records()] == [False, False]

    async def test_a_thinking_model_thinks_when_think_is_unset(
        self, client: ollama.AsyncClient, fake_ollama: FakeOllama
    ) -> None:
        reply = await client.chat(CHAT, MSGS)
        assert reply.message.thinking
        fake_ollama.enqueue_chat({"content": "x", "thinking": "scripted draft"})
        assert (await client.chat(CHAT, MSGS)).message.thinking == "scripted draft"
        plain = await client.chat(PLAIN, MSGS)
        assert not plain.message.thinking
        assert [r.thought for r in fake_ollama.chat_records()] == [True, True, False]

    async def test_a_bad_think_value_is_400(self, client: ollama.AsyncClient) -> None:
        status, message = await refused(client.chat(CHAT, MSGS, think="lots"))
        assert status == 400
        assert message.startswith('invalid think value: "lots"')


class TestCapabilities:
    async def test_chat_to_an_embedding_model_is_400(self, client: ollama.AsyncClient) -> None:
        got = await refused(client.chat(EMBED, MSGS))
        assert got == (400, '"nomic-embed-text" does not support chat')

    async def test_thinking_is_checked_before_chat(self, client: ollama.AsyncClient) -> None:
        got = await refused(client.chat(EMBED, MSGS, think=True))
        assert got == (400, '"nomic-embed-text" does not support thinking')

    async def test_tools_need_the_tools_capability(
        self, client: ollama.AsyncClient, fake_ollama: FakeOllama
    ) -> None:
        fake_ollama.add_model("gemma3:4b", "completion", "vision")
        tools: list[Any] = [{"type": "function", "function": {"name": "weather"}}]
        got = await refused(client.chat("gemma3:4b", MSGS, tools=tools))
        assert got == (400, "registry.ollama.ai/library/gemma3:4b does not support tools")

    async def test_unknown_model_is_404_with_the_chat_wording(
        self, client: ollama.AsyncClient
    ) -> None:
        assert await refused(client.chat("ghost:1b", MSGS)) == (404, "model 'ghost:1b' not found")

    @pytest.mark.parametrize(
        "name", ["QWEN3.5:9B", "library/qwen3.5:9b", "registry.ollama.ai/library/Qwen3.5:9b"]
    )
    async def test_a_name_is_matched_as_ollama_parses_it(
        self, client: ollama.AsyncClient, name: str
    ) -> None:
        """`getExistingName` matches each part of the name without case; `ParseName` fills in
        the default host, namespace and tag."""
        assert (await client.chat(name, MSGS)).message.content == "OK"
        assert (await client.show(name)).capabilities
        assert (await client.embed(EMBED.upper(), "x")).embeddings

    @pytest.mark.parametrize("name", ["gpt-oss:120b-cloud", "gpt-oss:120b:cloud", "kimi-k2:CLOUD"])
    async def test_a_cloud_model_goes_to_ollama_com(
        self, client: ollama.AsyncClient, fake_ollama: FakeOllama, name: str
    ) -> None:
        """`modelref.ParseRef`: a `:cloud` or `-cloud` tag is proxied to ollama.com, pulled or
        not; the fake answers as a signed-out Ollama (cloud_proxy.go) and counts the leak."""
        assert await refused(client.chat(name, MSGS)) == (401, "unauthorized")
        assert await refused(client.embed(name, "x")) == (401, "unauthorized")
        assert fake_ollama.sent_to_cloud == 2
        assert not rules.is_cloud(PLAIN) and rules.is_cloud(name)

    async def test_a_pulled_cloud_model_under_another_name_still_goes_to_ollama_com(
        self, client: ollama.AsyncClient, fake_ollama: FakeOllama
    ) -> None:
        """A pulled cloud model is a stub with a RemoteHost (`ollama cp` keeps it under any
        name): /api/tags and /api/show say so, and ChatHandler sends the chat on to it."""
        fake_ollama.add_model("mine:latest", remote_host="https://ollama.com:443")
        async with httpx.AsyncClient(base_url=fake_ollama.url) as http:
            tags = (await http.get("/api/tags")).json()["models"]
            shown = (await http.post("/api/show", json={"model": "mine"})).json()
        (entry,) = [m for m in tags if m["name"] == "mine:latest"]
        assert entry["remote_host"] == shown["remote_host"] == "https://ollama.com:443"
        assert all("remote_host" not in m for m in tags if m["name"] != "mine:latest")
        assert await refused(client.chat("mine", MSGS)) == (401, "unauthorized")
        assert fake_ollama.sent_to_cloud == 1

    async def test_no_messages_loads_the_model(self, client: ollama.AsyncClient) -> None:
        assert (await client.chat(CHAT, [])).done_reason == "load"
        assert (await client.chat(CHAT, [], keep_alive=0)).done_reason == "unload"


CALL = {"function": {"name": "weather", "arguments": {"city": "Leeds"}}}
TOOLS: list[Any] = [{"type": "function", "function": {"name": "weather"}}]


class TestToolCalls:
    async def test_tool_calls_only_when_the_request_had_tools(
        self, client: ollama.AsyncClient, fake_ollama: FakeOllama
    ) -> None:
        fake_ollama.enqueue_chat({"content": "", "tool_calls": [CALL]})
        without = await client.chat(PLAIN, MSGS)
        assert not without.message.tool_calls
        fake_ollama.enqueue_chat({"content": "", "tool_calls": [CALL]})
        with_tools = await client.chat(PLAIN, MSGS, tools=TOOLS)
        (call,) = with_tools.message.tool_calls or []
        assert dict(call.function.arguments) == {"city": "Leeds"}

    def test_arguments_are_always_an_object(self) -> None:
        assert rules.tool_arguments_ok([CALL])
        bad = {"function": {"name": "weather", "arguments": '{"city": "Leeds"}'}}
        assert not rules.tool_arguments_ok([bad])

    async def test_a_history_with_string_arguments_is_refused(
        self, fake_ollama: FakeOllama
    ) -> None:
        bad = {"function": {"name": "weather", "arguments": "{}"}}
        history = [*MSGS, {"role": "assistant", "content": "", "tool_calls": [bad]}]
        async with httpx.AsyncClient(base_url=fake_ollama.url) as http:
            answer = await http.post("/api/chat", json={"model": CHAT, "messages": history})
        assert answer.status_code == 400
        assert "cannot unmarshal string" in answer.json()["error"]


class TestErrors:
    @pytest.mark.parametrize("stream", [False, True])
    async def test_an_error_before_the_first_chunk_is_an_http_status(
        self, client: ollama.AsyncClient, fake_ollama: FakeOllama, stream: bool
    ) -> None:
        fake_ollama.enqueue_chat(StreamError(0, "model runner has unexpectedly stopped"))
        with pytest.raises(ollama.ResponseError) as err:
            if stream:
                async for _ in await client.chat(CHAT, MSGS, stream=True):
                    pass
            else:
                await client.chat(CHAT, MSGS)
        assert err.value.status_code == 500
        assert err.value.error == "model runner has unexpectedly stopped"

    async def test_an_error_after_a_chunk_is_a_line_without_status(
        self, client: ollama.AsyncClient, fake_ollama: FakeOllama
    ) -> None:
        fake_ollama.enqueue_chat(StreamError(2, "out of memory"))
        with pytest.raises(ollama.ResponseError) as err:
            async for _ in await client.chat(PLAIN, MSGS, stream=True):
                pass
        assert err.value.status_code == -1  # the client has no status for a mid-stream error

    async def test_a_runner_failure_can_be_a_400(
        self, client: ollama.AsyncClient, fake_ollama: FakeOllama
    ) -> None:
        """llama-server's own 4xx (a schema it cannot compile, a context it cannot fit) come
        through with their status: the client cannot tell them from a bad request of ours."""
        fake_ollama.enqueue_chat(StreamError(0, "failed to parse grammar", status=400))
        assert await refused(client.chat(CHAT, MSGS)) == (400, "failed to parse grammar")
        fake_ollama.enqueue_chat(FakeError(400, "failed to parse grammar"))
        assert (await refused(client.chat(CHAT, MSGS)))[0] == 400


class TestKeepAlive:
    @pytest.mark.parametrize("value", ["10m", "1h30m", "-1s", "0", "1.5h", "300ms", 300, -1, 0.5])
    async def test_go_durations_and_numbers_are_accepted(
        self, client: ollama.AsyncClient, value: str | float
    ) -> None:
        assert (await client.chat(PLAIN, MSGS, keep_alive=value)).message.content == "OK"

    @pytest.mark.parametrize(
        ("value", "message"),
        [
            ("10 minutes", 'time: unknown unit " minutes" in duration "10 minutes"'),
            ("600", 'time: missing unit in duration "600"'),
            ("-1", 'time: missing unit in duration "-1"'),  # forever is the number -1
            ("5min", 'time: unknown unit "min" in duration "5min"'),
            ("forever", 'time: invalid duration "forever"'),
            ("", 'time: invalid duration ""'),
        ],
    )
    async def test_anything_else_is_400_with_gos_message(
        self, client: ollama.AsyncClient, fake_ollama: FakeOllama, value: str, message: str
    ) -> None:
        assert await refused(client.chat(PLAIN, MSGS, keep_alive=value)) == (400, message)
        assert await refused(client.embed(EMBED, "x", keep_alive=value)) == (400, message)

    @pytest.mark.parametrize(
        ("text", "seconds"),
        [("10m", 600), ("1h30m", 5400), ("-1s", -1), ("0", 0), ("1.5h", 5400), ("2us", 2e-6)],
    )
    def test_parse(self, text: str, seconds: float) -> None:
        assert rules.go_duration_seconds(text) == pytest.approx(seconds)


class TestContext:
    async def test_the_servers_own_context_is_used_when_none_is_sent(
        self, client: ollama.AsyncClient, fake_ollama: FakeOllama
    ) -> None:
        words = "word " * 4000  # 5,000 tokens by the fake's count
        await client.chat(PLAIN, [{"role": "user", "content": words}])
        await client.chat(PLAIN, [{"role": "user", "content": words}], options={"num_ctx": 8192})
        first, second = fake_ollama.chat_records()
        assert first.truncated  # 4096 by default, as on a small GPU
        assert first.prompt_tokens == rules.context_shift_limit(4096)
        assert not second.truncated

    async def test_num_ctx_is_capped_at_the_trained_context(
        self, client: ollama.AsyncClient, fake_ollama: FakeOllama
    ) -> None:
        fake_ollama.add_model("tiny:1b", context_length=1024)
        long = [{"role": "user", "content": "word " * 1000}]
        await client.chat("tiny:1b", long, options={"num_ctx": 8192})
        assert fake_ollama.chat_records()[0].truncated

    async def test_older_messages_are_dropped_first(
        self, client: ollama.AsyncClient, fake_ollama: FakeOllama
    ) -> None:
        history = [
            {"role": "system", "content": "rules"},
            {"role": "user", "content": "old " * 5000},
            {"role": "assistant", "content": "ok"},
            {"role": "user", "content": "new question"},
        ]
        await client.chat(PLAIN, history)
        (record,) = fake_ollama.chat_records()
        assert not record.truncated
        assert record.prompt_tokens < 20

    async def test_without_context_shift_a_long_prompt_is_400(
        self, fake_ollama: FakeOllama
    ) -> None:
        body = {
            "model": CHAT,
            "messages": [{"role": "user", "content": "word " * 4000}],
            "shift": False,
            "stream": False,
        }
        async with httpx.AsyncClient(base_url=fake_ollama.url) as http:
            answer = await http.post("/api/chat", json=body)
        assert answer.status_code == 400
        assert answer.json()["error"] == rules.PROMPT_TOO_LONG

    async def test_deepseek2_models_have_no_context_shift(
        self, client: ollama.AsyncClient, fake_ollama: FakeOllama
    ) -> None:
        fake_ollama.add_model("deepseek-v2:16b")
        long = [{"role": "user", "content": "word " * 4000}]
        assert await refused(client.chat("deepseek-v2:16b", long)) == (400, rules.PROMPT_TOO_LONG)
        fake_ollama.enqueue_chat("x" * 20_000)
        reply = await client.chat("deepseek-v2:16b", MSGS)
        assert reply.done_reason == "length"  # the context, not num_predict, ended it
        assert (reply.prompt_eval_count or 0) + (reply.eval_count or 0) <= 4096
        assert (await client.show("deepseek-v2:16b")).details.family == "deepseek2"

    async def test_a_reply_cut_by_num_predict_is_done_reason_length(
        self, client: ollama.AsyncClient, fake_ollama: FakeOllama
    ) -> None:
        fake_ollama.enqueue_chat('{"title": "a long title that goes on"}')
        reply = await client.chat(PLAIN, MSGS, options={"num_predict": 3})
        assert reply.done_reason == "length"
        assert reply.message.content == '{"title": "a'  # 3 tokens of 4 bytes
        fake_ollama.enqueue_chat('{"title": "short"}')
        assert (await client.chat(PLAIN, MSGS)).done_reason == "stop"

    async def test_thinking_counts_against_num_predict(
        self, client: ollama.AsyncClient, fake_ollama: FakeOllama
    ) -> None:
        fake_ollama.enqueue_chat({"content": '{"a": 1}', "thinking": "hmm " * 50})
        reply = await client.chat(CHAT, MSGS, options={"num_predict": 20})
        assert reply.done_reason == "length"
        assert reply.message.content == ""

    async def test_without_context_shift_the_context_ends_the_reply(
        self, fake_ollama: FakeOllama
    ) -> None:
        fake_ollama.enqueue_chat("x" * 20_000)
        body = {"model": PLAIN, "messages": MSGS, "shift": False, "stream": False}
        fake_ollama.add_model(PLAIN)
        async with httpx.AsyncClient(base_url=fake_ollama.url) as http:
            answer = (await http.post("/api/chat", json=body)).json()
        assert answer["done_reason"] == "length"
        assert answer["prompt_eval_count"] + answer["eval_count"] <= 4096

    async def test_embeddings_truncate_unless_told_not_to(self, client: ollama.AsyncClient) -> None:
        long = "word " * 3000  # past nomic-embed-text's 2,048 tokens
        assert len((await client.embed(EMBED, long)).embeddings) == 1
        got = await refused(client.embed(EMBED, long, truncate=False))
        assert got == (400, "the input length exceeds the context length")


class TestEmbed:
    async def test_a_model_that_cannot_embed_is_501_from_its_runner(
        self, client: ollama.AsyncClient
    ) -> None:
        """/api/embed asks for no capability: the chat model is loaded, then its llama-server
        (started without --embedding) refuses with 501, passed through as it is."""
        assert await refused(client.embed(CHAT, ["hello"])) == (501, rules.EMBED_UNSUPPORTED)
        assert (await client.embed(CHAT, [])).embeddings == []  # nothing to embed: loaded only

    async def test_the_context_is_num_ctx_capped_at_the_trained_one(
        self, client: ollama.AsyncClient, fake_ollama: FakeOllama
    ) -> None:
        """routes.go EmbedHandler: min(opts.NumCtx, trained), where NumCtx is the request's,
        else the Modelfile's, else the server's own default (4096 on a small GPU)."""
        fake_ollama.add_model("long-embed", "embedding", context_length=32768)
        fake_ollama.add_model("set-embed", "embedding", context_length=32768, num_ctx=8192)
        words = "word " * 6000  # 7,500 tokens by the fake's count
        assert (await client.embed("long-embed", words)).prompt_eval_count == 4096
        asked = await client.embed("long-embed", words, options={"num_ctx": 8192})
        assert asked.prompt_eval_count == 7500
        assert (await client.embed("set-embed", words)).prompt_eval_count == 7500
        short = {"num_ctx": 3}
        got = await refused(
            client.embed(EMBED, "why is the sky blue?", truncate=False, options=short)
        )
        assert got == (400, "the input length exceeds the context length")

    async def test_show_lists_the_modelfiles_parameters(
        self, client: ollama.AsyncClient, fake_ollama: FakeOllama
    ) -> None:
        fake_ollama.add_model("set-embed", "embedding", context_length=32768, num_ctx=8192)
        shown = await client.show("set-embed")
        assert "num_ctx" not in str((await client.show(EMBED)).parameters)
        assert any(
            line.split() == ["num_ctx", "8192"] for line in str(shown.parameters).splitlines()
        )
        assert shown.modelinfo and shown.modelinfo["bert.context_length"] == 32768
        assert shown.capabilities == ["embedding"]

    async def test_an_empty_input_only_loads_the_model(self, client: ollama.AsyncClient) -> None:
        assert (await client.embed(EMBED, "")).embeddings == []
        assert len((await client.embed(EMBED, ["", "x"])).embeddings) == 2  # a list keeps ""

    async def test_dimensions_past_the_models_own_are_ignored(
        self, client: ollama.AsyncClient
    ) -> None:
        assert len((await client.embed(EMBED, "x", dimensions=100_000)).embeddings[0]) == 384
        assert len((await client.embed(EMBED, "x", dimensions=16)).embeddings[0]) == 16


class TestUnfinished:
    """llama_server.go `Completion`: past 30 repeats of one token the runner returns without
    its final response, so Ollama's reply never says done (and has no done_reason)."""

    async def test_without_streaming_the_reply_is_not_done(
        self, client: ollama.AsyncClient, fake_ollama: FakeOllama
    ) -> None:
        fake_ollama.enqueue_chat(Unfinished("yes yes yes"))
        reply = await client.chat(PLAIN, MSGS)
        assert reply.message.content == "yes yes yes"
        assert reply.done is False and not reply.done_reason

    async def test_a_stream_ends_without_a_done_line(
        self, client: ollama.AsyncClient, fake_ollama: FakeOllama
    ) -> None:
        fake_ollama.enqueue_chat(Unfinished("yes yes yes"))
        chunks = [c async for c in await client.chat(PLAIN, MSGS, stream=True)]
        assert "".join(c.message.content or "" for c in chunks) == "yes yes yes"
        assert not any(c.done for c in chunks)


class TestQueue:
    async def test_a_full_queue_is_503_server_busy(
        self, client: ollama.AsyncClient, fake_ollama: FakeOllama
    ) -> None:
        fake_ollama.max_queue = 1
        release = asyncio.Event()
        fake_ollama.enqueue_chat(Hold(release))
        first = asyncio.create_task(client.chat(PLAIN, MSGS))
        async with asyncio.timeout(30):
            while not fake_ollama.chats_in_flight:  # noqa: ASYNC110 - polling the fake's count
                await asyncio.sleep(0.01)
        assert await refused(client.chat(PLAIN, MSGS)) == (503, rules.SERVER_BUSY)
        release.set()
        assert (await first).message.content == "OK"
        assert (await client.chat(PLAIN, MSGS)).message.content == "OK"
