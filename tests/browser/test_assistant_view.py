"""The Assistant view in headless Chromium: a message, a question card, Yes and No."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from tests.assistant.conftest import TASKS, call, write
from tests.browser.conftest import ServerThread, screenshot
from tests.browser.test_phone_page import wait_until
from tests.fakes.ollama import FakeOllama


def open_assistant(page: Any) -> None:
    page.click("#tab-assistant")
    page.wait_for_selector("#assistant-text")


def test_a_question_card_yes_runs_it_and_no_changes_nothing(
    page: Any, server: ServerThread, fake_ollama_thread: FakeOllama
) -> None:
    tasks = write(server.settings.vault, "Tasks.md", TASKS)
    open_assistant(page)
    assert page.is_visible("#chat-empty")
    fake_ollama_thread.enqueue_chat(
        call("complete_task", task="timber"), "I've proposed ticking off the timber order."
    )
    page.fill("#assistant-text", "The timber is ordered")
    page.click("#assistant-send")
    page.wait_for_selector(".question-card .yes")
    assert page.inner_text(".bubble.you") == "The timber is ordered"
    assert "I've proposed ticking off the timber order." in page.inner_text(".bubble.assistant")
    assert page.inner_text(".question-card .question") == (
        'Tick off "Order timber for the shed roof (due Friday 23 October)"?'
    )
    assert tasks.read_text() == TASKS  # asking changed nothing
    screenshot(page, "assistant-question")
    # By selector, not the handle found above: the page re-draws the chat on every state poll,
    # which detaches a handle held across the screenshot.
    page.click(".question-card .yes")
    page.wait_for_selector(".question-card .result.ran")
    before, after = TASKS.splitlines(), tasks.read_text().splitlines()
    changed = [i for i, (a, b) in enumerate(zip(before, after, strict=True)) if a != b]
    assert changed == [2] and after[2].startswith("- [x] Order timber")
    assert page.inner_text(".question-card .result").startswith("Yes: Ticked off")

    fake_ollama_thread.enqueue_chat(call("add_task", text="Sweep the yard"), "Proposed.")
    page.fill("#assistant-text", "Add sweeping the yard")
    page.click("#assistant-send")
    page.wait_for_selector(".question-card:has-text('Sweep the yard') .no")
    snapshot = tasks.read_text()
    page.click(".question-card:has-text('Sweep the yard') .no")
    page.wait_for_selector(".question-card:has-text('Sweep the yard') .result.not-run")
    assert tasks.read_text() == snapshot
    screenshot(page, "assistant-answered")

    page.reload()  # the day's conversation is kept by the daemon
    open_assistant(page)
    page.wait_for_selector(".question-card .result.ran")
    assert page.locator(".bubble.you").count() == 2
    assert page.locator(".answer-buttons").count() == 0

    server.now[0] += timedelta(days=1)  # a new day starts empty
    page.reload()
    open_assistant(page)
    wait_until(lambda: page.locator(".bubble").count() == 0 and page.is_visible("#chat-empty"))


def test_a_failed_reply_is_shown_and_the_page_keeps_working(
    page: Any, server: ServerThread, fake_ollama_thread: FakeOllama
) -> None:
    from tests.fakes.ollama import FakeError

    open_assistant(page)
    fake_ollama_thread.enqueue_chat(FakeError(500, "out of memory"))
    page.fill("#assistant-text", "Hello")
    page.click("#assistant-send")
    # Shown once: as the failed turn's own bubble (it was also repeated above the box, issue 34).
    page.wait_for_selector("#chat .bubble.failed:has-text('out of memory')")
    page.wait_for_selector("#assistant-send:not([disabled])")
    assert page.is_hidden("#assistant-message")
    assert page.input_value("#assistant-text") == "Hello"  # the words are kept to send again
    fake_ollama_thread.enqueue_chat("Hello! How can I help?")
    page.click("#assistant-send")
    page.wait_for_selector(".bubble.assistant:has-text('How can I help?')")


def test_a_question_an_mcp_client_asked_for_says_so_on_its_card(
    page: Any, server: ServerThread, fake_ollama_thread: FakeOllama
) -> None:
    from commonplace.assistant import build_assistant
    from commonplace.llm import make_llm

    tasks = write(server.settings.vault, "Tasks.md", TASKS)
    outside = build_assistant(
        server.settings, make_llm(server.settings), clock=lambda: server.now[0]
    )
    server._call(
        outside.propose("complete_task", {"task": "timber"}, source="mcp", client="Cursor")
    )
    open_assistant(page)
    page.wait_for_selector(".question-card .yes")
    assert page.inner_text(".question-card .asked-by") == (
        'Asked by an MCP client calling itself "Cursor", not in this chat.'
    )
    assert tasks.read_text() == TASKS
    screenshot(page, "assistant-mcp-question")
    # By selector, not the handle found above: the page re-draws the chat on every state poll,
    # which detaches a handle held across the screenshot.
    page.click(".question-card .yes")
    page.wait_for_selector(".question-card .result.ran")
    assert "- [x] Order timber" in tasks.read_text()


def test_a_waiting_question_is_one_card_however_many_replies_follow(
    page: Any, server: ServerThread, fake_ollama_thread: FakeOllama
) -> None:
    """The card stays where it was asked, with its buttons, while the talk goes on; it is not
    shown again under each later reply."""
    write(server.settings.vault, "Tasks.md", TASKS)
    open_assistant(page)
    fake_ollama_thread.enqueue_chat(
        call("complete_task", task="timber"), "I've proposed ticking it off.", "Hello.", "Hi."
    )
    for n, text in enumerate(["The timber is ordered", "hello", "hello again"], 1):
        page.fill("#assistant-text", text)
        page.click("#assistant-send")
        wait_until(lambda n=n: page.locator(".bubble.assistant:not(.pending)").count() == n)
    assert page.locator(".question-card").count() == 1
    assert page.locator(".question-card .yes").count() == 1
    order = page.eval_on_selector_all("#chat > li", "items => items.map((i) => i.className)")
    assert order.index("question-card card") == 2  # under the reply that asked it


def test_the_page_names_its_buttons_and_where_the_waiting_card_is(
    page: Any, server: ServerThread, fake_ollama_thread: FakeOllama
) -> None:
    """The page says it is the page: a typed yes for an older question points at the card's
    buttons, and a claimed change says the card is above (it was asked in an earlier reply)."""
    tasks = write(server.settings.vault, "Tasks.md", TASKS)
    open_assistant(page)
    fake_ollama_thread.enqueue_chat(
        call("complete_task", task="timber"),
        "I've proposed ticking it off.",
        "Hello.",
        "I've ticked it off.",
    )
    for n, text in enumerate(["The timber is ordered", "hello", "yes", "thanks"], 1):
        page.fill("#assistant-text", text)
        page.click("#assistant-send")
        wait_until(lambda n=n: page.locator(".bubble.assistant:not(.pending)").count() == n)
    replies = page.locator(".bubble.assistant").all_inner_texts()
    assert replies[2] == "Answer the question with its Yes or No button."
    assert replies[3] == (
        "I've ticked it off.\n\n(Nothing has changed yet: answer the question above.)"
    )
    order = page.eval_on_selector_all("#chat > li", "items => items.map((i) => i.className)")
    assert order.index("question-card card") == 2  # above both replies
    assert page.locator(".question-card .yes").count() == 1
    assert tasks.read_text() == TASKS
