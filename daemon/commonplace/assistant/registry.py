"""The assistant's tools: plain functions with a one-line description, and their arguments.

Small models leave optional arguments out, send numbers as strings and dates in words. So every
optional argument has a Python default, every argument is coerced here where that is
unambiguous, and anything else goes back to the model as one short `Error: ...` line it can act
on. A changing tool never changes anything: it returns a `Propose` for the gate (gate.py,
actions.py).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterable, Mapping
from dataclasses import dataclass, field
from datetime import date, datetime, time
from typing import TYPE_CHECKING, Any

from commonplace.assistant import said
from commonplace.assistant.actions import Action, Propose, ToolError
from commonplace.assistant.arguments import ROLES
from commonplace.assistant.days import DateWordsError, parse_day, parse_time

if TYPE_CHECKING:
    from commonplace.config import Settings


class _Required:
    def __repr__(self) -> str:
        return "REQUIRED"


REQUIRED: Any = _Required()

KINDS = ("string", "integer", "number", "boolean", "date", "time", "minutes")
_JSON_TYPE = {
    "string": "string",
    "integer": "integer",
    "number": "number",
    "boolean": "boolean",
    "date": "string",
    "time": "string",
    "minutes": "integer",
}
_KIND_HINT = {
    "date": " (YYYY-MM-DD, from the list of days)",
    "time": " (HH:MM, 24-hour)",
    "minutes": " (a number of minutes)",
}


@dataclass(frozen=True)
class Param:
    name: str
    kind: str
    description: str
    default: Any = REQUIRED
    choices: tuple[str, ...] = ()
    said: str = ""  # what of the owner's words it takes, if any (arguments.py's ROLES)

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise ValueError(f"unknown parameter kind {self.kind!r}")
        if self.said and self.said not in ROLES:
            raise ValueError(f"unknown role {self.said!r} for {self.name!r}")

    @property
    def required(self) -> bool:
        return self.default is REQUIRED


@dataclass(frozen=True)
class ToolContext:
    settings: Settings
    now: datetime  # aware, in the user's timezone
    words: str = ""  # the owner's message this turn answers: what it names may find a thing

    @property
    def today(self) -> date:
        return self.now.date()


ToolRun = Callable[[ToolContext, dict[str, Any]], Awaitable["str | Propose"]]


@dataclass(frozen=True)
class Tool:
    name: str
    description: str  # one line, for a small model: WHEN to call it
    params: tuple[Param, ...]
    run: ToolRun
    looks_at: str = ""  # "calendar" | "tasks" | "memory" | "weather": what a read shows
    searches_ahead: bool = False  # a read that covers the coming days
    changes: bool = False  # run returns a Propose
    status: str = ""  # shown on the page while it runs: "Looking at your tasks…"

    def roles(self) -> dict[str, str]:
        """What of the owner's words each argument takes (arguments.py): role -> name."""
        return {p.said: p.name for p in self.params if p.said}

    def schema(self) -> dict[str, Any]:
        """The tool as a `tools` entry (OpenAI's function format, which every server takes)."""
        properties: dict[str, Any] = {}
        for p in self.params:
            prop: dict[str, Any] = {
                "type": _JSON_TYPE[p.kind],
                "description": p.description + _KIND_HINT.get(p.kind, ""),
            }
            if p.choices:
                prop["enum"] = list(p.choices)
            properties[p.name] = prop
        return {
            "type": "function",
            "function": {
                "name": self.name,
                "description": self.description,
                "parameters": {
                    "type": "object",
                    "properties": properties,
                    "required": [p.name for p in self.params if p.required],
                },
            },
        }


@dataclass
class Registry:
    """The tools the model may call and the actions the gate may run, by name."""

    tools: dict[str, Tool] = field(default_factory=dict)
    actions: dict[str, Action] = field(default_factory=dict)

    def add(self, tool: Tool) -> None:
        if tool.name in self.tools:
            raise ValueError(f"two tools called {tool.name!r}")
        self.tools[tool.name] = tool

    def add_action(self, action: Action) -> None:
        if action.kind in self.actions:
            raise ValueError(f"two actions called {action.kind!r}")
        self.actions[action.kind] = action

    def extend(self, tools: Iterable[Tool], actions: Iterable[Action] = ()) -> None:
        for tool in tools:
            self.add(tool)
        for action in actions:
            self.add_action(action)

    def readers(self) -> dict[str, tuple[str, ...]]:
        """The tools that read each domain ("calendar": list_events, find_events), for a
        reminder that names them."""
        found: dict[str, tuple[str, ...]] = {}
        for t in self.tools.values():
            if t.looks_at and not t.changes:
                found[t.looks_at] = (*found.get(t.looks_at, ()), t.name)
        return found

    def schemas(self) -> list[dict[str, Any]]:
        return [tool.schema() for tool in self.tools.values()]

    def summary(self, *, arguments: bool = False) -> str:
        """One line per tool for the instructions: its name and when to call it; with
        `arguments`, its arguments' names too (optional ones marked '?'), for a model that
        sees no tool schema (steps.py)."""
        lines = []
        for t in self.tools.values():
            names = ", ".join(p.name + ("" if p.required else "?") for p in t.params)
            lines.append(
                f"- {t.name} ({names}): {t.description}"
                if arguments
                else f"- {t.name}: {t.description}"
            )
        return "\n".join(lines)


def coerce_arguments(tool: Tool, raw: Mapping[str, Any], today: date) -> dict[str, Any]:
    """The arguments `run` gets: defaults filled in, values coerced; ToolError if impossible.

    Unknown argument names are dropped: small models add extras ("id": null) that mean nothing.
    """
    values: dict[str, Any] = {}
    for param in tool.params:
        value = raw.get(param.name)
        if value is None or (isinstance(value, str) and not value.strip()):
            if param.required:
                raise ToolError(f"{tool.name} needs '{param.name}': {param.description}")
            values[param.name] = param.default
            continue
        values[param.name] = coerce(param, value, today)
    return values


def coerce(param: Param, value: Any, today: date) -> Any:
    """One argument to its kind, where the reading is unambiguous."""
    name = param.name
    kind = param.kind
    if kind == "string":
        if isinstance(value, list | dict):
            raise ToolError(f"'{name}' must be text")
        text = str(value).strip()
        if param.choices:
            match = next((c for c in param.choices if c.lower() == text.lower()), None)
            if match is None:
                raise ToolError(f"'{name}' must be one of: {', '.join(param.choices)}")
            return match
        return text
    if kind == "boolean":
        if isinstance(value, bool):
            return value
        text = str(value).strip().lower()
        if text in ("true", "yes", "1"):
            return True
        if text in ("false", "no", "0"):
            return False
        raise ToolError(f"'{name}' must be true or false")
    if kind in ("integer", "minutes"):
        return _integer(name, value)
    if kind == "number":
        if isinstance(value, bool):
            raise ToolError(f"'{name}' must be a number")
        try:
            return float(value)
        except (TypeError, ValueError):
            raise ToolError(f"'{name}' must be a number, not {value!r}") from None
    if kind == "date":
        try:
            return parse_day(str(value), today)
        except DateWordsError as exc:
            # a label copied from the day list ("Thursday 29 October"), "29 October", "the 30th"
            found = said.read(str(value), datetime.combine(today, time(12)))
            if found.one_day is not None and found.one_day.days == 1 and not found.vague:
                return found.one_day.first
            raise ToolError(f"'{name}': {exc}") from None
    if kind == "time":
        try:
            return parse_time(str(value))
        except DateWordsError as exc:
            raise ToolError(f"'{name}': {exc}") from None
    raise AssertionError(kind)  # pragma: no cover - Param checks its kind


def _integer(name: str, value: Any) -> int:
    if isinstance(value, bool):
        raise ToolError(f"'{name}' must be a whole number")
    if isinstance(value, int):
        return value
    if isinstance(value, float) and value.is_integer():
        return int(value)
    text = str(value).strip().lower()
    for unit in (" minutes", " minute", " mins", " min", "m"):
        text = text.removesuffix(unit)
    try:
        return int(text.strip())
    except ValueError:
        raise ToolError(f"'{name}' must be a whole number, not {value!r}") from None


def as_date(value: Any) -> date:
    """For actions reading params back from JSON: an ISO date string to a date."""
    return value if isinstance(value, date) else date.fromisoformat(str(value))


def as_time(value: Any) -> time:
    return value if isinstance(value, time) else time.fromisoformat(str(value))
