"""A change asked for by an MCP client becomes the owner's question, and only the owner's Yes
(on the phone page or in `commonplace chat`, never the client) makes it."""

from __future__ import annotations

from commonplace.assistant import build_assistant
from commonplace.config import Settings
from commonplace.llm import make_llm
from commonplace.mcp.local import LocalBackend
from tests.assistant.conftest import NOW
from tests.mcp_server.conftest import connected, error_text, structured, vault_hashes

TIMBER = 'Tick off "Order timber for the shed roof (due Friday 23 October)"?'


async def test_a_proposal_changes_nothing_and_waits_on_the_owners_page(
    mcp_settings: Settings, bare_backend: LocalBackend
) -> None:
    before = vault_hashes(mcp_settings.vault)
    async with connected(mcp_settings, bare_backend, client_name="Claude Desktop") as client:
        asked = structured(await client.call_tool("propose_complete_task", {"task": "timber"}))
        again = structured(await client.call_tool("propose_complete_task", {"task": "timber"}))
    assert asked == {
        "changed": False,
        "question": TIMBER,
        "already_waiting": False,
        "message": (
            "Nothing has changed. The owner has been asked on their phone (the Assistant view "
            f"of Commonplace): {TIMBER} It changes only if they answer Yes there, today. "
            "Tell the owner the question is waiting for them."
        ),
    }
    assert again["already_waiting"] is True and again["changed"] is False
    assert vault_hashes(mcp_settings.vault) == before

    # The owner's view: one question card, saying who asked.
    owner = build_assistant(mcp_settings, make_llm(mcp_settings), clock=lambda: NOW)
    _, state = owner.today()
    assert [(p.question, p.source, p.client) for p in state.pending] == [
        (TIMBER, "mcp", "Claude Desktop")
    ]
    card = next(m for m in state.messages if m["role"] == "question")
    assert (
        card["asked_by"]
        == 'Asked by an MCP client calling itself "Claude Desktop", not in this chat.'
    )

    # The owner says Yes: only now the line is ticked, through the gate.
    outcome = await owner.answer(state.pending[0].id, True)
    assert outcome.ran
    assert (
        "- [x] Order timber for the shed roof (due 2026-10-23)"
        in (mcp_settings.vault / "Tasks.md").read_text()
    )


async def test_each_change_tool_asks_the_question_the_gate_writes(
    mcp_settings: Settings, bare_backend: LocalBackend
) -> None:
    async with connected(mcp_settings, bare_backend) as client:
        add = structured(
            await client.call_tool("propose_add_task", {"text": "Buy nails", "due": "friday"})
        )
        remember = structured(
            await client.call_tool("propose_remember", {"fact": "Sam is allergic to peanuts"})
        )
        forget = structured(await client.call_tool("propose_forget", {"words": "meetings"}))
    assert add["question"] == 'Add the task "Buy nails (due Friday 30 October)" to Tasks.md?'
    assert remember["question"] == 'Add to your memory note: "Sam is allergic to peanuts"?'
    assert forget["question"] == 'Remove from your memory note: "I prefer meetings after 10:00."?'
    assert {add["changed"], remember["changed"], forget["changed"]} == {False}


async def test_a_request_the_gate_cannot_make_a_question_of_is_an_error_the_client_reads(
    mcp_settings: Settings, bare_backend: LocalBackend
) -> None:
    before = vault_hashes(mcp_settings.vault)
    async with connected(mcp_settings, bare_backend) as client:
        unknown = await client.call_tool("propose_complete_task", {"task": "unicorn"})
        several = await client.call_tool("propose_complete_task", {"task": "passport"})
        bad_date = await client.call_tool("propose_add_task", {"text": "x", "due": "someday"})
    assert "no open task matches" in error_text(unknown)
    assert "several open tasks match" in error_text(several)
    assert "due" in error_text(bad_date)
    assert vault_hashes(mcp_settings.vault) == before
    owner = build_assistant(mcp_settings, make_llm(mcp_settings), clock=lambda: NOW)
    assert owner.today()[1].pending == []


async def test_a_client_cannot_flood_the_owner_with_questions(
    mcp_settings: Settings, bare_backend: LocalBackend
) -> None:
    async with connected(mcp_settings, bare_backend) as client:
        for n in range(5):
            structured(await client.call_tool("propose_remember", {"fact": f"Fact number {n}"}))
        sixth = await client.call_tool("propose_remember", {"fact": "Fact number 6"})
    assert "already waiting" in error_text(sixth)


async def test_a_todo_in_two_notes_is_named_by_its_note_and_the_question_says_which(
    mcp_settings: Settings, bare_backend: LocalBackend
) -> None:
    """The same to-do in two notes: the client was told "several match" and had no way to
    say which; now it names the note (as list_tasks gives its path), and the owner's question
    names it too."""
    from tests.assistant.conftest import TASKS, write

    write(mcp_settings.vault, "Tasks.md", TASKS + "- [ ] Water the plants\n")
    write(mcp_settings.vault, "Areas/Garden.md", "- [ ] Water the plants\n")
    async with connected(mcp_settings, bare_backend) as client:
        several = error_text(await client.call_tool("propose_complete_task", {"task": "water"}))
        asked = structured(
            await client.call_tool(
                "propose_complete_task", {"task": "water", "note": "Areas/Garden.md"}
            )
        )
    assert 'in the note "Garden"' in several and "'note'" in several
    assert asked["question"] == 'Tick off "Water the plants" in the note "Garden"?'
