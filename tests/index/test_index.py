"""The index against a real LanceDB and Tantivy in tmp_path, with the fake Ollama.

Fingerprints (nothing unchanged is embedded twice, also across a restart; a model change
re-embeds), filters inside the search, ignored files, rebuilds of broken parts, Ollama down.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import errno
import json
import logging
import shutil
import tempfile
import threading
from pathlib import Path

import pytest
import tantivy

from commonplace.config import Settings
from commonplace.index import Index, IndexService, SearchFilter, indexer, vectors
from commonplace.index.keywords import LAYOUT
from commonplace.index.manifest import INDEX_SCHEMA
from commonplace.index.store import MANIFEST
from commonplace.llm import make_llm
from commonplace.runtime.changes import Change
from tests.fakes.ollama import FakeError, FakeOllama
from tests.index.conftest import OpenIndex, with_host, write
from tests.models import with_model

REPO = Path(__file__).resolve().parents[2]


def embedded_texts(fake: FakeOllama) -> list[str]:
    return [t for body in fake.embed_requests() for t in body["input"]]


async def test_unchanged_chunks_are_not_embedded_again(
    open_index: OpenIndex, isettings: Settings, fake_ollama: FakeOllama
) -> None:
    vault = isettings.vault
    write(
        vault, "Notes/Plan.md", "# Plan\n\nFirst part about kestrels.\n\n# Later\n\nSecond part.\n"
    )
    index = open_index()
    first = await index.refresh()
    assert first.embedded == first.chunks > 0 and first.reused == 0
    fake_ollama.requests.clear()

    again = await index.refresh()
    assert again.indexed == 0 and again.embedded == 0
    assert fake_ollama.embed_requests() == []

    write(
        vault,
        "Notes/Plan.md",
        "# Plan\n\nFirst part about kestrels.\n\n# Later\n\nSecond, edited.\n",
    )
    edited = await index.refresh(paths=["Notes/Plan.md"])
    assert edited.indexed == 1 and edited.embedded == 1 and edited.reused == 1
    # nomic-embed-text is sent its document prefix (llm/profiles.py)
    assert embedded_texts(fake_ollama) == ["search_document: Plan > Later\n\nSecond, edited."]
    resp = await index.search("second edited", limit=3)
    assert resp.results[0].path == "Notes/Plan.md" and resp.results[0].text == "Second, edited."


async def test_restart_reembeds_nothing_and_model_change_reembeds_all(
    open_index: OpenIndex, isettings: Settings, fake_ollama: FakeOllama
) -> None:
    index = open_index()
    first = await index.refresh()
    index.close()
    fake_ollama.requests.clear()

    write(
        isettings.vault,
        "Areas/Car.md",
        (isettings.vault / "Areas/Car.md").read_text() + "\nNew line.\n",
    )
    restarted = open_index()
    stats = await restarted.refresh()
    assert stats.indexed == 1 and stats.embedded == 1  # only the changed chunk of the one note
    assert stats.chunks == first.chunks
    restarted.close()

    fake_ollama.models.append("all-minilm:latest")
    other = with_model(isettings, embed_model="all-minilm")
    fake_ollama.requests.clear()
    switched = open_index(other)
    stats = await switched.refresh()
    assert stats.reused == 0 and stats.embedded >= first.chunks
    assert {b["model"] for b in fake_ollama.embed_requests()} == {"all-minilm"}


async def test_full_refresh_rereads_everything_but_reuses_vectors(
    open_index: OpenIndex, fake_ollama: FakeOllama
) -> None:
    index = open_index()
    first = await index.refresh()
    fake_ollama.requests.clear()
    full = await index.refresh(full=True)
    assert full.indexed == first.indexed and full.embedded == 0 and full.reused == first.chunks
    assert fake_ollama.embed_requests() == []


async def test_rename_moves_the_note_without_embedding(
    open_index: OpenIndex, isettings: Settings, fake_ollama: FakeOllama
) -> None:
    index = open_index()
    await index.refresh()
    fake_ollama.requests.clear()
    old, new = isettings.vault / "Areas/Car.md", isettings.vault / "Archive/Car.md"
    new.parent.mkdir()
    old.rename(new)
    stats = await index.refresh(paths=["Areas/Car.md", "Archive/Car.md"])
    assert stats.deleted == 1 and stats.indexed == 1 and stats.embedded == 0
    hits = (await index.search("MOT due date", limit=5, mode="keyword")).results
    paths = {h.path for h in hits}
    assert "Archive/Car.md" in paths and "Areas/Car.md" not in paths


async def test_folder_filters_apply_inside_the_search(
    open_index: OpenIndex, isettings: Settings
) -> None:
    # Thirty filed captures that match the query better than the user's own note.
    for i in range(30):
        write(
            isettings.vault, f"Filed/2026-10-{i:02d} Kestrel.md", f"Kestrel kestrel sighting {i}.\n"
        )
    write(isettings.vault, "Projects/Birds.md", "# Birds\n\nA kestrel over the allotment.\n")
    index = open_index()
    await index.refresh()
    for mode in ("hybrid", "vector", "keyword"):
        resp = await index.search(
            "kestrel sighting", limit=5, mode=mode, exclude_folders=("Filed/",)
        )
        paths = [r.path for r in resp.results]
        # Found although thirty filed notes outrank it: the filter is applied before the cut.
        # (First in vector mode too with a real model; the fake's bag-of-words cosines, 0.1-0.2
        # here, are small next to the note's neighbourhood among the thirty, hubness.py.)
        assert "Projects/Birds.md" in paths[: 1 if mode != "vector" else 5], mode
        assert all(not r.path.startswith("Filed/") for r in resp.results)
        only = await index.search("kestrel", limit=50, mode=mode, include_folders=("Projects",))
        assert {r.path for r in only.results} <= {
            "Projects/Birds.md",
            "Projects/Shed Rebuild.md",
            "Projects/Switchboard Redesign.md",
        }
        assert "Projects/Birds.md" in {r.path for r in only.results}


async def test_modified_after_and_group_by_note(open_index: OpenIndex, isettings: Settings) -> None:
    import os

    old = write(isettings.vault, "Old.md", "# A\n\nquokka one\n\n# B\n\nquokka two\n")
    os.utime(old, (1_000_000_000, 1_000_000_000))
    write(isettings.vault, "New.md", "quokka three\n")
    index = open_index()
    await index.refresh()
    resp = await index.search("quokka", limit=10, mode="keyword", modified_after=1_500_000_000)
    assert [r.path for r in resp.results] == ["New.md"]
    grouped = await index.search("quokka", limit=10, mode="keyword", group_by_note=True)
    assert sorted(r.path for r in grouped.results) == ["New.md", "Old.md"]
    first = grouped.results[0]
    assert first.to_json()["note_date"] and first.modified > 0


async def test_ignored_and_unusable_files_stay_out(
    open_index: OpenIndex, isettings: Settings
) -> None:
    v = isettings.vault
    write(v, ".obsidian/workspace.md", "zanzibar")
    write(v, ".trash/Old.md", "zanzibar")
    write(v, "Notes/.Draft.md.swp", "zanzibar")
    write(v, "Notes/Plan.sync-conflict-20261019.md", "zanzibar")
    write(v, "Notes/data.txt", "zanzibar")
    (v / "Notes/binary.md").write_bytes(b"zanzibar \xff\xfe")
    write(v, "Notes/Real.md", "zanzibar is real")
    index = open_index()
    stats = await index.refresh()
    assert stats.skipped == 1  # the non-UTF-8 note, reported, not fatal
    resp = await index.search("zanzibar", limit=10, mode="keyword")
    assert [r.path for r in resp.results] == ["Notes/Real.md"]
    assert not any(p.is_relative_to(v) for p in isettings.data_path.rglob("*"))


async def test_deleted_note_leaves_both_indexes(open_index: OpenIndex, isettings: Settings) -> None:
    index = open_index()
    await index.refresh()
    (isettings.vault / "Recipes/Plum Crumble.md").unlink()
    index.mark_dirty(["Recipes/Plum Crumble.md"])
    for mode in ("keyword", "vector"):
        resp = await index.search("plum crumble oven temperature", limit=20, mode=mode)
        assert "Recipes/Plum Crumble.md" not in {r.path for r in resp.results}
    assert index.status()["pending"] == 0


@pytest.mark.parametrize("part", ["manifest", "keywords", "notes", "vectors", "schema"])
async def test_broken_index_is_rebuilt_from_the_vault(
    open_index: OpenIndex, isettings: Settings, part: str, caplog: pytest.LogCaptureFixture
) -> None:
    index = open_index()
    first = await index.refresh()
    index.close()
    folder = isettings.data_path / "index"
    if part == "manifest":
        (folder / MANIFEST).write_bytes(b"this is not sqlite" * 100)
        for extra in folder.glob(f"{MANIFEST}-*"):
            extra.unlink()
    elif part in ("keywords", "notes"):
        sub = "chunks" if part == "keywords" else "notes"
        (folder / "keywords" / sub / "meta.json").write_text("{not json")
    elif part == "vectors":
        for f in (folder / "vectors").rglob("*.manifest"):
            f.write_bytes(b"garbage")
    else:
        import sqlite3

        with sqlite3.connect(folder / MANIFEST) as db:
            db.execute("UPDATE meta SET value = ? WHERE key = 'schema'", (str(INDEX_SCHEMA - 1),))
    caplog.set_level("WARNING")
    reopened = open_index()
    assert "rebuilding the search index" in caplog.text
    stats = await reopened.refresh()
    assert stats.notes == first.notes and stats.chunks == first.chunks
    resp = await reopened.search("EZY6041", limit=3)
    assert resp.results[0].path == "Travel/Lisbon Trip.md"
    if part in ("manifest", "keywords", "notes"):
        assert stats.embedded == 0  # the vectors survived and were reused


async def test_an_index_whose_folder_was_deleted_under_a_run_is_rebuilt_at_the_next_start(
    open_index: OpenIndex, isettings: Settings, caplog: pytest.LogCaptureFixture
) -> None:
    """The owner deletes the data folder while the daemon runs: the running index goes on
    writing LanceDB versions that name files which are gone. The next start raised a lance
    'Not found' from the vector table and the daemon would not start at all."""
    index = Index.open(isettings, make_llm(isettings))
    first = await index.refresh()
    await index.search("plum crumble", limit=3)  # as the daemon does: the vectors in memory
    shutil.rmtree(isettings.data_path / "index")
    write(isettings.vault, "Recipes/Rhubarb Fool.md", "# Rhubarb Fool\n\nForced rhubarb.\n")
    index.mark_dirty(["Recipes/Rhubarb Fool.md"])
    with contextlib.suppress(Exception):  # LanceDB writes its part, Tantivy fails
        await index.refresh()
    with contextlib.suppress(Exception):
        index.close()
    caplog.set_level("WARNING")
    reopened = open_index()
    assert "rebuilding the search index" in caplog.text
    stats = await reopened.refresh()
    assert stats.notes == first.notes + 1
    resp = await reopened.search("EZY6041", limit=3)
    assert resp.results[0].path == "Travel/Lisbon Trip.md"
    resp = await reopened.search("forced rhubarb", limit=3, mode="vector")
    assert resp.mode == "vector" and resp.results[0].path == "Recipes/Rhubarb Fool.md"


async def test_ollama_down_keyword_still_updates_and_vectors_come_later(
    open_index: OpenIndex, isettings: Settings, fake_ollama: FakeOllama, dead_ollama_url: str
) -> None:
    down = with_host(isettings, dead_ollama_url)
    index = open_index(down)
    stats = await index.refresh()
    assert stats.embedded == 0 and stats.vectors_pending == stats.notes > 0 and stats.errors
    resp = await index.search("EZY6041 flight", limit=3)  # hybrid asked, keyword given
    assert resp.mode == "keyword" and resp.notice and "Ollama" in resp.notice
    assert resp.results[0].path == "Travel/Lisbon Trip.md"
    index.close()

    back = open_index()  # Ollama is up again (same data folder)
    retried = await back.refresh()
    assert retried.embedded == stats.chunks and retried.vectors_pending == 0
    resp = await back.search("EZY6041 flight", limit=5, mode="vector")
    assert resp.mode == "vector" and resp.notice is None
    assert "Travel/Lisbon Trip.md" in {r.path for r in resp.results}


async def test_embedding_error_from_ollama_falls_back(
    open_index: OpenIndex, fake_ollama: FakeOllama
) -> None:
    index = open_index()
    await index.refresh()
    fake_ollama.fail_embed = FakeError(500, "out of memory")
    resp = await index.search("dentist appointment", limit=3)
    assert resp.mode == "keyword" and "out of memory" in (resp.notice or "")
    assert resp.results[0].path == "Areas/Health/Dentist.md"


async def test_a_chat_model_as_embedding_model_is_named_in_the_search_notice(
    open_index: OpenIndex, fake_ollama: FakeOllama
) -> None:
    """Real Ollama loads a chat model for /api/embed, then refuses with 501: the notes still
    get their keywords, and the notice names the setting to change (not llama-server's flag)."""
    fake_ollama.capabilities["nomic-embed-text:latest"] = ("completion",)
    index = open_index()
    stats = await index.refresh()
    assert stats.notes > 0 and stats.vectors_pending == stats.notes
    resp = await index.search("dentist appointment", limit=3)
    assert resp.mode == "keyword"
    assert "not an embedding model" in (resp.notice or "")
    assert "[model] embed_model" in (resp.notice or "")
    assert resp.results[0].path == "Areas/Health/Dentist.md"


async def test_a_scan_while_embeddings_fail_reads_no_waiting_note_again(
    open_index: OpenIndex, fake_ollama: FakeOllama, monkeypatch: pytest.MonkeyPatch
) -> None:
    """While Ollama cannot embed, a scan asks it with one short text and leaves the notes
    waiting for their vectors alone (every periodic scan used to read them all again and
    rewrite their keyword entries, only to fail again); once it can, they get their vectors."""
    monkeypatch.setattr(indexer, "DOWN_RETRY_S", 0.0)  # the pause after a failure is over
    fake_ollama.fail_embed = FakeError(500, "out of memory")
    index = open_index()
    first = await index.refresh()
    assert first.notes > 0 and first.vectors_pending == first.notes
    fake_ollama.requests.clear()
    again = await index.refresh()
    assert (again.indexed, again.embedded, again.vectors_pending) == (0, 0, first.notes)
    asked = [r["input"] for r in fake_ollama.embed_requests()]
    assert asked and all(i == [indexer.PROBE_TEXT] for i in asked)  # (the client retries once)
    resp = await index.search("dentist appointment", limit=3)
    assert resp.results[0].path == "Areas/Health/Dentist.md"  # keywords kept meanwhile

    fake_ollama.fail_embed = None
    fake_ollama.requests.clear()
    back = await index.refresh()
    assert back.indexed == first.notes and back.embedded == first.chunks
    assert back.vectors_pending == 0
    asked = [r["input"] for r in fake_ollama.embed_requests()]
    assert asked[0] == [indexer.PROBE_TEXT] and len(asked) > 1  # the probe, then the notes
    assert (await index.refresh()).indexed == 0  # all there: no probe, nothing read
    assert len(fake_ollama.embed_requests()) == len(asked)


async def test_keyword_questions_on_the_fixture_find_their_notes(
    open_index: OpenIndex, isettings: Settings
) -> None:
    """The exact-keyword questions of eval_suite/datasets/search.jsonl, in keyword and hybrid."""
    rows = [json.loads(line) for line in (REPO / "eval_suite/datasets/search.jsonl").open()]
    exact = {"v02", "v07", "v08", "v13", "v15", "v17", "v18", "v21", "v23", "v26", "v28"}
    index = open_index()
    await index.refresh()
    for row in (r for r in rows if r["id"] in exact):
        for mode in ("keyword", "hybrid"):
            resp = await index.search(row["query"], limit=3, mode=mode, group_by_note=True)
            found = [r.path for r in resp.results]
            assert set(found) & set(row["answers"]), (row["id"], mode, found)


async def test_a_note_is_found_by_its_frontmatter_tags_and_values(
    open_index: OpenIndex, isettings: Settings
) -> None:
    """Words only in the frontmatter (a tag, a property's value) find the note by keywords."""
    write(
        isettings.vault,
        "Recipes/Kedgeree.md",
        "---\ntags: [breakfast, smoked-haddock]\nsource: Ottolenghi\nserves: 4\n---\n"
        "# Kedgeree\n\nRice, eggs and curry powder.\n",
    )
    index = open_index()
    await index.refresh()
    for query in ("haddock", "ottolenghi", "breakfast rice"):
        resp = await index.search(query, limit=3, mode="keyword", group_by_note=True)
        assert [r.path for r in resp.results][:1] == ["Recipes/Kedgeree.md"], query
        assert resp.results[0].heading == "Kedgeree"  # shown by a chunk, never the frontmatter
    resp = await index.search("source", limit=10, mode="keyword", group_by_note=True)
    assert "Recipes/Kedgeree.md" not in {r.path for r in resp.results}  # keys are not words


async def test_a_note_of_only_headings_or_frontmatter_is_found_and_shown(
    open_index: OpenIndex, isettings: Settings
) -> None:
    """Such a note matched by its words and was never shown (it had no chunk to show)."""
    write(isettings.vault, "Garden/Compost.md", "---\ntags: [gardening]\nsource: Monty Don\n---\n")
    write(isettings.vault, "Projects/Kestrel.md", "# Project Kestrel\n\n## Milestones\n")
    write(isettings.vault, "Projects/Empty.md", "")
    index = open_index()
    await index.refresh()
    for mode in ("keyword", "hybrid"):
        for query, path, shown in (
            ("monty don", "Garden/Compost.md", "source: Monty Don"),
            ("kestrel milestones", "Projects/Kestrel.md", "## Milestones"),
        ):
            resp = await index.search(query, limit=3, mode=mode, group_by_note=True)
            assert [r.path for r in resp.results][:1] == [path], (mode, query)
            assert shown in resp.results[0].text
    resp = await index.search("empty", limit=10, mode="keyword", group_by_note=True)
    assert "Projects/Empty.md" not in {r.path for r in resp.results}  # nothing to show


async def test_a_plural_or_another_form_finds_the_note(
    open_index: OpenIndex, isettings: Settings
) -> None:
    """English stemming on both sides: "journals" finds "journal", "linking" finds "links"."""
    write(isettings.vault, "Tools/Diary.md", "# Diary\n\nOne journal entry, with links.\n")
    index = open_index()
    await index.refresh()
    for query in ("journals", "linking", "journaling links"):
        resp = await index.search(query, limit=3, mode="keyword", group_by_note=True)
        assert [r.path for r in resp.results][:1] == ["Tools/Diary.md"], query


async def test_words_standing_together_find_their_note_first(
    open_index: OpenIndex, isettings: Settings
) -> None:
    """Two notes hold both words; the one where they stand together wins, though the other is
    shorter (which BM25 alone prefers)."""
    write(
        isettings.vault,
        "Sync/Encryption.md",
        "# Encryption\n\nBefore upload, file names are encrypted with your password, and the "
        "contents too; the server sees neither.\n",
    )
    write(
        isettings.vault,
        "Sync/Conflicts.md",
        "# Conflicts\n\nA file edited twice keeps both versions; their names get a suffix.\n",
    )
    index = open_index()
    await index.refresh()
    resp = await index.search("file names", limit=2, mode="keyword", group_by_note=True)
    assert [r.path for r in resp.results] == ["Sync/Encryption.md", "Sync/Conflicts.md"]


async def test_an_older_keyword_layout_is_rebuilt_and_the_vectors_kept(
    open_index: OpenIndex, isettings: Settings, caplog: pytest.LogCaptureFixture
) -> None:
    """An index written before frontmatter was searched (no keyword layout in its manifest)
    is read again from the vault, its vectors reused: nothing is embedded twice."""
    import sqlite3

    write(
        isettings.vault,
        "Recipes/Kedgeree.md",
        "---\nsource: Ottolenghi\n---\n# Kedgeree\n\nRice and eggs.\n",
    )
    index = open_index()
    first = await index.refresh()
    index.close()
    with sqlite3.connect(isettings.data_path / "index" / MANIFEST) as db:
        db.execute("DELETE FROM meta WHERE key = 'keywords'")
    caplog.set_level("WARNING")
    reopened = open_index()
    assert f"the keyword index holds an older layout (1, now {LAYOUT})" in caplog.text
    stats = await reopened.refresh()
    assert stats.notes == first.notes and stats.embedded == 0
    resp = await reopened.search("ottolenghi", limit=3, mode="keyword", group_by_note=True)
    assert [r.path for r in resp.results][:1] == ["Recipes/Kedgeree.md"]
    reopened.close()
    caplog.clear()
    again = open_index()
    assert "rebuilding" not in caplog.text and (await again.refresh()).indexed == 0


async def test_status_counts(open_index: OpenIndex) -> None:
    index = open_index()
    assert index.status()["notes"] == 0
    stats = await index.refresh()
    status = index.status()
    assert status["notes"] == stats.notes and status["chunks"] == stats.chunks
    assert status["last_refresh"] and status["progress"] is None
    assert status["embedding_model"] == "nomic-embed-text"
    index.mark_dirty(["Home.md"])
    assert index.status()["pending"] == 1


async def test_refresh_with_nothing_changed_is_cheap(
    open_index: OpenIndex, fake_ollama: FakeOllama
) -> None:
    index = open_index()
    await index.refresh()
    fake_ollama.requests.clear()
    stats = await index.refresh(paths=[])
    assert stats.checked == 0 and fake_ollama.requests == []
    stats = await index.refresh(paths=["Home.md"])  # touched but same bytes: no work
    assert stats.indexed == 0 and fake_ollama.requests == []


async def test_unknown_mode_is_a_clear_error(open_index: OpenIndex) -> None:
    with pytest.raises(ValueError, match="unknown search mode"):
        await open_index().search("x", mode="fuzzy")


COMPACT = 5  # refreshes between compactions in the test below


@pytest.mark.slow
async def test_data_folder_stays_bounded_after_many_edits(
    open_index: OpenIndex, isettings: Settings, fake_ollama: FakeOllama, tmp_path: Path
) -> None:
    """200 edits of one note, each its own refresh (a LanceDB version, a Tantivy commit), with
    compaction every 5: unbounded, the folder would grow by two thirds from edit 30 to 200.

    The data folder goes to tmpfs when there is one: this test is about growth, and fsync
    speed would only make it slow."""
    fake_ollama.record = False
    data = _fast_folder(tmp_path)
    s = with_host(
        dataclasses.replace(isettings, data_dir=data), fake_ollama.url, compact_every=COMPACT
    )
    index = open_index(s)
    await index.refresh()
    folder = s.data_path / "index"

    def size() -> int:
        return sum(p.stat().st_size for p in folder.rglob("*") if p.is_file())

    async def edit(n: int) -> None:
        write(
            s.vault,
            "Log/Edited.md",
            f"# Edited\n\nVersion {n} of this note.\n\n## Fixed\n\nSame.\n",
        )
        await index.refresh(paths=["Log/Edited.md"])

    await edit(0)
    baseline = 0
    for n in range(1, 201):
        await edit(n)
        if n == 30:
            baseline = size()
    final = size()
    assert final < baseline * 1.5, (baseline, final)
    versions = list((folder / "vectors").rglob("_versions/*"))
    assert len(versions) <= 2 * COMPACT + 2
    resp = await index.search("Version 200", limit=1, mode="keyword")
    assert resp.results[0].text == "Version 200 of this note."
    index.close()
    shutil.rmtree(data, ignore_errors=True)


def _fast_folder(tmp_path: Path) -> Path:
    shm = Path("/dev/shm")
    return Path(tempfile.mkdtemp(dir=shm)) if shm.is_dir() else tmp_path / "bounded"


async def test_a_missing_vault_does_not_empty_the_index(
    open_index: OpenIndex, isettings: Settings, tmp_path: Path
) -> None:
    index = open_index()
    first = await index.refresh()
    moved = tmp_path / "unmounted"
    isettings.vault.rename(moved)
    stats = await index.refresh()
    assert stats.deleted == 0 and stats.notes == first.notes
    moved.rename(isettings.vault)


async def test_vector_index_past_the_threshold_and_new_rows_still_found(
    open_index: OpenIndex, isettings: Settings
) -> None:
    words = [
        "alder",
        "birch",
        "cedar",
        "dune",
        "egret",
        "fern",
        "garnet",
        "hazel",
        "iris",
        "jasper",
        "kite",
        "lumen",
    ]
    for i in range(150):
        a, b = words[i % 12], words[(i * 5) % 12]
        write(
            isettings.vault,
            f"Gen/Note {i}.md",
            f"# {a}\n\n{a} {b} note {i}.\n\n# {b}\n\nmore {b}.\n",
        )
    s = with_host(isettings, isettings.ollama.host, vector_index_rows=256)
    index = open_index(s)
    await index.refresh()
    assert index.stores.vectors.has_vector_index
    write(isettings.vault, "Gen/Fresh.md", "# Quokka\n\nA quokka smiles at the camera.\n")
    await index.refresh(paths=["Gen/Fresh.md"])
    resp = await index.search("quokka smiles camera", limit=3, mode="vector")
    assert resp.results[0].path == "Gen/Fresh.md"
    filtered = await index.search("alder birch", limit=5, mode="vector", exclude_folders=("Gen",))
    assert all(not r.path.startswith("Gen/") for r in filtered.results)


async def test_a_run_cut_off_midway_leaves_no_duplicates(
    open_index: OpenIndex, isettings: Settings, fake_ollama: FakeOllama
) -> None:
    """Rows written to LanceDB but not yet to the manifest (a crash between the two) are
    replaced, not duplicated, and their vectors are reused."""
    import sqlite3

    index = open_index()
    first = await index.refresh()
    index.close()
    with sqlite3.connect(isettings.data_path / "index" / MANIFEST) as db:
        db.execute("DELETE FROM files WHERE path = 'Areas/Car.md'")
        db.execute("UPDATE meta SET value = '1' WHERE key = 'writing'")
    fake_ollama.requests.clear()
    reopened = open_index()
    stats = await reopened.refresh()
    assert stats.indexed == 1 and stats.embedded == 0 and stats.reused > 0
    assert reopened.stores.vectors.rows == first.chunks


async def test_a_new_vector_size_under_the_same_model_name_reembeds_all(
    open_index: OpenIndex, isettings: Settings, fake_ollama: FakeOllama
) -> None:
    """`ollama pull` can replace a model under its name with one of another size: the stored
    vectors must be replaced, not mixed with the new ones."""
    vault = isettings.vault
    write(vault, "Notes/Plan.md", "# Plan\n\nFirst part about kestrels.\n\n# Later\n\nSecond.\n")
    index = open_index()
    await index.refresh()
    fake_ollama.dim = 256
    write(vault, "Notes/Plan.md", "# Plan\n\nFirst part about kestrels.\n\n# Later\n\nEdited.\n")
    await index.refresh(paths=["Notes/Plan.md"])  # one chunk reused, one new: sizes differ
    await index.refresh()  # everything waiting is embedded again at the new size
    resp = await index.search("first part about kestrels", limit=3, mode="vector")
    assert resp.results and resp.results[0].path == "Notes/Plan.md"
    assert index.status()["vectors_pending"] == 0


async def test_a_new_vector_size_seen_by_an_edit_embeds_every_note_at_once(
    open_index: OpenIndex, isettings: Settings, fake_ollama: FakeOllama
) -> None:
    """The daemon sees a new size on the watcher's path: every stored vector is dropped, and
    the meaning side would know only the edited note until the next periodic scan (up to
    `reconcile_minutes`). The index service reads every note again at once instead."""
    index = open_index()
    service = IndexService(index, isettings)
    await service.startup()
    notes = index.status()["notes"]
    fake_ollama.dim = 256
    write(isettings.vault, "Notes/Kestrels.md", "# Kestrels\n\nA kestrel hovering.\n")
    await service.on_changes([Change("Notes/Kestrels.md", "created")])
    assert index.status()["vectors_pending"] == 0
    assert index.status()["notes"] == notes + 1
    resp = await index.search("plum crumble oven temperature", limit=500, mode="vector")
    assert len({r.path for r in resp.results}) == notes + 1  # the meaning side knows them all
    assert not index.vectors_dropped


def gen_notes(vault: Path, n: int, folder: str = "Gen") -> None:
    words = ["alder", "birch", "cedar", "dune", "egret", "fern", "garnet", "hazel", "iris"]
    for i in range(n):
        a, b = words[i % 9], words[(i * 4) % 9]
        write(vault, f"{folder}/Note {i}.md", f"# {a}\n\n{a} {b} note {i}.\n\n# {b}\n\nmore {b}.\n")


async def test_a_long_run_builds_the_vector_index_early_and_keeps_it_current(
    open_index: OpenIndex,
    isettings: Settings,
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
) -> None:
    """A first run over a big vault: the vector index is built as soon as a flat scan would be
    slow and updated as the rows double, not once at the end (when every search of the run
    would have scanned every row one by one)."""
    monkeypatch.setattr(vectors, "FLAT_ROWS", 60)
    monkeypatch.setattr(indexer, "BATCH_FILES", 16)
    gen_notes(isettings.vault, 320)
    index = open_index(with_host(isettings, isettings.ollama.host, vector_index_rows=256))
    seen: list[tuple[int, int, bool]] = []
    write_now = index._write_now

    def spy(*args: object) -> None:
        write_now(*args)  # type: ignore[arg-type]
        v = index.stores.vectors
        seen.append((v.rows, v.pending_rows, v.has_vector_index))

    monkeypatch.setattr(index, "_write_now", spy)
    with caplog.at_level(logging.INFO, logger="commonplace.index.vectors"):
        stats = await index.refresh()
    built = [r for r in caplog.records if "building the vector index" in r.getMessage()]
    assert len(built) == 1 and int(built[0].getMessage().split()[-2]) < stats.chunks / 2
    assert any("updating the vector index" in r.getMessage() for r in caplog.records)
    first = next(i for i, (_, _, ann) in enumerate(seen) if ann)
    assert first < len(seen) // 2  # built early in the run
    assert index.stores.vectors.pending_rows == 0


async def test_rows_the_vector_index_does_not_cover_yet_are_skipped_and_said(
    open_index: OpenIndex, isettings: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(vectors, "FLAT_ROWS", 40)
    monkeypatch.setattr(vectors, "MEMORY_BYTES", 0)  # LanceDB's search, as in a big vault
    gen_notes(isettings.vault, 150)
    index = open_index(with_host(isettings, isettings.ollama.host, vector_index_rows=256))
    await index.refresh()
    store = index.stores.vectors
    assert store.has_vector_index and store.pending_rows == 0
    monkeypatch.setattr(store, "keep_searchable", lambda: None)  # as if the run were going on
    gen_notes(isettings.vault, 60, folder="Late")
    write(isettings.vault, "Late/Quokka.md", "# Quokka\n\nA quokka smiles at the camera.\n")
    await index.refresh(paths=["Late"])
    assert store.pending_rows > 40
    resp = await index.search("quokka smiles camera", limit=3, mode="hybrid")
    assert resp.notice and "not yet searchable by meaning" in resp.notice
    assert "Late/Quokka.md" in [r.path for r in resp.results]  # the keyword half finds it
    await index.refresh()  # nothing changed: the index catches up anyway
    assert store.pending_rows == 0
    resp = await index.search("quokka smiles camera", limit=3, mode="vector")
    assert resp.results[0].path == "Late/Quokka.md" and resp.notice is None


async def test_a_search_during_a_compaction_answers_with_keywords_at_once(
    open_index: OpenIndex, isettings: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    """LanceDB's optimize() holds up every vector search in the process while it runs (tens of
    seconds on a big table): a search meanwhile answers from keywords at once and says so."""
    monkeypatch.setattr(vectors, "MEMORY_BYTES", 0)  # LanceDB's search, as in a big vault
    gen_notes(isettings.vault, 40)
    index = open_index()
    await index.refresh()
    table = index.stores.vectors._table
    real = table.optimize
    started, searched = threading.Event(), threading.Event()

    def slow_optimize(**kwargs: object) -> None:
        started.set()
        searched.wait(60)  # a big table's compaction: still running until the search is done
        real(**kwargs)

    monkeypatch.setattr(table, "optimize", slow_optimize)
    compacting = asyncio.create_task(asyncio.to_thread(index._maintain, True))
    assert await asyncio.to_thread(started.wait, 30)
    try:
        resp = await asyncio.wait_for(index.search("alder birch", limit=5, mode="hybrid"), 30)
        assert not compacting.done()  # answered while the compaction still held LanceDB
    finally:
        searched.set()
    assert resp.mode == "keyword" and resp.results
    assert resp.notice and "being compacted" in resp.notice
    await compacting
    resp = await index.search("alder birch", limit=5, mode="hybrid")
    assert resp.mode == "hybrid" and resp.notice is None


async def test_a_failed_index_write_is_shown_until_one_succeeds(
    open_index: OpenIndex, isettings: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    index = open_index()
    service = IndexService(index, isettings)
    write(isettings.vault, "New.md", "a new okapi\n")
    real = index.apply_pending

    async def disk_full(**_: object) -> None:
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(index, "apply_pending", disk_full)
    await service.on_changes([Change("New.md", "created")])
    (entry,) = service.attention.entries()
    assert (entry.source, entry.code) == ("search index", "write_failed")
    assert "could not be updated: the disk is full" in entry.reason and entry.retry_at
    assert entry.action == "free some space on the data folder's disk"
    monkeypatch.setattr(index, "apply_pending", real)
    await service.on_changes([Change("New.md", "modified")])  # the next try writes it
    assert service.attention.entries() == []
    resp = await index.search("okapi", limit=1, mode="keyword")
    assert resp.results[0].path == "New.md"


async def test_hybrid_without_keyword_candidates_is_the_meaning_ranking(
    open_index: OpenIndex, isettings: Settings
) -> None:
    settings = with_host(isettings, isettings.ollama.host, keyword_candidates=0)
    index = open_index(settings)
    await index.refresh()
    for query in ("sourdough starter", "EZY6041", "when is the dentist"):
        hybrid = await index.search(query, limit=5, mode="hybrid", group_by_note=True)
        vector = await index.search(query, limit=5, mode="vector", group_by_note=True)
        shown = [r.path for r in vector.results]
        assert shown and [r.path for r in hybrid.results][: len(shown)] == shown


async def test_a_note_found_by_meaning_is_not_lost_past_the_keyword_lists_depth(
    open_index: OpenIndex, isettings: Settings
) -> None:
    """The keyword list stops at keyword_candidates notes; a note the meaning side ranks first
    but BM25 ranks just past that depth keeps its real BM25 in the fusion, not 0 (which lost it
    behind the listed notes, each counted nearly as much as the best)."""
    days = "".join(
        f"## Day {d}\n\n" + " ".join(f"d{d}w{j}" for j in range(60)) + "\n\n" for d in range(8)
    )
    write(
        isettings.vault,
        "Wildlife/Journal.md",
        f"# Journal\n\n{days}## Otter\n\nThe otter sleeps in its holt.\n",
    )
    for i in range(5):
        filler = " ".join(f"w{i}x{j}" for j in range(30))
        write(
            isettings.vault,
            f"Wildlife/River walk {i}.md",
            f"# River walk {i}\n\nAn otter print near a holt. {filler}\n",
        )
    index = open_index(with_host(isettings, isettings.ollama.host, keyword_candidates=3))
    await index.refresh()
    flt = SearchFilter.make((), (), None)
    listed = index.stores.keywords.search_notes("otter holt", 10, flt)
    walks = {f"Wildlife/River walk {i}.md" for i in range(5)}
    assert {p for p, _ in listed[:5]} == walks and listed[5][0] == "Wildlife/Journal.md"
    assert index.stores.keywords.note_scores(
        "otter holt", ["Wildlife/Journal.md", "Wildlife/River walk 0.md", "Areas/Finances.md"]
    ) == pytest.approx(
        {p: s for p, s in listed if p in ("Wildlife/Journal.md", "Wildlife/River walk 0.md")}
    )
    vector = await index.search("otter holt", limit=3, mode="vector", group_by_note=True)
    assert vector.results[0].path == "Wildlife/Journal.md"
    hybrid = await index.search("otter holt", limit=3, mode="hybrid", group_by_note=True)
    assert hybrid.results[0].path == "Wildlife/Journal.md"
    assert hybrid.results[0].heading == "Journal > Otter"


async def test_a_search_during_a_write_sees_both_keyword_indexes_as_of_one_moment(
    open_index: OpenIndex, isettings: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A write commits the notes index, then the chunks index. A search between the two commits
    (run here from inside the chunks commit, so no timing is involved) sees the note as it was
    in both, not its new text with its old chunks, which found an edited note by a word it no
    longer holds; after the write, it sees the new text in both."""
    write(isettings.vault, "Notes/Wombat.md", "# Wombat\n\nA wombat digs burrows.\n")
    index = open_index()
    await index.refresh()
    flt = SearchFilter.make((), (), None)

    def finds(word: str) -> bool:
        hits = index.searcher.run(word, None, "keyword", 20, flt, group_by_note=True)
        return "Notes/Wombat.md" in {h.path for h in hits}

    during: dict[str, bool] = {}

    class CommitHook:  # the chunks index's writer, searching just before it commits
        def __init__(self, writer: tantivy.IndexWriter) -> None:
            self.writer = writer

        def __getattr__(self, name: str) -> object:
            return getattr(self.writer, name)

        def commit(self) -> int:
            during.update(burrows=finds("burrows"), platypus=finds("platypus"))
            return self.writer.commit()

    chunks = index.stores.keywords._chunks
    assert chunks.writer is not None
    monkeypatch.setattr(chunks, "writer", CommitHook(chunks.writer))
    write(isettings.vault, "Notes/Wombat.md", "# Wombat\n\nNow about a platypus instead.\n")
    await index.refresh(paths=["Notes/Wombat.md"])
    assert during == {"burrows": True, "platypus": False}
    assert not finds("burrows") and finds("platypus")


async def test_searches_in_memory_see_every_row_and_need_no_lancedb(
    open_index: OpenIndex, isettings: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A vault whose vectors fit in memory is searched there: exactly, over every row (none
    waits for the vector index), and also while a compaction holds LanceDB up."""
    monkeypatch.setattr(vectors, "FLAT_ROWS", 40)
    gen_notes(isettings.vault, 150)
    index = open_index(with_host(isettings, isettings.ollama.host, vector_index_rows=256))
    await index.refresh()
    store = index.stores.vectors
    monkeypatch.setattr(store, "keep_searchable", lambda: None)
    gen_notes(isettings.vault, 60, folder="Late")
    write(isettings.vault, "Late/Quokka.md", "# Quokka\n\nA quokka smiles at the camera.\n")
    await index.refresh(paths=["Late"])
    assert store.pending_rows > 40 and store.skipped_rows == 0
    resp = await index.search("quokka smiles camera", limit=3, mode="vector")
    assert resp.results[0].path == "Late/Quokka.md" and resp.notice is None

    def no_lancedb(*args: object, **kwargs: object) -> None:
        raise AssertionError("the in-memory search asked LanceDB")

    monkeypatch.setattr(store, "_search", no_lancedb)
    store._compacting = True  # as while optimize() runs in the writer thread
    resp = await index.search("quokka smiles camera", limit=3, mode="hybrid")
    assert resp.mode == "hybrid" and resp.results[0].path == "Late/Quokka.md"
    store._compacting = False
    # a write keeps the copy in step: the note's new words are found by meaning at once
    write(isettings.vault, "Late/Quokka.md", "# Quokka\n\nThe quokka now naps under a fern.\n")
    await index.refresh(paths=["Late/Quokka.md"])
    resp = await index.search("quokka naps under a fern", limit=1, mode="vector")
    assert resp.results[0].text == "The quokka now naps under a fern."


async def test_what_logseq_hides_is_not_indexed_and_an_older_index_is_read_again(
    open_index: OpenIndex, isettings: Settings, fake_ollama: FakeOllama
) -> None:
    """A block's `id::` (written when another block refers to it) and `collapsed::` are not the
    owner's words: they are not embedded, not searched and not shown. An index whose chunks
    still held them (an older layout) is read again once; only the changed chunk is embedded."""
    import sqlite3

    settings = dataclasses.replace(isettings, flavor="logseq")
    uuid = "64a3f1c2-9b1e-4c2d-8e5f-1a2b3c4d5e6f"
    write(
        settings.vault,
        "pages/Beans.md",
        f"- Sow the broad beans in November\n  id:: {uuid}\n  collapsed:: true\n"
        "\t- under a cloche if it freezes\n",
    )
    write(settings.vault, "pages/Leeks.md", "- Leeks go in trenches in May\n")
    index = open_index(settings)
    await index.refresh()
    sent = embedded_texts(fake_ollama)
    assert sent and not any(uuid in t or "collapsed" in t for t in sent)
    assert any("under a cloche" in t for t in sent)
    resp = await index.search("64a3f1c2", limit=3, mode="keyword")
    assert resp.results == []
    (hit,) = (await index.search("broad beans", limit=1, mode="keyword")).results
    assert hit.path == "pages/Beans.md" and uuid not in hit.text
    index.close()

    # An older layout's chunks held the lines: made here by reading the pages as written (the
    # Obsidian rules keep a line `id:: ...`, a Dataview field there), the manifest at layout 3.
    elsewhere = isettings.data_dir / "old"
    plain = open_index(dataclasses.replace(isettings, data_dir=elsewhere))
    await plain.refresh()
    assert (await plain.search("64a3f1c2", limit=3, mode="keyword")).results
    plain.close()
    old = dataclasses.replace(isettings, data_dir=elsewhere).data_path / "index"
    with sqlite3.connect(old / MANIFEST) as db:
        db.execute("UPDATE meta SET value = '3' WHERE key = 'keywords'")
    fake_ollama.requests.clear()
    reopened = open_index(dataclasses.replace(settings, data_dir=elsewhere))
    stats = await reopened.refresh()
    assert stats.indexed == stats.notes and stats.embedded == 1  # only Beans changed
    assert (await reopened.search("64a3f1c2", limit=3, mode="keyword")).results == []


async def test_the_notes_holding_each_query_word_are_counted_as_the_index_stems_them(
    open_index: OpenIndex, isettings: Settings
) -> None:
    write(isettings.vault, "Birds/Kestrels.md", "# Kestrels\n\nHovering over the verges.\n")
    index = open_index()
    await index.refresh()
    notes, counts = index.stores.keywords.view().note_frequencies(["kestrel", "hover", "zqxv"])
    assert notes == index.status()["notes"]
    assert counts == [1, 1, 0]  # the title's "Kestrels" and the text's "Hovering", by stem


async def test_words_the_vault_lacks_weaken_the_keyword_side_not_the_meaning_side(
    open_index: OpenIndex, isettings: Settings
) -> None:
    """The keyword side sees only "kestrel" (the rest are function words to it); the meaning
    side (the fake's bag of words) sees them all and ranks the short note of those words first.
    Asked alone, hybrid follows the keyword match; asked with two words no note holds, the
    keyword side holds a quarter of the query's weight and the meaning ranking leads."""
    filler = " ".join(f"field{j}" for j in range(40))
    write(isettings.vault, "Birds/Log.md", f"# Log\n\nA kestrel today. {filler}\n")
    write(isettings.vault, "Birds/Up.md", "# Up\n\nAbove and below, again, between both.\n")
    index = open_index()
    await index.refresh()
    asked = "kestrel above below again between both"
    unknown = f"{asked} qwertyzz asdfgzz"

    async def first(query: str, mode: str) -> list[str]:
        resp = await index.search(query, limit=2, mode=mode, group_by_note=True)
        return [r.path for r in resp.results]

    for query in (asked, unknown):  # the same rankings on each side either way
        assert (await first(query, "keyword"))[0] == "Birds/Log.md"
        assert await first(query, "vector") == ["Birds/Up.md", "Birds/Log.md"]
    assert (await first(asked, "hybrid"))[0] == "Birds/Log.md"
    assert (await first(unknown, "hybrid"))[0] == "Birds/Up.md"


async def test_a_notes_name_typed_finds_it_first_in_every_mode_but_meaning(
    open_index: OpenIndex, isettings: Settings
) -> None:
    """Journal pages empty but for their dates stand nearer by meaning to a date than the page
    of that date with something written on it: typed as named, it fell out of hybrid's ten."""
    shutil.rmtree(isettings.vault)
    for year in range(2009, 2021):  # the same day of other years, and other months' 26th
        write(isettings.vault, f"journals/Feb 26th, {year}.md", "-\n")
    for month in ("Jan", "Mar", "Apr", "May"):
        write(isettings.vault, f"journals/{month} 26th, 2021.md", "-\n")
    body = " ".join(["Wrote the changelog for the release, checked the build."] * 30)
    write(isettings.vault, "journals/Feb 26th, 2021.md", f"- {body}\n")
    write(isettings.vault, "People/Devon.md", "---\naliases: [DZ]\n---\nMet at the meetup.\n")
    index = open_index()
    await index.refresh()
    for typed in ("Feb 26th, 2021", "feb 26th 2021"):
        for mode in ("hybrid", "keyword"):
            for grouped in (True, False):
                resp = await index.search(typed, limit=5, mode=mode, group_by_note=grouped)
                assert resp.results[0].path == "journals/Feb 26th, 2021.md", (mode, grouped)
    hybrid = await index.search("dz", limit=5, mode="hybrid", group_by_note=True)
    assert [r.path for r in hybrid.results][:1] == ["People/Devon.md"]
    inside = await index.search(
        "feb 26th 2021", limit=5, mode="hybrid", group_by_note=True, exclude_folders=("journals",)
    )
    assert "journals/Feb 26th, 2021.md" not in [r.path for r in inside.results]


async def test_a_keyword_index_made_with_other_fields_is_made_anew(
    open_index: OpenIndex, isettings: Settings, caplog: pytest.LogCaptureFixture
) -> None:
    """A Tantivy index keeps the fields it was made with: one from before a field was added
    (the names, layout 5) is replaced, not opened and then asked for a field it lacks."""
    write(isettings.vault, "Recipes/Kedgeree.md", "# Kedgeree\n\nRice and eggs.\n")
    index = open_index()
    first = await index.refresh()
    index.close()
    notes = isettings.data_path / "index" / "keywords" / "notes"
    shutil.rmtree(notes)
    old = tantivy.SchemaBuilder()
    for name in ("title", "where", "text"):
        old.add_text_field(name, stored=False, tokenizer_name="en_stem")
    old.add_text_field("path", stored=True, tokenizer_name="raw")
    notes.mkdir()
    tantivy.Index(old.build(), path=str(notes))
    caplog.set_level("WARNING")
    reopened = open_index()
    assert "made by a version with other fields" in caplog.text
    stats = await reopened.refresh()
    assert stats.notes == first.notes and stats.embedded == 0
    resp = await reopened.search("kedgeree", limit=3, mode="hybrid", group_by_note=True)
    assert [r.path for r in resp.results][:1] == ["Recipes/Kedgeree.md"]


async def test_a_first_index_of_more_than_one_round_says_what_it_does(
    open_index: OpenIndex, isettings: Settings, caplog: pytest.LogCaptureFixture
) -> None:
    """The Obsidian Help vault's 173 notes took ten minutes to embed on a busy CPU, and the log
    said nothing between "checking the vault against the index" and "search index ready":
    progress was logged from 200 notes only, so two rounds of 128 went unsaid."""
    gen_notes(isettings.vault, 150)
    index = open_index()
    with caplog.at_level(logging.INFO, logger="commonplace.index.indexer"):
        await index.refresh()
    said = [r.getMessage() for r in caplog.records if r.getMessage().startswith("indexing")]
    notes = 150 + 24  # and the sample vault's
    assert said == [
        f"indexing: {notes} notes to read; each round of 128 is searchable once embedded",
        f"indexing: 128 of {notes} notes",
        f"indexing: {notes} of {notes} notes",
    ]
    caplog.clear()
    gen_notes(isettings.vault, 40, folder="More")  # one round: quiet
    with caplog.at_level(logging.INFO, logger="commonplace.index.indexer"):
        await index.refresh()
    assert not [r for r in caplog.records if r.getMessage().startswith("indexing")]
