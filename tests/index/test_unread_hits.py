"""Past its memory budget the vector store answers a search with keys only (`Unread` hits), and
Searcher.run reads the text of those it shows from the keyword index (searching.py): the results
are the ones a search that read every hit's columns from LanceDB gives."""

from __future__ import annotations

from typing import Any

import pytest

from commonplace.config import Settings
from commonplace.index import Index, SearchFilter
from commonplace.index import store as index_store
from commonplace.index.keywords import KeywordView
from commonplace.index.models import SearchResult, Unread
from commonplace.llm import make_llm
from tests.fakes.ollama import FakeOllama
from tests.index.conftest import with_host
from tests.test_ask_pages_search import vectors_kept

QUERIES = [
    "when to put the garlic in",
    "passport renewal reference number",
    "what did the dentist say about my teeth",
    "running shoes for the parkrun",
    "gift ideas for my sister",
]


class TextsRead:
    """The index's vector store, asked for whole hits (texts=True) whatever the caller asks."""

    def __init__(self, store: Any) -> None:
        self.store = store

    def search(self, *args: Any, texts: bool = True, **kwargs: Any) -> list[SearchResult]:
        found: list[SearchResult] = self.store.search(*args, **kwargs)
        assert not any(isinstance(h, Unread) for h in found)
        return found

    def search_later(self, *args: Any, texts: bool = True, **kwargs: Any) -> Any:
        return self.store.search_later(*args, **kwargs)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.store, name)


async def results(index: Index, query: str, mode: str, grouped: bool) -> list[SearchResult]:
    response = await index.search(query, limit=10, mode=mode, group_by_note=grouped)
    assert response.mode == mode
    return response.results


async def opened(settings: Settings, fake_ollama: FakeOllama, *, daemon: bool) -> Index:
    s = with_host(settings, fake_ollama.url)
    index = Index.open(s, make_llm(s), daemon=daemon)
    await index.refresh()
    assert index.stores.vectors.rows > 50
    return index


@pytest.mark.parametrize("where", ["here", "child"])
async def test_a_search_past_the_memory_budget_shows_what_reading_every_hit_showed(
    settings: Settings, fake_ollama: FakeOllama, monkeypatch: pytest.MonkeyPatch, where: str
) -> None:
    monkeypatch.setattr(index_store, "_vectors", vectors_kept(0))  # every search asks LanceDB
    index = await opened(settings, fake_ollama, daemon=where == "child")
    store = index.stores.vectors
    try:
        vector = await index.searcher.query_vector(QUERIES[0])
        assert all(isinstance(h, Unread) for h in store.search(vector, 60, _all(), texts=False))
        unread_shown = 0
        for query in QUERIES:
            for mode in ("hybrid", "vector"):
                for grouped in (False, True):
                    got = await results(index, query, mode, grouped)
                    index.stores.vectors = TextsRead(store)
                    try:
                        want = await results(index, query, mode, grouped)
                    finally:
                        index.stores.vectors = store
                    assert got == want, (query, mode, grouped)
                    assert got and not any(isinstance(h, Unread) for h in got)
                    assert all(h.text and h.title for h in got)
                    words = index.stores.keywords.search(query, 80, _all())
                    unread_shown += len({h.key for h in got} - {h.key for h in words})
        assert (
            unread_shown > 20
        )  # most shown hits were read from the keyword index, not found there
    finally:
        index.close()


async def test_a_hit_the_keyword_index_holds_in_another_version_is_read_from_the_vector_store(
    settings: Settings, fake_ollama: FakeOllama, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Between the vector store's write and the keyword index's (or while Ollama was down for
    an edit) the two hold different versions of a note: its chunks come from the vector store,
    the one the hit was found in. A hit gone from both since the search is left out."""
    monkeypatch.setattr(index_store, "_vectors", vectors_kept(0))
    index = await opened(settings, fake_ollama, daemon=False)
    try:
        query = QUERIES[1]
        want = await results(index, query, "vector", False)
        real = KeywordView.chunks_at

        def older(view: KeywordView, keys: Any) -> dict[tuple[str, int], SearchResult]:
            found = real(view, keys)
            return {k: h.rescored(0.0) for k, h in list(found.items())[::2]} | {
                k: SearchResult(
                    h.path,
                    h.title,
                    h.heading,
                    "an older text",
                    0.0,
                    h.note_date,
                    h.modified - 60.0,
                    h.start_line,
                    h.ordinal,
                )
                for k, h in list(found.items())[1::2]
            }

        monkeypatch.setattr(KeywordView, "chunks_at", older)
        asked: list[list[tuple[str, int]]] = []
        rows_at = index.stores.vectors.rows_at

        def counted(keys: list[tuple[str, int]]) -> list[SearchResult]:
            asked.append(list(keys))
            return rows_at(keys)

        monkeypatch.setattr(index.stores.vectors, "rows_at", counted)
        assert await results(index, query, "vector", False) == want
        assert asked and len(asked[0]) >= 3  # the older half, read again from the vector store

        monkeypatch.setattr(KeywordView, "chunks_at", lambda view, keys: {})
        gone = {want[0].key, want[3].key}
        monkeypatch.setattr(
            index.stores.vectors, "rows_at", lambda keys: [h for h in want if h.key not in gone]
        )
        assert await results(index, query, "vector", False) == [
            h for h in want if h.key not in gone
        ]
    finally:
        index.close()


def _all() -> SearchFilter:
    return SearchFilter()
