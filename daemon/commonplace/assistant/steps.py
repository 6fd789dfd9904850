"""The assistant's turn as schema-constrained steps, for a model that does not call tools well.

A small model that prints its tool calls as text (Qwen2.5-Coder 1.5B writes a fenced JSON
block, `{{"name": ...}}` or `<tools>...</tools>`) chooses the right tool and sensible arguments
often, but the form is a coin toss, and the chat template's tool section is a long prompt for
it to read. So each model call is one JSON answer the server holds to a schema (llama.cpp's
grammar, Ollama's `format`): `{"tool": <one of the tools>, "arguments": {...}}`, whose
arguments follow that tool's own schema, or `{"tool": "reply", "text": ...}`. The model cannot
misspell a tool or an argument, and every choice it makes is from a list. What the tools
answer and what the program does with it are the same as with tool calls: a read runs, a
change becomes the owner's question (gate.py), every reply is checked (checks.py).

When this is used is decided from what was found about the model (`LLM.tool_calling`), never
from its name: a server that refuses tools, or a model found printing its calls.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

import pydantic

from commonplace.assistant.registry import Registry
from commonplace.llm import LLM, BadAnswer, ChatReply, ToolCall, neutral

REPLY = "reply"


class Step(pydantic.BaseModel):
    """One step as the model wrote it (the schema says which fields go with which tool)."""

    tool: str
    arguments: dict[str, Any] = pydantic.Field(default_factory=dict)
    text: str = ""


def step_schema(registry: Registry, *, tools: bool = True, reply: bool = True) -> dict[str, Any]:
    """One JSON answer: a reply, or one tool with its own arguments (each tool's parameters
    schema, nothing else allowed in it)."""
    options: list[dict[str, Any]] = []
    if reply:
        options.append(
            _object({"tool": {"const": REPLY}, "text": {"type": "string", "minLength": 1}})
        )
    if tools:
        for tool in registry.tools.values():
            parameters = dict(tool.schema()["function"]["parameters"])
            parameters["additionalProperties"] = False
            options.append(_object({"tool": {"const": tool.name}, "arguments": parameters}))
    return options[0] if len(options) == 1 else {"anyOf": options}


def _object(properties: dict[str, Any]) -> dict[str, Any]:
    return {
        "type": "object",
        "properties": properties,
        "required": list(properties),
        "additionalProperties": False,
    }


async def next_step(
    llm: LLM,
    messages: Sequence[Mapping[str, Any]],
    registry: Registry,
    number: int,
    *,
    tools: bool = True,
    reply: bool = True,
    question: str = "",
) -> ChatReply:
    """The model's next step as a ChatReply: a tool call (made by the program from the JSON
    answer) or a reply's text. An answer that is no step (the server did not hold it to the
    schema, or a tool we do not have) comes back as an empty reply, which the checks meet
    with their reminder. Without `reply` the step must be a tool: after the owner asked for a
    change and the model answered without proposing it, told to call the tool, a small model
    wrote the reminder back as its reply."""
    schema = step_schema(registry, tools=tools, reply=reply or not tools)
    try:
        step = await llm.chat_json(as_steps(messages, question), Step, schema=schema)
    except BadAnswer:
        return ChatReply(content="")
    if step.tool == REPLY:
        return ChatReply(content=step.text.strip(), raw=step.text)
    if step.tool not in registry.tools or not tools:
        return ChatReply(content="")
    call = ToolCall(
        step.tool,
        step.arguments,
        id=f"step_{number}",
        arguments_json=json.dumps(step.arguments, ensure_ascii=False),
    )
    return ChatReply(content="", tool_calls=(call,))


def as_steps(messages: Sequence[Mapping[str, Any]], question: str = "") -> list[dict[str, Any]]:
    """The conversation as a model answering in steps reads it: each of its turns as the JSON
    step it was (tool calls made earlier, perhaps by tool calling, included), each tool's
    answer as a message that says which tool gave it; those after the owner's `question` end
    with it again, as a small model answers what it read last (after a listing it said "There
    are no events on Thursday" with two events above)."""
    out: list[dict[str, Any]] = []
    asked = max(
        (
            i
            for i, m in enumerate(messages)
            if m.get("role") == "user" and m.get("content") == question
        ),
        default=len(messages),
    )
    for index, message in enumerate(map(neutral, messages)):
        role, content = message["role"], message["content"]
        if role == "assistant" and message.get("tool_calls"):
            steps = [
                json.dumps({"tool": c["name"], "arguments": c["arguments"]}, ensure_ascii=False)
                for c in message["tool_calls"]
            ]
            out.append({"role": "assistant", "content": "\n".join(steps)})
        elif role == "assistant":
            out.append({"role": "assistant", "content": step_text(content)})
        elif role == "tool":
            name = message.get("name") or "the tool"
            text = f"{name} answered:\n{content}"
            if question and index > asked:
                text += f'\n\nThe owner asked: "{question}"'
            out.append({"role": "user", "content": text})
        else:
            out.append({"role": role, "content": content})
    return out


def step_text(reply: str) -> str:
    """A reply as the step that says it."""
    return json.dumps({"tool": REPLY, "text": reply}, ensure_ascii=False)
