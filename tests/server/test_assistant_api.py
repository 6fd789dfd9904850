"""The assistant's JSON API, with the shapes scripts and the Obsidian plugin rely on."""

from __future__ import annotations

import json
from datetime import datetime
from pathlib import Path
from typing import Any

import pytest
from aiohttp.test_utils import TestClient

from commonplace.assistant import build_assistant
from commonplace.config import Settings
from commonplace.llm import make_llm
from commonplace.server.context import SERVICES, Services
from tests.assistant.conftest import MEMORY, NOW, TASKS, call, write
from tests.fakes.ollama import FakeOllama, Stall
from tests.models import with_model
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
    s = with_model(web_settings, host=fake_ollama.url)
    assistant = build_assistant(s, make_llm(s), clock=lambda: clock[0])
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


async def test_a_message_the_model_took_too_long_on_is_not_sent_again(
    make_client: ClientFactory, web_settings: Settings, fake_ollama: FakeOllama
) -> None:
    """Without ?stream=1 the reply was retried after a timeout, twice by default: a script
    waited three timeouts (540 s with the defaults) while the model stayed taken, to be told
    at the end to ask again."""
    s = with_model(web_settings, host=fake_ollama.url, timeout_s=0.5, retries=2, backoff_s=0.01)
    fake_ollama.chat_handler = lambda body: Stall(3.0)
    assistant = build_assistant(s, make_llm(s), clock=lambda: NOW)
    client = await make_client(s, Services(assistant=assistant))
    response = await post(client, "/api/assistant/message", {"text": "what is on today?"})
    assert response.status == 504
    error = (await response.json())["error"]
    assert error["code"] == "model_timeout" and "ask again in a moment" in error["message"]
    assert len(fake_ollama.chat_requests()) == 1


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
    from commonplace.plugin.apitoken import get_or_create_token, token_path

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


async def _stream_lines(client: Client, text: str) -> list[dict[str, Any]]:
    response = await post(client, "/api/assistant/message?stream=1", {"text": text})
    return [json.loads(line) for line in (await response.text()).splitlines()]


async def _until(check: Any, what: str, seconds: float = 20) -> None:
    import asyncio
    import time

    deadline = time.monotonic() + seconds
    while not check():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        await asyncio.sleep(0.02)


NOTE_OF_YES = '[The owner answered Yes to: Add to your memory note: "Sam is allergic to peanuts"?'


def _notes_of_yes(messages: list[dict[str, Any]]) -> list[int]:
    return [i for i, m in enumerate(messages) if str(m.get("content")).startswith(NOTE_OF_YES)]


async def test_a_yes_pressed_while_a_reply_streams_runs_at_once_and_the_model_hears_it(
    client: Client, fake_ollama: FakeOllama, vault: Path, web_settings: Settings
) -> None:
    """The model may take a minute over a turn: the owner's Yes does not wait for it. It runs
    (the gate re-reads first), is answered once, and the model hears it before its next call
    in that turn, then once in the history of the next turn."""
    import asyncio

    from tests.fakes.ollama import Hold

    fake_ollama.enqueue_chat(call("remember", fact="Sam is allergic to peanuts"), "Proposed.")
    body = await (await post(client, "/api/assistant/message", {"text": "Remember it"})).json()
    [pending] = body["pending"]
    release = asyncio.Event()
    fake_ollama.enqueue_chat(Hold(release, call("list_tasks")), "You have four open tasks.")
    streaming = asyncio.create_task(_stream_lines(client, "My tasks?"))
    await _until(lambda: len(fake_ollama.chat_requests()) == 3, "the model to be asked")

    yes = asyncio.create_task(
        post(client, "/api/assistant/answer", {"id": pending["id"], "answer": "yes"})
    )
    done, _ = await asyncio.wait([yes], timeout=30)
    assert yes in done, "the Yes waited for the model's turn to end"
    assert not streaming.done()
    response = yes.result()
    assert (response.status, await response.json()) == (
        200,
        {"ran": True, "message": 'Added to Memory.md: "Sam is allergic to peanuts".'},
    )
    assert "- Sam is allergic to peanuts" in (vault / "Memory.md").read_text()
    again = await post(client, "/api/assistant/answer", {"id": pending["id"], "answer": "no"})
    assert again.status == 409 and (await again.json())["error"]["code"] == "answered"

    release.set()
    lines = await streaming
    assert lines[-1]["type"] == "reply" and lines[-1]["reply"] == "You have four open tasks."
    assert lines[-1]["pending"] == []
    # The model heard the Yes in this turn: after the tool's answer, before its next call.
    messages = fake_ollama.chat_requests()[3]["messages"]
    assert _notes_of_yes(messages) == [len(messages) - 1]
    assert messages[-2]["role"] == "tool"
    # ...and once in the next turn's history, where it heard it.
    fake_ollama.enqueue_chat("You're welcome.")
    await post(client, "/api/assistant/message", {"text": "Thanks"})
    history = fake_ollama.chat_requests()[4]["messages"]
    [at] = _notes_of_yes(history)
    assert history[at - 1]["role"] == "tool" and history[at + 1]["role"] == "assistant"
    # The day's log is whole lines only, and the page's view has the answer.
    log_file = web_settings.data_path / "assistant" / "2026-10-26.jsonl"
    events = [json.loads(line) for line in log_file.read_text().splitlines()]
    assert [e["type"] for e in events].count("answer") == 1
    today = await (
        await client.get("/api/assistant/today", headers={"Host": local_host(client)})
    ).json()
    [result] = [m for m in today["messages"] if m["role"] == "result"]
    assert result["id"] == pending["id"] and result["ran"] is True


QUESTION_OF_YES = 'Add to your memory note: "Sam is allergic to peanuts"?'
RESULT_OF_YES = 'Added to Memory.md: "Sam is allergic to peanuts".'


async def _ask_to_remember(client: Client, fake_ollama: FakeOllama) -> str:
    """A question waits for the owner; its id."""
    fake_ollama.enqueue_chat(call("remember", fact="Sam is allergic to peanuts"), "Proposed.")
    body = await (await post(client, "/api/assistant/message", {"text": "Remember it"})).json()
    [pending] = body["pending"]
    return str(pending["id"])


async def _yes_while_the_last_words_stream(
    client: Client, fake_ollama: FakeOllama, question: str, *replies: Any
) -> list[dict[str, Any]]:
    """The owner asks "Is it saved?" and presses Yes while the model's first call is writing
    "It is waiting for your answer."; `replies` are its next calls."""
    import asyncio

    from tests.fakes.ollama import Hold

    release = asyncio.Event()
    fake_ollama.enqueue_chat(Hold(release, "It is waiting for your answer."), *replies)
    streaming = asyncio.create_task(_stream_lines(client, "Is it saved?"))
    await _until(lambda: len(fake_ollama.chat_requests()) == 3, "the model to be asked")
    yes = await asyncio.wait_for(
        post(client, "/api/assistant/answer", {"id": question, "answer": "yes"}), 30
    )
    assert yes.status == 200 and not streaming.done()
    release.set()
    return await streaming


async def test_a_yes_pressed_while_the_last_words_stream_is_told_and_the_reply_written_again(
    client: Client, fake_ollama: FakeOllama, vault: Path
) -> None:
    """The last words were written before the Yes and say the question still waits: the
    model hears the Yes and writes its reply again, so the owner never reads the untrue one.
    The next turn hears the Yes once, where the model heard it."""
    question = await _ask_to_remember(client, fake_ollama)
    lines = await _yes_while_the_last_words_stream(
        client, fake_ollama, question, "Yes, it is saved now."
    )
    assert lines[-1]["reply"] == "Yes, it is saved now." and lines[-1]["pending"] == []
    assert lines[-1]["notes"] == []
    # The untrue words were only a preview, taken back before the reply was written again.
    previews = [line["type"] for line in lines[:-1]]
    assert "reset" in previews and "delta" in previews[previews.index("reset") + 1 :]
    messages = fake_ollama.chat_requests()[3]["messages"]
    assert messages[-2:] == [
        {"role": "user", "content": "Is it saved?"},
        {
            "role": "user",
            "content": f"[The owner answered Yes to: {QUESTION_OF_YES} Result: {RESULT_OF_YES}]",
        },
    ]
    fake_ollama.enqueue_chat("You're welcome.")
    await post(client, "/api/assistant/message", {"text": "Thanks"})
    history = fake_ollama.chat_requests()[4]["messages"]
    [at] = _notes_of_yes(history)
    assert history[at - 1] == {"role": "user", "content": "Is it saved?"}
    assert history[at + 1] == {"role": "assistant", "content": "Yes, it is saved now."}
    assert "It is waiting for your answer." not in json.dumps(history)


async def test_a_yes_pressed_during_the_last_model_call_left_is_written_under_the_reply(
    client: Client, fake_ollama: FakeOllama, vault: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """No call is left in the turn to tell the model: the reply it wrote before the Yes is
    shown with the Yes under it, and the next turn's history tells the model, once, after the
    turn during which it was given."""
    from commonplace.assistant import engine

    question = await _ask_to_remember(client, fake_ollama)
    monkeypatch.setattr(engine, "MAX_ROUNDS", 1)  # as if the turn had used its calls
    lines = await _yes_while_the_last_words_stream(client, fake_ollama, question)
    line = f"(While this reply was written, you answered Yes to: {QUESTION_OF_YES} Result: "
    line += f"{RESULT_OF_YES})"
    assert lines[-1]["reply"] == f"It is waiting for your answer.\n\n{line}"
    assert lines[-1]["notes"] == [line] and lines[-1]["pending"] == []
    assert len(fake_ollama.chat_requests()) == 3
    monkeypatch.undo()
    fake_ollama.enqueue_chat("Yes, it is saved.")
    await post(client, "/api/assistant/message", {"text": "And now?"})
    history = fake_ollama.chat_requests()[3]["messages"]
    [at] = _notes_of_yes(history)
    assert history[at - 1] == {"role": "assistant", "content": "It is waiting for your answer."}
    assert history[at + 1] == {"role": "user", "content": "And now?"}


async def test_the_page_says_it_is_the_page_and_other_callers_are_told_no_button(
    client: Client, fake_ollama: FakeOllama, vault: Path
) -> None:
    """A typed yes for an older question was told to press a button whoever typed it. The page
    sends "client": "page" and gets its buttons named; a script that does not say is told where
    the owner can answer; the reply's shape is the same."""
    fake_ollama.enqueue_chat(
        call("remember", fact="Sam is allergic to peanuts"),
        "Proposed.",
        "Hello.",
        "I've remembered it.",
    )
    await post(client, "/api/assistant/message", {"text": "Remember it", "client": "page"})
    await post(client, "/api/assistant/message", {"text": "hello", "client": "page"})
    streamed = await post(
        client, "/api/assistant/message?stream=1", {"text": "yes", "client": "page"}
    )
    lines = [json.loads(line) for line in (await streamed.text()).splitlines()]
    assert lines[-1]["reply"] == "Answer the question with its Yes or No button."
    plain = await post(client, "/api/assistant/message", {"text": "yes"})
    body = await plain.json()
    assert set(body) == {"reply", "pending", "day", "notes"} and len(body["pending"]) == 1
    assert body["reply"] == (
        "Answer the question waiting with Yes or No: on the phone page, "
        "or type 'questions' in commonplace chat."
    )
    claim = await (
        await post(client, "/api/assistant/message", {"text": "thanks", "client": "page"})
    ).json()
    assert claim["notes"] == ["(Nothing has changed yet: answer the question above.)"]
    assert "peanuts" not in (vault / "Memory.md").read_text()
    bad = await post(client, "/api/assistant/message", {"text": "hi", "client": "terminal"})
    assert bad.status == 400
    assert (await bad.json())["error"]["message"] == "'client' must be one of page, api"
