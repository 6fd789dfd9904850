"""Expensive requests are limited per identity (issue 16, item 5): 429 with Retry-After, limits
from the config, defaults a person typing never meets; and a question from the API waits in the
model's one queue (llm/gate.py), ahead of background work, saying so while it waits."""

from __future__ import annotations

import asyncio
import dataclasses
import json
from collections.abc import AsyncIterator
from typing import Any

import pytest
import pytest_asyncio
from aiohttp.test_utils import TestClient, make_mocked_request

from commonplace.config import LimitSettings, Settings
from commonplace.index import Index
from commonplace.llm import make_llm
from commonplace.server.context import LLM_KEY, Services
from commonplace.server.limits import RateLimiter, identity, limited
from tests.fakes.ollama import FakeOllama
from tests.models import with_model
from tests.server.conftest import OWNER, ClientFactory, tailnet_headers, write_headers

QUESTION = json.dumps({"question": "What must happen before the Lisbon trip?"})


def cite_first(body: dict[str, Any]) -> str:
    return "Renew the passport first [1]."


@pytest.fixture
def live_settings(web_settings: Settings, fake_ollama: FakeOllama) -> Settings:
    return with_model(web_settings, host=fake_ollama.url)


@pytest_asyncio.fixture
async def index(live_settings: Settings) -> AsyncIterator[Index]:
    opened = Index.open(live_settings, make_llm(live_settings))
    await opened.refresh()
    yield opened
    opened.close()


def with_limits(settings: Settings, **limits: Any) -> Settings:
    return dataclasses.replace(settings, limits=dataclasses.replace(settings.limits, **limits))


async def ask(client: TestClient[Any, Any], stream: bool = False, **headers: str) -> Any:
    path = "/api/ask?stream=1" if stream else "/api/ask"
    return await client.post(path, data=QUESTION, headers=write_headers(client, **headers))


# -- the limiter itself ---------------------------------------------------------------------------


def test_a_burst_then_one_every_so_often_per_identity() -> None:
    now = [0.0]
    limiter = RateLimiter({"asks": 6, "searches": 60}, clock=lambda: now[0])
    assert [limiter.take("asks", "me") for _ in range(6)] == [0.0] * 6
    assert limiter.take("asks", "me") == pytest.approx(10.0)  # 6 a minute: one per 10 s
    assert limiter.take("asks", "someone else") == 0.0  # per identity
    assert limiter.take("searches", "me") == 0.0  # per kind
    now[0] = 4.0
    assert limiter.take("asks", "me") == pytest.approx(6.0)
    now[0] = 10.0
    assert limiter.take("asks", "me") == 0.0
    now[0] = 1000.0  # a long pause refills the burst, no more
    assert [limiter.take("asks", "me") for _ in range(7)][-2:] == [0.0, pytest.approx(10.0)]


def test_who_is_asking() -> None:
    """The Tailscale login, the Obsidian plugin (its token checked by then), this computer."""
    login = {"Tailscale-User-Login": "Owner@Example.com"}
    assert identity(make_mocked_request("GET", "/", headers=login)) == "tailscale:owner@example.com"
    obsidian = {"Origin": "app://obsidian.md"}
    assert identity(make_mocked_request("GET", "/", headers=obsidian)) == "obsidian"
    assert identity(make_mocked_request("GET", "/")) == "this computer"


def test_the_defaults_are_far_above_a_person_typing() -> None:
    limits = LimitSettings()
    assert limits.asks_per_minute >= 10 and limits.searches_per_minute >= 100
    with pytest.raises(ValueError, match="unknown limit"):
        limited("everything")


# -- over HTTP ------------------------------------------------------------------------------------


async def test_sixty_questions_in_a_burst_make_ten_model_calls(
    make_client: ClientFactory, live_settings: Settings, index: Index, fake_ollama: FakeOllama
) -> None:
    """The black-box run: 60 questions in a burst made 60 model calls. With the default limit a
    burst of 10 is answered and the rest get 429 with Retry-After, before any work is done."""
    fake_ollama.chat_handler = cite_first
    client = await make_client(live_settings, Services(index=index))
    statuses = []
    for _ in range(60):
        response = await ask(client)
        statuses.append(response.status)
        if response.status == 429:
            retry = int(response.headers["Retry-After"])
            body = await response.json()
    assert statuses.count(200) == LimitSettings().asks_per_minute == 10
    assert statuses.count(429) == 50
    assert 1 <= retry <= 6
    assert body["error"]["code"] == "rate_limited" and "try again in" in body["error"]["message"]
    assert len(fake_ollama.chat_requests()) == 10


async def test_searches_are_limited_per_identity(
    make_client: ClientFactory, live_settings: Settings, index: Index
) -> None:
    settings = with_limits(live_settings, searches_per_minute=20)
    client = await make_client(settings, Services(index=index))

    async def search(**headers: str) -> int:
        response = await client.get("/api/search", params={"q": "passport"}, headers=headers)
        return response.status

    local = [await search() for _ in range(30)]
    assert local.count(200) == 20 and local.count(429) == 10
    # The owner's phone (another identity) has its own allowance.
    phone = [await search(**tailnet_headers()) for _ in range(21)]
    assert phone.count(200) == 20 and phone[-1] == 429
    assert OWNER  # the identity the tailnet requests carry


async def test_transcriptions_are_limited(
    make_client: ClientFactory, web_settings: Settings
) -> None:
    client = await make_client(with_limits(web_settings, transcriptions_per_minute=2))
    headers = write_headers(client, **{"Content-Type": "audio/webm"})
    statuses = [
        (await client.post("/api/transcribe", data=b"x", headers=headers)).status for _ in range(3)
    ]
    assert statuses[:2] != [429, 429] and statuses[2] == 429  # 503 (no dictation) counts too


# -- the model's one queue ------------------------------------------------------------------------


async def test_a_question_waits_for_the_model_and_says_so(
    make_client: ClientFactory, live_settings: Settings, index: Index, fake_ollama: FakeOllama
) -> None:
    """Background work (tidy, say) has the model; a question from the page waits its turn and
    tells the page at once; it is answered when the model comes free."""
    fake_ollama.chat_handler = cite_first
    client = await make_client(live_settings, Services(index=index))
    gate = client.app[LLM_KEY].gate
    holding, release = asyncio.Event(), asyncio.Event()

    async def background_work() -> None:
        async with gate.turn():
            holding.set()
            await release.wait()

    background = asyncio.create_task(background_work())
    await holding.wait()
    state = await (await client.get("/api/state")).json()
    assert state["model"]["busy"].startswith("the daemon's own work")
    response = await ask(client, stream=True)
    first = json.loads(await response.content.readline())
    assert first["type"] == "waiting" and "busy with the daemon's own work" in first["text"]
    assert fake_ollama.chat_requests() == []  # still waiting
    assert gate.status()["waiting_people"] == 1
    release.set()
    events = [json.loads(line) for line in (await response.text()).splitlines()]
    await background
    assert events[-1]["type"] == "answer" and events[-1]["answer"].startswith("Renew")
    assert len(fake_ollama.chat_requests()) == 1


async def test_a_question_that_cannot_get_the_model_in_time_is_503_model_busy(
    make_client: ClientFactory, live_settings: Settings, index: Index, fake_ollama: FakeOllama
) -> None:
    client = await make_client(live_settings, Services(index=index))
    gate = client.app[LLM_KEY].gate
    gate.person_wait_s = 0.2
    holding, release = asyncio.Event(), asyncio.Event()

    async def background_work() -> None:
        async with gate.turn():
            holding.set()
            await release.wait()

    background = asyncio.create_task(background_work())
    await holding.wait()
    response = await ask(client)
    release.set()
    await background
    assert response.status == 503
    assert response.headers["Retry-After"] == "30"
    body = await response.json()
    assert body["error"]["code"] == "model_busy" and "try again" in body["error"]["message"]
    assert fake_ollama.chat_requests() == []  # the question never reached the model
    assert gate.status() == {"busy": None, "waiting": 0, "waiting_people": 0}
