"""Attachments in the index: found by search with their file and page, read once per content,
and every broken file an attention item while notes stay searchable (real LanceDB, Tantivy,
PDFium and Tesseract; the fake Ollama embeds)."""

from __future__ import annotations

import asyncio
import shutil
import threading
from pathlib import Path
from typing import Any

import pytest

from commonplace.attachments import reader as reader_module
from commonplace.attachments.extraction import Extraction, Options, Page
from commonplace.config import Settings
from commonplace.index import Index, IndexService
from commonplace.runtime.changes import Change
from tests.attachments import makefiles
from tests.attachments.conftest import PHRASES, fast, needs_tesseract, pages
from tests.index.conftest import OpenIndex, write

QUERY = "beekeeper third hive quince hedge frost"


def counting(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The files the extraction child is started for, in order."""
    seen: list[str] = []
    real = reader_module.extract

    def extract(data: bytes, path: str, opts: Options) -> Extraction:
        seen.append(path)
        return real(data, path, opts)

    monkeypatch.setattr(reader_module, "extract", extract)
    return seen


async def settle(service: IndexService) -> None:
    """Wait for the background reading of attachments to finish (a generous upper bound)."""
    task = service._reading
    if task is not None:
        await asyncio.wait_for(asyncio.shield(task), 120)


def hits_for(results: list[Any]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for r in results:
        out.setdefault(r.path, r)
    return out


@needs_tesseract
async def test_a_phrase_from_page_3_of_each_kind_is_found_with_its_file_and_page(
    open_index: OpenIndex, isettings: Settings
) -> None:
    vault = isettings.vault
    makefiles.text_pdf(vault / "Docs/Manual.pdf", pages())
    makefiles.scanned_pdf(vault / "Scans/Letter.pdf", pages())
    makefiles.screenshot(vault / "Screens/hive.png", PHRASES[3])
    index = open_index()
    service = IndexService(index, isettings)
    await service.startup()
    await settle(service)
    assert index.status()["attachments"]["indexed"] == 3
    resp = await index.search(QUERY, limit=10)
    found = hits_for(resp.results)
    assert found["Docs/Manual.pdf"].page == 3
    assert found["Scans/Letter.pdf"].page == 3
    assert found["Screens/hive.png"].page is None
    assert found["Docs/Manual.pdf"].label == "Manual.pdf, page 3"
    assert found["Screens/hive.png"].label == "hive.png"
    js = found["Docs/Manual.pdf"].to_json()
    assert (js["page"], js["label"], js["attachment"]) == (3, "Manual.pdf, page 3", True)
    # Nothing was written into the vault: the attachments are as they were, nothing added.
    assert not any(p.name.endswith((".json", ".txt")) for p in vault.rglob("*") if p.is_file())


async def test_a_changed_pdf_is_read_again_and_a_renamed_or_copied_one_is_not(
    open_index: OpenIndex, isettings: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    seen = counting(monkeypatch)
    vault = isettings.vault
    pdf = makefiles.text_pdf(vault / "Manual.pdf", pages())
    index = open_index()
    service = IndexService(index, isettings)
    await service.startup()
    await settle(service)
    assert seen == ["Manual.pdf"]
    before = pdf.read_bytes()

    pdf.rename(vault / "Renamed.pdf")
    shutil.copy(vault / "Renamed.pdf", vault / "Copy.pdf")
    await service.on_changes(
        [
            Change("Manual.pdf", "deleted"),
            Change("Renamed.pdf", "created"),
            Change("Copy.pdf", "created"),
        ]
    )
    await settle(service)
    assert seen == ["Manual.pdf"]  # same bytes: the cached text
    found = hits_for((await index.search(QUERY, limit=20, mode="keyword")).results)
    assert {"Renamed.pdf", "Copy.pdf"} <= set(found) and "Manual.pdf" not in found
    assert found["Renamed.pdf"].page == 3

    makefiles.text_pdf(vault / "Renamed.pdf", ["the new first page about walnut grafting " * 3])
    assert (vault / "Renamed.pdf").read_bytes() != before
    await service.on_changes([Change("Renamed.pdf", "modified")])
    await settle(service)
    assert seen == ["Manual.pdf", "Renamed.pdf"]
    found = hits_for((await index.search("walnut grafting", limit=5, mode="keyword")).results)
    assert found["Renamed.pdf"].page == 1


async def test_broken_and_huge_pdfs_end_as_attention_items_and_notes_stay_searchable(
    open_index: OpenIndex, isettings: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    settings = fast(isettings, max_pages=200)
    vault = settings.vault
    makefiles.encrypted_pdf(vault / "Locked.pdf")
    makefiles.truncated_pdf(vault / "Cut.pdf", pages())
    makefiles.many_pages_pdf(vault / "Huge.pdf", 10_000)
    # One file's reading is held until the test lets it go: meanwhile a note is saved.
    release = threading.Event()
    real = reader_module.extract

    def held(data: bytes, path: str, opts: Options) -> Extraction:
        if path == "Huge.pdf":
            assert release.wait(60)
        return real(data, path, opts)

    monkeypatch.setattr(reader_module, "extract", held)
    index = open_index(settings)
    service = IndexService(index, settings)
    await service.startup()
    for _ in range(600):  # until the reader is at the held file (polled, generous)
        if index.status()["attachments"]["reading"] == "Huge.pdf":
            break
        await asyncio.sleep(0.05)
    write(vault, "Notes/Okapi.md", "# Okapi\n\nThe okapi eats leaves in the forest.\n")
    await asyncio.wait_for(service.on_changes([Change("Notes/Okapi.md", "created")]), 60)
    resp = await index.search("okapi leaves", limit=3)
    assert resp.results and resp.results[0].path == "Notes/Okapi.md"
    release.set()
    await settle(service)

    items = {e.path: e for e in service.attention.entries() if e.source == "attachments"}
    assert items["Locked.pdf"].reason == "password-protected: not read"
    assert items["Locked.pdf"].code == "encrypted"
    assert items["Cut.pdf"].code == "malformed"
    assert items["Huge.pdf"].code == "too_many_pages"
    assert "the first 200 were read" in items["Huge.pdf"].reason
    assert "max_pages" in items["Huge.pdf"].action
    assert index.status()["attachments"]["waiting"] == 0

    # After a restart the list says the same, without reading the files again.
    seen = counting(monkeypatch)
    index.close()
    again = Index.open(settings, index.llm)
    try:
        service = IndexService(again, settings)
        await service.startup()
        await settle(service)
        assert {e.path for e in service.attention.entries() if e.source == "attachments"} == {
            "Locked.pdf",
            "Cut.pdf",
            "Huge.pdf",
        }
        assert seen == []
        # A problem file removed leaves the list.
        (vault / "Locked.pdf").unlink()
        await service.on_changes([Change("Locked.pdf", "deleted")])
        assert "Locked.pdf" not in {e.path for e in service.attention.entries()}
    finally:
        again.close()


async def test_a_file_over_the_size_limit_is_named_and_not_read(
    open_index: OpenIndex, isettings: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    seen = counting(monkeypatch)
    settings = fast(isettings, max_file_mb=0.1)
    (settings.vault / "Big.pdf").write_bytes(b"%PDF-1.4\n" + b"0" * 200_000)
    index = open_index(settings)
    service = IndexService(index, settings)
    await service.startup()
    await settle(service)
    (item,) = [e for e in service.attention.entries() if e.source == "attachments"]
    assert item.path == "Big.pdf" and item.code == "too_large"
    assert "over the 102 KB limit: not read" in item.reason
    assert seen == []


async def test_attachments_off_reads_none(
    open_index: OpenIndex, isettings: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    seen = counting(monkeypatch)
    settings = fast(isettings, enabled=False)
    makefiles.text_pdf(settings.vault / "Manual.pdf", pages())
    index = open_index(settings)
    await IndexService(index, settings).startup()
    assert seen == [] and index.status()["attachments"] == {"indexed": 0}
    resp = await index.search(QUERY, limit=5, mode="keyword")
    assert all(r.path != "Manual.pdf" for r in resp.results)


async def test_an_image_in_an_app_folder_or_a_link_is_not_read(
    open_index: OpenIndex, isettings: Settings, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    seen = counting(monkeypatch)
    vault = isettings.vault
    makefiles.text_pdf(vault / ".obsidian/plugins/x/doc.pdf", pages())
    makefiles.text_pdf(vault / ".trash/old.pdf", pages())
    outside = makefiles.text_pdf(tmp_path / "outside.pdf", pages())
    (vault / "Linked.pdf").symlink_to(outside)
    makefiles.text_pdf(vault / "Real.pdf", pages())
    index = open_index()
    service = IndexService(index, isettings)
    await service.startup()
    await settle(service)
    assert seen == ["Real.pdf"]


async def test_a_note_embedding_an_image_and_the_image_are_each_found_once(
    open_index: OpenIndex, isettings: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    vault = isettings.vault

    def fake_extract(data: bytes, path: str, opts: Options) -> Extraction:
        return Extraction((Page(1, "whiteboard sketch of the heron weir", "ocr"),), 1)

    monkeypatch.setattr(reader_module, "extract", fake_extract)
    makefiles.screenshot(vault / "scan.png", "x")
    write(vault, "Board.md", "# Board\n\nHeron weir meeting notes.\n\n![[scan.png]]\n")
    index = open_index()
    service = IndexService(index, isettings)
    await service.startup()
    await settle(service)
    resp = await index.search("heron weir", limit=10, group_by_note=True)
    paths = [r.path for r in resp.results]
    assert paths.count("Board.md") == 1 and paths.count("scan.png") == 1
