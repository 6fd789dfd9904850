"""Logseq's Ask pages are left out inside the search, so they never take the owner's notes' places.

Logseq keeps the Ask namespace pages beside the owner's pages (pages/Ask___Name.md, or
pages/Ask%2FName.md, any case). A Logseq owner who asked about a topic before has many of them
ranking first for the next question on it: each search must leave them out before it cuts its
results, in Tantivy, in LanceDB's prefilter and in the in-memory vector search, in this process
and in the vector store's own process, so one search gives a full page of the owner's notes.
"""

from __future__ import annotations

import dataclasses
from collections.abc import AsyncIterator, Sequence
from pathlib import Path
from typing import Any

import pytest

from commonplace.ask.passages import retrieve
from commonplace.config import Settings
from commonplace.index import Index, SearchFilter
from commonplace.index import store as index_store
from commonplace.index.vector_process import VectorProcess
from commonplace.index.vectors import VectorStore
from commonplace.llm import make_llm
from commonplace.runtime.daemon_notes import ask_pages, daemon_folder_of, is_ask_note
from commonplace.tidy.candidates import find_candidates
from tests.fakes.ollama import FakeOllama

TOPIC = "order the shed roof timber from jewson before friday"
OWN = {"Shed roof plans", "Jewson account", "Timber list", "Friday jobs", "Askew roof timber"}
# Logseq's two file-name forms of the namespace Ask/..., in the cases people and tools write
ASK_FORMS = ("Ask___", "ask%2F", "ASK___", "Ask%2f")


def ask_page(path: str) -> bool:
    return is_ask_note(path, "pages/Ask", "logseq")


class Counting:
    """The index, counting its searches: one search must be enough."""

    def __init__(self, index: Index) -> None:
        self.index, self.searches = index, 0

    async def search(self, query: str, *args: Any, **kwargs: Any) -> Any:
        self.searches += 1
        return await self.index.search(query, *args, **kwargs)

    def mark_dirty(self, paths: Sequence[str]) -> None:
        self.index.mark_dirty(paths)


def vectors_kept(memory_bytes: int) -> Any:
    """store._vectors, with the vectors searched in memory (a budget) or from LanceDB (0)."""

    def make(folder: Path, compact_every: int, ann_rows: int, idle_s: float | None) -> Any:
        if idle_s is not None:
            return VectorProcess(
                folder,
                compact_every=compact_every,
                ann_rows=ann_rows,
                idle_s=idle_s,
                memory_bytes=memory_bytes,
            )
        return VectorStore(
            folder, compact_every=compact_every, ann_rows=ann_rows, memory_bytes=memory_bytes
        )

    return make


async def indexed(settings: Settings, fake_ollama: FakeOllama, *, daemon: bool) -> Index:
    """Forty Ask pages on the topic beside the owner's five pages on it (and the sample
    vault's notes), indexed."""
    s = logseq_settings(settings, fake_ollama)
    pages = s.vault / "pages"
    pages.mkdir(parents=True, exist_ok=True)
    for i in range(40):
        (pages / f"{ASK_FORMS[i % 4]}Shed question {i}.md").write_text(
            f"- ?? {TOPIC} ({i})\n  - Order the shed roof timber from jewson before friday.\n"
        )
    for name in OWN:
        (pages / f"{name}.md").write_text(f"- {name}: the shed roof timber, jewson, friday\n")
    index = Index.open(s, make_llm(s), daemon=daemon)
    assert isinstance(index.stores.vectors, VectorProcess) == daemon
    await index.refresh()
    return index


def logseq_settings(settings: Settings, fake_ollama: FakeOllama) -> Settings:
    return dataclasses.replace(
        settings, flavor="logseq", ollama=dataclasses.replace(settings.ollama, host=fake_ollama.url)
    )


@pytest.fixture
async def logseq(settings: Settings, fake_ollama: FakeOllama) -> AsyncIterator[Index]:
    index = await indexed(settings, fake_ollama, daemon=False)
    try:
        yield index
    finally:
        index.close()


@pytest.mark.parametrize(
    ("where", "memory_bytes"),
    [("here", 64 * 2**20), ("here", 0), ("child", 64 * 2**20), ("child", 0)],
    ids=["in memory", "LanceDB", "child in memory", "child LanceDB"],
)
async def test_one_search_gives_a_full_page_of_the_owners_notes(
    settings: Settings,
    fake_ollama: FakeOllama,
    monkeypatch: pytest.MonkeyPatch,
    where: str,
    memory_bytes: int,
) -> None:
    """In every mode, with the vector store in this process or in its own, searched in
    memory (vectors._allowed) or through LanceDB's prefilter (SearchFilter.to_sql)."""
    monkeypatch.setattr(index_store, "_vectors", vectors_kept(memory_bytes))
    s = logseq_settings(settings, fake_ollama)
    index = await indexed(settings, fake_ollama, daemon=where == "child")
    starts = ask_pages(s.folder("ask"), s.flavor)
    try:
        for mode in ("hybrid", "vector", "keyword"):
            crowd = await index.search(TOPIC, limit=10, mode=mode)
            assert sum(ask_page(r.path) for r in crowd.results) >= 8  # the test means something
            found = await index.search(TOPIC, limit=10, mode=mode, exclude_pages=starts)
            assert found.mode == mode
            paths = [r.path for r in found.results]
            assert len(paths) == 10 and not any(ask_page(p) for p in paths), mode
            if mode != "keyword":  # the keywords match only the topic's pages, all in the 10
                assert {Path(p).stem for p in paths} >= OWN, mode
            assert "pages/Askew roof timber.md" in paths  # only begins like 'Ask': it stays
            notes = await index.search(
                TOPIC, limit=8, mode=mode, exclude_pages=starts, group_by_note=True
            )
            assert len(notes.results) == 8, mode
            assert not any(ask_page(r.path) for r in notes.results), mode
    finally:
        index.close()


async def test_ask_gets_its_passages_from_the_owners_pages_in_one_search(
    settings: Settings, fake_ollama: FakeOllama, logseq: Index
) -> None:
    s, counting = logseq_settings(settings, fake_ollama), Counting(logseq)
    passages, _ = await retrieve(
        TOPIC,
        counting,
        limit=5,
        exclude_folder=s.folder("ask"),
        exclude_pages=ask_pages(s.folder("ask"), s.flavor),
        exclude=lambda path: daemon_folder_of(path, s) == "ask",
    )
    assert counting.searches == 1
    assert {Path(p.path).stem for p in passages} == OWN


async def test_tidy_offers_the_owners_pages_in_one_search(
    settings: Settings, fake_ollama: FakeOllama, logseq: Index
) -> None:
    s, counting = logseq_settings(settings, fake_ollama), Counting(logseq)
    found = await find_candidates(
        counting,
        TOPIC,
        [s.folder(k) for k in ("inbox", "filed", "digests", "ask")],
        exclude_pages=ask_pages(s.folder("ask"), s.flavor),
        ours=lambda path: daemon_folder_of(path, s) is not None,
    )
    assert counting.searches == 1
    assert len(found) == 8 and not any(ask_page(c.path) for c in found)
    assert {c.title for c in found} >= OWN


def test_the_filter_names_the_same_pages_as_the_ask_note_rule() -> None:
    """SearchFilter.matches (and so the regex every index is given, checked above) agrees
    with daemon_notes.is_ask_note on every form, and leaves the Obsidian Ask folder alone."""
    starts = ask_pages("pages/Ask", "logseq")
    flt = SearchFilter.make(exclude=["pages/Ask"], exclude_pages=starts)
    for path in [
        "pages/Ask___Trip.md",
        "pages/ask%2FTrip.md",
        "pages/ASK%2ftrip.md",
        "pages/Ask/Trip.md",
        "pages/Askew___Trip.md",
        "pages/Ask___Trip/sub.md",
        "journals/Ask___x.md",
        "pages/Trip.md",
    ]:
        assert flt.matches(path, 0.0) == (not is_ask_note(path, "pages/Ask", "logseq")), path
    assert ask_pages("Ask", "obsidian") == () and ask_pages("pages/Ask", "obsidian") == ()
    assert ask_pages("pages/Deep/Ask", "logseq") == ()
    assert SearchFilter.make(exclude=["Ask"]).to_sql() == "NOT starts_with(path, 'Ask/')"
