"""The model's one queue (llm/gate.py): one chat call at a time, a person's before background
work, bounded waits for a person, no turn lost to a caller that gives up, embeddings never held
up; and the daemon hands the one LLM (so the one gate) to every part that calls the model."""

from __future__ import annotations

import asyncio
from collections.abc import Callable

import pytest

from commonplace.config import Settings
from commonplace.daemon.run import build_parts
from commonplace.llm import LLM, ModelBusy, ModelGate, for_a_person, make_llm
from tests.fakes.ollama import FakeOllama, Hold, Stall
from tests.models import llm_for, with_model


@pytest.fixture
def llm(settings: Settings, fake_ollama: FakeOllama) -> LLM:
    return llm_for(settings, host=fake_ollama.url, retries=0)


def said(fake: FakeOllama) -> list[str]:
    return [str(body["messages"][-1]["content"]) for body in fake.chat_requests()]


async def chat(llm: LLM, text: str, *, person: bool = False) -> str:
    message = [{"role": "user", "content": text}]
    if person:
        with for_a_person():
            return (await llm.chat(message)).content
    return (await llm.chat(message)).content


async def until(check: Callable[[], bool], what: str, seconds: float = 30) -> None:
    async with asyncio.timeout(seconds):
        while not check():  # noqa: ASYNC110 - polling what the gate reports
            await asyncio.sleep(0.005)
    assert check(), what


async def test_one_call_at_a_time_and_people_first(llm: LLM, fake_ollama: FakeOllama) -> None:
    release = asyncio.Event()
    fake_ollama.enqueue_chat(Hold(release, "ok"))  # the first call holds the model until told
    first = asyncio.create_task(chat(llm, "tidy 1"))
    await until(lambda: llm.gate.busy, "the first call holds the model")
    queued = [
        asyncio.create_task(chat(llm, "tidy 2")),
        asyncio.create_task(chat(llm, "ask note")),
        asyncio.create_task(chat(llm, "phone question", person=True)),
        asyncio.create_task(chat(llm, "assistant message", person=True)),
    ]
    await until(lambda: llm.gate.status()["waiting"] == 4, "four calls wait")
    assert llm.gate.status()["waiting_people"] == 2
    release.set()
    await asyncio.gather(first, *queued)
    assert said(fake_ollama) == [
        "tidy 1",
        "phone question",
        "assistant message",
        "tidy 2",
        "ask note",
    ]
    assert fake_ollama.max_chats_in_flight == 1
    assert llm.gate.status() == {"busy": None, "waiting": 0, "waiting_people": 0}


async def test_streamed_answers_hold_the_model_too(llm: LLM, fake_ollama: FakeOllama) -> None:
    fake_ollama.chat_handler = lambda body: Stall(0.05, "a streamed answer in pieces")

    async def stream() -> str:
        return "".join([p async for p in llm.chat_stream([{"role": "user", "content": "s"}])])

    results = await asyncio.gather(stream(), chat(llm, "b"), stream(), chat(llm, "d"))
    assert results[0] == "a streamed answer in pieces"
    assert fake_ollama.max_chats_in_flight == 1


async def test_a_person_waits_a_bounded_time(llm: LLM, fake_ollama: FakeOllama) -> None:
    llm.gate.person_wait_s = 0.1
    holding, release = asyncio.Event(), asyncio.Event()

    async def background() -> None:
        async with llm.gate.turn():
            holding.set()
            await release.wait()

    task = asyncio.create_task(background())
    await holding.wait()
    with pytest.raises(ModelBusy, match="busy with the daemon's own work"):
        await chat(llm, "too late", person=True)
    release.set()
    await task
    assert fake_ollama.chat_requests() == []
    assert await chat(llm, "now", person=True) == "OK"


async def test_a_caller_that_gives_up_loses_no_turn() -> None:
    gate = ModelGate()
    order: list[str] = []

    async def use(name: str) -> None:
        async with gate.turn():
            order.append(name)

    release = asyncio.Event()

    async def first_use() -> None:
        async with gate.turn():
            order.append("first")
            await release.wait()

    first = asyncio.create_task(first_use())
    await until(lambda: gate.busy, "the first holds its turn")
    quitter = asyncio.create_task(use("quitter"))
    last = asyncio.create_task(use("last"))
    await until(lambda: gate.status()["waiting"] == 2, "two wait their turn")
    quitter.cancel()
    await until(lambda: quitter.done(), "the quitter gave up")
    release.set()
    await asyncio.gather(first, last, return_exceptions=True)
    assert order == ["first", "last"]
    assert not gate.busy


async def test_embeddings_do_not_wait_for_the_chat_model(llm: LLM) -> None:
    holding, release = asyncio.Event(), asyncio.Event()

    async def background() -> None:
        async with llm.gate.turn():
            holding.set()
            await release.wait()

    task = asyncio.create_task(background())
    await holding.wait()
    try:
        async with asyncio.timeout(5):
            vectors = await llm.embed(["search must stay fast"])
    finally:
        release.set()
        await task
    assert len(vectors) == 1


async def test_the_daemon_gives_every_model_caller_the_one_llm(
    settings: Settings, fake_ollama: FakeOllama
) -> None:
    """tidy, Ask notes and the API share the daemon's LLM, so its gate is the one queue (the
    digest and the assistant are handed the same object in daemon/run.py)."""
    s = with_model(settings, host=fake_ollama.url)
    llm = make_llm(s)
    parts = await build_parts(s, llm)
    try:
        tidy, ask = parts.stages["tidy"], parts.stages["ask"]
        assert tidy.ctx.llm is llm  # type: ignore[attr-defined]
        assert ask.llm is llm  # type: ignore[attr-defined]
    finally:
        for close in reversed(parts.closers):
            await close()
