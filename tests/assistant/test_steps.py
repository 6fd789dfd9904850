"""Schema mode (steps.py): each model call one JSON answer held to a schema of the tools, the
program's own reply after a question, the owner's days in the arguments, no call made twice,
and the same question never asked twice in a message. The fake Ollama scripts the answers."""

from __future__ import annotations

import dataclasses
import json
from datetime import datetime
from typing import Any

import jsonschema
import pytest

from commonplace.assistant import Assistant, build_assistant, checks
from commonplace.assistant.gate import Proposal, same_change
from commonplace.assistant.steps import as_steps, step_schema
from commonplace.config import Settings
from commonplace.llm import make_llm
from tests.assistant.conftest import call
from tests.fakes.ollama import FakeOllama


def step(tool: str, **arguments: Any) -> str:
    return json.dumps({"tool": tool, "arguments": arguments})


def reply(text: str) -> str:
    return json.dumps({"tool": "reply", "text": text})


@pytest.fixture
def schema_assistant(assistant_settings: Settings, clock: list[datetime]) -> Assistant:
    s = dataclasses.replace(
        assistant_settings,
        assistant=dataclasses.replace(assistant_settings.assistant, tool_calls="schema"),
    )
    return build_assistant(s, make_llm(s), clock=lambda: clock[0])


def test_the_schema_takes_a_reply_or_one_tool_with_its_own_arguments(
    schema_assistant: Assistant,
) -> None:
    schema = step_schema(schema_assistant.registry)
    ok = [
        {"tool": "reply", "text": "Hello."},
        {"tool": "list_events", "arguments": {"day": "2026-10-29"}},
        {"tool": "add_task", "arguments": {"text": "Buy nails", "due": "Friday"}},
        {"tool": "list_tasks", "arguments": {}},
    ]
    bad = [
        {"tool": "reply", "text": ""},  # an empty reply is no answer
        {"tool": "get_todo_list", "arguments": {}},  # no such tool
        {"tool": "add_task", "arguments": {}},  # its required words
        {"tool": "add_task", "arguments": {"text": "x", "id": 3}},  # an argument it has not
        {"tool": "list_events", "arguments": {"day": "2026-10-29"}, "text": "and words"},
    ]
    for answer in ok:
        jsonschema.validate(answer, schema)
    for answer in bad:
        with pytest.raises(jsonschema.ValidationError):
            jsonschema.validate(answer, schema)
    only_reply = step_schema(schema_assistant.registry, tools=False)
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate({"tool": "list_tasks", "arguments": {}}, only_reply)


def test_the_conversation_reads_as_steps_whichever_way_it_was_made() -> None:
    messages = [
        {"role": "system", "content": "rules"},
        {"role": "user", "content": "What's due?"},
        {
            "role": "assistant",
            "content": "",
            "tool_calls": [{"id": "c1", "name": "list_tasks", "arguments": {}}],
        },
        {
            "role": "tool",
            "content": "Open tasks: none.",
            "tool_call_id": "c1",
            "name": "list_tasks",
        },
        {"role": "assistant", "content": "Nothing is due."},
    ]
    assert as_steps(messages) == [
        {"role": "system", "content": "rules"},
        {"role": "user", "content": "What's due?"},
        {"role": "assistant", "content": '{"tool": "list_tasks", "arguments": {}}'},
        {"role": "user", "content": "list_tasks answered:\nOpen tasks: none."},
        {"role": "assistant", "content": '{"tool": "reply", "text": "Nothing is due."}'},
    ]


async def test_a_change_is_the_owners_question_and_the_program_writes_the_reply(
    schema_assistant: Assistant, fake_ollama: FakeOllama
) -> None:
    before = (schema_assistant.settings.vault / "Tasks.md").read_text()
    # the turn: a due date nobody asked for, and the same task again with it glued on
    fake_ollama.enqueue_chat(
        step("add_task", text="buy bin bags", due="2026-10-27"),
        step("add_task", text="buy bin bags (due Tuesday 27 October)"),
    )
    turn = await schema_assistant.respond("Add a task: buy bin bags", client="page")
    assert turn.mode == "schema"
    assert [p.question for p in turn.proposals] == ['Add the task "buy bin bags" to Tasks.md?']
    assert turn.tool_calls[0]["from_words"] == {"due": None}
    assert turn.reply == "Answer the question below: nothing changes until you say Yes."
    assert turn.corrections == [] and turn.reminders == []
    assert len(fake_ollama.chat_requests()) == 1  # one model call: the question ends the turn
    request = fake_ollama.chat_requests()[0]
    assert "anyOf" in request["format"] and not request.get("tools")
    assert (schema_assistant.settings.vault / "Tasks.md").read_text() == before


async def test_a_read_runs_with_the_owners_day_then_the_model_replies(
    schema_assistant: Assistant, fake_ollama: FakeOllama
) -> None:
    fake_ollama.enqueue_chat(
        step("list_tasks", due_within_days=7), reply("The timber is overdue; Sam's card is due.")
    )
    turn = await schema_assistant.respond("What's due this week?")
    assert turn.tool_calls[0]["from_words"] == {"due_within_days": 6}  # to Sunday
    assert "due within 6 days" in turn.tool_calls[0]["result"]
    assert turn.reply == "The timber is overdue; Sam's card is due."
    second = fake_ollama.chat_requests()[1]["messages"]
    assert second[-2] == {"role": "assistant", "content": step("list_tasks", due_within_days=7)}
    assert second[-1]["content"].startswith("list_tasks answered:\nOpen tasks, today being")


async def test_a_call_made_again_is_not_run_and_then_only_a_reply_is_offered(
    schema_assistant: Assistant, fake_ollama: FakeOllama
) -> None:
    fake_ollama.enqueue_chat(step("list_tasks"), step("list_tasks"), reply("Four tasks are open."))
    turn = await schema_assistant.respond("What are my tasks?")
    first, again = turn.tool_calls
    assert again.get("repeated") and again["result"].startswith("Error: you called list_tasks")
    assert not first.get("repeated") and turn.reply == "Four tasks are open."
    last = fake_ollama.chat_requests()[-1]["format"]
    assert last["properties"]["tool"] == {"const": "reply"}  # no tool left to call


async def test_a_change_answered_without_a_tool_is_sent_back_to_a_step_that_must_be_a_tool(
    schema_assistant: Assistant, fake_ollama: FakeOllama
) -> None:
    fake_ollama.enqueue_chat(
        reply("I remember that Sam is allergic to peanuts."),
        step("remember", fact="Sam is allergic to peanuts."),
    )
    turn = await schema_assistant.respond("Remember that Sam is allergic to peanuts.")
    assert turn.reminders == [checks.NOT_DONE]
    assert [p.question for p in turn.proposals] == [
        'Add to your memory note: "Sam is allergic to peanuts."?'
    ]
    first, second = (r["format"] for r in fake_ollama.chat_requests())
    assert {"tool": {"const": "reply"}, "text": {"type": "string", "minLength": 1}} in [
        o["properties"] for o in first["anyOf"]
    ]
    # told to call the tool, the model may not write the reminder back as its reply
    assert all(o["properties"]["tool"] != {"const": "reply"} for o in second["anyOf"])
    assert turn.reply.startswith("Answer the question") and "Yes" in turn.reply


async def test_an_answer_that_is_no_step_gets_the_empty_reminder(
    schema_assistant: Assistant, fake_ollama: FakeOllama
) -> None:
    fake_ollama.enqueue_chat("not JSON at all", reply("Hello!"))
    turn = await schema_assistant.respond("Hi")
    assert turn.reminders == [checks.EMPTY] and turn.reply == "Hello!"


async def test_native_tool_calls_ask_the_same_question_once_too(
    assistant: Assistant, fake_ollama: FakeOllama
) -> None:
    fake_ollama.enqueue_chat(
        call("add_task", text="buy bin bags"),
        call("add_task", text="buy bin bags (due Tuesday 27 October)", due="2026-10-27"),
        "I've proposed it.",
    )
    turn = await assistant.respond("Add a task: buy bin bags")
    assert turn.mode == "native"
    assert [p.question for p in turn.proposals] == ['Add the task "buy bin bags" to Tasks.md?']
    assert turn.tool_calls[1]["result"].startswith('Proposed already: Add the task "buy bin bags"')


def proposal(kind: str, **params: Any) -> Proposal:
    return Proposal("2026-10-26-00000000", kind, params, "?", "2026-10-26")


SAME = [
    ("add_task", {"text": "Buy bin bags (due Tuesday 27 October)"}, {"text": "buy bin bags"}, True),
    ("add_task", {"text": "Buy nails"}, {"text": "Buy bin bags"}, False),
    ("add_memory", {"text": "Sam is allergic to peanuts"}, {"text": "Sam: peanuts"}, True),
    ("add_memory", {"text": "Sam is allergic to peanuts"}, {"text": "Zoë is vegan"}, False),
    ("move_event", {"href": "/a.ics", "recurrence_id": None}, {"href": "/a.ics"}, True),
    ("move_event", {"href": "/a.ics", "recurrence_id": "x"}, {"href": "/a.ics"}, False),
    ("complete_task", {"path": "Tasks.md", "line": 3}, {"path": "Tasks.md", "line": 3}, True),
    ("complete_task", {"path": "Tasks.md", "line": 3}, {"path": "Tasks.md", "line": 4}, False),
    ("add_event", {"title": "Haircut", "start": "2026-10-31T14:00"},
     {"title": "haircut", "start": "2026-10-31T15:00"}, True),
    ("add_event", {"title": "Haircut", "start": "2026-11-01T14:00"},
     {"title": "Haircut", "start": "2026-10-31T14:00"}, False),
]  # fmt: skip


@pytest.mark.parametrize(("kind", "new", "earlier", "same"), SAME)
def test_the_same_change_asked_again(
    kind: str, new: dict[str, Any], earlier: dict[str, Any], same: bool
) -> None:
    assert same_change(kind, new, proposal(kind, **earlier)) is same
    assert not same_change("delete_event", new, proposal(kind, **earlier))


@pytest.mark.parametrize("client", ["page", "cli", "api"])
@pytest.mark.parametrize(("pending", "this_turn"), [(1, 1), (2, 2), (2, 1)])
def test_the_programs_reply_after_a_question_is_never_corrected(
    client: checks.Client, pending: int, this_turn: int
) -> None:
    facts = checks.TurnFacts(
        proposed=this_turn, pending=pending, pending_this_turn=this_turn, client=client
    )
    text = checks.waiting_reply(facts)
    assert checks.correct(text, facts) == (text, [])
    assert checks.reminder_for(text, facts) is None
    assert "Yes" in text


def test_a_tool_answer_of_this_message_ends_with_the_owners_question_again() -> None:
    messages = [
        {"role": "user", "content": "What's due?"},  # an earlier message
        {"role": "assistant", "content": "", "tool_calls": [{"name": "list_tasks"}]},
        {"role": "tool", "content": "Open tasks: none.", "name": "list_tasks"},
        {"role": "assistant", "content": "Nothing."},
        {"role": "user", "content": "What's on Thursday?"},
        {"role": "assistant", "content": "", "tool_calls": [{"name": "list_events"}]},
        {"role": "tool", "content": "Thursday: Dentist at 16:00.", "name": "list_events"},
    ]
    steps = as_steps(messages, "What's on Thursday?")
    assert steps[2]["content"] == "list_tasks answered:\nOpen tasks: none."
    assert steps[-1]["content"] == (
        "list_events answered:\nThursday: Dentist at 16:00.\n\nThe owner asked: \"What's on "
        'Thursday?"'
    )


def test_the_not_looked_reminder_names_what_to_look_at_and_with_which_tools() -> None:
    facts = checks.TurnFacts(
        user_text="Am I free on Sunday morning?",
        domains=frozenset({"calendar", "weather"}),
        readers={"calendar": ("list_events", "find_events"), "weather": ("weather",)},
        looked_at={"weather"},
    )
    reply_text = "Yes, you are free on Sunday morning."
    assert checks.reminder_for(reply_text, facts) == checks.NOT_LOOKED
    template = "You haven't looked at $what yet. Call $tools first, then answer from it."
    assert checks.reminder_text(checks.NOT_LOOKED, template, reply_text, facts) == (
        "You haven't looked at your calendar yet. Call list_events or find_events first, then "
        "answer from it."
    )
    assert checks.reminder_text(checks.EMPTY, "Please answer me.", "", facts) == (
        "Please answer me."
    )
