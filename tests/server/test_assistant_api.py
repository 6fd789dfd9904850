"""The assistant's JSON API, with the shapes scripts and the Obsidian plugin rely on."""

from __future__ import annotations

import dataclasses
import json
from datetime import datetime
from pathlib import Path
from typing import Any

import pytest
from aiohttp.test_utils import TestClient

from commonplace.assistant import build_assistant
from commonplace.config import Settings
from commonplace.llm import LLM
from commonplace.server.context import SERVICES, Services
from tests.assistant.conftest import MEMORY, NOW, TASKS, call, write
from tests.fakes.ollama import FakeOllama
from tests.server.conftest import ClientFactory, local_host, write_headers

Client = TestClient[Any, Any]


@pytest.fixture
def clock() -> list[datetime]:
    return [NOW]


@pytest.fixture
async def client(
    make_client: ClientFactory,
    web_settings: Settings,
    fake_ollama: FakeOllama,
    clock: list[datetime],
) -> Client:
    write(web_settings.vault, "Tasks.md", TASKS)
    write(web_settings.vault, "Memory.md", MEMORY)
    s = dataclasses.replace(
        web_settings, ollama=dataclasses.replace(web_settings.ollama, host=fake_ollama.url)
    )
    assistant = build_assistant(s, LLM(s.ollama), clock=lambda: clock[0])
    return await make_client(s, Services(assistant=assistant))


async def post(client: Client, path: str, body: dict[str, Any]) -> Any:
    return await client.post(path, data=json.dumps(body), headers=write_headers(client))


async def test_half_a_character_is_a_clear_400_and_the_day_log_untouched(
    client: Client, fake_ollama: FakeOllama, web_settings: Settings
) -> None:
    """A lone surrogate (a cut emoji) was a 500 while the day's log was being written."""
    body = '{"text": "remind me \\udc00 tomorrow"}'
    response = await client.post("/api/assistant/message", data=body, headers=write_headers(client))
    assert response.status == 400
    assert "half a character" in (await response.json())["error"]["message"]
    assert fake_ollama.chat_requests() == []
    today = await client.get("/api/assistant/today", headers={"Host": local_host(client)})
    assert (await today.json())["messages"] == []


async def test_message_question_yes_and_the_day_so_far(
    client: Client, fake_ollama: FakeOllama, vault: Path
) -> None:
    fake_ollama.enqueue_chat(call("complete_task", task="timber"), "I've proposed ticking it off.")
    response = await post(client, "/api/assistant/message", {"text": "The timber is ordered"})
    assert response.status == 200
    body = await response.json()
    assert body["day"] == "2026-10-26"
    assert body["reply"] == "I've proposed ticking it off."
    [pending] = body["pending"]
    assert (
        pending["question"] == 'Tick off "Order timber for the shed roof (due Friday 23 October)"?'
    )

    response = await post(client, "/api/assistant/answer", {"id": pending["id"], "answer": "yes"})
    assert response.status == 200
    assert await response.json() == {
        "ran": True,
        "message": 'Ticked off "Order timber for the shed roof (due Friday 23 October)".',
    }
    assert "- [x] Order timber" in (vault / "Tasks.md").read_text()

    again = await post(client, "/api/assistant/answer", {"id": pending["id"], "answer": "yes"})
    assert again.status == 409
    assert (await again.json())["error"]["code"] == "answered"

    today = await (
        await client.get("/api/assistant/today", headers={"Host": local_host(client)})
    ).json()
    assert today["day"] == "2026-10-26" and today["pending"] == [] and today["briefing"] is None
    assert [m["role"] for m in today["messages"]] == ["user", "assistant", "question", "result"]


async def test_no_changes_nothing_and_unknown_ids_are_409(
    client: Client, fake_ollama: FakeOllama, vault: Path
) -> None:
    fake_ollama.enqueue_chat(call("remember", fact="Sam is allergic to peanuts"), "Proposed.")
    body = await (
        await post(client, "/api/assistant/message", {"text": "Remember Sam's allergy"})
    ).json()
    [pending] = body["pending"]
    no = await post(client, "/api/assistant/answer", {"id": pending["id"], "answer": "no"})
    assert (no.status, await no.json()) == (200, {"ran": False, "message": "Nothing was changed."})
    assert (vault / "Memory.md").read_text() == MEMORY
    for bad in ("2026-10-26-nothere", "nonsense"):
        response = await post(client, "/api/assistant/answer", {"id": bad, "answer": "yes"})
        assert response.status == 409 and (await response.json())["error"]["code"] == "unknown"
    bad_answer = await post(
        client, "/api/assistant/answer", {"id": pending["id"], "answer": "maybe"}
    )
    assert bad_answer.status == 400


async def test_the_streamed_reply_previews_then_gives_the_checked_reply(
    client: Client, fake_ollama: FakeOllama
) -> None:
    fake_ollama.enqueue_chat(call("list_tasks"), "You have four open tasks.")
    response = await post(client, "/api/assistant/message?stream=1", {"text": "My tasks?"})
    assert response.status == 200
    assert response.headers["Content-Type"].startswith("application/x-ndjson")
    lines = [json.loads(line) for line in (await response.text()).splitlines()]
    kinds = [line["type"] for line in lines]
    assert kinds[0] == "reset" and "status" in kinds and kinds[-1] == "reply"
    preview = "".join(line["text"] for line in lines if line["type"] == "delta")
    assert preview == "You have four open tasks."
    assert lines[-1]["reply"] == "You have four open tasks." and lines[-1]["pending"] == []


async def test_a_stream_that_fails_ends_with_an_error_line(
    client: Client, fake_ollama: FakeOllama
) -> None:
    from tests.fakes.ollama import FakeError

    fake_ollama.enqueue_chat(FakeError(500, "model runner crashed"))
    response = await post(client, "/api/assistant/message?stream=1", {"text": "Hello"})
    lines = [json.loads(line) for line in (await response.text()).splitlines()]
    assert lines[-1]["type"] == "error" and lines[-1]["error"]["code"] == "model_failed"
    today = await (
        await client.get("/api/assistant/today", headers={"Host": local_host(client)})
    ).json()
    assert [m["role"] for m in today["messages"]] == ["user", "error"]


async def test_messages_are_checked_and_cross_site_posts_refused(client: Client) -> None:
    empty = await post(client, "/api/assistant/message", {"text": "   "})
    assert empty.status == 400
    long = await post(client, "/api/assistant/message", {"text": "x" * 5000})
    assert long.status == 400 and "4000" in (await long.json())["error"]["message"]
    forged = await client.post(
        "/api/assistant/answer",
        data=json.dumps({"id": "2026-10-26-x", "answer": "yes"}),
        headers={"Origin": "https://evil.example", "Content-Type": "application/json"},
    )
    assert forged.status == 403


async def test_without_an_assistant_the_api_says_so(make_client: ClientFactory) -> None:
    client = await make_client(services=Services())
    response = await client.get("/api/assistant/today")
    assert response.status == 503
    assert (await response.json())["error"]["code"] == "assistant_unavailable"


async def test_the_days_briefing_is_at_the_top_of_the_assistant_view(
    client: Client, web_settings: Settings
) -> None:
    from commonplace.briefing import Briefing
    from commonplace.briefing.service import keep

    text = "Monday 26 October: 1 event, first at 18:30 (Run club). No tasks due."
    keep(web_settings, Briefing(NOW.date(), text), now=NOW, sent=True)
    keep(web_settings, Briefing(NOW.date().replace(day=25), "yesterday's"), now=NOW, sent=True)
    today = await (
        await client.get("/api/assistant/today", headers={"Host": local_host(client)})
    ).json()
    assert today["briefing"] == {"text": text, "day": "2026-10-26"}


async def test_a_streamed_reply_waiting_for_the_model_says_so(
    client: Client, fake_ollama: FakeOllama
) -> None:
    """Tidy (say) has the model: the page is told at once, and the reply comes when it is free."""
    import asyncio

    gate = client.app[SERVICES].assistant.llm.gate  # type: ignore[union-attr]
    holding, release = asyncio.Event(), asyncio.Event()

    async def background_work() -> None:
        async with gate.turn():
            holding.set()
            await release.wait()

    background = asyncio.create_task(background_work())
    await holding.wait()
    fake_ollama.enqueue_chat("Hello!")
    response = await post(client, "/api/assistant/message?stream=1", {"text": "Hi"})
    first = json.loads(await asyncio.wait_for(response.content.readline(), 10))
    assert first == {
        "type": "status",
        "text": "Waiting for the model: it is busy with the daemon's own work "
        "(tidying, Ask notes, the digest).",
    }
    assert fake_ollama.chat_requests() == []
    release.set()
    lines = [json.loads(line) for line in (await response.text()).splitlines()]
    await background
    assert lines[-1]["type"] == "reply" and lines[-1]["reply"] == "Hello!"


async def test_a_program_with_the_token_may_not_answer_or_type_yes(
    client: Client, fake_ollama: FakeOllama, web_settings: Settings
) -> None:
    from commonplace.apitoken import get_or_create_token, token_path

    token, _ = get_or_create_token(token_path(web_settings.data_path))
    fake_ollama.enqueue_chat(call("remember", fact="Sam is allergic to peanuts"), "Proposed.")
    body = await (await post(client, "/api/assistant/message", {"text": "Remember it"})).json()
    [pending] = body["pending"]
    host = {"Host": local_host(client), "Content-Type": "application/json"}
    for extra in ({}, {"Origin": "app://obsidian.md"}):
        headers = {**host, "Authorization": f"Bearer {token}", **extra}
        for path, payload in (
            ("/api/assistant/answer", {"id": pending["id"], "answer": "yes"}),
            ("/api/assistant/message", {"text": "yes"}),
        ):
            response = await client.post(path, data=json.dumps(payload), headers=headers)
            assert response.status == 403, (path, extra)
            assert (await response.json())["error"]["code"] == "page_only"
    assert "peanuts" not in (web_settings.vault / "Memory.md").read_text()
