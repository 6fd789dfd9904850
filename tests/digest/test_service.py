"""A week's digest is written once: reruns, edits and deletions never lead to an overwrite."""

from __future__ import annotations

import dataclasses
import json
from datetime import datetime
from pathlib import Path

import pytest

from commonplace.config import DigestSettings, Settings
from commonplace.digest import Week, make_digest
from commonplace.digest.service import load_state
from commonplace.llm import make_llm
from tests.digest.week_fixture import Filed, write_note
from tests.fakes.ollama import FakeOllama
from tests.models import with_model

W43 = Week(2026, 43)
NOW = datetime(2026, 10, 25, 18, 0)


@pytest.fixture
def fast(settings: Settings, fake_ollama: FakeOllama) -> Settings:
    fake_ollama.chat_handler = lambda body: json.dumps(
        {"week": "A week of Switchboard.", "todos": ""}
    )
    return with_model(settings, host=fake_ollama.url)


def digest_file(settings: Settings) -> Path:
    return settings.vault / "Digests/2026-W43.md"


async def test_second_run_neither_duplicates_nor_rewrites(
    fast: Settings, week: list[Filed], fake_ollama: FakeOllama
) -> None:
    llm = make_llm(fast)
    first = await make_digest(fast, llm, W43, now=NOW)
    assert first.status == "written" and first.path == "Digests/2026-W43.md"
    assert first.notification == (
        "20 notes captured this week. To do: 3 overdue, 7 due in the next seven days."
    )
    before = digest_file(fast).read_bytes()
    mtime = digest_file(fast).stat().st_mtime_ns
    second = await make_digest(fast, llm, W43, now=datetime(2026, 10, 26, 9, 0))
    assert second.status == "unchanged"
    assert second.message == "Digests/2026-W43.md was already written; left as it is"
    assert digest_file(fast).read_bytes() == before
    assert digest_file(fast).stat().st_mtime_ns == mtime
    assert [p.name for p in (fast.vault / "Digests").iterdir()] == ["2026-W43.md"]
    assert len(fake_ollama.chat_requests()) == 1  # the model is not asked again
    assert load_state(fast)["2026-W43"]["path"] == "Digests/2026-W43.md"


async def test_an_edited_digest_is_never_overwritten(fast: Settings, week: list[Filed]) -> None:
    llm = make_llm(fast)
    await make_digest(fast, llm, W43, now=NOW)
    edited = digest_file(fast).read_text() + "\nMy own thoughts on the week.\n"
    digest_file(fast).write_text(edited)
    again = await make_digest(fast, llm, W43, now=NOW, rewrite_deleted=True)
    assert again.status == "edited"
    assert digest_file(fast).read_text() == edited


async def test_a_deleted_digest_comes_back_only_when_asked(
    fast: Settings, week: list[Filed]
) -> None:
    llm = make_llm(fast)
    await make_digest(fast, llm, W43, now=NOW)
    digest_file(fast).unlink()
    assert (await make_digest(fast, llm, W43, now=NOW)).status == "deleted"
    assert not digest_file(fast).exists()
    again = await make_digest(fast, llm, W43, now=NOW, rewrite_deleted=True)
    assert again.status == "written" and digest_file(fast).exists()


async def test_a_note_of_the_users_at_that_path_is_left_alone(
    fast: Settings, week: list[Filed]
) -> None:
    write_note(fast.vault, "Digests/2026-W43.md", "my own weekly review\n")
    outcome = await make_digest(fast, make_llm(fast), W43, now=NOW)
    assert outcome.status == "exists"
    assert digest_file(fast).read_text() == "my own weekly review\n"
    assert "2026-W43" not in load_state(fast)


async def test_dry_run_writes_nothing(fast: Settings, week: list[Filed]) -> None:
    outcome = await make_digest(fast, make_llm(fast), W43, now=NOW, dry_run=True)
    assert outcome.status == "dry-run" and "### Overdue (3)" in outcome.text
    assert not digest_file(fast).exists() and load_state(fast) == {}


async def test_summary_can_be_turned_off(
    fast: Settings, week: list[Filed], fake_ollama: FakeOllama
) -> None:
    off = dataclasses.replace(fast, digest=DigestSettings(summary=False))
    outcome = await make_digest(off, make_llm(off), W43, now=NOW)
    assert fake_ollama.chat_requests() == []
    assert "Summaries are turned off" in outcome.text


async def test_logseq_digest_goes_under_pages(
    logseq_settings: Settings, fake_ollama: FakeOllama
) -> None:
    from tests.digest.week_fixture import file_week

    file_week(logseq_settings)
    fake_ollama.enqueue_chat(json.dumps({"week": "Fine.", "todos": ""}))
    s = with_model(logseq_settings, host=fake_ollama.url)
    outcome = await make_digest(s, make_llm(s), W43, now=NOW)
    assert outcome.path == "pages/Digests/2026-W43.md"
    assert (s.vault / outcome.path).read_text().startswith("digest:: 2026-W43\n")
