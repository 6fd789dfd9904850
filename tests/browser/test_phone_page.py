"""The phone page in headless Chromium at phone size, against the real server."""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from commonplace.capture.inbox import read_capture
from tests.browser.conftest import PHONE, ServerThread, docs_screenshot, screenshot
from tests.fakes.ollama import FakeOllama


def wait_until(check: Callable[[], Any], timeout: float = 60) -> Any:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if result := check():
            return result
        time.sleep(0.1)
    raise AssertionError("condition not met in time")


def inbox(server: ServerThread) -> list[Path]:
    folder = server.settings.vault / server.settings.folder("inbox")
    return sorted(folder.glob("*.md")) if folder.is_dir() else []


def test_capture_a_typed_note(page: Any, server: ServerThread) -> None:
    page.wait_for_selector("#status-text:has-text('Ready')")
    page.fill("#capture-text", "Order timber for the shed roof from Jewson by Friday")
    page.click("#send")
    page.wait_for_selector("#capture-log li")
    [saved] = inbox(server)
    capture = read_capture(server.settings.vault, f"Inbox/{saved.name}", server.settings.tz)
    assert capture.body == "Order timber for the shed roof from Jewson by Friday"
    assert capture.via == "phone"
    assert page.input_value("#capture-text") == ""
    assert f"Inbox/{saved.name}" in page.inner_text("#capture-log")
    assert page.evaluate("JSON.parse(localStorage.getItem('commonplace.outbox'))") == []
    screenshot(page, "capture")


def _answer_citing(word: str, sentence: str) -> Callable[[dict[str, Any]], str]:
    def handler(request: dict[str, Any]) -> str:
        user = next(m["content"] for m in request["messages"] if m["role"] == "user")
        for block in user.split("<passage ")[1:]:
            n = block.split('n="', 1)[1].split('"', 1)[0]
            if word.lower() in block.lower():
                return f"{sentence} [{n}]."
        return "I can't find that in your notes."

    return handler


def test_ask_a_question_and_open_a_source(
    page: Any, server: ServerThread, fake_ollama_thread: FakeOllama
) -> None:
    fake_ollama_thread.chat_handler = _answer_citing("Brunel", "The starter is called Brunel")
    page.click("#tab-ask")
    page.fill("#ask-text", "What is my sourdough starter called?")
    page.click("#ask-button")
    page.wait_for_selector(".card .sources .source")
    answer = page.inner_text(".card .answer")
    assert answer.startswith("The starter is called Brunel")
    source = page.locator(".card .sources .source").first
    assert "Sourdough Loaf" in source.inner_text()
    screenshot(page, "ask")
    docs_screenshot(page, "phone-ask", height=300)  # the README's and the docs' picture
    source.click()
    page.wait_for_selector("#source-sheet:not([hidden])")
    assert "Brunel" in page.inner_text("#source-text")
    screenshot(page, "ask-source")
    page.click("#source-more")
    page.wait_for_selector("#source-more[hidden]", state="attached")
    assert "# Sourdough Loaf" in page.inner_text("#source-text")


def test_a_note_with_script_is_shown_as_text(
    page: Any, server: ServerThread, fake_ollama_thread: FakeOllama
) -> None:
    hostile = (
        "# Clipping\n\nZanzibar ferry times: <script>window.__pwned = 1</script>"
        '<img src=x onerror="window.__pwned = 2"> <b>bold?</b>\n'
    )
    note = server.settings.vault / "Clippings" / "Hostile.md"
    note.parent.mkdir()
    note.write_text(hostile)
    server.index.mark_dirty(["Clippings/Hostile.md"])
    fake_ollama_thread.chat_handler = _answer_citing("Zanzibar", "Ferry times are clipped")
    page.click("#tab-ask")
    page.fill("#ask-text", "Zanzibar ferry times?")
    page.click("#ask-button")
    page.wait_for_selector(".card .sources .source")
    page.locator(".card .sources .source", has_text="Hostile").first.click()
    page.click("#source-more")
    page.wait_for_selector("#source-more[hidden]", state="attached")
    shown = page.inner_text("#source-text")
    assert "<script>window.__pwned = 1</script>" in shown
    assert '<img src=x onerror="window.__pwned = 2">' in shown
    time.sleep(0.2)
    assert page.evaluate("window.__pwned") is None
    assert page.locator("#source-text script, #source-text img, .card img").count() == 0
    screenshot(page, "ask-hostile-note")


def test_search_shows_one_result_per_note_with_marked_words(
    page: Any, server: ServerThread
) -> None:
    hostile = "# Clipping\n\nZanzibar ferry <script>window.__pwned = 3</script> <b>timetable</b>\n"
    note = server.settings.vault / "Clippings" / "Hostile.md"
    note.parent.mkdir()
    note.write_text(hostile)
    server.index.mark_dirty(["Clippings/Hostile.md"])
    page.click("#tab-ask")
    page.fill("#ask-text", "sourdough starter")
    page.click("#search-button")
    page.wait_for_selector("#search-results:not([hidden]) #search-list li")
    first = page.locator("#search-list li").first
    assert "Sourdough Loaf" in first.inner_text()
    titles = page.locator("#search-list .result-title").all_inner_texts()
    assert len(titles) == len({t.split(" › ")[0] for t in titles})  # one result per note
    marks = [m.lower() for m in first.locator("mark").all_inner_texts()]
    assert marks and all(m.startswith(("sourdough", "starter")) for m in marks)
    screenshot(page, "search")
    first.locator("button").click()
    page.wait_for_selector("#source-sheet:not([hidden])")
    assert "Sourdough" in page.inner_text("#source-title")
    page.click("#source-close")

    page.fill("#ask-text", "Zanzibar ferry")
    page.click("#search-button")
    page.wait_for_selector("#search-list li:has-text('Hostile')")
    shown = page.inner_text("#search-list li:has-text('Hostile') .snippet")
    assert "<script>window.__pwned = 3</script>" in shown and "<b>timetable</b>" in shown
    time.sleep(0.2)
    assert page.evaluate("window.__pwned") is None
    assert page.locator("#search-list script, #search-list b").count() == 0
    assert page.locator("#search-list li:has-text('Hostile') mark").count() == 2  # Zanzibar, ferry


def test_denied_microphone_shows_a_message(page: Any) -> None:
    # No permission granted: Chromium refuses getUserMedia as it does when the user says no.
    page.click("#dictate")
    page.wait_for_selector("#capture-message:not([hidden])")
    message = page.inner_text("#capture-message")
    assert "Microphone access was refused" in message
    assert page.get_attribute("#capture-message", "data-kind") == "error"
    screenshot(page, "dictate-denied")
    # A state refresh (the poll, or the refresh button) must not hide the message.
    with page.expect_response("**/api/state"):
        page.click("#refresh")
    page.wait_for_timeout(300)
    assert page.is_visible("#capture-message")
    assert "Microphone access was refused" in page.inner_text("#capture-message")


def test_dictation_fills_the_box_for_editing(page: Any, server: ServerThread) -> None:
    page.context.grant_permissions(["microphone"], origin=server.url)
    page.click("#dictate")
    page.wait_for_selector("#dictate:has-text('Stop')")
    time.sleep(1.2)
    page.click("#dictate")
    wait_until(lambda: page.input_value("#capture-text"))
    assert page.input_value("#capture-text") == "Ring Maya Collins about the shed roof"
    assert page.is_visible("#dictation-hint")
    [(samples, prompt)] = server.transcriber.calls
    assert samples > 8_000  # at least half a second of decoded 16 kHz audio
    assert prompt.startswith("Names: Maya Collins")
    screenshot(page, "dictate-transcript")
    page.fill("#capture-text", "Ring Maya Collins about the shed roof, before Friday")
    page.click("#send")
    page.wait_for_selector("#capture-log li")
    [saved] = inbox(server)
    capture = read_capture(server.settings.vault, f"Inbox/{saved.name}", server.settings.tz)
    assert capture.via == "dictation"
    assert capture.body == "Ring Maya Collins about the shed roof, before Friday"


def test_offline_capture_is_kept_and_sent_when_the_daemon_returns(
    page: Any, server: ServerThread
) -> None:
    page.wait_for_selector("#status-text:has-text('Ready')")
    # The service worker has taken over (as it long has in a Home Screen app).
    wait_until(lambda: page.evaluate("navigator.serviceWorker.controller !== null"))
    server.stop()
    page.fill("#capture-text", "Written in a tunnel")
    page.click("#send")
    page.wait_for_selector("#outbox:not([hidden])")
    kept = page.evaluate("JSON.parse(localStorage.getItem('commonplace.outbox'))")
    assert [item["text"] for item in kept] == ["Written in a tunnel"]
    assert "Kept on this phone" in page.inner_text("#capture-message")
    page.click("#refresh")
    page.wait_for_selector("#offline-banner:not([hidden])")
    assert inbox(server) == []
    screenshot(page, "offline-kept")

    # The page reloads while offline (a Home Screen app restarted): the capture is still there.
    page.reload()
    page.wait_for_selector("#outbox:not([hidden])")
    assert "Written in a tunnel" in page.inner_text("#outbox-list")

    server.start()
    page.click("#retry-now")
    page.wait_for_selector("#outbox", state="hidden")
    [saved] = wait_until(lambda: inbox(server))
    assert saved.read_text().endswith("Written in a tunnel")
    assert page.evaluate("JSON.parse(localStorage.getItem('commonplace.outbox'))") == []
    assert page.is_hidden("#offline-banner")
    screenshot(page, "offline-sent")


def test_a_half_written_note_survives_a_reload(page: Any, server: ServerThread) -> None:
    page.fill("#capture-text", "half a thought about")
    page.reload()
    page.wait_for_selector("#status-text:has-text('Ready')")
    assert page.input_value("#capture-text") == "half a thought about"
    assert inbox(server) == []


def test_old_messages_are_cleared_on_a_new_day_and_by_hand(page: Any, server: ServerThread) -> None:
    old = {
        "day": "2020-01-01",
        "captures": [{"text": "yesterday's", "path": "Inbox/x.md", "at": "2020-01-01T10:00:00Z"}],
        "answers": [{"question": "old?", "answer": "old", "sources": [], "findings": []}],
    }
    page.evaluate(f"localStorage.setItem('commonplace.log', {json.dumps(json.dumps(old))})")
    page.reload()
    page.wait_for_selector("#status-text:has-text('Ready')")
    assert page.locator("#capture-log li").count() == 0
    page.fill("#capture-text", "today's note")
    page.click("#send")
    page.wait_for_selector("#capture-log li")
    page.click("#tab-settings")
    screenshot(page, "settings")
    page.click("#clear")
    page.click("#tab-capture")
    assert page.locator("#capture-log li").count() == 0


def test_page_assets_and_service_worker(page: Any, server: ServerThread) -> None:
    manifest = page.evaluate("fetch('/manifest.webmanifest').then(r => r.json())")
    assert manifest["display"] == "standalone"
    for icon in manifest["icons"]:
        status = page.evaluate(f"fetch('{icon['src']}').then(r => r.status)")
        assert status == 200, icon["src"]
    registered = "navigator.serviceWorker.getRegistration().then(r => Boolean(r && r.active))"
    wait_until(lambda: page.evaluate(registered))
    page.click("#tab-assistant")
    assert page.is_visible("#view-assistant")
    screenshot(page, "assistant")


# What a browser does when the page stops being shown (the phone's screen off, another tab in
# front), and when it is shown again.
HIDE = """() => {
  Object.defineProperty(document, "visibilityState", { configurable: true, get: () => "hidden" });
  Object.defineProperty(document, "hidden", { configurable: true, get: () => true });
  document.dispatchEvent(new Event("visibilitychange"));
}"""
SHOW = """() => {
  delete document.visibilityState;
  delete document.hidden;
  document.dispatchEvent(new Event("visibilitychange"));
}"""


def test_a_hidden_page_does_not_poll_the_daemon(page: Any, server: ServerThread) -> None:
    """Shown, the page asks for the daemon's state every 30 s; hidden, it asks nothing (a tab
    left open would wake the daemon all day), and asks at once when it is shown again."""
    page.clock.install()
    page.reload()
    page.wait_for_selector("#status-text:has-text('Ready')")
    asked: list[str] = []
    page.on("request", lambda r: asked.append(r.url) if "/api/state" in r.url else None)
    with page.expect_request(lambda r: "/api/state" in r.url):
        page.clock.run_for(31_000)  # shown: the next poll
    page.evaluate(HIDE)
    page.wait_for_timeout(300)
    asked.clear()
    for _ in range(10):  # five minutes hidden, each poll's time run through
        page.clock.run_for(31_000)
        page.wait_for_timeout(100)
    assert asked == []
    with page.expect_request(lambda r: "/api/state" in r.url):
        page.evaluate(SHOW)
    page.wait_for_selector("#status-text:has-text('Ready')")


def test_the_header_says_how_many_captures_wait_in_full_on_a_phone(
    page: Any, server: ServerThread
) -> None:
    """At 390 px the header read "Ready · 4 captures wai…": the number was what got cut."""
    folder = server.settings.vault / server.settings.folder("inbox")
    folder.mkdir(parents=True, exist_ok=True)
    for n in range(12):
        (folder / f"2026-10-20 08{n:02d}.md").write_text(f"capture {n}\n", encoding="utf-8")
    page.wait_for_selector("#status-text:has-text('Ready')")
    page.click("#refresh")
    page.wait_for_selector("#status-text:has-text('Ready · 12 in inbox')")
    assert page.eval_on_selector("#status-text", "e => e.scrollWidth <= e.clientWidth")


def test_the_last_index_is_shown_as_a_person_reads_it_in_the_daemons_zone(
    browser: Any, server: ServerThread
) -> None:
    """More showed "Last index 2026-11-30T14:05:00+00:00". The phone here is in New York, the
    daemon in London (tests' timezone) and its clock at Monday 30 November 18:00."""
    assert server.settings.tz.key == "Europe/London"
    context = browser.new_context(viewport=PHONE, timezone_id="America/New_York")
    context.set_default_timeout(10_000)
    tab = context.new_page()
    last = ["2026-11-30T14:05:00+00:00"]

    def patched(route: Any) -> None:
        response = route.fetch()
        body = response.json()
        body["index"]["last_refresh"] = last[0]
        body["server_time"] = 1796061600  # 2026-11-30 18:00 UTC (= London)
        route.fulfill(response=response, json=body)

    tab.route("**/api/state", patched)
    tab.goto(server.url + "/")
    tab.click("#tab-settings")
    shown = "() => [...document.querySelectorAll('#state-details dt')].find((dt) => "
    shown += "dt.textContent === 'Last index')?.nextElementSibling.textContent"
    try:
        for iso, expected in [
            ("2026-11-30T14:05:00+00:00", "today 14:05"),
            ("2026-11-29T23:30:00+00:00", "yesterday 23:30"),  # in New York: yesterday 18:30
            ("2026-11-26T08:00:00+00:00", "Thu 26 Nov 08:00"),
            ("soon", "soon"),  # not a time: shown as it came
        ]:
            last[0] = iso
            tab.click("#refresh")
            wait_until(lambda e=expected: tab.evaluate(shown) == e)
    finally:
        # A state request still being patched as the page closes raised "Response has been
        # disposed" into whichever test ran next (a flake seen twice in make test).
        tab.unroute_all(behavior="ignoreErrors")
        context.close()


def test_many_captures_with_the_same_trouble_are_one_line_in_settings(
    page: Any, server: ServerThread
) -> None:
    for minute in range(10, 30):
        rel = f"Inbox/2026-10-19 08{minute}.md"
        server.attention.report("tidy", rel, "unusable_answers", "3 unusable answers")
    server.attention.report("tidy", "Inbox/odd.md", "unreadable", "cannot be read")
    page.goto(server.url + "/")
    page.click("#tab-settings")
    rows = "() => [...document.querySelectorAll('#state-details dt')]"
    rows += ".filter((dt) => dt.textContent === 'Needs attention')"
    rows += ".map((dt) => dt.nextElementSibling.textContent)"
    shown = wait_until(lambda: page.evaluate(rows))
    assert shown == [
        "20 files (Inbox/2026-10-19 0810.md, Inbox/2026-10-19 0811.md, Inbox/2026-10-19 0812.md "
        "and 17 more): 3 unusable answers",
        "Inbox/odd.md: cannot be read",
    ]


def _a_moment_when_auckland_is_a_day_ahead_of_london() -> datetime:
    """14:30 UTC (GMT in London, 03:30 the next day in Auckland) in the last day: recent
    enough that the daemon dates a capture written then by it."""
    now = datetime.now(UTC)
    moment = now.replace(hour=14, minute=30, second=0, microsecond=0)
    return moment if moment < now - timedelta(minutes=1) else moment - timedelta(days=1)


def test_times_on_the_page_are_the_daemons_not_the_travelling_phones(
    browser: Any, server: ServerThread
) -> None:
    """A phone in Auckland showed "03:30 · saved to Inbox/... 1430.md" for a capture the
    daemon (London) named by its own clock, and emptied "Saved today" at Auckland's midnight."""
    assert server.settings.tz.key == "Europe/London"
    written = _a_moment_when_auckland_is_a_day_ahead_of_london()
    london_day = written.astimezone(server.settings.tz).date().isoformat()
    context = browser.new_context(viewport=PHONE, timezone_id="Pacific/Auckland")
    context.set_default_timeout(10_000)
    tab = context.new_page()
    try:
        tab.clock.set_fixed_time(written)
        tab.goto(server.url + "/")
        assert tab.evaluate("new Date().getDate()") != written.day  # the phone's own day
        tab.wait_for_selector("#status-text:has-text('Ready')")
        tab.fill("#capture-text", "Ferry to Waiheke at 10")
        tab.click("#send")
        tab.wait_for_selector("#capture-log li")
        [saved] = inbox(server)
        assert saved.name == f"{london_day} 1430.md"
        assert tab.inner_text("#capture-log .when") == f"14:30 · saved to Inbox/{saved.name}"
        log = tab.evaluate("JSON.parse(localStorage.getItem('commonplace.log'))")
        assert log["day"] == london_day

        # Opened again later that London day (Auckland's next morning): the day's list stays.
        tab.clock.set_fixed_time(written + timedelta(hours=2))
        tab.reload()
        tab.wait_for_selector("#status-text:has-text('Ready')")
        assert tab.locator("#capture-log li").count() == 1
        assert tab.inner_text("#capture-log .when").startswith("14:30 · ")
        # Kept for a page started offline.
        assert tab.evaluate("localStorage.getItem('commonplace.zone')") == "Europe/London"
    finally:
        context.close()
