"""Searching past what a stage drops: Logseq's Ask pages never take the owner's notes' places."""

from __future__ import annotations

import dataclasses
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from commonplace.ask.passages import retrieve
from commonplace.config import Settings
from commonplace.daemon_notes import daemon_folder_of
from commonplace.index import Index
from commonplace.llm import LLM
from commonplace.search_past import search_past
from commonplace.tidy.candidates import find_candidates
from tests.fakes.ollama import FakeOllama

TOPIC = "order the shed roof timber from jewson before friday"


@dataclasses.dataclass
class Found:
    results: list[str]


async def test_it_asks_for_more_only_while_too_few_are_kept_and_more_may_exist() -> None:
    asked: list[int] = []
    pool = [f"ask-{i}" for i in range(100)] + [f"mine-{i}" for i in range(3)]

    async def search(n: int) -> Found:
        asked.append(n)
        return Found((pool * 10)[:n] if n == 50 else pool[:n])

    def mine(r: Found) -> int:
        return sum(x.startswith("mine") for x in r.results)

    got = await search_past(search, first=10, enough=lambda r: mine(r) >= 2)
    assert asked == [10, 40, 160] and mine(got) == 3  # 160 > 103: the whole pool, not full
    asked.clear()
    await search_past(search, first=10, enough=lambda r: True)
    assert asked == [10]
    asked.clear()
    await search_past(search, first=10, enough=lambda r: False, most=50)
    assert asked == [10, 40, 50]  # bounded, though the last answer was full


OWN = {"Shed roof plans", "Jewson account", "Timber list", "Friday jobs"}


@pytest.fixture
async def logseq(
    settings: Settings, fake_ollama: FakeOllama
) -> AsyncIterator[tuple[Settings, Index]]:
    """Forty Ask pages on the topic beside the owner's four pages on it (and the sample
    vault's notes), indexed."""
    s = dataclasses.replace(
        settings, flavor="logseq", ollama=dataclasses.replace(settings.ollama, host=fake_ollama.url)
    )
    pages = s.vault / "pages"
    pages.mkdir(parents=True, exist_ok=True)
    for i in range(40):
        (pages / f"Ask___Shed question {i}.md").write_text(
            f"- ?? {TOPIC} ({i})\n  - Order the shed roof timber from jewson before friday.\n"
        )
    for name in OWN:
        (pages / f"{name}.md").write_text(f"- {name}: the shed roof timber, jewson, friday\n")
    index = Index.open(s, LLM(s.ollama))
    try:
        await index.refresh()
        yield s, index
    finally:
        index.close()


async def test_ask_gets_its_passages_from_the_owners_pages_past_earlier_ask_pages(
    logseq: tuple[Settings, Index],
) -> None:
    s, index = logseq
    crowd = await index.search(TOPIC, limit=9, mode="hybrid")
    passages, _ = await retrieve(
        TOPIC,
        index,
        limit=4,
        exclude_folder=s.folder("ask"),
        exclude=lambda path: daemon_folder_of(path, s) == "ask",
    )
    assert all("Ask___" in r.path for r in crowd.results)  # the test means something
    assert len(passages) == 4
    assert {Path(p.path).stem for p in passages} == OWN


async def test_tidy_offers_the_owners_pages_past_earlier_ask_pages(
    logseq: tuple[Settings, Index],
) -> None:
    s, index = logseq
    crowd = await index.search(TOPIC, limit=30, mode="hybrid")
    ask = s.folder("ask")
    found = await find_candidates(
        index,
        TOPIC,
        [s.folder(k) for k in ("inbox", "filed", "digests")],
        ours=lambda path: daemon_folder_of(path, s) == "ask" or path.startswith(ask),
    )
    assert all("Ask___" in r.path for r in crowd.results)
    assert len(found) == 8 and not any("Ask___" in c.path for c in found)
    assert {c.title for c in found} >= OWN
