"""The phone page's rough edges at 390 pixels, each as it was seen and as it must be now."""

from __future__ import annotations

import dataclasses
import threading
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from commonplace.cli.main import cli
from commonplace.config import Settings
from tests.browser.conftest import PHONE, ServerThread, screenshot
from tests.browser.test_phone_page import inbox, wait_until
from tests.fakes.ollama import FakeOllama
from tests.models import with_model


def ollama_down(server: ServerThread, dead_url: str, page: Any) -> None:
    server.stop()
    server.settings = with_model(server.settings, host=dead_url, retries=0)
    server.start()
    page.reload()


def test_with_the_model_down_the_header_keeps_the_waiting_count(
    page: Any, server: ServerThread, dead_ollama_url: str
) -> None:
    """It read "Ollama not reachable · …": the number of captures waiting was what got cut."""
    folder = server.settings.vault / server.settings.folder("inbox")
    folder.mkdir(parents=True, exist_ok=True)
    for n in range(12):
        (folder / f"2026-10-20 08{n:02d}.md").write_text(f"capture {n}\n", encoding="utf-8")
    ollama_down(server, dead_ollama_url, page)
    page.wait_for_selector("#status-text:has-text('12 in inbox')")
    assert page.eval_on_selector("#status-text", "e => e.scrollWidth <= e.clientWidth")
    assert "model" in page.inner_text("#status-text")
    assert "isn't running" in (page.get_attribute("#status", "title") or "")
    screenshot(page, "header-model-down")


def test_capture_and_ask_say_what_they_do(page: Any, server: ServerThread) -> None:
    assert page.is_visible("#capture-hint")
    assert "Inbox" in page.inner_text("#capture-hint")  # where a capture goes
    page.click("#tab-ask")
    assert page.is_visible("#ask-hint")
    assert "from your notes" in page.inner_text("#ask-hint")


def test_ask_with_the_model_down_says_what_it_means_for_the_phone(
    page: Any, server: ServerThread, dead_ollama_url: str
) -> None:
    ollama_down(server, dead_ollama_url, page)
    page.click("#tab-ask")
    page.fill("#ask-text", "When is my next physio session?")
    page.click("#ask-button")
    page.wait_for_selector("#ask-message:not([hidden])", timeout=30_000)
    text = page.inner_text("#ask-message")
    assert "OLLAMA_HOST" not in text and "[ollama]" not in text
    assert "model isn't running" in text and "captures are saved" in text


def test_the_assistant_shows_a_failed_turn_once(
    page: Any, server: ServerThread, dead_ollama_url: str
) -> None:
    ollama_down(server, dead_ollama_url, page)
    page.click("#tab-assistant")
    page.fill("#assistant-text", "What's on today?")
    page.click("#assistant-send")
    page.wait_for_selector("#chat .bubble.failed", timeout=30_000)
    page.wait_for_selector("#assistant-send:not([disabled])")
    assert page.is_hidden("#assistant-message")  # not the same error again above the box
    assert page.locator("#chat .bubble.failed").count() == 1
    screenshot(page, "assistant-failed-once")


def test_snippets_and_passages_read_as_text_not_markdown(page: Any, server: ServerThread) -> None:
    page.wait_for_selector("#status-text:has-text('Ready')")
    page.click("#tab-ask")
    page.fill("#ask-text", "Rachel Dunne physio")
    page.click("#search-button")
    page.wait_for_selector("#search-list li")
    hit = page.locator("#search-list li", has_text="Physio Plan").first
    snippet = hit.locator(".snippet").inner_text()
    assert "Rachel Dunne" in snippet
    assert "**" not in snippet and "[[" not in snippet
    marks = hit.locator(".snippet mark").all_inner_texts()
    assert any(m.casefold() in ("rachel", "dunne", "physio") for m in marks), marks
    hit.locator("button").click()
    page.wait_for_selector("#source-sheet:not([hidden])")
    passage = page.inner_text("#source-text")
    assert "**" not in passage
    font = page.eval_on_selector("#source-text", "e => getComputedStyle(e).fontFamily")
    assert "monospace" not in font
    screenshot(page, "passage-plain")


def test_a_new_search_closes_the_source_sheet(page: Any, server: ServerThread) -> None:
    page.wait_for_selector("#status-text:has-text('Ready')")
    page.click("#tab-ask")
    page.fill("#ask-text", "physio")
    page.click("#search-button")
    page.wait_for_selector("#search-list li")
    page.locator("#search-list li button").first.click()
    page.wait_for_selector("#source-sheet:not([hidden])")
    page.fill("#ask-text", "Lisbon")
    page.click("#search-button")
    page.wait_for_selector("#search-title:has-text('Lisbon')")
    assert page.is_hidden("#source-sheet")


def test_saved_today_shows_where_a_capture_was_filed(page: Any, server: ServerThread) -> None:
    page.wait_for_selector("#status-text:has-text('Ready')")
    page.fill("#capture-text", "Ask Rachel about the calf raises")
    page.click("#send")
    page.wait_for_selector("#capture-log li")
    [saved] = inbox(server)
    assert "saved to Inbox/" in page.inner_text("#capture-log .when")
    entry = page.evaluate("JSON.parse(localStorage.getItem('commonplace.log')).captures[0]")
    capture_id, stamp = entry["capture"].split("@")
    # Tidy files it (the daemon's own tidy is not running here): the filed note, named by the
    # capture's minute, carries its id; the capture leaves the inbox.
    settings = server.settings
    folder = settings.vault / settings.folder("filed")
    folder.mkdir(parents=True, exist_ok=True)
    filed = folder / f"{stamp} Calf raises.md"
    filed.write_text(
        f"---\ncaptured: x\nvia: phone\ncapture_id: {capture_id}\n---\nAsk Rachel about the calf "
        "raises\n",
        encoding="utf-8",
    )
    saved.unlink()
    page.click("#refresh")
    rel = f"{settings.folder('filed')}/{filed.name}"
    page.wait_for_selector(f"#capture-log .when:has-text('filed as {rel}')")
    assert "Inbox/" not in page.inner_text("#capture-log .when")
    wait_until(lambda: True)


def test_the_header_says_what_waits_and_counts_a_capture_at_once(
    page: Any, server: ServerThread
) -> None:
    """ "20 waiting" did not say what waited, and stayed 20 after Send until the next poll."""
    folder = server.settings.vault / server.settings.folder("inbox")
    folder.mkdir(parents=True, exist_ok=True)
    for n in range(3):
        (folder / f"2026-10-20 08{n:02d}.md").write_text(f"capture {n}\n", encoding="utf-8")
    page.click("#refresh")
    page.wait_for_selector("#status-text:has-text('Ready · 3 in inbox')")
    assert page.get_attribute("#status", "title") == "3 captures in the inbox, waiting to be filed"
    assert page.eval_on_selector("#status-text", "e => e.scrollWidth <= e.clientWidth")
    page.fill("#capture-text", "Ask Rachel about the calf raises")
    page.click("#send")
    # At once: the page asks again every 30 s, and this must not wait for that.
    page.wait_for_selector("#status-text:has-text('Ready · 4 in inbox')", timeout=10_000)
    assert len(inbox(server)) == 4
    page.click("#tab-settings")
    assert "4 captures waiting to be filed" in page.inner_text("#state-details")
    screenshot(page, "header-in-inbox")


def test_dictate_is_not_offered_while_dictation_is_off(page: Any, server: ServerThread) -> None:
    """Dictate was there with dictation off, and a tap answered with a paragraph about
    downloading a model from Hugging Face."""
    page.wait_for_selector("#dictate:visible")  # on while the daemon can transcribe
    server.stop()
    server.transcriber = None  # type: ignore[assignment]  # dictation off in this daemon
    server.start()
    page.reload()
    page.wait_for_selector("#status-text:has-text('Ready')")
    assert page.is_hidden("#dictate")
    assert "dictate" not in (page.get_attribute("#capture-text", "placeholder") or "")
    send = page.locator("#send").bounding_box()
    assert send is not None and send["width"] > 300  # the row is Send alone, full width
    page.click("#tab-settings")
    assert "Dictation\noff: dictation is not running in this daemon" in page.inner_text(
        "#state-details"
    )
    page.click("#tab-capture")
    screenshot(page, "dictation-off")


def test_add_a_photo_reads_in_the_middle_of_its_button(page: Any, server: ServerThread) -> None:
    """The label sat at the top of its 48 px button."""
    page.wait_for_selector("#photo-pick")
    box, words = page.evaluate(
        """() => {
      const label = document.querySelector("#photo-pick");
      const range = document.createRange();
      range.selectNodeContents(label);
      const r = range.getBoundingClientRect(), b = label.getBoundingClientRect();
      return [[b.top, b.bottom, b.left, b.right], [r.top, r.bottom, r.left, r.right]];
    }"""
    )
    assert box[1] - box[0] >= 44  # a touch target
    assert abs((words[0] + words[1]) / 2 - (box[0] + box[1]) / 2) <= 2, (box, words)
    assert abs((words[2] + words[3]) / 2 - (box[2] + box[3]) / 2) <= 2, (box, words)


def test_the_sample_vault_is_called_the_sample_vault(
    browser: Any,
    settings: Settings,
    fake_ollama_thread: FakeOllama,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """On `make run`'s sample the More view said Vault: "vault" (its scratch folder's name)."""
    import commonplace.cli.run as run_cli

    monkeypatch.setattr("commonplace.firstrun.sample.sample_scratch", lambda: tmp_path / "s")
    ran: list[Settings] = []

    async def daemon(given: Settings) -> None:
        ran.append(given)

    monkeypatch.setattr(run_cli, "run_daemon", daemon)
    # On a thread of its own: Playwright keeps an event loop running on this one.
    results: list[Any] = []
    home = {"HOME": str(tmp_path)}
    command = threading.Thread(
        target=lambda: results.append(
            CliRunner().invoke(cli, ["run", "--sample-if-unset"], env=home)
        )
    )
    command.start()
    command.join(120)
    [result] = results
    assert result.exit_code == 0, result.output
    [made] = ran  # what `make run` runs the daemon on
    live = dataclasses.replace(
        settings,
        vault=made.vault,
        data_dir=made.data_dir,
        ollama=dataclasses.replace(settings.ollama, host=fake_ollama_thread.url),
    )
    thread = ServerThread(live)
    thread.start()
    context = browser.new_context(viewport=PHONE, device_scale_factor=2, is_mobile=True)
    try:
        tab = context.new_page()
        tab.goto(thread.url + "/")
        tab.wait_for_selector("#status-text:has-text('20')")  # the sample week's captures
        tab.click("#tab-settings")
        tab.wait_for_selector("#state-details dd")
        details = tab.inner_text("#state-details")
        assert "Vault\nSample vault\n" in details, details
        screenshot(tab, "sample-vault-named")
    finally:
        context.close()
        thread.close()


def test_the_header_says_which_model_answers_and_more_says_why(
    page: Any, server: ServerThread
) -> None:
    """The built-in engine in the header ("built-in model · CPU") and in More with why it was
    chosen, at 390 px: the daemon's /api/state as it sends it for the built-in model (the
    engine itself is not started for a page test)."""
    import json

    state = json.loads(page.evaluate("fetch('/api/state').then(r => r.text())"))
    state["model"] |= {
        "backend": "builtin",
        "server": "The built-in model",
        "label": "built-in model · CPU",
        "line": "built-in model · CPU · 2 threads · loaded · qwen2.5-coder-1.5b-instruct",
        "why": "auto: Ollama is not answering at http://127.0.0.1:11434; the built-in model is "
        "installed",
        "reachable": True,
        "models": {"qwen2.5-coder-1.5b-instruct": True, "all-minilm-l6-v2": True},
    }
    page.route("**/api/state", lambda route: route.fulfill(json=state))
    page.reload()
    page.wait_for_selector("#status-model:has-text('built-in model · CPU')")
    assert page.eval_on_selector("#status-model", "e => e.scrollWidth <= e.clientWidth")
    assert page.eval_on_selector(".top", "e => e.scrollWidth <= e.clientWidth")
    page.click("#tab-settings")
    details = page.inner_text("#state-details")
    assert "built-in model · CPU · 2 threads · loaded" in details
    assert "Ollama is not answering" in details  # why this one
    screenshot(page, "header-built-in-model")
