"""The JSON API through aiohttp's test client: real index, real vault files, fake Ollama."""

from __future__ import annotations

import asyncio
import dataclasses
import json
import logging
import time
from collections.abc import AsyncIterator
from datetime import datetime, timedelta
from pathlib import Path, PurePosixPath
from typing import Any

import pytest
import pytest_asyncio
from aiohttp import web
from aiohttp.test_utils import TestClient, TestServer
from click.testing import CliRunner

from commonplace.capture.inbox import read_capture
from commonplace.cli.main import cli
from commonplace.config import Settings, load_settings
from commonplace.index import Index
from commonplace.llm import make_llm
from commonplace.runtime.attention import Attention
from commonplace.server import api_state, create_app
from commonplace.server.context import Services
from commonplace.speech import WhisperTranscriber
from commonplace.vault import atomic
from tests.fakes.ollama import FakeError, FakeOllama, Raw, Stall
from tests.models import with_model
from tests.server.conftest import ClientFactory, write_headers


@pytest.fixture
def live_settings(web_settings: Settings, fake_ollama: FakeOllama) -> Settings:
    return with_model(web_settings, host=fake_ollama.url)


@pytest_asyncio.fixture
async def index(live_settings: Settings) -> AsyncIterator[Index]:
    opened = Index.open(live_settings, make_llm(live_settings))
    await opened.refresh()
    yield opened
    opened.close()


# -- state ----------------------------------------------------------------------------------------


async def test_state_with_ollama_down(make_client: ClientFactory, web_settings: Settings) -> None:
    inbox = web_settings.vault / "Inbox"
    inbox.mkdir()
    (inbox / "2026-10-20 0805.md").write_text("---\ncaptured: 2026-10-20T08:05\n---\nshed\n")
    client = await make_client(
        services=Services(transcriber=WhisperTranscriber(web_settings.speech))
    )
    response = await client.get("/api/state")
    assert response.status == 200
    assert response.headers["Cache-Control"] == "no-store"
    state = await response.json()
    assert state["ollama"]["reachable"] is False
    assert "ollama serve" in state["ollama"]["error"].lower() or state["ollama"]["error"]
    assert state["captures_waiting"] == 1
    assert state["daemon"]["vault"] == "vault"
    assert state["speech"]["available"] is False
    assert "ggml-base.en.bin" in state["speech"]["message"]
    assert state["speech"]["max_seconds"] == web_settings.speech.max_seconds


async def test_state_lists_what_needs_attention(
    make_client: ClientFactory, web_settings: Settings
) -> None:
    attention = Attention()
    attention.report(
        "tidy", "Inbox/a.md", "unreadable", "cannot be read", action="chmod u+r", retry_at=5.0
    )
    client = await make_client(services=Services(attention=attention))
    state = await (await client.get("/api/state")).json()
    (entry,) = state["attention"]
    assert entry["source"] == "tidy" and entry["path"] == "Inbox/a.md"
    assert (entry["code"], entry["action"], entry["retry_at"]) == ("unreadable", "chmod u+r", 5.0)
    assert entry["level"] == "warn" and entry["count"] == 1
    assert state["attention_summary"] == state["attention"]  # one file: nothing to group
    for name in ("b", "c"):
        attention.report(
            "tidy", f"Inbox/{name}.md", "unreadable", "cannot be read", action="chmod u+r"
        )
    state = await (await client.get("/api/state")).json()
    assert len(state["attention"]) == 3  # every file, for programs
    ((group),) = [e for e in state["attention_summary"] if e["code"] == "unreadable"]
    assert group["path"] == "" and group["reason"].startswith("3 files (Inbox/a.md, Inbox/b.md")


async def test_state_does_not_wait_for_a_busy_ollama(
    make_client: ClientFactory,
    live_settings: Settings,
    fake_ollama: FakeOllama,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Ollama busy embedding a big vault answers its model list seconds late: the state answers
    at once with what it last saw, and refreshes it behind the scenes."""
    client = await make_client(live_settings, Services())
    first = await (await client.get("/api/state")).json()  # the very first one asks, and waits
    assert first["ollama"]["reachable"] is True
    monkeypatch.setattr(api_state, "MODEL_CACHE_S", 0.0)
    fake_ollama.delay = 10.0
    asked = len(fake_ollama.requests)
    for _ in range(3):
        t0 = time.monotonic()
        state = await (await client.get("/api/state")).json()
        # not waiting for Ollama: far under its 10 s, with room for a busy machine
        assert time.monotonic() - t0 < 5.0 and state["ollama"]["reachable"] is True
    await asyncio.sleep(2.0)
    assert len(fake_ollama.requests) - asked <= 2  # one refresh at a time: version and tags


async def test_state_with_ollama_up_lists_models(
    make_client: ClientFactory, live_settings: Settings, index: Index
) -> None:
    client = await make_client(live_settings, Services(index=index, stages={"index": index}))
    state = await (await client.get("/api/state")).json()
    assert state["ollama"]["reachable"] is True
    assert set(state["ollama"]["models"]) == {
        "qwen3.5:9b",
        "nomic-embed-text",
    }
    assert state["index"]["notes"] > 10
    assert state["index"]["last_refresh"]


# -- capture --------------------------------------------------------------------------------------


async def test_capture_is_saved_word_for_word(
    make_client: ClientFactory, web_settings: Settings
) -> None:
    client = await make_client()
    words = "Ring Jewson about the timber  \n\n<b>not html</b> — £40 ✓\n"
    response = await client.post(
        "/api/capture", data=json.dumps({"text": words}), headers=write_headers(client)
    )
    assert response.status == 201
    path = (await response.json())["path"]
    assert path.startswith("Inbox/") and path.endswith(".md")
    saved = read_capture(web_settings.vault, path, web_settings.tz)
    assert saved.body == words
    assert saved.via == "phone"


async def test_capture_resent_with_same_id_is_saved_once(
    make_client: ClientFactory, web_settings: Settings
) -> None:
    client = await make_client()
    body = json.dumps({"text": "only once", "id": "abcdef123456", "via": "dictation"})
    first = await client.post("/api/capture", data=body, headers=write_headers(client))
    again = await client.post("/api/capture", data=body, headers=write_headers(client))
    assert first.status == 201 and again.status == 200
    assert (await first.json())["path"] == (await again.json())["path"]
    assert len(list((web_settings.vault / "Inbox").glob("*.md"))) == 1
    path = (await first.json())["path"]
    assert read_capture(web_settings.vault, path, web_settings.tz).via == "dictation"


async def test_sends_of_one_capture_at_the_same_moment_save_it_once(
    make_client: ClientFactory, web_settings: Settings
) -> None:
    """The page open twice (the installed app and a tab) flushes the same kept capture; each
    send found the id not yet recorded, and ten sends made ten files (audit10)."""
    client = await make_client()
    body = json.dumps({"text": "sent from two tabs", "id": "phone-capture-race"})
    other = json.dumps({"text": "another capture", "id": "phone-capture-other"})
    sends = [
        client.post("/api/capture", data=text, headers=write_headers(client))
        for text in [body] * 10 + [other]
    ]
    answers = [(r.status, await r.json()) for r in await asyncio.gather(*sends)]
    paths = {answer["path"] for _, answer in answers[:10]}
    assert len(paths) == 1 and [status for status, _ in answers].count(201) == 2
    assert sorted(status for status, _ in answers[:10]) == [200] * 9 + [201]
    assert sorted(p.name for p in (web_settings.vault / "Inbox").glob("*.md")) == sorted(
        PurePosixPath(path).name for path in paths | {answers[10][1]["path"]}
    )


async def test_a_capture_on_a_full_disk_is_503_and_says_what_to_do(
    make_client: ClientFactory, web_settings: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Worded as every stage words a failed vault write (vault/atomic.py `write_trouble`)."""
    from tests.faults import disk_full

    disk_full(monkeypatch, writes=1)
    client = await make_client()
    body = json.dumps({"text": "words on a full disk", "id": "phone-capture-0003"})
    full = await client.post("/api/capture", data=body, headers=write_headers(client))
    assert full.status == 503
    error = (await full.json())["error"]
    assert error["code"] == "write_failed"
    assert error["message"].startswith(
        "Not saved yet: the disk is full (free some space on the vault's disk). Nothing was "
        "written: send it again"
    )
    again = await client.post("/api/capture", data=body, headers=write_headers(client))
    assert again.status == 201


async def test_a_capture_while_git_holds_the_vault_is_503_and_saved_when_sent_again(
    make_client: ClientFactory, web_settings: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(atomic, "GIT_WAIT_S", 0.2)  # how long a write waits for git
    lock = web_settings.vault / ".git" / "index.lock"
    lock.parent.mkdir()
    lock.touch()
    client = await make_client()
    body = json.dumps({"text": "words during a git pull", "id": "phone-capture-0002"})
    busy = await client.post("/api/capture", data=body, headers=write_headers(client))
    assert busy.status == 503  # a 5xx: the page keeps the words and sends them again
    assert busy.headers["Retry-After"] == "10"
    error = (await busy.json())["error"]
    assert error["code"] == "vault_busy"
    assert "git operation is running" in error["message"] and str(lock) in error["message"]
    assert "Nothing was written: send it again" in error["message"]
    assert "phone page keeps the words" in error["message"]
    inbox = web_settings.vault / "Inbox"
    assert not inbox.exists() or not any(inbox.iterdir())  # nothing half-written
    lock.unlink()
    again = await client.post("/api/capture", data=body, headers=write_headers(client))
    assert again.status == 201
    path = (await again.json())["path"]
    assert read_capture(web_settings.vault, path, web_settings.tz).body == "words during a git pull"


async def test_resend_after_a_daemon_restart_is_saved_once(
    make_client: ClientFactory, web_settings: Settings
) -> None:
    """The answer to the first send was lost, and the daemon restarted before the resend."""
    body = json.dumps({"text": "sent twice", "id": "phone-capture-0001"})
    first = await make_client()
    response = await first.post("/api/capture", data=body, headers=write_headers(first))
    saved = await response.json()
    await first.close()
    second = await make_client()  # a new app: nothing in memory, only the data folder
    again = await second.post("/api/capture", data=body, headers=write_headers(second))
    assert again.status == 200
    assert (await again.json())["path"] == saved["path"]
    assert len(list((web_settings.vault / "Inbox").glob("*.md"))) == 1


async def test_offline_capture_keeps_the_time_it_was_written(
    make_client: ClientFactory, web_settings: Settings
) -> None:
    client = await make_client()
    written = (datetime.now(web_settings.tz) - timedelta(hours=3)).replace(second=0, microsecond=0)
    response = await client.post(
        "/api/capture",
        data=json.dumps({"text": "on the train", "captured": written.isoformat()}),
        headers=write_headers(client),
    )
    path = (await response.json())["path"]
    assert read_capture(web_settings.vault, path, web_settings.tz).captured == written


@pytest.mark.parametrize(
    ("sent", "why"),
    [
        ("2026-01-01T10:00:00+01:00", "more than 30 days old"),
        ("next Tuesday", "not an ISO time"),
        ("2026-10-20T08:05", "a time without a zone"),
        ("2999-01-01T00:00:00Z", "in the future"),
        (1700000000, "not a time"),
        # at the calendar's edge: the zone change overflowed, a 500 the page resent for ever
        ("9999-12-31T23:59:59-12:00", "not a time on the calendar"),
        ("0001-01-01T00:00:00+14:00", "not a time on the calendar"),
    ],
)
async def test_a_capture_time_that_is_not_used_is_logged_and_kept(
    make_client: ClientFactory,
    web_settings: Settings,
    caplog: pytest.LogCaptureFixture,
    sent: Any,
    why: str,
) -> None:
    """It was replaced by the time it arrived without a word, and the value sent was lost."""
    client = await make_client()
    before = datetime.now(web_settings.tz).replace(second=0, microsecond=0)
    with caplog.at_level(logging.WARNING, logger="commonplace.server.api_capture"):
        response = await client.post(
            "/api/capture",
            data=json.dumps({"text": "on the train", "captured": sent}),
            headers=write_headers(client),
        )
    assert response.status == 201
    path = (await response.json())["path"]
    capture = read_capture(web_settings.vault, path, web_settings.tz)
    assert capture.captured >= before and capture.body == "on the train"
    expected = sent if isinstance(sent, str) else json.dumps(sent)
    assert capture.meta["captured_original"] == expected  # the filed note carries it on
    [warning] = [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]
    assert warning.startswith(f"{path}: the 'captured' time sent is {why}; "), warning


@pytest.mark.parametrize(
    ("body", "status", "code"),
    [
        ({"text": "   "}, 400, "bad_capture"),
        ({"text": 42}, 400, "bad_field"),
        ({}, 400, "bad_field"),
        ({"text": "x", "via": "../evil"}, 400, "bad_field"),
        ({"text": "x", "id": "../../x"}, 400, "bad_field"),
        ({"text": "a NUL \u0000 is not text"}, 400, "bad_capture"),
        (["not", "an", "object"], 400, "bad_json"),
    ],
)
async def test_bad_capture_requests(
    make_client: ClientFactory, web_settings: Settings, body: Any, status: int, code: str
) -> None:
    client = await make_client()
    response = await client.post(
        "/api/capture", data=json.dumps(body), headers=write_headers(client)
    )
    assert response.status == status
    assert (await response.json())["error"]["code"] == code
    assert not (web_settings.vault / "Inbox").exists()


async def test_invalid_json(make_client: ClientFactory) -> None:
    client = await make_client()
    response = await client.post("/api/capture", data="{nope", headers=write_headers(client))
    assert response.status == 400
    assert (await response.json())["error"]["code"] == "bad_json"


@pytest.mark.parametrize(
    "body",
    [
        "[" * 100_000 + "]" * 100_000,  # 200 KB, under the size limit: was a 500 (RecursionError)
        '{"text": "x", "deep": ' + "[" * 100_000 + "]" * 100_000 + "}",
        '{"text": NaN}',  # Python reads these; JSON has no such values
        '{"text": "x", "id": Infinity}',
    ],
)
async def test_json_that_only_python_would_read_is_a_400(
    make_client: ClientFactory, web_settings: Settings, body: str
) -> None:
    client = await make_client()
    response = await client.post("/api/capture", data=body, headers=write_headers(client))
    assert response.status == 400
    error = (await response.json())["error"]
    assert error["code"] == "bad_json" and error["message"]
    assert not (web_settings.vault / "Inbox").exists()


@pytest.mark.parametrize(
    ("route", "field"),
    [("/api/capture", "text"), ("/api/ask", "question")],
)
async def test_half_a_character_is_a_clear_400_and_nothing_is_saved(
    make_client: ClientFactory, web_settings: Settings, route: str, field: str
) -> None:
    """JSON may spell a lone UTF-16 surrogate (a cut emoji: JSON.stringify writes it as an
    escape); Python decodes it to a string no file or Ollama request can hold. It was a 500."""
    client = await make_client()
    body = '{"' + field + '": "buy milk \\ud83d and bread"}'
    response = await client.post(route, data=body, headers=write_headers(client))
    assert response.status == 400
    error = (await response.json())["error"]
    assert error["code"] == "bad_json"
    assert "half a character" in error["message"] and "send it again" in error["message"]
    assert not (web_settings.vault / "Inbox").exists()
    # A whole pair, escaped, is an ordinary character and is saved word for word.
    pair = '{"text": "rocket \\ud83d\\ude80 and an escaped \\\\ud800"}'
    saved = await client.post("/api/capture", data=pair, headers=write_headers(client))
    assert saved.status == 201
    path = web_settings.vault / (await saved.json())["path"]
    assert path.read_text(encoding="utf-8").endswith("rocket \U0001f680 and an escaped \\ud800")


# -- search and notes -----------------------------------------------------------------------------


async def test_search_returns_one_result_per_note_with_marked_snippets(
    make_client: ClientFactory, live_settings: Settings, index: Index
) -> None:
    client = await make_client(live_settings, Services(index=index))
    response = await client.get("/api/search", params={"q": "sourdough starter", "limit": "3"})
    assert response.status == 200
    body = await response.json()
    expected = await index.search("sourdough starter", limit=3, group_by_note=True)
    assert body["grouped"] is True and body["mode"] == expected.mode
    assert [r["path"] for r in body["results"]] == [r.path for r in expected.results]
    assert 0 < len(body["results"]) <= 3
    paths = [r["path"] for r in body["results"]]
    assert len(set(paths)) == len(paths)  # one result per note
    first = body["results"][0]
    assert "Sourdough" in first["title"]
    fields = {"path", "title", "heading", "text", "score", "note_date", "modified"}
    assert fields | {"start_line", "ordinal", "snippet", "marks"} <= set(first)
    marked = [first["snippet"][a:b].lower() for a, b in first["marks"]]
    assert marked and all(w.startswith(("sourdough", "starter")) for w in marked)


async def test_search_chunks_lists_every_matching_passage(
    make_client: ClientFactory, live_settings: Settings, index: Index
) -> None:
    client = await make_client(live_settings, Services(index=index))
    params = {"q": "sourdough starter feeding", "limit": "10", "chunks": "1"}
    body = await (await client.get("/api/search", params=params)).json()
    assert body["grouped"] is False
    paths = [r["path"] for r in body["results"]]
    assert len(set(paths)) < len(paths)  # several passages of one note
    keys = [(r["path"], r["ordinal"]) for r in body["results"]]
    assert len(set(keys)) == len(keys)


async def test_search_falls_back_to_keywords_when_embeddings_fail(
    make_client: ClientFactory, live_settings: Settings, index: Index, fake_ollama: FakeOllama
) -> None:
    fake_ollama.fail_embed = FakeError(500, "model runner has unexpectedly stopped")
    client = await make_client(live_settings, Services(index=index))
    body = await (await client.get("/api/search", params={"q": "passport renewal"})).json()
    assert body["mode"] == "keyword"
    assert body["notice"]
    assert body["results"]


@pytest.mark.parametrize(
    ("params", "code"),
    [
        ({}, "bad_query"),
        ({"q": "  \t"}, "bad_query"),
        ({"q": "x", "mode": "magic"}, "bad_mode"),
        ({"q": "x", "limit": "0"}, "bad_param"),
        ({"q": "x", "chunks": "yes"}, "bad_param"),
    ],
)
async def test_search_bad_parameters(
    make_client: ClientFactory, params: dict[str, str], code: str
) -> None:
    client = await make_client()
    response = await client.get("/api/search", params=params)
    assert response.status == 400
    assert (await response.json())["error"]["code"] == code


async def test_search_without_index_is_503(make_client: ClientFactory) -> None:
    client = await make_client()
    response = await client.get("/api/search", params={"q": "x"})
    assert response.status == 503
    assert (await response.json())["error"]["code"] == "index_unavailable"


async def test_note_text_for_a_source(make_client: ClientFactory, web_settings: Settings) -> None:
    client = await make_client()
    response = await client.get("/api/note", params={"path": "People/Maya Collins.md"})
    body = await response.json()
    assert body["title"] == "Maya Collins"
    assert body["text"] == (web_settings.vault / "People" / "Maya Collins.md").read_text()
    missing = await client.get("/api/note", params={"path": "People/Nobody.md"})
    assert missing.status == 404
    message = (await missing.json())["error"]["message"]
    assert message.startswith("there is no note at People/Nobody.md (the path must match")
    assert "skipped" not in message  # it never existed: "no longer exists" was untrue


# -- ask ------------------------------------------------------------------------------------------


def _cite_first(request: dict[str, Any]) -> str:
    return "Renew the passport first [1]."


async def test_ask_answers_with_sources(
    make_client: ClientFactory, live_settings: Settings, index: Index, fake_ollama: FakeOllama
) -> None:
    fake_ollama.chat_handler = _cite_first
    client = await make_client(live_settings, Services(index=index))
    response = await client.post(
        "/api/ask",
        data=json.dumps({"question": "What must happen before the Lisbon trip?"}),
        headers=write_headers(client),
    )
    assert response.status == 200
    body = await response.json()
    assert body["answer"].startswith("Renew the passport first")
    assert body["refused"] is False
    assert body["sources"][0]["n"] == 1 and body["sources"][0]["path"].endswith(".md")
    assert isinstance(body["findings"], list)


@pytest.mark.parametrize("stream", [False, True])
async def test_a_question_the_model_failed_says_ask_again_not_tried_again(
    make_client: ClientFactory,
    live_settings: Settings,
    index: Index,
    fake_ollama: FakeOllama,
    stream: bool,
) -> None:
    """A page's question is not retried by anyone: the message said 'it will be tried again'
    (true for tidy and Ask notes, which do retry), and the person waited for nothing."""
    quick = with_model(live_settings, timeout_s=3.0)
    fake_ollama.enqueue_chat(Raw("<html>bad gateway</html>", content_type="text/html"))
    fake_ollama.enqueue_chat(Stall(60.0))  # never in time, whatever the load
    client = await make_client(quick, Services(index=index))
    route = "/api/ask?stream=1" if stream else "/api/ask"
    for code in ("model_failed", "model_timeout"):
        response = await client.post(
            route, data=json.dumps({"question": "Lisbon?"}), headers=write_headers(client)
        )
        error = (await response.json())["error"]
        assert error["code"] == code
        assert "ask again in a moment" in error["message"], error["message"]
        assert "tried again" not in error["message"]


@pytest.mark.parametrize("stream", [False, True])
async def test_an_error_from_ollama_tells_the_person_what_to_do(
    make_client: ClientFactory,
    live_settings: Settings,
    index: Index,
    fake_ollama: FakeOllama,
    stream: bool,
) -> None:
    """Ollama answering 500 (a crashed runner, out of memory) reached the page as Ollama's own
    words alone ("Ollama answered with an error (500): ..."), with nothing to do about it."""
    fake_ollama.chat_handler = lambda body: FakeError(500, "model runner has unexpectedly stopped")
    client = await make_client(live_settings, Services(index=index))
    route = "/api/ask?stream=1" if stream else "/api/ask"
    response = await client.post(
        route, data=json.dumps({"question": "Lisbon?"}), headers=write_headers(client)
    )
    error = (await response.json())["error"]
    assert response.status == 502 and error["code"] == "model_failed"
    assert "unexpectedly stopped" in error["message"]  # what happened
    assert "ask again in a moment" in error["message"], error["message"]  # what to do


async def test_ask_streams_ndjson(
    make_client: ClientFactory, live_settings: Settings, index: Index, fake_ollama: FakeOllama
) -> None:
    fake_ollama.chat_handler = _cite_first
    client = await make_client(live_settings, Services(index=index))
    response = await client.post(
        "/api/ask?stream=1",
        data=json.dumps({"question": "What must happen before the Lisbon trip?"}),
        headers=write_headers(client),
    )
    assert response.status == 200
    assert response.content_type == "application/x-ndjson"
    assert "default-src 'self'" in response.headers["Content-Security-Policy"]
    events = [json.loads(line) for line in (await response.text()).splitlines()]
    assert [e["type"] for e in events][-1] == "answer"
    assert any(e["type"] == "delta" for e in events)
    assert events[-1]["sources"]


async def test_ask_when_ollama_is_down_says_so(
    make_client: ClientFactory, live_settings: Settings, index: Index, dead_ollama_url: str
) -> None:
    down = with_model(live_settings, host=dead_ollama_url)
    client = await make_client(down, Services(index=index))
    response = await client.post(
        "/api/ask", data=json.dumps({"question": "passport?"}), headers=write_headers(client)
    )
    assert response.status == 503
    error = (await response.json())["error"]
    assert error["code"] == "model_unavailable"
    assert "ollama" in error["message"].lower()


async def test_empty_question_is_400(
    make_client: ClientFactory, live_settings: Settings, index: Index
) -> None:
    client = await make_client(live_settings, Services(index=index))
    response = await client.post(
        "/api/ask", data=json.dumps({"question": "  "}), headers=write_headers(client)
    )
    assert response.status == 400
    assert (await response.json())["error"]["code"] == "bad_question"


# -- errors ---------------------------------------------------------------------------------------


async def test_unknown_route_and_method_are_json(make_client: ClientFactory) -> None:
    client = await make_client()
    missing = await client.get("/api/nothing")
    assert missing.status == 404
    assert (await missing.json())["error"]["code"] == "not_found"
    wrong = await client.put("/api/capture", data="{}", headers=write_headers(client))
    assert wrong.status == 405
    assert (await wrong.json())["error"]["code"] == "method_not_allowed"


async def test_unexpected_error_is_500_without_traceback(
    aiohttp_client: Any, web_settings: Settings, caplog: pytest.LogCaptureFixture
) -> None:
    app = create_app(web_settings, make_llm(web_settings))

    async def broken(request: web.Request) -> web.Response:
        raise RuntimeError("secret internals /home/owner/vault")

    app.router.add_get("/api/broken", broken)
    client = await aiohttp_client(app)
    with caplog.at_level(logging.ERROR, logger="commonplace.server.errors"):
        response = await client.get("/api/broken")
    assert response.status == 500
    text = await response.text()
    assert "secret internals" not in text and "Traceback" not in text
    assert json.loads(text)["error"]["code"] == "internal"
    assert any(r.exc_info for r in caplog.records)  # the traceback stays in the log


def test_search_results_match_the_cli(
    vault: Path, tmp_path: Path, fake_ollama_thread: FakeOllama
) -> None:
    """The API's `results` are exactly what `commonplace search --json` prints."""
    env = {
        "COMMONPLACE_VAULT": str(vault),
        "COMMONPLACE_DATA": str(tmp_path / "data"),
        "OLLAMA_HOST": fake_ollama_thread.url,
    }
    printed = CliRunner().invoke(
        cli, ["search", "sourdough", "starter", "--json", "-n", "4"], env=env
    )
    assert printed.exit_code == 0, printed.output
    expected = json.loads(printed.stdout)
    settings = load_settings(env=env)

    async def from_api() -> Any:
        index = Index.open(settings, make_llm(settings))
        client = TestClient(
            TestServer(create_app(settings, make_llm(settings), Services(index=index)))
        )
        await client.start_server()
        try:
            response = await client.get(
                "/api/search", params={"q": "sourdough starter", "limit": "4"}
            )
            return await response.json()
        finally:
            await client.close()
            index.close()

    body = asyncio.run(from_api())
    assert expected and body["results"] == expected


async def test_a_capture_over_the_size_limit_is_refused_not_saved(
    make_client: ClientFactory, web_settings: Settings
) -> None:
    small = dataclasses.replace(
        web_settings, tidy=dataclasses.replace(web_settings.tidy, max_capture_kb=1)
    )
    client = await make_client(small)
    response = await client.post(
        "/api/capture", data=json.dumps({"text": "é" * 600}), headers=write_headers(client)
    )  # 600 characters, 1200 bytes
    assert response.status == 413
    assert (await response.json())["error"]["message"] == "a capture is limited to 1 KB"
    assert not (small.vault / "Inbox").exists()
