"""The one gate for changes: the program, not the model, asks the owner, and checks again.

A changing tool hands a `Propose` here. The action's `describe` finds the real object and
writes the question from it; the proposal is kept with that question. On the owner's Yes,
`describe` runs again on the data as it is now: if the question no longer reads the same (the
line was edited, the task moved, the event changed on the phone), nothing runs and the owner is
told what changed. Only then does `run` do exactly what was asked, comparing against what the
re-check saw (file hash, ETag), so a change made in the last millisecond is refused too.

`confirm` in this module is the only caller of `Action.run` in the program: no other code path
of the assistant may change a note, a task, the memory or the calendar.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from commonplace.assistant.actions import Action, Described, Propose, Stale, ToolError, Unconfirmed

log = logging.getLogger(__name__)


SOURCES = {"mcp": "an MCP client"}  # where a question can come from besides the chat


@dataclass(frozen=True)
class Proposal:
    id: str
    kind: str
    params: dict[str, Any]
    question: str
    day: str  # YYYY-MM-DD: the proposal expires at the end of this day
    source: str = ""  # "" when the owner's own conversation asked; "mcp" for an MCP client
    client: str = ""  # the name the outside client gave itself (its own claim, shown as such)

    @property
    def asked_by(self) -> str:
        """The line the owner reads above a question that came from outside the chat."""
        if not self.source:
            return ""
        who = SOURCES.get(self.source, self.source)
        named = f' calling itself "{self.client}"' if self.client else ""
        return f"Asked by {who}{named}, not in this chat."


class Refused(Exception):
    """A Yes that cannot run; `code` says why (the API answers 409 with it)."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code  # unknown | expired | answered | changed | failed | unconfirmed
        self.message = message


_WORD = re.compile(r"\w+")
_SMALL = frozenset({"a", "an", "the", "to", "my", "of", "for", "and", "due", "by", "on"})
# What pins a proposal to the thing it changes, by kind (an add has no thing yet: its words).
_PINS = {
    "move_event": ("href", "recurrence_id"),
    "delete_event": ("href", "recurrence_id"),
    "complete_task": ("path", "line"),
    "remove_memory": ("line",),
}


def same_change(kind: str, params: Mapping[str, Any], earlier: Proposal) -> bool:
    """Is this the change `earlier` already asks about? The same event, task or line; for an
    add, words that hold the earlier one's words (a small model asks again with "(due Tuesday
    27 October)" glued to the task, which the owner would get as a second question)."""
    if kind != earlier.kind:
        return False
    pins = _PINS.get(kind)
    if pins is not None:
        return all(params.get(k) == earlier.params.get(k) for k in pins)
    day, earlier_day = str(params.get("start"))[:10], str(earlier.params.get("start"))[:10]
    if kind == "add_event" and day != earlier_day:
        return False  # the same title on another day is another event
    name = "title" if kind == "add_event" else "text"
    new, old = _words(params.get(name)), _words(earlier.params.get(name))
    return bool(new and old) and (new <= old or old <= new)


def _words(value: Any) -> set[str]:
    return {w for w in _WORD.findall(str(value or "").casefold()) if w not in _SMALL}


async def describe(actions: Mapping[str, Action], request: Propose, now: datetime) -> Described:
    """The question for a changing tool's request; ToolError goes back to the model."""
    action = actions.get(request.kind)
    if action is None:
        raise ToolError(f"nothing can carry out {request.kind!r}")
    try:
        return await action.describe(request.params, now)
    except Stale as exc:
        raise ToolError(str(exc)) from None


async def confirm(actions: Mapping[str, Action], proposal: Proposal, now: datetime) -> str:
    """The owner said Yes: check again, then run exactly what the question said."""
    action = actions.get(proposal.kind)
    if action is None:
        raise Refused("failed", "Nothing was changed: this kind of change is no longer available.")
    try:
        seen = await action.describe(proposal.params, now)
    except Stale as exc:
        raise Refused("changed", f"Nothing was changed: {exc}") from None
    except ToolError as exc:  # the re-check itself failed (a calendar that is down): not a change
        raise Refused("failed", f"Nothing was changed: {exc}") from None
    if seen.question != proposal.question:
        raise Refused(
            "changed",
            "Nothing was changed: this no longer reads the same. It would now be: "
            f"{seen.question} Ask again if that is what you want.",
        )
    try:
        return await action.run(proposal.params, seen, now)
    except Stale as exc:
        raise Refused("changed", f"Nothing was changed: {exc}") from None
    except ToolError as exc:
        raise Refused("failed", f"Nothing was changed: {exc}") from None
    except Unconfirmed as exc:
        raise Refused("unconfirmed", str(exc)) from None
