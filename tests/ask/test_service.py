"""Ask notes end to end through AskService.on_changes: real files, real atomic writes, the fake
Ollama; the index is a FixedIndex (the watcher test drives the same service from real events)."""

from __future__ import annotations

import asyncio
import dataclasses
import itertools
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import pytest
import pytest_asyncio

import commonplace.ask.service as service_module
from commonplace.ask.asknote import find_questions
from commonplace.ask.service import AskService
from commonplace.config import Settings
from commonplace.llm import make_llm
from commonplace.runtime.attention import Entry
from commonplace.runtime.changes import Change
from tests.ask.helpers import FixedIndex, cite_passage_with, hit
from tests.fakes.ollama import FakeError, FakeOllama
from tests.faults import disk_full
from tests.models import with_model

NOTE = "Ask/Questions.md"
INDEX = FixedIndex(
    [hit("Travel/Lisbon Trip.md", "Flight EZY6041 leaves at 06:40.", heading="Flights")]
)
Factory = Callable[..., AskService]


@pytest.fixture
def ask_settings(settings: Settings, fake_ollama: FakeOllama) -> Settings:
    fake_ollama.chat_handler = cite_passage_with("EZY6041", "The flight leaves at 06:40")
    ask = dataclasses.replace(settings.ask, max_inserts=2)
    return dataclasses.replace(
        settings, ask=ask, ollama=dataclasses.replace(settings.ollama, host=fake_ollama.url)
    )


@pytest_asyncio.fixture
async def make_service(ask_settings: Settings) -> AsyncIterator[Factory]:
    made: list[AskService] = []

    def make(settings: Settings | None = None, **kw: float) -> AskService:
        s = settings or ask_settings
        svc = AskService(s, make_llm(s), INDEX, quiet_s=kw.get("quiet_s", 0.05), retry_s=0.05)
        made.append(svc)
        return svc

    yield make
    for svc in made:
        await svc.close()


def write(vault: Path, rel: str, text: str) -> Path:
    path = vault / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


async def changed(svc: AskService, *paths: str) -> None:
    await svc.on_changes([Change(p, "modified") for p in paths])
    await svc.idle()


async def test_new_question_is_answered_once_and_only_once(
    vault: Path, fake_ollama: FakeOllama, make_service: Factory
) -> None:
    path = write(vault, NOTE, "# Trip questions\n\n?? When does my flight leave?\n\nMore notes.\n")
    svc = make_service()
    await changed(svc, NOTE)
    text = path.read_text()
    assert text.count("[!answer]") == 1
    assert "> The flight leaves at 06:40 [1]." in text
    assert "[[Travel/Lisbon Trip#Flights|Lisbon Trip › Flights]]" in text
    await changed(svc, NOTE)  # our own write comes back as a change
    assert path.read_text() == text
    restarted = make_service()  # a new daemon on the same data folder
    await restarted.startup()
    await restarted.idle()
    assert path.read_text() == text
    assert len(fake_ollama.chat_requests()) == 1
    assert svc.status()["answers_inserted"] == 1


async def test_typing_while_the_answer_is_written_loses_nothing(
    vault: Path, make_service: Factory, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = write(vault, NOTE, "?? When does my flight leave?\nfirst line\n")
    real = service_module.insert_answer
    typed = ["second line typed during the write\n", "a line typed above\n"]

    def user_types_after_each_read(text: str, *args: object) -> str | None:
        new = real(text, *args)  # type: ignore[arg-type]
        if typed:  # the user saves between our read and our write
            extra = typed.pop(0)
            current = path.read_text()
            path.write_text(current + extra if "during" in extra else extra + current)
        return new

    monkeypatch.setattr(service_module, "insert_answer", user_types_after_each_read)
    svc = make_service()
    await changed(svc, NOTE)
    lines = path.read_text().splitlines()
    assert lines[0] == "a line typed above"
    assert lines[1] == "?? When does my flight leave?"
    assert lines[2] == "> [!answer] Answer"
    user_lines = [ln for ln in lines if not ln.startswith(">") and ln]
    assert user_lines == [
        "a line typed above",
        "?? When does my flight leave?",
        "first line",
        "second line typed during the write",
    ]
    assert typed == []


async def test_edited_question_is_answered_again_below_the_old_answer(
    vault: Path, fake_ollama: FakeOllama, make_service: Factory
) -> None:
    path = write(vault, NOTE, "?? When does my flight leave?\n")
    svc = make_service()
    await changed(svc, NOTE)
    path.write_text(path.read_text().replace("my flight leave?", "my EZY6041 flight leave?"))
    await changed(svc, NOTE)
    text = path.read_text()
    assert text.count("[!answer]") == 2
    assert text.index("[!answer] Answer") < text.index(
        "[!answer] New answer (the question was changed)"
    )
    assert len(fake_ollama.chat_requests()) == 2
    assert "my EZY6041 flight" in fake_ollama.chat_requests()[1]["messages"][1]["content"]


async def test_questions_in_other_folders_are_ignored(
    vault: Path, fake_ollama: FakeOllama, make_service: Factory
) -> None:
    other = "Travel/Questions.md"
    path = write(vault, other, "?? When does my flight leave?\n")
    svc = make_service()
    await changed(svc, other, "Askew/Q.md")
    await svc.startup()
    await svc.idle()
    assert path.read_text() == "?? When does my flight leave?\n"
    assert fake_ollama.chat_requests() == []


async def test_reverted_answer_is_reinserted_then_given_up(
    vault: Path, fake_ollama: FakeOllama, make_service: Factory
) -> None:
    original = "?? When does my flight leave?\n"
    path = write(vault, NOTE, original)
    svc = make_service()
    for _ in range(4):  # a stale editor buffer keeps saving the old text
        await changed(svc, NOTE)
        assert "[!answer]" in path.read_text() or svc.status()["gave_up"]
        path.write_text(original)
    await changed(svc, NOTE)
    assert path.read_text() == original
    assert svc.status()["answers_inserted"] == 2  # max_inserts
    assert svc.status()["gave_up"] == [{"path": NOTE, "id": find_questions(original)[0].qid}]
    assert len(fake_ollama.chat_requests()) == 2
    restarted = make_service()
    await restarted.startup()
    await restarted.idle()
    assert path.read_text() == original


async def test_waits_until_the_note_is_quiet(
    vault: Path, fake_ollama: FakeOllama, make_service: Factory
) -> None:
    path = write(vault, NOTE, "?? When does my flight leave?\n")
    loop = asyncio.get_running_loop()
    asked_at: list[float] = []
    answer = fake_ollama.chat_handler
    assert answer is not None

    def timed(body: dict[str, Any]) -> Any:
        asked_at.append(loop.time())
        return answer(body)

    fake_ollama.chat_handler = timed
    svc = make_service(quiet_s=1.5)
    await svc.on_changes([Change(NOTE, "modified")])
    await asyncio.sleep(0.1)
    typed_at = loop.time()
    await svc.on_changes([Change(NOTE, "modified")])  # still typing: the clock starts again
    assert "[!answer]" not in path.read_text()
    assert svc.status()["waiting"] == [NOTE]
    await svc.idle()
    assert "[!answer]" in path.read_text()
    assert asked_at and asked_at[0] >= typed_at + 1.5  # quiet since the last change


async def test_ollama_down_leaves_the_question_for_later(
    vault: Path, fake_ollama: FakeOllama, make_service: Factory
) -> None:
    path = write(vault, NOTE, "?? When does my flight leave?\n")
    fake_ollama.enqueue_chat(FakeError(500, "out of memory"), FakeError(500, "out of memory"))
    svc = make_service()
    await svc.on_changes([Change(NOTE, "created")])
    await svc.idle()  # the first try fails; the retry 0.05 s later succeeds
    assert path.read_text().count("[!answer]") == 1
    assert len(fake_ollama.chat_requests()) == 3


async def test_a_question_the_model_keeps_failing_backs_off_and_is_shown(
    vault: Path, ask_settings: Settings, fake_ollama: FakeOllama, make_service: Factory
) -> None:
    path = write(vault, NOTE, "?? When does my flight leave?\n")
    loop = asyncio.get_running_loop()
    tried_at: list[float] = []
    answer = fake_ollama.chat_handler
    assert answer is not None
    down = True

    def ollama(body: dict[str, Any]) -> Any:
        tried_at.append(loop.time())
        return FakeError(500, "out of memory") if down else answer(body)

    fake_ollama.chat_handler = ollama
    one_try = with_model(ask_settings, retries=0)  # one request per try
    svc = make_service(one_try)  # retry_s 0.05
    await svc.on_changes([Change(NOTE, "created")])
    async with asyncio.timeout(30):
        while svc.attention.get("ask", NOTE) is None:  # noqa: ASYNC110 - polling its state
            await asyncio.sleep(0.01)
    entry = svc.attention.get("ask", NOTE)
    assert entry is not None and entry.code == "not_answered"
    assert "tries" in entry.reason and "out of memory" in entry.reason and entry.retry_at
    assert len(tried_at) >= 3  # shown after the third failure in a row, not before
    gaps = [b - a for a, b in itertools.pairwise(tried_at)]
    assert gaps[0] >= 0.05 and gaps[1] >= 0.1  # the waits double
    down = False  # Ollama is back: answered on the next try, and the entry goes
    await svc.idle()
    assert path.read_text().count("[!answer]") == 1
    assert svc.attention.entries() == []


async def test_a_question_too_long_to_ask_is_shown_until_it_is_shortened(
    vault: Path, fake_ollama: FakeOllama, make_service: Factory
) -> None:
    """It was only a log line: the note showed nothing, /api/state and doctor nothing."""
    long = "?? " + "why does the flight leave so early " * 80 + "\n"
    path = write(vault, NOTE, "# Trip\n\n" + long + "\n?? When does my flight leave?\n")
    svc = make_service()
    await changed(svc, NOTE)
    entry = svc.attention.get("ask", NOTE)
    assert entry is not None and entry.code == "bad_question"
    assert "keep it under 2000" in entry.reason and "shorten" in entry.action
    assert "why does the flight" not in entry.reason  # never the note's words
    assert path.read_text().count("[!answer]") == 1  # the other question is answered
    path.write_text(path.read_text().replace(long, "?? Why so early?\n"), encoding="utf-8")
    await changed(svc, NOTE)
    assert svc.attention.get("ask", NOTE) is None
    assert path.read_text().count("[!answer]") == 2


async def test_deleted_note_is_dropped(
    vault: Path, fake_ollama: FakeOllama, make_service: Factory
) -> None:
    write(vault, NOTE, "?? When does my flight leave?\n")
    svc = make_service(quiet_s=0.5)
    await svc.on_changes([Change(NOTE, "modified")])
    (vault / NOTE).unlink()
    await svc.on_changes([Change(NOTE, "deleted")])
    await svc.idle()
    assert fake_ollama.chat_requests() == []


async def test_logseq_flavour(
    tmp_path: Path, ask_settings: Settings, fake_ollama: FakeOllama, make_service: Factory
) -> None:
    vault = tmp_path / "graph"
    settings = dataclasses.replace(ask_settings, vault=vault, flavor="logseq")
    rel = "pages/Ask/Trip.md"
    path = write(
        vault,
        rel,
        "title:: Trip\n\n- ?? When does my flight leave?\n\t- my own note\n- later block\n",
    )
    svc = make_service(settings)
    await svc.startup()
    await svc.idle()
    lines = path.read_text().splitlines()
    assert lines[:4] == ["title:: Trip", "", "- ?? When does my flight leave?", "\t- **Answer**"]
    assert lines[4].startswith("\t  cp-answer:: ")
    assert "\t\t- The flight leaves at 06:40 [1]." in lines
    assert any(ln.startswith("\t\t\t- [1] [[Lisbon Trip]] › Flights") for ln in lines)
    assert lines[-2:] == ["\t- my own note", "- later block"]
    await changed(svc, rel)
    assert len(fake_ollama.chat_requests()) == 1


async def test_logseq_namespace_page_is_an_ask_note(
    tmp_path: Path, ask_settings: Settings, make_service: Factory
) -> None:
    graph = tmp_path / "graph"
    settings = dataclasses.replace(ask_settings, vault=graph, flavor="logseq")
    path = write(graph, "pages/Ask___Trip.md", "- ?? When does my flight leave?\n")
    other = write(graph, "pages/Trip.md", "- ?? When does my flight leave?\n")
    svc = make_service(settings)
    await changed(svc, "pages/Ask___Trip.md", "pages/Trip.md")
    assert "cp-answer::" in path.read_text()
    assert "cp-answer::" not in other.read_text()


async def test_an_answer_that_cannot_be_written_is_retried_and_shown(
    vault: Path, fake_ollama: FakeOllama, make_service: Factory, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = write(vault, NOTE, "?? When does my flight leave?\n")
    refused = disk_full(monkeypatch, writes=2)
    svc = make_service()
    reported: list[Entry] = []
    report = svc.attention.report
    monkeypatch.setattr(
        svc.attention, "report", lambda *a, **k: reported.append(report(*a, **k)) or reported[-1]
    )
    await svc.on_changes([Change(NOTE, "created")])
    await svc.idle()  # two refused writes, each retried after a growing wait, then written
    assert path.read_text().count("[!answer]") == 1
    assert [p.name for p in refused] == ["Questions.md", "Questions.md"]
    assert [(e.path, e.code, e.count) for e in reported] == [
        (NOTE, "write_failed", 1),
        (NOTE, "write_failed", 2),
    ]
    assert reported[0].reason == "answer not written yet: the disk is full"
    assert reported[0].action == "free some space on the vault's disk" and reported[0].retry_at
    assert svc.attention.entries() == []  # cleared once written
    assert len(fake_ollama.chat_requests()) == 1  # the answer was kept for the retry


async def test_an_answer_waits_while_git_holds_the_vault(
    vault: Path, make_service: Factory, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("commonplace.vault.atomic.GIT_WAIT_S", 0.1)
    path = write(vault, NOTE, "?? When does my flight leave?\n")
    lock = vault / ".git" / "index.lock"
    lock.parent.mkdir()
    lock.write_text("")
    svc = make_service()
    await svc.on_changes([Change(NOTE, "created")])
    for _ in range(1200):  # 60 s at most
        if svc.attention.get("ask", NOTE):
            break
        await asyncio.sleep(0.05)
    entry = svc.attention.get("ask", NOTE)
    assert entry is not None and entry.code == "vault_busy" and str(lock) in entry.action
    assert path.read_text() == "?? When does my flight leave?\n"
    lock.unlink()  # git is done
    await svc.idle()
    assert path.read_text().count("[!answer]") == 1
    assert svc.attention.entries() == []
