"""Hubness correction (index/hubness.py): a passage near many other notes counts less than its
cosine, with real LanceDB and Tantivy and the fake Ollama's embeddings; and each note's
neighbourhood is kept current as the vault changes, across restarts, without re-embedding."""

from __future__ import annotations

import dataclasses
import sqlite3
import threading
import time
from pathlib import Path

import pytest

from commonplace.config import Settings
from commonplace.index import Index, SearchFilter, SearchResult, hubness, indexer
from commonplace.index.manifest import ManifestError
from commonplace.index.store import MANIFEST
from commonplace.llm import make_llm
from tests.fakes.ollama import FakeError, FakeOllama
from tests.index.conftest import OpenIndex, write

PLACES = "alpine bakery cellar dahlia estuary falcon glacier harbour island juniper lantern"


def hit(path: str, score: float, ordinal: int = 0) -> SearchResult:
    return SearchResult(path, path, "", "", score, "2026-01-01", 0.0, 0, ordinal)


def test_a_passage_near_many_notes_counts_less_than_its_cosine() -> None:
    table = hubness.Neighbourhoods({"Hub.md": {0: 0.8}, "Own.md": {0: 0.2, 1: 0.6}})
    ranked = table.rescore([hit("Hub.md", 0.70), hit("Own.md", 0.65), hit("Own.md", 0.66, 1)])
    assert [(h.path, h.ordinal) for h in ranked] == [("Own.md", 0), ("Own.md", 1), ("Hub.md", 0)]
    assert [round(h.score, 3) for h in ranked] == [0.55, 0.36, 0.3]  # cos − r / 2


def test_a_passage_without_a_value_counts_with_the_others_mean() -> None:
    table = hubness.Neighbourhoods({"A.md": {0: 0.2}, "B.md": {0: 0.6}})
    assert table.r("New.md", 0) == pytest.approx(0.4) and table.r("A.md", 5) == pytest.approx(0.4)
    assert hubness.Neighbourhoods().rescore([hit("X.md", 0.5)])[0].score == 0.5  # nothing known


def hub_vault(vault: Path) -> None:
    """A page about kayaking, a general guide sharing the question's words more closely, and
    ten notes that all resemble the guide: by cosine the guide comes first."""
    write(vault, "Kayak.md", "Kayak paddle strokes for river rapids and eddies.\n")
    write(vault, "Tutorial.md", "Kayak paddle river guide.\n")
    for place in PLACES.split():
        write(vault, f"Guide {place}.md", f"Kayak paddle guide for the {place}.\n")


@pytest.fixture
def hub_settings(isettings: Settings, tmp_path: Path) -> Settings:
    vault = tmp_path / "hubs"
    hub_vault(vault)
    return dataclasses.replace(isettings, vault=vault)


async def test_a_hub_no_longer_comes_first_by_meaning(
    open_index: OpenIndex, hub_settings: Settings
) -> None:
    index = open_index(hub_settings)
    await index.refresh()
    vector = await index.searcher.query_vector("kayak paddle river")
    raw = index.stores.vectors.search(vector, 3, SearchFilter())
    assert [h.path for h in raw][:2] == ["Tutorial.md", "Kayak.md"]  # the cosines alone
    resp = await index.search("kayak paddle river", limit=3, mode="vector", group_by_note=True)
    assert [r.path for r in resp.results][:2] == ["Kayak.md", "Tutorial.md"]
    hubs = index.neighbourhoods
    assert hubs.r("Tutorial.md", 0) > hubs.r("Kayak.md", 0)


async def test_with_hubness_off_the_meaning_side_is_the_cosine_and_nothing_is_computed(
    open_index: OpenIndex, hub_settings: Settings
) -> None:
    """`[index] hubness = false` (a model it does not help: eval_suite/README.md, M2): plain
    cosine, no neighbourhood pass; turned on again, the notes get theirs at the next refresh."""
    off = dataclasses.replace(
        hub_settings, index=dataclasses.replace(hub_settings.index, hubness=False)
    )
    index = open_index(off)
    await index.refresh()
    resp = await index.search("kayak paddle river", limit=3, mode="vector", group_by_note=True)
    assert [r.path for r in resp.results][:2] == ["Tutorial.md", "Kayak.md"]
    assert len(index.neighbourhoods) == 0 and not any(rs for rs, _ in stored(off).values())
    index.close()
    on = open_index(hub_settings)
    await on.refresh()
    assert all(rs for rs, _ in stored(hub_settings).values())
    resp = await on.search("kayak paddle river", limit=3, mode="vector", group_by_note=True)
    assert [r.path for r in resp.results][:2] == ["Kayak.md", "Tutorial.md"]


def stored(settings: Settings) -> dict[str, tuple[str | None, int | None]]:
    with sqlite3.connect(settings.data_path / "index" / MANIFEST) as db:
        return {p: (rs, at) for p, rs, at in db.execute("SELECT path, rs, at FROM neighbours")}


async def test_each_notes_neighbourhood_is_kept_current_and_read_back_after_a_restart(
    open_index: OpenIndex, hub_settings: Settings, fake_ollama: FakeOllama
) -> None:
    vault = hub_settings.vault
    index = open_index(hub_settings)
    stats = await index.refresh()
    first = stored(hub_settings)
    assert len(first) == stats.notes == 13 and all(rs for rs, _ in first.values())
    before = index.neighbourhoods.r("Kayak.md", 0)

    write(vault, "Kayak.md", "Kayak paddle guide for the river.\n")  # now like the guides
    await index.refresh(paths=["Kayak.md"])
    assert index.neighbourhoods.r("Kayak.md", 0) > before + 0.1
    (vault / "Guide alpine.md").unlink()
    await index.refresh(paths=["Guide alpine.md"])
    now = stored(hub_settings)
    assert "Guide alpine.md" not in now and now["Kayak.md"] != first["Kayak.md"]
    assert now["Guide bakery.md"] == first["Guide bakery.md"]  # one change of 13: not stale
    kept = index.neighbourhoods.r("Kayak.md", 0)
    index.close()

    fake_ollama.requests.clear()
    reopened = open_index(hub_settings)
    assert reopened.neighbourhoods.r("Kayak.md", 0) == kept
    assert (await reopened.refresh()).indexed == 0 and fake_ollama.embed_requests() == []


async def test_values_older_than_half_the_index_are_computed_again(
    open_index: OpenIndex, hub_settings: Settings
) -> None:
    vault = hub_settings.vault
    index = open_index(hub_settings)
    await index.refresh()
    _, at = stored(hub_settings)["Kayak.md"]
    places = PLACES.split()[:7]  # 7 of 13 notes written again: more than half
    for place in places:
        write(vault, f"Guide {place}.md", f"Kayak paddle guide for the {place}, edited.\n")
    await index.refresh(paths=[f"Guide {place}.md" for place in places])
    now = stored(hub_settings)
    assert now["Kayak.md"][1] != at  # untouched, but computed again against the new notes
    assert all(rs for rs, _ in now.values())


async def test_an_index_from_before_is_read_again_once_and_nothing_embedded(
    open_index: OpenIndex, hub_settings: Settings, fake_ollama: FakeOllama
) -> None:
    index = open_index(hub_settings)
    first = await index.refresh()
    index.close()
    with sqlite3.connect(hub_settings.data_path / "index" / MANIFEST) as db:
        db.execute("DELETE FROM meta WHERE key = 'neighbours'")
        db.execute("DROP TABLE neighbours")
    fake_ollama.requests.clear()
    reopened = open_index(hub_settings)
    assert len(reopened.neighbourhoods) == 0
    stats = await reopened.refresh()
    assert stats.indexed == first.notes and stats.embedded == 0
    assert fake_ollama.embed_requests() == []
    assert len(reopened.neighbourhoods) == first.notes
    assert (await reopened.refresh()).indexed == 0


async def test_a_note_waiting_for_its_vectors_has_no_value_until_they_come(
    open_index: OpenIndex, hub_settings: Settings, fake_ollama: FakeOllama
) -> None:
    index = open_index(hub_settings)
    await index.refresh()
    fake_ollama.fail_embed = FakeError(500, "out of memory")
    write(hub_settings.vault, "Canoe.md", "Canoe paddle strokes for lakes.\n")
    stats = await index.refresh(paths=["Canoe.md"])
    assert stats.vectors_pending == 1 and "Canoe.md" not in stored(hub_settings)
    others = [index.neighbourhoods.r(p, 0) for p in stored(hub_settings)]
    assert index.neighbourhoods.r("Canoe.md", 0) == pytest.approx(sum(others) / len(others))
    fake_ollama.fail_embed = None
    index.close()
    back = open_index(hub_settings)  # a restart: Ollama is asked again at once
    await back.refresh()
    assert stored(hub_settings)["Canoe.md"][0]


async def test_a_failure_computing_them_never_fails_a_refresh(
    open_index: OpenIndex,
    hub_settings: Settings,
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
) -> None:
    def broken(*args: object, **kwargs: object) -> bool:
        raise OSError("the disk went away")

    real = hubness.update
    monkeypatch.setattr(hubness, "update", broken)
    index = open_index(hub_settings)
    stats = await index.refresh()
    assert stats.notes == 13 and not stats.errors
    assert "neighbourhoods not computed now: the disk went away" in caplog.text
    assert all(rs is None for rs, _ in stored(hub_settings).values())
    monkeypatch.setattr(hubness, "update", real)
    await index.refresh(paths=[])  # the next refresh catches up
    assert all(rs for rs, _ in stored(hub_settings).values())


async def test_a_search_after_an_edit_does_not_wait_for_neighbourhoods(
    open_index: OpenIndex, hub_settings: Settings
) -> None:
    index = open_index(hub_settings)
    await index.refresh()
    write(hub_settings.vault, "Kayak.md", "Kayak paddle guide for the river.\n")
    index.mark_dirty(["Kayak.md"])
    resp = await index.search("kayak paddle river", limit=3, mode="keyword")
    assert resp.results  # the edit is searchable at once ...
    assert stored(hub_settings)["Kayak.md"] == (None, None)  # ... its neighbourhood comes later
    await index.refresh(paths=[])
    assert stored(hub_settings)["Kayak.md"][0]


async def test_the_daemon_searches_before_the_stored_neighbourhoods_are_read(
    open_index: OpenIndex, hub_settings: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The daemon's index reads them in a thread: it opens at once, a search meanwhile ranks by
    the cosines alone, and once read the correction applies; a value computed meanwhile wins."""
    index = open_index(hub_settings)
    await index.refresh()
    stored_r = index.neighbourhoods.r("Tutorial.md", 0)
    index.close()
    gate = threading.Event()
    real = indexer.read_neighbours

    def slow(path: Path) -> dict[str, dict[int, float]]:
        assert gate.wait(30)
        return real(path)

    monkeypatch.setattr(indexer, "read_neighbours", slow)
    settings = dataclasses.replace(
        hub_settings, index=dataclasses.replace(hub_settings.index, vector_process_idle_minutes=0)
    )
    started = time.monotonic()
    reopened = Index.open(settings, make_llm(settings), daemon=True)
    try:
        assert time.monotonic() - started < 10 and not reopened.neighbourhoods.loaded.is_set()
        resp = await reopened.search("kayak paddle river", limit=3, mode="vector")
        assert [r.path for r in resp.results][:2] == ["Tutorial.md", "Kayak.md"]  # cosines
        reopened.neighbourhoods.set({"Guide falcon.md": {0: 0.123}})  # computed meanwhile
        gate.set()
        assert reopened.neighbourhoods.loaded.wait(30)
        resp = await reopened.search("kayak paddle river", limit=3, mode="vector")
        assert [r.path for r in resp.results][:2] == ["Kayak.md", "Tutorial.md"]
        assert reopened.neighbourhoods.r("Tutorial.md", 0) == stored_r
        assert reopened.neighbourhoods.r("Guide falcon.md", 0) == 0.123
    finally:
        gate.set()
        reopened.close()


def test_neighbourhoods_read_after_a_clear_are_dropped_and_a_failed_read_is_logged(
    caplog: pytest.LogCaptureFixture,
) -> None:
    table = hubness.Neighbourhoods()
    gate = threading.Event()

    def read() -> dict[str, dict[int, float]]:
        assert gate.wait(30)
        return {"Old.md": {0: 0.5}}

    table.load_later(read)
    table.clear()  # the index was rebuilt meanwhile: what was stored is of no use
    gate.set()
    assert table.loaded.wait(30) and len(table) == 0

    def broken() -> dict[str, dict[int, float]]:
        raise ManifestError("index/manifest.sqlite: file is not a database")

    table.load_later(broken)
    assert table.loaded.wait(30) and len(table) == 0
    assert "neighbourhoods not read" in caplog.text
