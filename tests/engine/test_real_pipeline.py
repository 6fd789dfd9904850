"""The real pipeline on a real model: the program's guarantees on what a real model actually
does, through the built-in engine (llama.cpp's server, our child process) and through the
OpenAI-compatible backend pointed at that same server.

They assert what the program promises, never the model's wording: a capture filed with every
field valid and its words kept exactly; an answer whose citations are checked (each shown source
is a passage given, anything else is flagged); an assistant request to change something ends as
the owner's question with nothing changed; notes found by meaning; the engine killed in the
middle of a filing loses nothing. Greedy decoding on one thread makes each test's run the same
every time. Few calls, short prompts: the whole suite stays within its time.
"""

from __future__ import annotations

import asyncio
import dataclasses
import os
import re
import signal
from datetime import date, datetime, timedelta
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

import pytest

from commonplace.ask import answer_question
from commonplace.assistant import build_assistant
from commonplace.config import AskSettings, BuiltinSettings, Settings, TidySettings
from commonplace.index import Index
from commonplace.llm import make_llm
from commonplace.llm.builtin import BuiltinBackend
from commonplace.runtime.attention import Attention
from commonplace.tidy.proposal import MAX_TAGS, TAG_PATTERN
from commonplace.tidy.service import TidyService
from commonplace.vault.notes import read_note
from tests.engine.conftest import THREADS
from tests.models import with_model
from tests.tidy.conftest import CAPTURES, put_capture

pytestmark = pytest.mark.xdist_group("engine")

LONDON = ZoneInfo("Europe/London")
CAPTURE = "2026-10-20 0805.md"  # order the shed roof's timber by Friday; ring Mum
WITH_TASK = "2026-10-22 1405.md"


def real(settings: Settings, chat: str = "", **builtin: Any) -> Settings:
    """The built-in engine on this computer's installed test models, one thread, a short
    context, quick retries."""
    engine = BuiltinSettings(threads=THREADS, context=4096, chat_model=chat, **builtin)
    s = with_model(settings, backend="builtin", retries=2, backoff_s=0.2, timeout_s=300)
    tidy = TidySettings(stable_s=0.05, retry_s=0.2, retry_max_s=1.0)
    return dataclasses.replace(s, builtin=engine, tidy=tidy)


def filed_fields(settings: Settings, path: Path) -> tuple[dict[str, Any], str]:
    note = read_note(settings.vault, path.relative_to(settings.vault).as_posix())
    return dict(note.frontmatter), note.body


def assert_valid_filing(settings: Settings, filed: Path, capture: str) -> None:
    """Every field the program promises: the words kept exactly, tags simple and few, links
    to notes that exist, due dates from the capture's day to a year later."""
    meta, body = filed_fields(settings, filed)
    words = (CAPTURES / capture).read_text(encoding="utf-8").split("---\n", 2)[2].strip()
    assert words in body
    tags = meta.get("tags") or []
    assert len(tags) <= MAX_TAGS and all(re.match(TAG_PATTERN, t) for t in tags), tags
    titles = {p.stem for p in settings.vault.rglob("*.md")}
    for link in re.findall(r"\[\[([^\]|#]+)", body):
        assert link in titles, f"a link to a note that does not exist: {link}"
    day = date.fromisoformat(capture[:10])
    for due in re.findall(r"\(due (\d{4}-\d\d-\d\d)\)", body):
        assert day <= date.fromisoformat(due) <= day + timedelta(days=366), due


async def filed_once(settings: Settings, svc: TidyService, capture: str) -> Path:
    folder = settings.vault / settings.folder("filed")
    async with asyncio.timeout(600):
        while True:
            found = sorted(folder.glob(f"{capture[:15]}*.md")) if folder.is_dir() else []
            inbox = settings.vault / settings.folder("inbox") / capture
            if found and not inbox.exists():
                assert len(found) == 1, found  # filed once, never twice
                return found[0]
            await asyncio.sleep(0.2)


async def test_a_capture_is_filed_by_a_real_model_through_an_openai_compatible_server(
    settings: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    """llama.cpp's server (the engine's child) as any OpenAI-compatible server: the capture
    filed with every field valid; the probe found the schema enforced; a search by meaning
    finds the note it should; a request with tools is answered with a call, made or printed."""
    engine_llm = make_llm(real(settings, "qwen2.5-coder-1.5b-instruct"))
    backend = engine_llm.chat_backend
    assert isinstance(backend, BuiltinBackend)
    ep = await backend.engine.endpoints()
    assert ep.chat is not None and ep.embed is not None
    monkeypatch.setenv("COMMONPLACE_OPENAI_API_KEY", ep.api_key)
    s = with_model(real(settings), backend="openai")
    s = dataclasses.replace(
        s, openai=dataclasses.replace(s.openai, base_url=ep.chat.url, embed_base_url=ep.embed.url)
    )
    llm = make_llm(s)
    try:
        found = await llm.found()
        assert llm.server.kind == "llama.cpp" and found.json_schema is True
        index = Index.open(s, llm)
        try:
            await index.refresh()
            hits = await index.search("a city break in Portugal", limit=3, mode="vector")
            assert hits.mode == "vector" and hits.results[0].path == "Travel/Lisbon Trip.md"
            put_capture(s, CAPTURE)
            svc = TidyService(s, llm, index)
            await svc.startup()
            try:
                filed = await filed_once(s, svc, CAPTURE)
            finally:
                await svc.close()
            assert_valid_filing(s, filed, CAPTURE)
        finally:
            index.close()
    finally:
        await llm.aclose()
        await engine_llm.aclose()


async def test_ask_through_the_built_in_engine_checks_every_citation(
    settings: Settings,
) -> None:
    s = dataclasses.replace(real(settings), ask=AskSettings(passages=4))
    llm = make_llm(s)
    index = Index.open(s, llm)
    try:
        await index.refresh()
        answer = await answer_question(
            "When does my passport expire?",
            index=index,
            llm=llm,
            settings=s,
            today=date(2026, 10, 26),
        )
    finally:
        index.close()
        await llm.aclose()
    given = {p.n for p in answer.passages}
    assert answer.passages and all(source.n in given for source in answer.sources)
    for n in answer.cited:  # a number that matches no passage is never shown as a source
        assert n in given or any(str(n) in f for f in answer.findings)
    if not answer.refused:
        assert answer.sources or answer.findings  # sourced, or said not to be


async def test_an_assistant_request_through_the_built_in_engine_changes_nothing(
    settings: Settings,
) -> None:
    tasks = settings.vault / "Tasks.md"
    tasks.write_text("# Tasks\n\n- [ ] Book the chimney sweep\n", encoding="utf-8")
    before = tasks.read_bytes()
    s = real(settings)
    llm = make_llm(s)
    now = datetime(2026, 10, 26, 9, 0, tzinfo=LONDON)
    try:
        assistant = build_assistant(s, llm, clock=lambda: now)
        turn = await assistant.respond("Add a task: buy bin bags")
    finally:
        await llm.aclose()
    assert tasks.read_bytes() == before  # nothing changes without the owner's Yes
    for proposal in turn.proposals:  # a change is a question the program wrote
        assert proposal.question and "bin bags" in proposal.question.lower()
    assert turn.proposals or turn.reply


async def test_the_engine_killed_while_it_files_a_capture_loses_nothing(
    settings: Settings,
) -> None:
    """kill -9 of the engine's child in the middle of a request: the call fails, the child is
    started again, the capture is filed once, and the attention list said what happened."""
    s = real(settings, "gemma-3-270m")
    attention = Attention()
    llm = make_llm(s, attention=attention)
    backend = llm.chat_backend
    assert isinstance(backend, BuiltinBackend)
    index = Index.open(s, llm)
    try:
        await index.refresh()
        put_capture(s, WITH_TASK)
        svc = TidyService(s, llm, index)
        await svc.startup()
        try:
            async with asyncio.timeout(300):
                while backend.engine._inflight == 0 or backend.engine.pid is None:  # noqa: ASYNC110 - polling its state
                    await asyncio.sleep(0.05)
            first = backend.engine.pid
            assert first is not None
            os.kill(first, signal.SIGKILL)
            filed = await filed_once(s, svc, WITH_TASK)
        finally:
            await svc.close()
        assert backend.engine.pid not in (None, first) and backend.engine.starts >= 2
        assert_valid_filing(s, filed, WITH_TASK)
        said = [e for e in attention.entries() if e.source == "built-in model"]
        assert said and "killed" in said[0].reason
    finally:
        index.close()
        await llm.aclose()
