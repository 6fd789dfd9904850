"""Every tool's schema and answer, through the SDK's in-memory client, with no daemon running:
the index is read read-only, the model is the fake Ollama, the vault is the sample vault."""

from __future__ import annotations

import threading
import time
from pathlib import Path

import pytest

from commonplace.config import Settings
from commonplace.index import Index
from commonplace.llm import make_llm
from commonplace.mcp.local import LocalBackend
from tests.ask.helpers import cite_passage_with
from tests.fakes.ollama import FakeOllama
from tests.mcp_server.conftest import connected, error_text, structured, vault_hashes
from tests.models import with_model

READS = {"search_notes", "ask_notes", "read_note", "list_tasks"}
PROPOSALS = {"propose_add_task", "propose_complete_task", "propose_remember", "propose_forget"}


async def test_the_tools_are_exactly_these_and_say_honestly_what_they_change(
    indexed: Settings, local_backend: LocalBackend
) -> None:
    async with connected(indexed, local_backend) as client:
        tools = {t.name: t for t in (await client.list_tools()).tools}
    assert set(tools) == READS | {"capture"} | PROPOSALS
    for name in READS:
        hints = tools[name].annotations
        assert hints is not None and hints.read_only_hint is True, name
        assert hints.open_world_hint is False
    capture = tools["capture"].annotations
    assert capture is not None
    assert (capture.read_only_hint, capture.destructive_hint) == (False, False)
    assert capture.idempotent_hint is False  # each call is one more capture
    for name in PROPOSALS:
        hints = tools[name].annotations
        assert hints is not None and hints.read_only_hint is False and not hints.destructive_hint
        assert "Changes nothing itself" in (tools[name].description or ""), name
    for tool in tools.values():  # written for a model: a sentence or more, and a title
        assert len(tool.description or "") > 80 and tool.title, tool.name
        assert tool.output_schema is not None, tool.name

    def required(name: str) -> list[str]:
        return list(tools[name].input_schema.get("required", []))

    assert required("search_notes") == ["query"]
    assert required("ask_notes") == ["question"]
    assert required("read_note") == ["path"]
    assert required("list_tasks") == []
    assert required("capture") == ["text"]
    assert required("propose_add_task") == ["text"]
    assert required("propose_complete_task") == ["task"]
    assert required("propose_remember") == ["fact"]
    assert required("propose_forget") == ["words"]
    search = tools["search_notes"].input_schema["properties"]
    assert search["mode"]["enum"] == ["hybrid", "vector", "keyword"]
    assert (search["limit"]["minimum"], search["limit"]["maximum"]) == (1, 50)
    assert "ctx" not in tools["propose_add_task"].input_schema["properties"]


async def test_search_notes_gives_paths_headings_and_snippets(
    indexed: Settings, local_backend: LocalBackend
) -> None:
    async with connected(indexed, local_backend) as client:
        found = structured(await client.call_tool("search_notes", {"query": "passport expires"}))
        people = structured(
            await client.call_tool(
                "search_notes", {"query": "birthday", "folder": "People", "limit": 3}
            )
        )
        outside = await client.call_tool("search_notes", {"query": "x", "folder": "../elsewhere"})
        too_many = await client.call_tool("search_notes", {"query": "x", "limit": 500})
    assert found["mode"] == "hybrid" and found["notice"] is None
    first = found["results"][0]
    assert first["path"] == "Travel/Passport.md" and first["title"] == "Passport"
    assert set(first) == {"path", "title", "heading", "snippet", "note_date", "page", "label"}
    assert (first["page"], first["label"]) == (None, "Passport")  # a PDF's passage: its page
    assert all(len(r["snippet"]) <= 300 for r in found["results"])
    assert 1 <= len(people["results"]) <= 3
    assert all(r["path"].startswith("People/") for r in people["results"])
    assert "inside the vault" in error_text(outside)
    assert "50" in error_text(too_many)  # the schema's bound, checked before the tool runs


async def test_search_falls_back_to_keywords_and_says_so_when_ollama_is_down(
    indexed: Settings, local_backend: LocalBackend, fake_ollama: FakeOllama
) -> None:
    fake_ollama.models = []  # the embedding model is gone: no vectors for the query
    async with connected(indexed, local_backend) as client:
        found = structured(await client.call_tool("search_notes", {"query": "passport"}))
    assert found["mode"] == "keyword" and found["notice"]
    assert found["results"][0]["path"] == "Travel/Passport.md"


async def test_ask_notes_gives_the_checked_answer_with_numbered_sources(
    indexed: Settings, local_backend: LocalBackend, fake_ollama: FakeOllama
) -> None:
    fake_ollama.chat_handler = cite_passage_with(
        "Expires: 9 February 2027", "Your passport expires on 9 February 2027"
    )
    async with connected(indexed, local_backend) as client:
        answer = structured(
            await client.call_tool("ask_notes", {"question": "When does my passport expire?"})
        )
        fake_ollama.enqueue_chat("I can't find that in your notes.")
        refused = structured(
            await client.call_tool("ask_notes", {"question": "What is my cat called?"})
        )
    assert answer["refused"] is False
    assert answer["answer"].startswith("Your passport expires on 9 February 2027 [")
    assert [s["path"] for s in answer["sources"]] == ["Travel/Passport.md"]
    source = answer["sources"][0]
    assert f"[{source['n']}]" in answer["answer"] and "9 February 2027" in source["text"]
    assert refused == {
        "answer": "I can't find that in your notes.",
        "refused": True,
        "sources": [],
        "findings": [],
    }


async def test_ask_notes_says_what_to_do_when_ollama_is_not_running(
    indexed: Settings, dead_ollama_url: str
) -> None:
    down = with_model(indexed, host=dead_ollama_url, retries=0)
    backend = LocalBackend(down)
    try:
        async with connected(down, backend) as client:
            result = await client.call_tool("ask_notes", {"question": "When is the flight?"})
    finally:
        await backend.close()
    assert "ollama" in error_text(result).lower()


async def test_read_note_gives_a_notes_text_daemon_folders_included(
    indexed: Settings, local_backend: LocalBackend
) -> None:
    vault = indexed.vault
    (vault / "Inbox").mkdir(exist_ok=True)
    (vault / "Inbox/2026-10-26 0805.md").write_text("---\nvia: phone\n---\nring the garage\n")
    async with connected(indexed, local_backend) as client:
        maya = structured(await client.call_tool("read_note", {"path": "People/Maya Collins.md"}))
        inbox = structured(
            await client.call_tool("read_note", {"path": "Inbox/2026-10-26 0805.md"})
        )
    assert maya["text"] == (vault / "People/Maya Collins.md").read_text(encoding="utf-8")
    assert maya["title"] == "Maya Collins" and maya["truncated"] is False
    assert maya["chars"] == len(maya["text"])
    assert inbox["text"].endswith("ring the garage\n")


async def test_read_note_cuts_a_long_note_and_says_so(
    indexed: Settings, local_backend: LocalBackend
) -> None:
    long = "# Long\n\n" + "A line of words in a very long note.\n" * 2000
    (indexed.vault / "Long.md").write_text(long, encoding="utf-8")
    async with connected(indexed, local_backend, max_read_chars=1000) as client:
        note = structured(await client.call_tool("read_note", {"path": "Long.md"}))
    assert note["truncated"] is True and note["chars"] == len(long)
    assert note["text"].startswith(long[:1000])
    assert note["text"].endswith(f"[Cut here: the note has {len(long)} characters.]")


async def test_list_tasks_gives_open_todos_by_due_date(
    indexed: Settings, local_backend: LocalBackend
) -> None:
    async with connected(indexed, local_backend) as client:
        week = structured(await client.call_tool("list_tasks", {"due_within_days": 7}))
        everything = structured(await client.call_tool("list_tasks", {}))
        negative = await client.call_tool("list_tasks", {"due_within_days": -1})
    assert week["today"] == "2026-10-26"
    texts = [t["text"] for t in week["tasks"]]
    assert texts[0] == "Order timber for the shed roof"
    assert week["tasks"][0] == {
        "text": "Order timber for the shed roof",
        "due": "2026-10-23",
        "due_day": "Friday 23 October",
        "overdue": True,
        "path": "Tasks.md",
        "note": "Tasks",
    }
    assert "Buy birthday card for Sam" in texts
    assert "Renew the car tax" not in texts  # ticked
    assert all(t["due"] and t["due"] <= "2026-11-02" for t in week["tasks"])
    assert everything["more"] == 0  # the sample vault's ~30 open to-dos all fit
    dues = [t["due"] for t in everything["tasks"]]
    dated = [d for d in dues if d]
    assert dated == sorted(dated) and dues == [*dated, *[None] * (len(dues) - len(dated))]
    undated = [t["text"] for t in everything["tasks"] if t["due"] is None]
    assert "Book the chimney sweep" in undated
    assert "0" in error_text(negative)


async def test_list_tasks_with_a_huge_number_is_a_clear_error_not_an_overflow(
    indexed: Settings, local_backend: LocalBackend
) -> None:
    async with connected(indexed, local_backend) as client:
        huge = await client.call_tool("list_tasks", {"due_within_days": 10**30})
        decade = structured(await client.call_tool("list_tasks", {"due_within_days": 3660}))
    assert huge.is_error
    assert "3660" in error_text(huge) and "OverflowError" not in error_text(huge)
    assert decade["tasks"] and decade["more"] == 0


async def test_a_slow_first_task_read_is_a_clear_answer_in_time(
    mcp_settings: Settings, bare_backend: LocalBackend, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With no daemon, `commonplace mcp` reads the vault's to-dos itself: a first read of a big
    vault that outlasts the wait is a sentence for the client, and the read carries on."""
    from commonplace.assistant import tasks as tasks_module

    real = tasks_module.read_note
    slow = threading.Event()
    slow.set()

    def slowly(vault: Path, path: str, *args: object) -> object:
        if slow.is_set():
            time.sleep(0.2)
        return real(vault, path, *args)  # type: ignore[arg-type]

    monkeypatch.setattr(tasks_module, "read_note", slowly)
    monkeypatch.setattr(tasks_module, "LIST_WAIT_S", 0.3)
    async with connected(mcp_settings, bare_backend) as client:
        started = time.perf_counter()
        first = await client.call_tool("list_tasks", {})
        waited = time.perf_counter() - started
        slow.clear()
        monkeypatch.setattr(tasks_module, "LIST_WAIT_S", 10.0)
        later = structured(await client.call_tool("list_tasks", {}))
    assert "still being read for the first time" in error_text(first) and waited < 1.5
    assert later["tasks"][0]["text"] == "Order timber for the shed roof"


async def test_reading_tools_change_nothing_in_the_vault(
    indexed: Settings, local_backend: LocalBackend, fake_ollama: FakeOllama
) -> None:
    before = vault_hashes(indexed.vault)
    fake_ollama.chat_handler = cite_passage_with("Durham", "It was issued in Durham")
    async with connected(indexed, local_backend) as client:
        await client.call_tool("search_notes", {"query": "shed"})
        await client.call_tool("ask_notes", {"question": "Where was my passport issued?"})
        await client.call_tool("read_note", {"path": "Projects/Shed Rebuild.md"})
        await client.call_tool("list_tasks", {})
    assert vault_hashes(indexed.vault) == before


def test_the_sample_vault_has_the_notes_these_tests_use(indexed: Settings) -> None:
    vault: Path = indexed.vault
    assert (vault / "Travel/Passport.md").is_file() and (vault / "People/Maya Collins.md").is_file()


async def test_the_read_only_index_is_opened_once_and_again_after_it_changed(
    indexed: Settings, local_backend: LocalBackend
) -> None:
    """Without a daemon the index changes only when `commonplace index` (or a daemon that has
    since stopped) writes it: then the next search opens it again and sees the new note."""
    await local_backend.search("passport", 3, "hybrid", "")
    opened = local_backend._index
    await local_backend.search("shed roof", 3, "hybrid", "")
    assert local_backend._index is opened
    (indexed.vault / "Zebra.md").write_text("# Zebra\n\nThe zebra crossing on Mill Lane.\n")
    writer = Index.open(indexed, make_llm(indexed))
    try:
        await writer.refresh()
    finally:
        writer.close()
    found = await local_backend.search("zebra crossing", 3, "keyword", "")
    assert local_backend._index is not opened
    assert found["results"][0]["path"] == "Zebra.md"
