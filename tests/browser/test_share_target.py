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


def multipart(fields: dict[str, str], files: list[tuple[str, str, bytes]]) -> tuple[str, bytes]:
    """The body Chrome builds for a share target (multipart/form-data): its type and bytes."""
    boundary = "----CommonplaceShare" + os.urandom(8).hex()
    out = b""
    for name, value in fields.items():
        out += f'--{boundary}\r\nContent-Disposition: form-data; name="{name}"\r\n\r\n'.encode()
        out += value.encode("utf-8") + b"\r\n"
    for filename, ctype, data in files:
        out += (
            f'--{boundary}\r\nContent-Disposition: form-data; name="files"; '
            f'filename="{filename}"\r\nContent-Type: {ctype}\r\n\r\n'
        ).encode()
        out += data + b"\r\n"
    return f"multipart/form-data; boundary={boundary}", out + f"--{boundary}--\r\n".encode()


def share_from_the_share_sheet(
    page: Any, base: str, fields: dict[str, str], files: list[tuple[str, str, bytes]]
) -> None:
    """The POST Chrome makes itself when the owner picks the page in the share sheet: a
    navigation no page started (Chromium sets Sec-Fetch-Site: none and no Referer). Headless
    Chromium has no share sheet: the test starts a navigation and has Chromium send it as that
    POST, to the share target, with the share's multipart body."""
    ctype, body = multipart(fields, files)

    def as_a_share(route: Any) -> None:
        headers = {**route.request.headers, "content-type": ctype}
        route.continue_(url=f"{base}/share", method="POST", post_data=body, headers=headers)

    page.route(f"{base}/from-the-share-sheet", as_a_share)
    page.goto(f"{base}/from-the-share-sheet")


def test_a_share_that_no_service_worker_takes_is_saved_by_the_daemon(
    page: Any, server: ServerThread
) -> None:
    """The worker gone (evicted, being updated, not yet in control): the share reached the
    daemon, which answered 403 with JSON, and what was shared was lost. Now it is one capture,
    words and files intact, and the page says where it went."""
    page.wait_for_selector("#status-text:has-text('Ready')")
    controlled(page)
    gone = page.evaluate(
        """async () => {
      const all = await navigator.serviceWorker.getRegistrations();
      return (await Promise.all(all.map((r) => r.unregister()))).length;
    }"""
    )
    assert gone == 1
    text = "The bit about climbing roses — prune in February.\nhttps://garden.example/roses"
    files = [("IMG_2041.png", "image/png", PNG), ("catalogue.pdf", "application/pdf", PDF)]
    with page.expect_response(lambda r: r.url.endswith("/share")) as answer:
        share_from_the_share_sheet(
            page, server.url, {"title": "Climbing roses", "text": text, "url": ""}, files
        )
    assert answer.value.status == 303  # to the page, never a JSON body in its place
    page.wait_for_selector("#capture-message:has-text('Shared into your inbox')")
    [saved] = inbox(server)
    rel = lambda p: p.relative_to(server.settings.vault).as_posix()  # noqa: E731
    assert rel(saved) in page.inner_text("#capture-message")
    assert page.url == server.url + "/"  # a reload is not a second share
    meta, body = split_capture(saved.read_text(encoding="utf-8"))
    assert meta["via"] == "share"
    photo, pdf = shared_files(server)
    assert photo.read_bytes() == PNG and pdf.read_bytes() == PDF
    assert body == f"![[{rel(photo)}]]\n![[{rel(pdf)}]]\n\nClimbing roses\n\n{text}\n"
    assert "Shared from another app" in page.inner_text("#capture-log")
    assert rel(saved) in page.inner_text("#capture-log")
    screenshot(page, "share-saved-by-the-daemon")


def test_a_share_posted_from_another_site_changes_nothing(page: Any, server: ServerThread) -> None:
    """A form on another site posting to /share, in the owner's own browser: refused."""
    other = "http://other.example"
    form = f"""<form method="post" action="{server.url}/share" enctype="multipart/form-data">
      <input name="text" value="wire 500 pounds to 12345678"></form>
      <script>document.forms[0].submit()</script>"""
    page.route(f"{other}/", lambda route: route.fulfill(body=form, content_type="text/html"))
    with page.expect_response(lambda r: r.url.endswith("/share")) as answer:
        page.goto(f"{other}/")
    assert answer.value.status == 403
    assert inbox(server) == [] and shared_files(server) == []


def test_the_same_share_through_the_daemon_and_then_the_worker_is_one_capture(
    page: Any, server: ServerThread
) -> None:
    """A retry: the first share reached the daemon (no worker yet), the owner shared it again,
    and this time the worker kept it and the page sent it. One capture, one set of files."""
    page.wait_for_selector("#status-text:has-text('Ready')")
    page.evaluate(
        """async () => {
      for (const r of await navigator.serviceWorker.getRegistrations()) await r.unregister();
    }"""
    )
    fields = {"title": "Roses", "text": "prune in February", "url": ""}
    files = [("IMG_2041.png", "image/png", PNG)]
    share_from_the_share_sheet(page, server.url, fields, files)
    page.wait_for_selector("#capture-message:has-text('Shared into your inbox')")
    [saved] = inbox(server)
    page.unroute(f"{server.url}/from-the-share-sheet")
    controlled(page)  # the page registered its worker again, and it took control
    with page.expect_response(lambda r: r.url.endswith("/api/share")) as sent:
        share(page, fields, files)  # kept by the worker, sent by the page
    rel = saved.relative_to(server.settings.vault).as_posix()
    assert sent.value.json() == {"path": rel, "repeat": True}
    page.wait_for_selector(f"#capture-message:has-text('saved to {rel}')")
    page.wait_for_selector("#share-outbox", state="hidden")
    assert inbox(server) == [saved]
    assert [p.read_bytes() for p in shared_files(server)] == [PNG]
