"""`commonplace chat` on vault_fixture/ with the fake Ollama; its questions are answered y/n."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from commonplace.cli.main import cli
from commonplace.llm import make_llm
from tests.assistant.conftest import call
from tests.fakes.ollama import FakeOllama


@pytest.fixture
def run_chat(vault: Path, monkeypatch: pytest.MonkeyPatch) -> Any:
    monkeypatch.setenv("COMMONPLACE_VAULT", str(vault))
    monkeypatch.setenv("COMMONPLACE_TIMEZONE", "Europe/London")

    def run(*args: str, input: str = "") -> Any:
        return CliRunner().invoke(cli, ["chat", *args], input=input, catch_exceptions=False)

    return run


def test_chat_lists_tasks_from_the_sample_vault_and_ticks_one_after_y(
    run_chat: Any, fake_ollama_thread: FakeOllama, vault: Path
) -> None:
    passport = (vault / "Travel/Passport.md").read_text()
    fake_ollama_thread.enqueue_chat(
        call("list_tasks", words="passport"),
        "Renew your passport online: due Saturday 31 October.",
        call("complete_task", task="apply for passport renewal"),
        "I've proposed ticking it off.",
    )
    result = run_chat(
        input="What about my passport?\nI applied for the passport renewal\ny\nquit\n"
    )
    assert result.exit_code == 0, result.output
    out = result.output
    assert "assistant> Renew your passport online" in out
    assert (
        'Tick off "Apply for passport renewal online (due Saturday 31 October)" in the note '
        '"Passport"? [y/N]' in out
    )
    assert 'Ticked off "Apply for passport renewal online' in out
    after = (vault / "Travel/Passport.md").read_text()
    assert after == passport.replace(
        "- [ ] Apply for passport renewal online", "- [x] Apply for passport renewal online"
    )
    listed = fake_ollama_thread.chat_requests()[1]["messages"][-1]["content"]
    assert '"Apply for passport renewal online", ' in listed  # overdue or due: today's date
    assert "Saturday 31 October 2026 (2026-10-31, " in listed


def test_anything_but_y_changes_nothing(
    run_chat: Any, fake_ollama_thread: FakeOllama, vault: Path
) -> None:
    fake_ollama_thread.enqueue_chat(call("remember", fact="Sam likes dark chocolate"), "Proposed.")
    result = run_chat("Remember", "that Sam likes dark chocolate", input="n\n")
    assert result.exit_code == 0, result.output
    assert 'Add to your memory note: "Sam likes dark chocolate"? [y/N]' in result.output
    assert "Nothing was changed." in result.output
    assert not (vault / "Memory.md").exists()


def test_ollama_down_is_one_clear_line(
    run_chat: Any, dead_ollama_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OLLAMA_HOST", dead_ollama_url)
    result = CliRunner().invoke(cli, ["chat", "hello"])
    assert result.exit_code == 1
    assert "Ollama is not answering" in result.output and "Traceback" not in result.output


def test_chat_says_which_questions_an_outside_client_asked(
    run_chat: Any, fake_ollama_thread: FakeOllama, vault: Path
) -> None:
    import asyncio

    from commonplace.assistant import build_assistant
    from commonplace.config import load_settings

    (vault / "Tasks.md").write_text("- [ ] Order timber\n")
    settings = load_settings()
    outside = build_assistant(settings, make_llm(settings))
    asyncio.run(outside.propose("complete_task", {"task": "timber"}, source="mcp", client="Zed"))
    result = run_chat(input="n\nquit\n")
    assert result.exit_code == 0, result.output
    assert '(Asked by an MCP client calling itself "Zed", not in this chat.)' in result.output
    assert 'Tick off "Order timber"? [y/N]' in result.output
    assert "Nothing was changed." in result.output
    assert (vault / "Tasks.md").read_text() == "- [ ] Order timber\n"


def test_a_request_typed_at_a_question_waiting_from_before_is_sent_not_swallowed(
    run_chat: Any, fake_ollama_thread: FakeOllama, vault: Path
) -> None:
    import asyncio

    from commonplace.assistant import build_assistant
    from commonplace.config import load_settings

    (vault / "Tasks.md").write_text("- [ ] Order timber\n")
    settings = load_settings()
    outside = build_assistant(settings, make_llm(settings))
    asyncio.run(outside.propose("complete_task", {"task": "timber"}, source="mcp", client="Zed"))
    fake_ollama_thread.enqueue_chat("Hello! How can I help?")
    result = run_chat(input="Hello there\n")
    assert result.exit_code == 0, result.output
    assert 'Tick off "Order timber"? [y/N]' in result.output
    assert "Error" not in result.output and "Aborted" not in result.output
    assert "Not answered: it stays waiting." in result.output
    assert "assistant> Hello! How can I help?" in result.output
    sent = fake_ollama_thread.chat_requests()[0]["messages"][-1]["content"]
    assert sent == "Hello there"
    assert [p.question for p in outside.today()[1].pending] == ['Tick off "Order timber"?']
    assert (vault / "Tasks.md").read_text() == "- [ ] Order timber\n"


def test_end_of_input_at_a_question_leaves_it_waiting_without_an_error(
    run_chat: Any, fake_ollama_thread: FakeOllama, vault: Path
) -> None:
    fake_ollama_thread.enqueue_chat(call("remember", fact="Sam likes dark chocolate"), "Proposed.")
    result = run_chat("Remember", "that Sam likes dark chocolate", input="")
    assert result.exit_code == 0, result.output
    assert "Aborted" not in result.output
    assert not (vault / "Memory.md").exists()


def test_with_one_message_a_message_typed_at_its_question_is_sent_too(
    run_chat: Any, fake_ollama_thread: FakeOllama, vault: Path
) -> None:
    fake_ollama_thread.enqueue_chat(
        call("remember", fact="Sam likes dark chocolate"), "Proposed.", "Hello again."
    )
    result = run_chat("Remember", "that Sam likes dark chocolate", input="hello\nn\n")
    assert result.exit_code == 0, result.output
    assert "Not answered: it stays waiting." in result.output
    assert "assistant> Hello again." in result.output
    assert fake_ollama_thread.chat_requests()[-1]["messages"][-1]["content"] == "hello"
    # Not asked again under the reply (the "n" left over is never read): a line says it waits.
    assert result.output.count("[y/N]") == 1
    assert "A question asked earlier is still waiting" in result.output
    assert "Nothing was changed." not in result.output
    assert not (vault / "Memory.md").exists()


QUESTION = 'Add to your memory note: "Sam likes dark chocolate"? [y/N]'


def test_a_waiting_question_is_put_at_the_prompt_once_then_a_line_says_it_waits(
    run_chat: Any, fake_ollama_thread: FakeOllama, vault: Path
) -> None:
    """It was put at a [y/N] prompt again under every reply while it waited, so each next
    message had to be typed at the question (and Enter there answered it No)."""
    fake_ollama_thread.enqueue_chat(
        call("remember", fact="Sam likes dark chocolate"),
        "I've proposed adding that to your memory.",
        "Hello.",
        "Hi again.",
        "Bye for now.",
    )
    lines = ["Remember that Sam likes dark chocolate", "hello", "hello again", "", "ok then"]
    result = run_chat(input="\n".join([*lines, "quit", ""]))
    assert result.exit_code == 0, result.output
    out = result.output
    assert out.count(QUESTION) == 1, out
    assert "Not answered: it stays waiting. Type 'questions' to answer later" in out
    for reply in ("Hello.", "Hi again.", "Bye for now."):
        assert f"assistant> {reply}" in out
        after = out.split(f"assistant> {reply}", 1)[1].splitlines()[1]
        assert after == (
            "  (A question asked earlier is still waiting: type 'questions' to answer it, "
            "or answer it on the phone page.)"
        )
    sent = [r["messages"][-1]["content"] for r in fake_ollama_thread.chat_requests()]
    assert sent[-3:] == ["hello", "hello again", "ok then"]  # Enter at you> sends nothing
    assert not (vault / "Memory.md").exists()


def test_questions_puts_the_waiting_ones_at_the_prompt_again(
    run_chat: Any, fake_ollama_thread: FakeOllama, vault: Path
) -> None:
    fake_ollama_thread.enqueue_chat(
        call("remember", fact="Sam likes dark chocolate"), "Proposed.", "Hello."
    )
    result = run_chat(
        input="Remember that Sam likes dark chocolate\nhello\nquestions\ny\nquestions\nquit\n"
    )
    assert result.exit_code == 0, result.output
    out = result.output
    assert out.count(QUESTION) == 2, out  # once when asked, once for 'questions'
    assert "Sam likes dark chocolate" in (vault / "Memory.md").read_text()
    assert "(No question is waiting.)" in out  # the second 'questions', after the y
    assert len(fake_ollama_thread.chat_requests()) == 3  # 'questions' is not a message


def test_yes_typed_for_an_older_question_says_how_to_answer_it_here_not_with_a_button(
    run_chat: Any, fake_ollama_thread: FakeOllama, vault: Path
) -> None:
    """The terminal was told "Answer the question with its Yes or No button"; it has none."""
    fake_ollama_thread.enqueue_chat(
        call("remember", fact="Sam likes dark chocolate"), "Proposed.", "Hello."
    )
    result = run_chat(
        input="Remember that Sam likes dark chocolate\nhello\nyes\nquestions\ny\nquit\n"
    )
    assert result.exit_code == 0, result.output
    out = result.output
    assert (
        "assistant> Type 'questions' to answer the question waiting at its [y/N] prompt.\n" in out
    )
    assert "button" not in out
    assert out.count(QUESTION) == 2  # when asked, and for 'questions'
    assert "Sam likes dark chocolate" in (vault / "Memory.md").read_text()
    assert len(fake_ollama_thread.chat_requests()) == 3  # the typed yes never reached the model


def test_a_claimed_change_says_below_only_when_the_question_comes_after_it(
    run_chat: Any, fake_ollama_thread: FakeOllama, vault: Path
) -> None:
    """This turn's question is put at the prompt under the reply: "below" is true. A question
    asked earlier is not there: the note says it waits, and the line under it says how."""
    fake_ollama_thread.enqueue_chat(
        call("remember", fact="Sam likes dark chocolate"),
        "I've saved that to your memory.",
        "I've remembered it.",
    )
    result = run_chat(input="Remember that Sam likes dark chocolate\nthanks\nquit\n")
    assert result.exit_code == 0, result.output
    out = result.output
    first = out.split("assistant> I've saved that to your memory.\n\n", 1)[1].splitlines()
    assert first[0] == "(Nothing has changed yet: answer the question below.)"
    assert first[1].startswith(f"  {QUESTION}")  # the prompt, right under it
    later = out.split("assistant> I've remembered it.\n\n", 1)[1].splitlines()
    assert later[:2] == [
        "(Nothing has changed yet: answer the question waiting.)",
        "  (A question asked earlier is still waiting: type 'questions' to answer it, "
        "or answer it on the phone page.)",
    ]
    assert not (vault / "Memory.md").exists()
