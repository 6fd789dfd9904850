"""What a change is, as the tools, the gate and the actions share it.

A changing tool (registry.py) returns a `Propose`; the gate (gate.py) hands it to the `Action`
of its kind, whose `describe` writes the question from the real object and whose `run` alone
changes anything. They meet here, so the tools and the gate need not know each other.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Protocol


class ToolError(Exception):
    """A failure the model can fix (a bad argument, nothing found): goes back as `Error: ...`."""


@dataclass(frozen=True)
class Propose:
    """What a changing tool returns: not a change, a request to the gate to ask the owner."""

    kind: str
    params: dict[str, Any]


class Stale(Exception):
    """The object the question was about changed or is gone; str() tells the owner what."""


class Unconfirmed(Exception):
    """The change was sent and no answer says what became of it (a calendar server that is
    slow, drops the connection, or answers with a gateway error): it may have been made, or
    not. str() says so and how to check; never "Nothing was changed"."""


@dataclass(frozen=True)
class Described:
    question: str  # written by the program from the real object
    token: Any = None  # what run() compares against: a file hash, an ETag, ...


class Action(Protocol):
    kind: str

    async def describe(self, params: Mapping[str, Any], now: datetime) -> Described:
        """Read the real object(s) now and write the question; raise Stale if gone or
        changed, ToolError if the params make no sense."""
        ...

    async def run(self, params: Mapping[str, Any], seen: Described, now: datetime) -> str:
        """Do exactly what the question said, compare-and-write against `seen.token`;
        raise Stale if it changed meanwhile. Returns the sentence shown to the owner."""
        ...
