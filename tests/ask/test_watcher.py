"""Ask notes through the real watcher: real files, inotify events via watchdog, debouncing,
AskService, atomic writes and the fake Ollama."""

from __future__ import annotations

import asyncio
import dataclasses
import time
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from pathlib import Path

import pytest

import commonplace.ask.service as service_module
from commonplace.ask.service import AskService
from commonplace.config import Settings
from commonplace.daemon.watcher import VaultWatcher
from commonplace.llm import make_llm
from tests.ask.helpers import FixedIndex, cite_passage_with, hit
from tests.fakes.ollama import FakeOllama
from tests.models import with_model

NOTE = "Ask/Questions.md"
INDEX = FixedIndex([hit("Travel/Lisbon Trip.md", "Flight EZY6041 leaves at 06:40.")])
DEBOUNCE_S = 0.05


@pytest.fixture
def ask_settings(settings: Settings, fake_ollama: FakeOllama) -> Settings:
    fake_ollama.chat_handler = cite_passage_with("EZY6041", "The flight leaves at 06:40")
    return with_model(settings, host=fake_ollama.url)


@asynccontextmanager
async def running(settings: Settings) -> AsyncIterator[tuple[AskService, VaultWatcher]]:
    """AskService fed by a VaultWatcher, as the daemon runs them; startup() like a fresh start."""
    svc = AskService(settings, make_llm(settings), INDEX, quiet_s=0.05, retry_s=0.05)
    watcher = VaultWatcher(settings.vault, svc.on_changes, debounce_s=DEBOUNCE_S)
    await watcher.start()
    await svc.startup()
    try:
        yield svc, watcher
    finally:
        await watcher.stop()
        await svc.close()


async def until(check: Callable[[], bool], limit_s: float = 60.0) -> None:
    deadline = time.monotonic() + limit_s
    while not check():
        if time.monotonic() > deadline:
            raise AssertionError("timed out waiting for the condition")
        await asyncio.sleep(0.02)


async def settle(svc: AskService, watcher: VaultWatcher) -> None:
    """Wait until the watcher has delivered every event and the service has handled them."""
    for _ in range(3):  # our own write produces events too; let them go round
        await asyncio.sleep(DEBOUNCE_S * 6)
        await until(lambda: len(watcher.debouncer) == 0)
        await svc.idle()


def write(vault: Path, rel: str, text: str) -> Path:
    path = vault / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


async def test_new_question_answered_once_and_only_once_even_after_restart(
    vault: Path, ask_settings: Settings, fake_ollama: FakeOllama
) -> None:
    (vault / "Ask").mkdir()
    async with running(ask_settings) as (svc, watcher):
        path = write(vault, NOTE, "# Questions\n\n?? When does my flight leave?\n")
        await until(lambda: "[!answer]" in path.read_text())
        await settle(svc, watcher)
        answered = path.read_text()
    assert answered.count("[!answer]") == 1
    assert "> The flight leaves at 06:40 [1]." in answered
    async with running(ask_settings) as (svc, watcher):  # the daemon restarts
        await settle(svc, watcher)
    assert path.read_text() == answered
    assert len(fake_ollama.chat_requests()) == 1


async def test_user_typing_during_the_write_loses_nothing(
    vault: Path, ask_settings: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = write(vault, NOTE, "?? When does my flight leave?\n")
    real = service_module.insert_answer
    typed = ["typed while the answer was written\n"]
    calls: list[str] = []

    def user_saves_after_our_read(text: str, *args: object) -> str | None:
        calls.append(text)
        new = real(text, *args)  # type: ignore[arg-type]
        if typed:
            with path.open("a", encoding="utf-8") as f:
                f.write(typed.pop())
        return new

    monkeypatch.setattr(service_module, "insert_answer", user_saves_after_our_read)
    async with running(ask_settings) as (svc, watcher):
        await until(lambda: "[!answer]" in path.read_text())
        await settle(svc, watcher)
    lines = path.read_text().splitlines()
    assert lines[0] == "?? When does my flight leave?"
    assert lines[1] == "> [!answer] Answer"
    assert lines[-1] == "typed while the answer was written"
    assert calls[1].endswith("typed while the answer was written\n")  # re-read, then written
    assert path.read_text().count("[!answer]") == 1


async def test_edited_question_is_answered_again(
    vault: Path, ask_settings: Settings, fake_ollama: FakeOllama
) -> None:
    path = write(vault, NOTE, "?? When does my flight leave?\n")
    async with running(ask_settings) as (svc, watcher):
        await until(lambda: "[!answer]" in path.read_text())
        await settle(svc, watcher)
        path.write_text(path.read_text().replace("flight leave?", "EZY6041 flight leave?"))
        await until(lambda: path.read_text().count("[!answer]") == 2)
        await settle(svc, watcher)
    text = path.read_text()
    assert text.count("[!answer]") == 2
    assert "[!answer] New answer (the question was changed)" in text
    assert len(fake_ollama.chat_requests()) == 2


async def test_questions_in_other_folders_are_ignored(
    vault: Path, ask_settings: Settings, fake_ollama: FakeOllama
) -> None:
    (vault / "Ask").mkdir()
    async with running(ask_settings) as (svc, watcher):
        other = write(vault, "Travel/Questions.md", "?? When does my flight leave?\n")
        asked = write(vault, NOTE, "?? When does my flight leave?\n")
        await until(lambda: "[!answer]" in asked.read_text())
        await settle(svc, watcher)
    assert other.read_text() == "?? When does my flight leave?\n"
    assert len(fake_ollama.chat_requests()) == 1


async def test_logseq_flavour(tmp_path: Path, ask_settings: Settings) -> None:
    graph = tmp_path / "graph"
    (graph / "pages").mkdir(parents=True)
    settings = dataclasses.replace(ask_settings, vault=graph, flavor="logseq")
    async with running(settings) as (svc, watcher):
        path = write(graph, "pages/Ask/Trip.md", "- ?? When does my flight leave?\n- later\n")
        ignored = write(graph, "pages/Trip.md", "- ?? When does my flight leave?\n")
        await until(lambda: "cp-answer::" in path.read_text())
        await settle(svc, watcher)
    lines = path.read_text().splitlines()
    assert lines[:2] == ["- ?? When does my flight leave?", "\t- **Answer**"]
    assert "\t\t- The flight leaves at 06:40 [1]." in lines
    assert lines[-1] == "- later"
    assert ignored.read_text() == "- ?? When does my flight leave?\n"
