"""The neutral chat message, and its translation into each server's wire form.

The stages write messages as plain dicts in one neutral shape:

- `{"role": "system" | "user" | "assistant", "content": str}`
- an assistant turn that called tools: `{"role": "assistant", "content": str, "tool_calls":
  [{"id": str, "name": str, "arguments": {...}}]}`
- a tool's answer: `{"role": "tool", "content": str, "tool_call_id": str, "name": str}`

Ollama wants tool calls as `{"function": {"name", "arguments": object}}` and a tool answer
with `tool_name`; an OpenAI-compatible server wants `{"id", "type": "function", "function":
{"name", "arguments": JSON text}}` and the answer with `tool_call_id`. `neutral()` also reads
both wire forms back, so the assistant's day logs written before this seam (Ollama-shaped)
still make a history.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from commonplace.llm.types import ToolCall

Message = Mapping[str, Any]


def call_message(content: str, calls: Sequence[ToolCall]) -> dict[str, Any]:
    """The assistant's turn that made `calls`, in the neutral shape."""
    return {
        "role": "assistant",
        "content": content,
        "tool_calls": [{"id": c.id, "name": c.name, "arguments": c.arguments} for c in calls],
    }


def tool_message(call: ToolCall, result: str) -> dict[str, Any]:
    """A tool's answer to `call`, in the neutral shape."""
    return {"role": "tool", "content": result, "tool_call_id": call.id, "name": call.name}


def neutral(message: Message) -> dict[str, Any]:
    """Any of the three shapes (neutral, Ollama's, OpenAI's) as the neutral one."""
    out: dict[str, Any] = {"role": message.get("role", "user"), "content": _text(message)}
    calls = message.get("tool_calls")
    if calls:
        out["tool_calls"] = [_neutral_call(c, i) for i, c in enumerate(calls)]
    if out["role"] == "tool":
        out["tool_call_id"] = str(message.get("tool_call_id") or "")
        out["name"] = str(message.get("name") or message.get("tool_name") or "")
    return out


def _text(message: Message) -> str:
    content = message.get("content")
    return content if isinstance(content, str) else ""


def _neutral_call(call: Mapping[str, Any], index: int) -> dict[str, Any]:
    function = call.get("function")
    if isinstance(function, Mapping):  # Ollama's or OpenAI's
        name, arguments = function.get("name"), function.get("arguments")
    else:
        name, arguments = call.get("name"), call.get("arguments")
    if isinstance(arguments, str):
        try:
            arguments = json.loads(arguments)
        except ValueError:
            arguments = {}
    return {
        "id": str(call.get("id") or f"call_{index}"),
        "name": str(name or ""),
        "arguments": arguments if isinstance(arguments, dict) else {},
    }


def to_ollama(messages: Sequence[Message]) -> list[dict[str, Any]]:
    """Ollama's /api/chat messages."""
    out: list[dict[str, Any]] = []
    for message in map(neutral, messages):
        wire: dict[str, Any] = {"role": message["role"], "content": message["content"]}
        if message.get("tool_calls"):
            wire["tool_calls"] = [
                {"function": {"name": c["name"], "arguments": c["arguments"]}}
                for c in message["tool_calls"]
            ]
        if message["role"] == "tool":
            wire["tool_name"] = message["name"]
        out.append(wire)
    return out


def to_openai(messages: Sequence[Message]) -> list[dict[str, Any]]:
    """/v1/chat/completions messages. A tool answer without its call's id (a day log from
    Ollama, which gave none) takes the id of the call it follows, as every such server checks
    that each tool answer has a call."""
    out: list[dict[str, Any]] = []
    open_ids: list[str] = []
    for message in map(neutral, messages):
        wire: dict[str, Any] = {"role": message["role"], "content": message["content"]}
        if message.get("tool_calls"):
            open_ids = [c["id"] for c in message["tool_calls"]]
            wire["tool_calls"] = [
                {
                    "id": c["id"],
                    "type": "function",
                    "function": {
                        "name": c["name"],
                        "arguments": json.dumps(c["arguments"], ensure_ascii=False),
                    },
                }
                for c in message["tool_calls"]
            ]
        if message["role"] == "tool":
            call_id = message["tool_call_id"] or (open_ids.pop(0) if open_ids else "")
            if call_id in open_ids:
                open_ids.remove(call_id)
            wire["tool_call_id"] = call_id
        out.append(wire)
    return out
