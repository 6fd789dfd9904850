"""A photo from the phone page (real Chromium): saved byte for byte, embedded above the typed
words, kept on the phone while the daemon is away, and its text searchable once indexed."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest

from commonplace.capture.inbox import read_capture
from tests.attachments import makefiles
from tests.browser.conftest import ServerThread, screenshot
from tests.browser.test_phone_page import inbox, wait_until

PHOTOS_KEPT = """new Promise((resolve) => {
  const open = indexedDB.open("commonplace-photos");
  open.onsuccess = () => {
    const count = open.result.transaction("photos").objectStore("photos").count();
    count.onsuccess = () => { resolve(count.result); open.result.close(); };
  };
})"""


def photo_file(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "IMG_2041.jpg"
    makefiles.picture(text).convert("RGB").save(path, format="JPEG", quality=90)
    return path


def test_a_photo_with_words_is_saved_and_embedded_above_them(
    page: Any, server: ServerThread, tmp_path: Path
) -> None:
    photo = photo_file(tmp_path, "Boiler service due: engineer visits Thursday morning")
    page.wait_for_selector("#status-text:has-text('Ready')")
    page.set_input_files("#capture-photo", str(photo))
    page.wait_for_selector("#photo-name:not([hidden])")
    assert "IMG_2041.jpg" in page.inner_text("#photo-name")
    page.fill("#capture-text", "The boiler notice on the door")
    screenshot(page, "photo-chosen")
    page.click("#send")
    page.wait_for_selector("#capture-log li")
    [saved] = inbox(server)
    vault = server.settings.vault
    capture = read_capture(vault, f"Inbox/{saved.name}", server.settings.tz)
    embed, words = capture.body.split("\n\n", 1)
    assert words == "The boiler notice on the door\n"
    target = embed.removeprefix("![[").removesuffix("]]")
    assert (vault / target).read_bytes() == photo.read_bytes()
    assert page.is_hidden("#photo-name")  # the next capture starts without it
    assert page.evaluate("JSON.parse(localStorage.getItem('commonplace.outbox'))") == []


def test_a_photo_alone_is_sent_without_words(
    page: Any, server: ServerThread, tmp_path: Path
) -> None:
    page.wait_for_selector("#status-text:has-text('Ready')")
    page.set_input_files("#capture-photo", str(photo_file(tmp_path, "a whiteboard")))
    page.click("#send")
    page.wait_for_selector("#capture-log li")
    [saved] = inbox(server)
    body = read_capture(server.settings.vault, f"Inbox/{saved.name}", server.settings.tz).body
    assert body.startswith("![[Photo ") and body.endswith(".jpg]]\n")


@pytest.mark.skipif(shutil.which("tesseract") is None, reason="Tesseract is not installed")
def test_an_offline_photo_is_kept_on_the_phone_and_its_text_is_searchable_once_sent(
    page: Any, server: ServerThread, tmp_path: Path
) -> None:
    photo = photo_file(tmp_path, "The allotment gate code is written on the shed door")
    page.wait_for_selector("#status-text:has-text('Ready')")
    wait_until(lambda: page.evaluate("navigator.serviceWorker.controller !== null"))
    server.stop()
    page.set_input_files("#capture-photo", str(photo))
    page.fill("#capture-text", "Gate code")
    page.click("#send")
    page.wait_for_selector("#outbox:not([hidden])")
    assert "IMG_2041.jpg" in page.inner_text("#outbox-list")
    assert page.evaluate(PHOTOS_KEPT) == 1
    page.reload()  # the photo survives a restart of the page, in IndexedDB
    page.wait_for_selector("#outbox:not([hidden])")
    assert inbox(server) == []

    server.start()
    page.click("#retry-now")
    page.wait_for_selector("#outbox", state="hidden")
    [saved] = wait_until(lambda: inbox(server))
    vault = server.settings.vault
    body = read_capture(vault, f"Inbox/{saved.name}", server.settings.tz).body
    target = body.split("\n", 1)[0].removeprefix("![[").removesuffix("]]")
    assert (vault / target).read_bytes() == photo.read_bytes()
    assert page.evaluate(PHOTOS_KEPT) == 0  # sent: no longer kept on the phone

    # Indexed (what the daemon's watcher and background reader do), the photo's words are found.
    async def index_it() -> Any:
        await server.index.refresh()
        await server.index.read_attachments()
        return await server.index.search("allotment gate code shed door", limit=5)

    found = server._call(index_it())
    assert target in [r.path for r in found.results]
    screenshot(page, "photo-sent")


def test_search_on_the_page_names_a_pdf_passage_by_its_page(
    page: Any, server: ServerThread
) -> None:
    pdf_pages = [
        f"Page {n}. " + ("Unrelated words about garden sheds and ladders. " * 3) for n in (1, 2)
    ]
    pdf_pages.append("Page 3. The tide tables say the causeway floods at half past four. " * 2)
    makefiles.text_pdf(server.settings.vault / "Docs/Tides.pdf", pdf_pages)

    async def index_it() -> int:
        await server.index.refresh()
        return await server.index.read_attachments()

    assert server._call(index_it()) == 1
    page.click("#tab-ask")
    page.fill("#ask-text", "causeway floods")
    page.click("#search-button")
    page.wait_for_selector("#search-list li:has-text('Tides.pdf')")
    item = page.locator("#search-list li:has-text('Tides.pdf')").first
    assert item.locator(".result-title").inner_text() == "Tides.pdf, page 3"
    marks = [m.lower() for m in item.locator("mark").all_inner_texts()]
    assert "causeway" in marks and "floods" in marks
    item.locator("button").click()
    page.wait_for_selector("#source-sheet:not([hidden])")
    assert page.inner_text("#source-title") == "Tides.pdf, page 3"
    assert page.is_hidden("#source-more")  # no note text to show for a PDF
    screenshot(page, "search-pdf-page")
