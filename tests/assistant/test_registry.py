"""Tool arguments as small models send them: defaults for what is missing, coercion where the
reading is unambiguous, a short error otherwise."""

from __future__ import annotations

from datetime import date, time
from typing import Any

import pytest

from commonplace.assistant.actions import ToolError
from commonplace.assistant.registry import Param, Registry, Tool, ToolContext, coerce_arguments

TODAY = date(2026, 10, 26)


async def _run(ctx: ToolContext, args: dict[str, Any]) -> str:
    return "ok"


TOOL = Tool(
    "add_event",
    "Call when the owner asks to add an event.",
    (
        Param("title", "string", "the event's title"),
        Param("day", "date", "the day"),
        Param("start", "time", "when it starts", None),
        Param("minutes", "minutes", "how long", 60),
        Param("all_day", "boolean", "all day", False),
        Param("calendar", "string", "which calendar", "Home", choices=("Home", "Work")),
    ),
    _run,
)


def test_missing_optional_arguments_get_their_python_defaults() -> None:
    args = coerce_arguments(TOOL, {"title": "Haircut", "day": "2026-10-31"}, TODAY)
    assert args == {
        "title": "Haircut",
        "day": date(2026, 10, 31),
        "start": None,
        "minutes": 60,
        "all_day": False,
        "calendar": "Home",
    }


def test_values_are_coerced_where_unambiguous() -> None:
    raw = {
        "title": 42,
        "day": "Saturday",
        "start": "2 pm",
        "minutes": "30",
        "all_day": "false",
        "calendar": "work",
        "id": None,  # an extra argument a small model invented: dropped
    }
    args = coerce_arguments(TOOL, raw, TODAY)
    assert args["title"] == "42" and args["day"] == date(2026, 10, 31)
    assert args["start"] == time(14, 0) and args["minutes"] == 30
    assert args["all_day"] is False and args["calendar"] == "Work"
    assert "id" not in args


@pytest.mark.parametrize(
    ("raw", "message"),
    [
        ({"day": "2026-10-31"}, "add_event needs 'title'"),
        ({"title": "x", "day": "next week"}, "'day'"),
        (
            {"title": "x", "day": "today", "minutes": "half an hour"},
            "'minutes' must be a whole number",
        ),
        ({"title": "x", "day": "today", "all_day": "maybe"}, "'all_day' must be true or false"),
        ({"title": "x", "day": "today", "calendar": "Gym"}, "one of: Home, Work"),
        ({"title": ["x"], "day": "today"}, "'title' must be text"),
    ],
)
def test_arguments_that_cannot_be_read_go_back_as_errors(raw: dict[str, Any], message: str) -> None:
    with pytest.raises(ToolError, match=message):
        coerce_arguments(TOOL, raw, TODAY)


def test_schema_is_ollamas_function_format() -> None:
    schema = TOOL.schema()
    assert schema["type"] == "function"
    fn = schema["function"]
    assert fn["name"] == "add_event"
    assert fn["parameters"]["required"] == ["title", "day"]
    assert fn["parameters"]["properties"]["day"]["type"] == "string"
    assert "YYYY-MM-DD" in fn["parameters"]["properties"]["day"]["description"]
    assert fn["parameters"]["properties"]["calendar"]["enum"] == ["Home", "Work"]


def test_the_registry_refuses_two_tools_of_one_name() -> None:
    registry = Registry()
    registry.add(TOOL)
    with pytest.raises(ValueError, match="two tools"):
        registry.add(TOOL)
    assert registry.summary() == "- add_event: Call when the owner asks to add an event."
