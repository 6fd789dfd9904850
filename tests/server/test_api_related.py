"""GET /api/related: the plugin's related notes, from the real index (fake Ollama embeddings)."""

from __future__ import annotations

import dataclasses
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
import pytest_asyncio

from commonplace.config import Settings
from commonplace.index import Index, SearchFilter
from commonplace.index.models import SearchResult
from commonplace.index.related import fuse, related_notes
from commonplace.llm import make_llm
from commonplace.server.context import Services
from tests.fakes.ollama import FakeOllama
from tests.index.test_hubness import hub_vault
from tests.models import with_model
from tests.server.conftest import ClientFactory

MAYA = "People/Maya Collins.md"
NONE = SearchFilter()


@pytest.fixture
def live_settings(web_settings: Settings, fake_ollama: FakeOllama) -> Settings:
    return with_model(web_settings, host=fake_ollama.url)


@pytest_asyncio.fixture
async def index(live_settings: Settings) -> AsyncIterator[Index]:
    opened = Index.open(live_settings, make_llm(live_settings))
    await opened.refresh()
    yield opened
    opened.close()


async def test_related_notes_by_meaning_without_calling_ollama(
    make_client: ClientFactory, live_settings: Settings, index: Index, fake_ollama: FakeOllama
) -> None:
    client = await make_client(live_settings, Services(index=index))
    embeds_before = len(fake_ollama.embed_requests())
    response = await client.get("/api/related", params={"path": MAYA, "limit": "5"})
    assert response.status == 200
    body = await response.json()
    paths = [r["path"] for r in body["results"]]
    assert body["path"] == MAYA and body["mode"] == "vector" and body["notice"] is None
    assert MAYA not in paths  # never the note itself
    assert len(paths) == len(set(paths)) == 5  # one entry per note
    assert "Meetings/2026-09-29 One-to-one Maya.md" in paths  # her one-to-one is close
    assert all(r["text"] and "heading" in r for r in body["results"])
    assert [r["score"] for r in body["results"]] == sorted(
        (r["score"] for r in body["results"]), reverse=True
    )
    assert len(fake_ollama.embed_requests()) == embeds_before  # stored vectors only


async def test_excluded_folders_are_left_out_inside_the_index(
    make_client: ClientFactory, live_settings: Settings, index: Index
) -> None:
    client = await make_client(live_settings, Services(index=index))
    params = [("path", MAYA), ("limit", "50"), ("exclude", "Meetings"), ("exclude", "Lists/")]
    body = await (await client.get("/api/related", params=params)).json()
    paths = [r["path"] for r in body["results"]]
    assert paths, "other notes are still found"
    assert not [p for p in paths if p.startswith(("Meetings/", "Lists/"))]


async def test_without_vectors_it_falls_back_to_shared_words(
    make_client: ClientFactory, web_settings: Settings
) -> None:
    """web_settings point at a dead Ollama: the index has keywords but no vectors."""
    index = Index.open(web_settings, make_llm(web_settings))
    try:
        await index.refresh()
        client = await make_client(web_settings, Services(index=index))
        body = await (await client.get("/api/related", params={"path": MAYA})).json()
    finally:
        index.close()
    assert body["mode"] == "keyword"
    assert "no vectors yet" in body["notice"]
    paths = [r["path"] for r in body["results"]]
    assert paths and MAYA not in paths


@pytest.mark.parametrize(
    ("path", "status"),
    [("", 400), ("../outside.md", 400), ("/etc/passwd", 400), ("People/Nobody.md", 404)],
)
async def test_bad_paths(
    make_client: ClientFactory, live_settings: Settings, index: Index, path: str, status: int
) -> None:
    client = await make_client(live_settings, Services(index=index))
    response = await client.get("/api/related", params={"path": path})
    assert response.status == status
    assert set((await response.json())["error"]) == {"code", "message"}


def _hit(path: str, ordinal: int = 0) -> SearchResult:
    return SearchResult(path, path, f"h{ordinal}", "t", 0.0, "", 0.0, 0, ordinal)


def test_fuse_ranks_notes_close_to_several_chunks_first_and_keeps_their_best_chunk() -> None:
    fused = fuse(
        [
            [_hit("A", 1), _hit("B", 1)],
            [_hit("B", 2), _hit("C", 1)],
            [_hit("B", 3), _hit("A", 2)],
        ],
        k=60,
    )
    assert [h.path for h in fused] == ["B", "A", "C"]
    assert fused[0].ordinal == 2  # B ranked first in the second ranking
    assert fused[1].ordinal == 1
    assert fused[0].score == pytest.approx(1 / 62 + 1 / 61 + 1 / 61)


async def test_a_note_near_everything_counts_less_as_in_search(
    make_client: ClientFactory, live_settings: Settings, tmp_path: Path
) -> None:
    """Ten guides that all resemble each other, a tutorial and a kayaking page (the hubness
    tests' vault): by raw cosine the tutorial's related notes are the guides, which are near
    everything; ranked by cos − r / 2, as search ranks by meaning, the kayaking page is first."""
    s = dataclasses.replace(live_settings, vault=tmp_path / "hubs")
    hub_vault(s.vault)
    opened = Index.open(s, make_llm(s))
    try:
        await opened.refresh()
        client = await make_client(s, Services(index=opened))
        response = await client.get("/api/related", params={"path": "Tutorial.md", "limit": "4"})
        assert response.status == 200
        paths = [r["path"] for r in (await response.json())["results"]]
        raw = related_notes(
            opened.stores, "Tutorial.md", "Tutorial", "", limit=4, flt=SearchFilter()
        )
    finally:
        opened.close()
    assert raw.results[0].path.startswith("Guide ")  # by raw cosine: the test means something
    assert paths[0] == "Kayak.md"
