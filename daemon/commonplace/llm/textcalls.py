"""Tool calls a model printed as text instead of making them.

Small models, and servers whose chat template does not parse calls (LM Studio with some models,
lmstudio-bug-tracker #810 and #2120; llama.cpp without a tool-call format for the model), write
the call into their answer: a fenced JSON block, Qwen's `<tool_call>...</tool_call>` with the
tags left in, `<tools>...</tools>`, a bare `{"name": ..., "arguments": ...}`, or the same with
doubled braces `{{"name": ...}}` copied from a prompt template. The model chose a tool and its
arguments; only the form is wrong. So the program reads such a call back, but only when it
names one of the tools offered and its arguments are an object: anything else stays text.

The recognised call is a proposal like any other: the assistant runs a read tool and turns a
changing tool into the owner's Yes/No question, never the change itself.
"""

from __future__ import annotations

import json
import re
from collections.abc import Collection, Iterator
from typing import Any

from commonplace.llm.types import ToolCall

_TAGGED = re.compile(
    r"<(tool_call|tools|function_call|functioncall)>\s*(.*?)\s*</\1>", re.DOTALL | re.IGNORECASE
)
_FENCED = re.compile(r"```(?:json|tool_call|tool)?\s*\n?(.*?)```", re.DOTALL)


def calls_in_text(text: str, tools: Collection[str]) -> tuple[ToolCall, ...]:
    """The tool calls printed in `text`, for tools named in `tools` (none: empty)."""
    if not tools or "{" not in text:
        return ()
    found: list[ToolCall] = []
    for candidate in _candidates(text):
        for form in (candidate, _undoubled(candidate)):
            for obj in _objects(form):
                call = _as_call(obj, tools)
                if call is not None and call not in found:
                    found.append(call)
            if found:
                break
        if found:
            break  # the first form that held calls: the same calls are often printed twice
    return tuple(
        ToolCall(
            c.name, c.arguments, id=f"call_text_{i}", arguments_json=c.arguments_json, as_text=True
        )
        for i, c in enumerate(found)
    )


def _candidates(text: str) -> Iterator[str]:
    """The places a call may be, most explicit first."""
    tagged = [m.group(2) for m in _TAGGED.finditer(text)]
    if tagged:
        yield "\n".join(tagged)
    fenced = [m.group(1) for m in _FENCED.finditer(text)]
    if fenced:
        yield "\n".join(fenced)
    yield text


def _undoubled(text: str) -> str:
    """`{{"name": ...}}` as a prompt template's braces print it: single again."""
    return text.replace("{{", "{").replace("}}", "}") if "{{" in text else ""


def _objects(text: str) -> Iterator[Any]:
    """Every JSON value that starts at a '{' or '[' in `text`."""
    decoder = json.JSONDecoder()
    i = 0
    while i < len(text):
        if text[i] in "{[":
            try:
                value, end = decoder.raw_decode(text, i)
            except ValueError:
                i += 1
                continue
            if isinstance(value, list):
                yield from value
            else:
                yield value
            i = end
        else:
            i += 1


def _as_call(obj: Any, tools: Collection[str]) -> ToolCall | None:
    if not isinstance(obj, dict):
        return None
    function = obj.get("function")
    inner: dict[str, Any] = function if isinstance(function, dict) else obj
    name = inner.get("name") or inner.get("tool") or inner.get("tool_name")
    arguments = inner.get("arguments", inner.get("parameters", inner.get("args", {})))
    if isinstance(arguments, str):
        try:
            arguments = json.loads(arguments)
        except ValueError:
            return None
    if not isinstance(name, str) or name not in tools or not isinstance(arguments, dict):
        return None
    return ToolCall(name, arguments, arguments_json=json.dumps(arguments, ensure_ascii=False))
