"""Sharing into Commonplace from another app, in headless Chromium at phone size.

Chromium reads the manifest's share_target; a share is the POST it makes to the action (/share,
multipart/form-data) when the owner picks Commonplace in the share sheet. Headless Chromium has
no share sheet, so the test makes that same navigation POST from a form: the page's service
worker receives it, keeps it in the queue, and the page sends it as ONE capture."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from aiohttp.test_utils import TestServer

from commonplace.capture.inbox import split_capture
from tests.browser.conftest import ServerThread, screenshot
from tests.browser.test_phone_page import inbox, wait_until
from tests.push.resolver import FakeResolver
from tests.share.conftest import Site, allow_site, site_app

PNG = b"\x89PNG\r\n\x1a\n" + os.urandom(2048)
PDF = b"%PDF-1.4\n" + os.urandom(1024) + b"\n%%EOF\n"

# What Chromium does with a share: a navigation POST of a multipart form to the action.
SHARE = """([fields, files]) => {
  const form = document.createElement("form");
  form.method = "POST";
  form.action = "/share";
  form.enctype = "multipart/form-data";
  for (const [name, value] of Object.entries(fields)) {
    const input = document.createElement("input");
    input.type = "hidden";
    input.name = name;
    input.value = value;
    form.append(input);
  }
  const picker = document.createElement("input");
  picker.type = "file";
  picker.name = "files";
  picker.multiple = true;
  const chosen = new DataTransfer();
  for (const [name, type, bytes] of files) {
    chosen.items.add(new File([new Uint8Array(bytes)], name, { type }));
  }
  picker.files = chosen.files;
  form.append(picker);
  document.body.append(form);
  form.submit();
}"""


def controlled(page: Any) -> None:
    wait_until(lambda: page.evaluate("navigator.serviceWorker.controller !== null"), 30)


def share(page: Any, fields: dict[str, str], files: list[tuple[str, str, bytes]]) -> None:
    with page.expect_navigation():
        page.evaluate(SHARE, [fields, [[n, t, list(b)] for n, t, b in files]])


def shared_files(server: ServerThread) -> list[Path]:
    return sorted(p for p in server.settings.vault.glob("Shared*") if p.is_file())


def test_chromium_reads_the_share_target_in_the_manifest(page: Any, server: ServerThread) -> None:
    session = page.context.new_cdp_session(page)
    found = session.send("Page.getAppManifest")
    assert found["errors"] == [], found["errors"]
    target = json.loads(found["data"])["share_target"]
    assert target["action"] == "/share"
    assert target["method"] == "POST"
    assert target["enctype"] == "multipart/form-data"
    assert target["params"]["title"] == "title" and target["params"]["text"] == "text"
    accepted = target["params"]["files"][0]["accept"]
    assert "application/pdf" in accepted and "image/jpeg" in accepted


def test_a_share_with_text_link_photo_and_pdf_becomes_one_capture(
    page: Any, server: ServerThread
) -> None:
    page.wait_for_selector("#status-text:has-text('Ready')")
    controlled(page)
    text = "The bit about climbing roses — prune in February.\nhttps://garden.example/roses"
    share(
        page,
        {"title": "Climbing roses", "text": text, "url": ""},
        [("IMG_2041.png", "image/png", PNG), ("catalogue.pdf", "application/pdf", PDF)],
    )
    page.wait_for_selector("#capture-message:has-text('Shared into your inbox')", timeout=30_000)
    assert page.url.endswith("/")  # a reload is not a second share
    assert page.is_visible("#view-capture")
    [saved] = inbox(server)
    meta, body = split_capture(saved.read_text(encoding="utf-8"))
    assert meta["via"] == "share"
    [photo] = [p for p in shared_files(server) if p.suffix == ".png"]
    [pdf] = [p for p in shared_files(server) if p.suffix == ".pdf"]
    assert photo.read_bytes() == PNG and pdf.read_bytes() == PDF
    rel = lambda p: p.relative_to(server.settings.vault).as_posix()  # noqa: E731
    assert body == f"![[{rel(photo)}]]\n![[{rel(pdf)}]]\n\nClimbing roses\n\n{text}\n"
    assert "Climbing roses" in page.inner_text("#capture-log")
    assert page.evaluate("navigator.serviceWorker.controller !== null")
    screenshot(page, "share-saved")


def test_an_android_link_share_puts_the_link_in_text(page: Any, server: ServerThread) -> None:
    page.wait_for_selector("#status-text:has-text('Ready')")
    controlled(page)
    share(
        page, {"title": "How to prune roses", "text": "https://garden.example/roses", "url": ""}, []
    )
    page.wait_for_selector("#capture-message:has-text('Shared into your inbox')", timeout=30_000)
    [saved] = inbox(server)
    assert (
        split_capture(saved.read_text())[1]
        == "How to prune roses\n\nhttps://garden.example/roses\n"
    )


def test_a_share_made_offline_is_kept_and_sent_when_the_daemon_is_back(
    page: Any, server: ServerThread
) -> None:
    page.wait_for_selector("#status-text:has-text('Ready')")
    controlled(page)
    server.stop()
    share(
        page, {"title": "", "text": "Shared on the train", "url": ""}, [("p.png", "image/png", PNG)]
    )
    page.wait_for_selector("#share-outbox:not([hidden])", timeout=30_000)
    assert "Shared on the train" in page.inner_text("#share-list")
    assert "kept on this phone" in page.inner_text("#capture-message")
    assert inbox(server) == []
    screenshot(page, "share-kept")
    page.reload()  # the phone restarts the app: the share is still kept
    page.wait_for_selector("#share-outbox:not([hidden])", timeout=30_000)
    server.start()
    page.click("#retry-now")
    page.wait_for_selector("#share-outbox", state="hidden", timeout=30_000)
    [saved] = wait_until(lambda: inbox(server), 30)
    assert saved.read_text().endswith("Shared on the train\n")
    assert [p.read_bytes() for p in shared_files(server)] == [PNG]
    page.click("#refresh")  # sent once: a later flush sends nothing again
    page.wait_for_selector("#status-text:has-text('Ready')")
    assert len(inbox(server)) == 1


def test_the_toggle_saves_a_linked_pages_text_below_the_words(
    page: Any, server: ServerThread
) -> None:
    site = Site()
    site_server = TestServer(site_app(site), host="127.0.0.1")
    server._call(site_server.start_server())
    site.port = site_server.port or 0
    try:
        server.stop()
        server.page_resolver = FakeResolver({"news.example": ["127.0.0.1"]})
        server.page_rule = allow_site
        server.start()
        page.reload()
        page.wait_for_selector("#status-text:has-text('Ready')")
        assert page.is_hidden("#fetch-page-row")  # no link, no toggle
        link = f"http://news.example:{site.port}/p/article"
        page.fill("#capture-text", f"Roses\n{link}")
        page.wait_for_selector("#fetch-page-row:not([hidden])")
        assert not page.is_checked("#fetch-page")  # off unless asked, every time
        page.check("#fetch-page")
        with page.expect_response(lambda r: "/api/capture" in r.url) as answer:
            page.click("#send")
        saved_page = answer.value.json().get("page")
        assert saved_page and saved_page["saved"] is True, saved_page  # says why if not
        page.wait_for_selector("#capture-log li")
        [saved] = inbox(server)
        body = split_capture(saved.read_text(encoding="utf-8"))[1]
        assert body.startswith(f"Roses\n{link}\n\n> Clipped from <{link}> on ")
        assert "Prune roses in late winter" in body
        assert page.is_hidden("#fetch-page-row")  # the box is empty again
    finally:
        server._call(site_server.close())
