"""Assistant.propose: a change asked for from outside the chat goes through the same tool and
gate, is recorded as the owner's question with who asked, and runs nothing."""

from __future__ import annotations

from pathlib import Path

import pytest

from commonplace.assistant import Assistant, Refused, ToolError
from commonplace.assistant.engine import MAX_OUTSIDE_PENDING, client_name
from commonplace.config import Settings
from tests.assistant.conftest import MEMORY, TASKS, call, write
from tests.fakes.ollama import FakeOllama


async def test_a_proposal_is_the_gates_question_and_runs_nothing(
    assistant: Assistant, task_vault: Path, fake_ollama: FakeOllama
) -> None:
    done = await assistant.propose(
        "add_task", {"text": "Buy nails", "due": "tomorrow"}, source="mcp", client="Cursor"
    )
    assert done.new and done.proposal.question == (
        'Add the task "Buy nails (due Tuesday 27 October)" to Tasks.md?'
    )
    assert done.proposal.params == {"text": "Buy nails", "due": "2026-10-27"}  # coerced
    assert (task_vault / "Tasks.md").read_text() == TASKS
    assert fake_ollama.chat_requests() == []
    _, state = assistant.today()
    assert state.pending == [done.proposal]
    assert state.messages == [
        {
            "role": "question",
            "id": done.proposal.id,
            "text": done.proposal.question,
            "time": "2026-10-26T09:00:00+00:00",
            "asked_by": 'Asked by an MCP client calling itself "Cursor", not in this chat.',
        }
    ]
    outcome = await assistant.answer(done.proposal.id, True)
    assert (
        outcome.ran and "- [ ] Buy nails (due 2026-10-27)" in (task_vault / "Tasks.md").read_text()
    )


async def test_the_chat_sees_the_owners_answer_to_an_outside_question(
    assistant: Assistant, fake_ollama: FakeOllama
) -> None:
    done = await assistant.propose("remember", {"fact": "Sam likes oat milk"}, source="mcp")
    await assistant.answer(done.proposal.id, False)
    fake_ollama.enqueue_chat(call("list_tasks"), "Here are your tasks.")
    await assistant.respond("What's on?")
    history = fake_ollama.chat_requests()[0]["messages"]
    assert any("answered No to: Add to your memory note" in str(m["content"]) for m in history)


@pytest.mark.parametrize(
    ("tool", "arguments", "says"),
    [
        ("list_tasks", {}, "not a change"),
        ("delete_everything", {}, "not a change"),
        ("complete_task", {}, "needs 'task'"),
        ("add_task", {"text": "x", "due": "2030-01-01"}, "a year from now"),
        ("forget", {"words": "unicorns"}, "no line of the memory note"),
    ],
)
async def test_what_cannot_become_a_question_is_a_tool_error(
    assistant: Assistant, tool: str, arguments: dict[str, str], says: str
) -> None:
    with pytest.raises(ToolError, match=says):
        await assistant.propose(tool, arguments, source="mcp")
    assert assistant.today()[1].pending == []


async def test_outside_questions_are_capped_but_the_chats_own_are_not_counted(
    assistant: Assistant, fake_ollama: FakeOllama
) -> None:
    fake_ollama.enqueue_chat(call("remember", fact="Chat fact"), "Proposed.")
    await assistant.respond("Remember the chat fact")
    for n in range(MAX_OUTSIDE_PENDING):
        await assistant.propose("remember", {"fact": f"Outside fact {n}"}, source="mcp")
    with pytest.raises(ToolError, match="already waiting"):
        await assistant.propose("remember", {"fact": "One too many"}, source="mcp")
    assert len(assistant.today()[1].pending) == MAX_OUTSIDE_PENDING + 1


def test_a_clients_name_is_one_short_printable_line() -> None:
    assert client_name("Claude\n\x1b[31mDesktop\t ") == "Claude [31mDesktop"
    assert len(client_name("x" * 500)) == 60


async def test_a_yes_after_the_line_moved_names_the_task_not_the_line_now_there(
    assistant: Assistant, assistant_settings: Settings
) -> None:
    """A line was added above the chimney sweep in Obsidian: "It would now be: Tick off
    "Buy birthday card for Sam"? Ask again if that is what you want." offered the wrong task."""
    vault = assistant_settings.vault
    task = await assistant.propose("complete_task", {"task": "chimney sweep"}, source="mcp")
    fact = await assistant.propose("forget", {"words": "meetings after 10"}, source="mcp")
    write(vault, "Tasks.md", TASKS.replace("# Tasks\n", "# Tasks\n- [ ] Call the plumber\n"))
    write(vault, "Memory.md", MEMORY.replace("# Memory\n", "# Memory\n- Zoë is vegetarian.\n"))
    with pytest.raises(Refused) as refused:
        await assistant.answer(task.proposal.id, yes=True)
    assert refused.value.message == (
        'Nothing was changed: "Book the chimney sweep" is now on line 7 of Tasks.md, not line 6 '
        "(the note was edited since the question). Ask again to tick it off where it is now."
    )
    with pytest.raises(Refused) as refused:
        await assistant.answer(fact.proposal.id, yes=True)
    assert refused.value.message == (
        'Nothing was changed: "I prefer meetings after 10:00." is now on line 8 of Memory.md, '
        "not line 7 (the note was edited since the question). Ask again to remove it where it "
        "is now."
    )
    assert "- [ ] Book the chimney sweep" in (vault / "Tasks.md").read_text()
    assert "- I prefer meetings after 10:00." in (vault / "Memory.md").read_text()
