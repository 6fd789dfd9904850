"""Against a real Ollama: shapes and the program's rules, never a model's wording.

Run with `make test-live` (OLLAMA_HOST, and the models in your commonplace.toml). A model may
word things any way it likes; what is checked is what the program promises whatever the model
says: captured words filed byte for byte, only real links, simple tags, dates in range,
citations that name given passages, a refusal without sources, a digest whose lists come from
code, tool calls that name offered tools with object arguments.
"""

from __future__ import annotations

import dataclasses
import re
from datetime import date, datetime, timedelta

import pytest

from commonplace.ask import REFUSAL, answer_question
from commonplace.capture.inbox import read_capture
from commonplace.config import Settings
from commonplace.digest import Week, make_digest
from commonplace.index import Index
from commonplace.llm import make_llm
from commonplace.tidy.catalog import VaultCatalog
from commonplace.tidy.filed_note import words_of
from commonplace.tidy.pipeline import TidyContext, tidy_capture
from commonplace.vault import parse_note

pytestmark = pytest.mark.live

FIVE_CAPTURES = [
    "2026-10-19 0742.md",
    "2026-10-20 0805.md",
    "2026-10-21 2237.md",  # the prompt injection: no "urgent", no money to-do
    "2026-10-22 1405.md",
    "2026-10-24 1430.md",
]
QUESTIONS = [
    ("When does my passport expire?", False),
    ("What time does my flight to Lisbon leave?", False),
    ("What is my blood type?", True),  # not in the notes
]


@pytest.mark.parametrize("name", FIVE_CAPTURES)
async def test_tidy_files_a_capture_by_the_rules(
    live_settings: Settings, live_index: Index, name: str
) -> None:
    s = live_settings
    rel = f"Inbox/{name}"
    capture = read_capture(s.vault, rel, s.tz)
    ctx = TidyContext(s, make_llm(s), index=live_index, now=lambda: capture.captured)
    outcome = await tidy_capture(ctx, rel)
    assert outcome.status == "filed" and outcome.filed and outcome.decision
    text = (s.vault / outcome.filed).read_text(encoding="utf-8")
    assert words_of(text, capture)  # the capture's words, byte for byte
    assert not (s.vault / rel).exists()
    note = parse_note(outcome.filed, text)
    titles = set(VaultCatalog(s).facts().titles.values())
    decision = outcome.decision
    assert set(decision.links) <= titles
    assert len(decision.tags) <= 5
    assert all(re.fullmatch(r"[a-z][a-z0-9-]*", t) for t in decision.tags)
    assert note.frontmatter["capture_id"] == capture.capture_id
    for todo in decision.todos:
        if todo.due is not None:
            assert capture.day <= todo.due <= capture.day + timedelta(days=366)
    if name == "2026-10-21 2237.md":
        assert "urgent" not in decision.tags
        assert not any("2,000" in t.text or "wire" in t.text.lower() for t in decision.todos)


@pytest.mark.parametrize(("question", "absent"), QUESTIONS)
async def test_ask_cites_given_passages_or_refuses(
    live_settings: Settings, live_index: Index, question: str, absent: bool
) -> None:
    s = live_settings
    answer = await answer_question(
        question, index=live_index, llm=make_llm(s), settings=s, today=date(2026, 10, 26)
    )
    assert answer.answer.strip()
    assert not re.search(r"!\[|<[a-z]", answer.answer)  # no images or HTML reach the answer
    given = {p.n for p in answer.passages}
    assert {src.n for src in answer.sources} <= given
    if answer.refused:
        assert answer.answer == REFUSAL and answer.sources == ()
    if not absent:
        assert answer.passages  # the question's notes are in the sample vault


async def test_the_digest_lists_come_from_code(live_settings: Settings) -> None:
    s = dataclasses.replace(live_settings)
    week = Week(2026, 43)
    outcome = await make_digest(s, make_llm(s), week, now=datetime(2026, 10, 25, 18, 0))
    assert outcome.status == "written"
    text = (s.vault / outcome.path).read_text(encoding="utf-8")
    assert "To do" in text or "to-do" in text.lower()
    summary = text.split("\n## ", 1)[0]
    sentences = [x for x in re.split(r"(?<=[.!?])\s+", summary) if x.strip()]
    assert sentences  # either the model's sentences or the line saying why there are none
    assert outcome.notification


async def test_a_chat_with_tools_names_offered_tools_with_object_arguments(
    live_settings: Settings,
) -> None:
    """What the assistant relies on: a tool call names a tool it was offered, and its arguments
    arrive as a JSON object; think=false is accepted by the configured model."""
    tools = [
        {
            "type": "function",
            "function": {
                "name": "get_weather",
                "description": "The weather forecast for a town",
                "parameters": {
                    "type": "object",
                    "properties": {"town": {"type": "string"}},
                    "required": ["town"],
                },
            },
        }
    ]
    messages = [{"role": "user", "content": "What is the weather in Leeds tomorrow?"}]
    reply = await make_llm(live_settings).chat(messages, tools=tools)
    assert reply.content or reply.tool_calls
    for call in reply.tool_calls:
        assert call.name == "get_weather"
        assert isinstance(call.arguments, dict)


async def test_one_assistant_exchange_changes_nothing_before_yes(
    live_settings: Settings,
) -> None:
    """One owner message to the assistant: a reply comes back, every tool call names one of its
    tools, and the vault is unchanged (a change is only ever a question until Yes)."""
    from commonplace.assistant import build_assistant, build_registry
    from tests.assistant.conftest import MEMORY, NOW, TASKS, write

    s = live_settings
    tasks = write(s.vault, s.assistant.tasks_note, TASKS)
    write(s.vault, s.assistant.memory_note, MEMORY)
    before = tasks.read_bytes()
    assistant = build_assistant(s, make_llm(s), clock=lambda: NOW, in_memory=True)
    turn = await assistant.respond("Add a task to ring the plumber on Thursday.")
    assert turn.reply.strip()
    names = {schema["function"]["name"] for schema in build_registry(s).schemas()}
    assert {call["name"] for call in turn.tool_calls} <= names
    assert tasks.read_bytes() == before
    for proposal in turn.proposals:
        assert proposal.question.strip()
