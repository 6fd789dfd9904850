"""The LLM layer against the fake Ollama: the real `ollama` client, real HTTP."""

from __future__ import annotations

import asyncio
import contextlib
import json
import ssl

import pydantic
import pytest

from commonplace.config import Settings
from commonplace.llm import (
    LLM,
    BadAnswer,
    CloudModel,
    LLMTimeout,
    ModelBadReply,
    ModelFailed,
    ModelMissing,
    ModelUnavailable,
    ModelUnsuitable,
    StreamEnd,
    ThinkFilter,
    strip_think,
)
from tests.fakes import ollama_rules as rules
from tests.fakes.ollama import FakeError, FakeOllama, Raw, Stall, StreamError, Unfinished
from tests.models import llm_for, with_model

MSGS = [{"role": "user", "content": "hello"}]


class Proposal(pydantic.BaseModel):
    title: str
    tags: list[str]


def make_llm(url: str, **changes: object) -> LLM:
    # a generous wait: the tests about a timeout set their own, with a stall far longer
    base = with_model(
        Settings(),
        backend="ollama",
        host=url,
        retries=1,
        backoff_s=0.01,
        timeout_s=30,
        embed_batch=3,
    )
    return llm_for(base, **changes)


async def test_schema_answer_is_parsed_and_schema_sent(fake_ollama: FakeOllama) -> None:
    fake_ollama.enqueue_chat(json.dumps({"title": "Pears", "tags": ["fruit"]}))
    got = await make_llm(fake_ollama.url).chat_json([{"role": "user", "content": "hi"}], Proposal)
    assert got == Proposal(title="Pears", tags=["fruit"])
    (request,) = fake_ollama.chat_requests()
    assert request["model"] == "qwen3.5:9b"
    assert request["format"]["properties"]["tags"]["type"] == "array"
    assert request["options"]["temperature"] == 0
    assert request["stream"] is False


async def test_custom_schema_is_sent_but_parsed_with_the_model(fake_ollama: FakeOllama) -> None:
    schema = {"type": "object", "properties": {"title": {"type": "string", "maxLength": 5}}}
    fake_ollama.enqueue_chat('{"title": "Long title", "tags": []}')
    got = await make_llm(fake_ollama.url).chat_json(MSGS, Proposal, schema=schema)
    assert got.title == "Long title"  # the program, not the schema, decides what to keep
    assert fake_ollama.chat_requests()[0]["format"] == schema


@pytest.mark.parametrize(
    ("reply", "reason"),
    [
        ("not json at all", "not JSON"),
        ("", "empty"),
        ('{"title": "x"}', "tags"),
        ('{"title": 3, "tags": []}', "title"),
        ("<think>let me think", "empty"),
    ],
)
async def test_garbage_answers_raise_bad_answer_with_the_raw_text(
    fake_ollama: FakeOllama, reply: str, reason: str
) -> None:
    fake_ollama.enqueue_chat(reply)
    with pytest.raises(BadAnswer) as err:
        await make_llm(fake_ollama.url).chat_json(MSGS, Proposal)
    assert reason in err.value.reason
    assert err.value.raw == reply
    assert len(fake_ollama.chat_requests()) == 1  # garbage is not retried here: the caller decides


async def test_think_leak_and_code_fence_are_removed(fake_ollama: FakeOllama) -> None:
    fake_ollama.enqueue_chat(
        '<think>{"title": "draft"}</think>\n```json\n{"title": "Final", "tags": []}\n```'
    )
    got = await make_llm(fake_ollama.url).chat_json(MSGS, Proposal)
    assert got.title == "Final"


async def test_timeout_is_retried_then_reported(fake_ollama: FakeOllama) -> None:
    fake_ollama.enqueue_chat(Stall(5), Stall(5))
    with pytest.raises(LLMTimeout, match=r"longer than 1 s"):
        await make_llm(fake_ollama.url, timeout_s=1).chat_json(MSGS, Proposal)
    assert len(fake_ollama.chat_requests()) == 2  # one retry


async def test_a_retry_can_succeed(fake_ollama: FakeOllama) -> None:
    fake_ollama.enqueue_chat(FakeError(503, "loading"), '{"title": "ok", "tags": []}')
    got = await make_llm(fake_ollama.url).chat_json(MSGS, Proposal)
    assert got.title == "ok"


async def test_model_missing_tells_what_to_pull(fake_ollama: FakeOllama) -> None:
    with pytest.raises(ModelMissing, match=r"ollama pull qwen3\.8:27b"):
        await make_llm(fake_ollama.url, chat_model="qwen3.8:27b").chat_json(MSGS, Proposal)
    assert len(fake_ollama.chat_requests()) == 1  # not worth retrying


async def test_ollama_error_status(fake_ollama: FakeOllama) -> None:
    fake_ollama.enqueue_chat(FakeError(400, "invalid format"))
    with pytest.raises(ModelFailed, match="invalid format"):
        await make_llm(fake_ollama.url).chat(MSGS)


async def test_an_unreadable_http_body_is_ollamas_fault_and_retried(
    fake_ollama: FakeOllama,
) -> None:
    """Not the model's answer: a reply cut off or replaced (a proxy's error page) is retried,
    and never counts as a bad answer towards marking a capture."""
    fake_ollama.enqueue_chat(Raw("{not json"), Raw("<html>bad gateway</html>"))
    with pytest.raises(ModelBadReply) as caught:
        await make_llm(fake_ollama.url).chat(MSGS)
    assert caught.value.retryable and not isinstance(caught.value, BadAnswer)
    assert len(fake_ollama.chat_requests()) == 2  # tried again
    fake_ollama.enqueue_chat(Raw("{not json"), "fine")
    assert (await make_llm(fake_ollama.url).chat(MSGS)).content == "fine"


async def test_ollama_down_says_how_to_start_it(dead_ollama_url: str) -> None:
    llm = make_llm(dead_ollama_url)
    with pytest.raises(ModelUnavailable, match="ollama serve"):
        await llm.embed(["x"])
    status = await llm.status()
    assert not status.reachable
    assert "ollama serve" in status.error


async def test_embeddings_in_batches(fake_ollama: FakeOllama) -> None:
    texts = [f"note number {i}" for i in range(7)] + [""]
    vectors = await make_llm(fake_ollama.url).embed(texts)
    assert len(vectors) == 8
    assert {len(v) for v in vectors} == {384}
    batches = [r["input"] for r in fake_ollama.embed_requests()]
    assert [len(b) for b in batches] == [3, 3, 2]
    assert batches[-1][-1] == " "  # an empty text is sent as a space, not refused
    assert fake_ollama.embed_requests()[0]["model"] == "nomic-embed-text"


async def test_embedding_model_missing(fake_ollama: FakeOllama) -> None:
    with pytest.raises(ModelMissing, match="ollama pull mxbai-embed-large"):
        await make_llm(fake_ollama.url, embed_model="mxbai-embed-large").embed(["x"])


async def test_tool_calls_are_returned_with_their_arguments(fake_ollama: FakeOllama) -> None:
    call = {"function": {"name": "weather", "arguments": {"city": "Leeds"}}}
    fake_ollama.enqueue_chat({"content": "", "tool_calls": [call]})
    reply = await make_llm(fake_ollama.url).chat(
        [{"role": "user", "content": "weather?"}],
        tools=[{"type": "function", "function": {"name": "weather", "parameters": {}}}],
    )
    assert [(c.name, c.arguments) for c in reply.tool_calls] == [("weather", {"city": "Leeds"})]
    assert fake_ollama.chat_requests()[0]["tools"][0]["function"]["name"] == "weather"


async def test_stream_yields_text_without_drafts(fake_ollama: FakeOllama) -> None:
    fake_ollama.enqueue_chat("<think>hmm, the user</think>The answer is [1].")
    parts = [p async for p in make_llm(fake_ollama.url).chat_stream(MSGS)]
    assert "".join(parts) == "The answer is [1]."
    assert len(parts) > 1


async def test_a_slow_reader_of_a_stream_is_not_timed_out(fake_ollama: FakeOllama) -> None:
    """Only the waits for the model count towards timeout_s: a caller that takes its time with
    each piece (a slow page) is not cut off, and nothing is cancelled under it."""
    words = "one two three four five six seven eight"
    fake_ollama.enqueue_chat(words)
    llm = make_llm(fake_ollama.url, timeout_s=3)  # room for the fake on a loaded machine
    parts: list[str] = []
    async with contextlib.aclosing(llm.chat_stream(MSGS)) as stream:
        async for piece in stream:
            parts.append(piece)
            await asyncio.sleep(0.45)  # the caller's own work: more than 3 s in all
    assert "".join(parts) == words
    assert not llm.gate.busy


async def test_a_stalled_stream_still_times_out(fake_ollama: FakeOllama) -> None:
    fake_ollama.enqueue_chat(Stall(3.0, "too late"))
    llm = make_llm(fake_ollama.url, timeout_s=0.3)
    with pytest.raises(LLMTimeout):
        async for _ in llm.chat_stream(MSGS):
            pass
    assert not llm.gate.busy


async def test_stream_error_is_reported(fake_ollama: FakeOllama) -> None:
    fake_ollama.enqueue_chat(StreamError(after_chunks=2, message="out of memory"))
    with pytest.raises(ModelFailed, match="out of memory"):
        async for _ in make_llm(fake_ollama.url).chat_stream(MSGS):
            pass


async def test_status_lists_models(fake_ollama: FakeOllama) -> None:
    status = await make_llm(fake_ollama.url).status()
    assert status.reachable
    assert status.version
    assert status.has_model("nomic-embed-text")  # ':latest' is implied
    assert status.has_model("qwen3.5:9b")
    assert not status.has_model("qwen3.5:4b")
    # Ollama matches names without case, with its default host and namespace implied
    assert status.has_model("Qwen3.5:9B")
    assert status.has_model("registry.ollama.ai/library/nomic-embed-text")
    assert status.digest("QWEN3.5:9b") == status.digest("qwen3.5:9b") != ""


async def test_status_does_not_read_the_ca_bundle_each_time(
    fake_ollama: FakeOllama, monkeypatch: pytest.MonkeyPatch
) -> None:
    """/api/state asks for the status every few seconds while the phone page is open: reading
    and parsing the system's CA bundle for each (about 20 ms of CPU) was most of its cost."""
    llm = make_llm(fake_ollama.url)
    assert (await llm.status()).reachable
    loads: list[object] = []
    real = ssl.SSLContext.load_verify_locations

    def counted(self: ssl.SSLContext, *args: object, **kwargs: object) -> None:
        loads.append(args or kwargs)
        real(self, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(ssl.SSLContext, "load_verify_locations", counted)
    for _ in range(3):
        assert (await llm.status()).reachable
    assert loads == []


@pytest.mark.parametrize(
    ("text", "kept"),
    [
        ("plain answer", "plain answer"),
        ("<think>draft</think>answer", "answer"),
        ("<think>a</think>b</think> c", "c"),
        ("  <think>never closed", ""),
        ("no open tag</think>answer", "answer"),
    ],
)
def test_strip_think(text: str, kept: str) -> None:
    assert strip_think(text) == kept


@pytest.mark.parametrize(
    "pieces",
    [
        ["<th", "ink>dra", "ft</th", "ink>  Hello", " world"],
        ["Hel", "lo", " world"],
        ["<", "b>Hello world"],
    ],
)
def test_think_filter_streams_the_same_as_strip_think(pieces: list[str]) -> None:
    flt = ThinkFilter()
    out = "".join(flt.feed(p) for p in pieces) + flt.flush()
    whole = "".join(pieces)
    assert out.strip() == (strip_think(whole) if "<think>" in whole else whole).strip()


@pytest.mark.parametrize(("setting", "sent"), [("", None), ("off", False), ("on", True)])
async def test_think_setting_is_sent_only_when_chosen(
    fake_ollama: FakeOllama, setting: str, sent: bool | None
) -> None:
    fake_ollama.enqueue_chat('{"title": "x", "tags": []}', "plain", "streamed")
    llm = make_llm(fake_ollama.url, think=setting)
    await llm.chat_json(MSGS, Proposal)
    await llm.chat(MSGS)
    assert "".join([p async for p in llm.chat_stream(MSGS)]) == "streamed"
    for request in fake_ollama.chat_requests():
        assert request.get("think") == sent
        assert ("think" in request) == (sent is not None)


# -- against Ollama's own rules (tests/fakes/ollama_rules.py) ----------------------------------


async def test_a_thinking_model_does_not_think_by_default(fake_ollama: FakeOllama) -> None:
    """qwen3.5 thinks on every call unless told not to: every chat call says think=false."""
    fake_ollama.enqueue_chat('{"title": "x", "tags": []}', "plain", "streamed")
    llm = llm_for(Settings(), backend="ollama", host=fake_ollama.url)
    await llm.chat_json(MSGS, Proposal)
    await llm.chat(MSGS)
    assert "".join([p async for p in llm.chat_stream(MSGS)]) == "streamed"
    assert [r.thought for r in fake_ollama.chat_records()] == [False, False, False]


async def test_thinking_on_a_model_that_cannot_think_says_what_to_change(
    fake_ollama: FakeOllama,
) -> None:
    fake_ollama.add_model("llama3.2:3b")
    llm = make_llm(fake_ollama.url, chat_model="llama3.2:3b", think="on")
    with pytest.raises(ModelUnsuitable, match=r"does not support thinking.*think = \"off\""):
        await llm.chat(MSGS)
    assert len(fake_ollama.chat_requests()) == 1  # a 400 is not worth a retry
    assert not ModelUnsuitable("m", "x").retryable


async def test_an_embedding_model_as_chat_model_says_what_to_change(
    fake_ollama: FakeOllama,
) -> None:
    llm = make_llm(fake_ollama.url, chat_model="nomic-embed-text")
    with pytest.raises(ModelUnsuitable, match=r"does not support chat.*not a chat model"):
        await llm.chat_json(MSGS, Proposal)


async def test_a_reply_cut_at_the_length_limit_is_reported_as_cut(
    fake_ollama: FakeOllama,
) -> None:
    fake_ollama.enqueue_chat(json.dumps({"title": "Pears and apples", "tags": ["fruit"]}))
    llm = make_llm(fake_ollama.url)
    with pytest.raises(BadAnswer) as err:
        await llm.chat_json(MSGS, Proposal, options={"num_predict": 4})
    assert "cut off at the length limit" in err.value.reason
    assert err.value.raw  # what the model did say is kept
    fake_ollama.enqueue_chat("a long answer that will not fit")
    reply = await llm.chat(MSGS, options={"num_predict": 2})
    assert reply.cut
    fake_ollama.enqueue_chat("short")
    assert not (await llm.chat(MSGS)).cut


async def test_num_ctx_is_sent_only_when_set(fake_ollama: FakeOllama) -> None:
    await make_llm(fake_ollama.url).chat(MSGS)
    await make_llm(fake_ollama.url, num_ctx=16384).chat(MSGS)
    first, second = fake_ollama.chat_requests()
    assert "num_ctx" not in first["options"]
    assert second["options"]["num_ctx"] == 16384
    assert make_llm(fake_ollama.url).context_tokens() == 4096


@pytest.mark.parametrize(("setting", "sent"), [("10m", "10m"), ("600", 600), ("-1", -1)])
async def test_keep_alive_is_sent_as_ollama_reads_it(
    fake_ollama: FakeOllama, setting: str, sent: str | float
) -> None:
    """Ollama refuses "600" and "-1" as strings (Go durations need a unit): numbers go as
    numbers."""
    llm = make_llm(fake_ollama.url, keep_alive=setting)
    assert (await llm.chat(MSGS)).content == "OK"
    assert (await llm.embed(["x"])) != []
    assert fake_ollama.chat_requests()[0]["keep_alive"] == sent
    assert fake_ollama.embed_requests()[0]["keep_alive"] == sent


async def test_a_400_is_not_retried_and_a_500_is(fake_ollama: FakeOllama) -> None:
    fake_ollama.enqueue_chat(FakeError(400, "failed to parse grammar"))
    with pytest.raises(ModelFailed, match=r"\(400\): failed to parse grammar"):
        await make_llm(fake_ollama.url).chat(MSGS)
    assert len(fake_ollama.chat_requests()) == 1
    fake_ollama.enqueue_chat(FakeError(500, "model runner has unexpectedly stopped"), "fine")
    assert (await make_llm(fake_ollama.url).chat(MSGS)).content == "fine"


async def test_an_error_mid_stream_is_worded_for_the_user(fake_ollama: FakeOllama) -> None:
    fake_ollama.enqueue_chat(StreamError(after_chunks=2, message="out of memory"))
    with pytest.raises(ModelFailed) as err:
        async for _ in make_llm(fake_ollama.url).chat_stream(MSGS):
            pass
    assert str(err.value) == "Ollama stopped the answer with an error: out of memory"


async def test_a_chat_model_as_embedding_model_says_what_to_change(
    fake_ollama: FakeOllama,
) -> None:
    """Ollama loads the model, then its runner refuses with 501 and a line about a server
    flag: not retried (each try loads the whole model again) and said in this program's terms."""
    llm = make_llm(fake_ollama.url, embed_model="qwen3.5:9b")
    with pytest.raises(ModelUnsuitable) as err:
        await llm.embed(["x"])
    assert "is not an embedding model" in str(err.value)
    assert "[model] embed_model" in str(err.value)
    assert not err.value.retryable
    assert len(fake_ollama.embed_requests()) == 1


async def test_tools_to_a_model_without_them_says_what_to_change(fake_ollama: FakeOllama) -> None:
    fake_ollama.add_model("gemma3:4b", "completion", "vision")
    llm = make_llm(fake_ollama.url, chat_model="gemma3:4b")
    tools = [{"type": "function", "function": {"name": "weather", "parameters": {}}}]
    with pytest.raises(ModelUnsuitable, match=r"does not support tools.*can call tools"):
        await llm.chat(MSGS, tools=tools)


async def test_a_reply_ollama_never_finished_is_reported_as_cut(fake_ollama: FakeOllama) -> None:
    """A runner that stops a model repeating itself ends the reply without `done`: the text is
    kept, and it is not taken for a whole answer."""
    llm = make_llm(fake_ollama.url)
    fake_ollama.enqueue_chat(Unfinished('{"title": "x", "tags": ["a", "a", "a"'))
    with pytest.raises(BadAnswer) as err:
        await llm.chat_json(MSGS, Proposal)
    assert "before it ended" in err.value.reason and err.value.raw
    fake_ollama.enqueue_chat(Unfinished("the the the"))
    assert (await llm.chat(MSGS)).cut
    fake_ollama.enqueue_chat(Unfinished("the the the"))
    shown: list[str] = []

    async def show(text: str) -> None:
        shown.append(text)

    reply = await llm.chat_turn(MSGS, on_text=show)
    assert reply.cut and "".join(shown) == "the the the"
    fake_ollama.enqueue_chat(Unfinished("the the the"))
    end = StreamEnd()
    assert "".join([p async for p in llm.chat_stream(MSGS, end=end)]) == "the the the"
    assert end.cut
    fake_ollama.enqueue_chat("whole")
    end = StreamEnd()
    assert [p async for p in llm.chat_stream(MSGS, end=end)] and not end.cut


async def test_an_embedding_models_context_is_the_one_ollama_runs_it_with(
    fake_ollama: FakeOllama,
) -> None:
    """Not the trained context alone: Ollama embeds within min(num_ctx, trained), and with no
    num_ctx in the Modelfile (or the request) that is its own default, 4096 on a small GPU.
    A chunk sized to the trained 32,768 tokens would lose its end, silently (truncate)."""
    fake_ollama.add_model("long-embed", "embedding", context_length=32768)
    fake_ollama.add_model("set-embed", "embedding", context_length=32768, num_ctx=8192)
    fake_ollama.add_model("short-embed", "embedding", context_length=512, num_ctx=8192)
    llm = make_llm(fake_ollama.url)
    assert await llm.context_length("long-embed") == 4096
    assert await llm.context_length("set-embed") == 8192
    assert await llm.context_length("short-embed") == 512


async def test_a_prompt_past_the_context_names_the_setting(fake_ollama: FakeOllama) -> None:
    """A model without context shift refuses a prompt that does not fit with 400 and words
    of Ollama's app ("adjust the context length in settings"): here that is [model] context."""
    fake_ollama.add_model("deepseek-v2:16b")
    llm = make_llm(fake_ollama.url, chat_model="deepseek-v2:16b")
    with pytest.raises(ModelFailed) as err:
        await llm.chat([{"role": "user", "content": "word " * 4000}])
    assert not err.value.retryable
    assert "[model] context" in str(err.value)
    assert "[model] context" in err.value.to_person()
    assert len(fake_ollama.chat_requests()) == 1


async def test_a_busy_ollama_is_tried_again_and_a_person_is_told_to_ask_again(
    fake_ollama: FakeOllama,
) -> None:
    """503 "server busy" (Ollama's pending queue is full) passes: retried in the background,
    and a person who asked is told to ask again, not that asking again gets the same answer."""
    fake_ollama.enqueue_chat(FakeError(503, rules.SERVER_BUSY), "fine")
    assert (await make_llm(fake_ollama.url).chat(MSGS)).content == "fine"
    fake_ollama.enqueue_chat(FakeError(503, rules.SERVER_BUSY), FakeError(503, rules.SERVER_BUSY))
    with pytest.raises(ModelFailed) as err:
        await make_llm(fake_ollama.url).chat(MSGS)
    assert err.value.retryable
    assert (
        "server busy" in err.value.to_person() and "ask again in a moment" in err.value.to_person()
    )


async def test_a_cloud_model_is_never_sent_a_note(fake_ollama: FakeOllama) -> None:
    """Ollama sends a `-cloud` model's requests on to ollama.com: refused here, before any
    request, whichever way the name arrives (settings refuse it already; see test_config)."""
    llm = make_llm(fake_ollama.url)
    with pytest.raises(CloudModel, match=r"ollama\.com") as err:
        await llm.chat(MSGS, model="gpt-oss:120b-cloud")
    assert not err.value.retryable
    with pytest.raises(CloudModel):
        await llm.chat_json(MSGS, Proposal, model="kimi-k2:1t-cloud")
    with pytest.raises(CloudModel):
        async for _ in llm.chat_stream(MSGS, model="gpt-oss:20b:cloud"):
            pass
    with pytest.raises(CloudModel):
        await llm.embed(["x"], model="qwen3-embedding:cloud")
    assert fake_ollama.sent_to_cloud == 0 and fake_ollama.requests == []


async def test_a_model_ollama_runs_on_ollama_com_under_another_name_is_refused(
    fake_ollama: FakeOllama,
) -> None:
    """`ollama cp gpt-oss:120b-cloud mine` keeps the cloud stub under a plain name: /api/tags
    says where it runs, and once the status has seen that, no note goes to it."""
    fake_ollama.add_model("mine:latest", remote_host="https://ollama.com:443")
    llm = make_llm(fake_ollama.url, chat_model="mine")
    status = await llm.status()
    assert status.remote == ("mine:latest",) and status.has_model("mine")
    with pytest.raises(CloudModel):
        await llm.chat(MSGS)
    assert fake_ollama.sent_to_cloud == 0 and fake_ollama.chat_requests() == []


async def test_a_cloud_stub_is_refused_even_before_anything_asked_for_the_status(
    fake_ollama: FakeOllama,
) -> None:
    """The daemon's start-up status() runs alongside its first jobs: a capture tidied before
    it ended went to the stub, and Ollama sent it on to ollama.com. The first request now reads
    /api/tags itself; later ones do not read it again."""
    fake_ollama.add_model("mine:latest", remote_host="https://ollama.com:443")
    llm = make_llm(fake_ollama.url, chat_model="mine")
    with pytest.raises(CloudModel):
        await llm.chat(MSGS)
    with pytest.raises(CloudModel):
        await llm.embed(["a note"], model="mine")
    assert fake_ollama.sent_to_cloud == 0 and fake_ollama.chat_requests() == []
    assert [r.path for r in fake_ollama.requests].count("/api/tags") == 1
    local = make_llm(fake_ollama.url)
    assert await local.chat(MSGS) and fake_ollama.chat_requests()  # a local model is used
