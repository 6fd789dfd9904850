"""Tool calls printed as text are read back, for tools that were offered only (textcalls.py);
and the neutral message reads every wire form back (messages.py)."""

from __future__ import annotations

import json

import pytest

from commonplace.llm import ToolCall, call_message, neutral, tool_message
from commonplace.llm.messages import to_ollama, to_openai
from commonplace.llm.textcalls import calls_in_text

TOOLS = ["list_events", "add_task"]
CALL = {"name": "list_events", "arguments": {"day": "2026-10-29"}}


@pytest.mark.parametrize(
    "text",
    [
        "```json\n" + json.dumps(CALL) + "\n```",
        "<tool_call>\n" + json.dumps(CALL) + "\n</tool_call>",
        "<tools>" + json.dumps(CALL) + "</tools>",
        "I'll look: " + json.dumps(CALL),
        '{{"name": "list_events", "arguments": {{"day": "2026-10-29"}}}}',
        json.dumps(
            {"function": {"name": "list_events", "arguments": json.dumps(CALL["arguments"])}}
        ),
        json.dumps([CALL]),
        "```json\n" + json.dumps(CALL) + "\n```\n\n" + json.dumps(CALL),  # printed twice: once
    ],
)
def test_a_printed_call_is_read_back(text: str) -> None:
    (call,) = calls_in_text(text, TOOLS)
    assert (call.name, call.arguments, call.as_text) == ("list_events", {"day": "2026-10-29"}, True)


@pytest.mark.parametrize(
    "text",
    [
        "The chess night moved to Wednesdays.",
        json.dumps({"name": "delete_everything", "arguments": {}}),  # not a tool offered
        json.dumps({"name": "list_events", "arguments": "not json"}),
        '{"title": "Pears", "tags": ["fruit"]}',  # JSON, but no call
        "```json\n{broken\n```",
    ],
)
def test_anything_else_stays_text(text: str) -> None:
    assert calls_in_text(text, TOOLS) == ()


def test_no_tools_no_calls() -> None:
    assert calls_in_text(json.dumps(CALL), []) == ()


def test_the_neutral_message_goes_out_in_each_wire_form_and_comes_back() -> None:
    call = ToolCall("list_events", {"day": "2026-10-29"}, id="call_7")
    said = call_message("", [call])
    answer = tool_message(call, "Nothing that day.")
    (o_said, o_answer) = to_ollama([said, answer])
    assert o_said["tool_calls"] == [
        {"function": {"name": "list_events", "arguments": {"day": "2026-10-29"}}}
    ]
    assert o_answer == {"role": "tool", "content": "Nothing that day.", "tool_name": "list_events"}
    (a_said, a_answer) = to_openai([said, answer])
    assert a_said["tool_calls"][0]["id"] == "call_7"
    assert json.loads(a_said["tool_calls"][0]["function"]["arguments"]) == {"day": "2026-10-29"}
    assert a_answer["tool_call_id"] == "call_7"
    assert neutral(o_said)["tool_calls"][0]["arguments"] == {"day": "2026-10-29"}
    assert neutral(a_said)["tool_calls"][0]["id"] == "call_7"


def test_an_ollama_shaped_day_log_still_makes_a_history_for_an_openai_server() -> None:
    """The assistant's day logs written before the seam hold Ollama's shapes (no call ids):
    each tool answer gets the id of the call it follows, as these servers require."""
    old = [
        {"role": "user", "content": "Thursday?"},
        {
            "role": "assistant",
            "content": "",
            "tool_calls": [{"function": {"name": "list_events", "arguments": {"day": "x"}}}],
        },
        {"role": "tool", "content": "Chess 19:00", "tool_name": "list_events"},
    ]
    wire = to_openai(old)
    assert wire[1]["tool_calls"][0]["id"] == wire[2]["tool_call_id"] == "call_0"
