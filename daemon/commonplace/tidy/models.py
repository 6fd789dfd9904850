"""The values that pass between tidy's stages: what the model proposed, what the program kept.

The proposal model is deliberately lenient (wrong types are coerced, unknown fields ignored):
a reply that the server's schema should have prevented but a server let through is still
read, and the program's checks in validate.py decide what survives. What the model sends is read
as a `ProposalReply`, which is garbage (an unusable answer, retried and then marked) when it is
not a JSON object, misses a field the schema requires, or is grossly out of schema (10,000
tags): such an answer did not follow the schema at all, so nothing in it is worth keeping.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import date
from typing import Any, Literal

import pydantic


def _as_list(value: Any) -> Any:
    """'a, b' or 'a' where a list was asked for: split, rather than fail the whole answer."""
    if value is None:
        return []
    if isinstance(value, str):
        return [p.strip() for p in re.split(r"[,\n]+", value) if p.strip()]
    return value


class TodoProposal(pydantic.BaseModel):
    """`when` is the capture's words for the day ("by friday"), which the program turns into a
    date (tidy/when.py); `due` is read too, from a model that wrote a date anyway, and is
    believed only where the capture's words name that day."""

    model_config = pydantic.ConfigDict(extra="ignore")

    text: str = ""
    when: str | None = None
    due: str | None = None

    @pydantic.model_validator(mode="before")
    @classmethod
    def _from_string(cls, value: Any) -> Any:
        return {"text": value} if isinstance(value, str) else value

    @pydantic.field_validator("text", "when", "due", mode="before")
    @classmethod
    def _to_str(cls, value: Any) -> Any:
        return None if value is None else str(value)


class Proposal(pydantic.BaseModel):
    """The model's answer, parsed but not yet trusted."""

    model_config = pydantic.ConfigDict(extra="ignore")

    title: str = ""
    tags: list[str] = pydantic.Field(default_factory=list)
    links: list[str] = pydantic.Field(default_factory=list)
    todos: list[TodoProposal] = pydantic.Field(default_factory=list)

    @pydantic.field_validator("title", mode="before")
    @classmethod
    def _title(cls, value: Any) -> Any:
        return "" if value is None else str(value)

    @pydantic.field_validator("tags", "links", mode="before")
    @classmethod
    def _strings(cls, value: Any) -> Any:
        value = _as_list(value)
        return [str(v) for v in value if v is not None] if isinstance(value, list) else value

    @pydantic.field_validator("todos", mode="before")
    @classmethod
    def _todos(cls, value: Any) -> Any:
        value = _as_list(value)
        return [v for v in value if v is not None] if isinstance(value, list) else value


# Far past the schema's limits (5 tags, 8 links, 8 to-dos, 60-character titles): a reply this
# far out did not follow the schema at all. A little over is read, and validate.py trims it.
GROSS_ITEMS = 50
GROSS_TEXT = 1000


class ProposalReply(Proposal):
    """The model's answer as sent: every field present, nothing grossly out of schema."""

    title: str = pydantic.Field(max_length=GROSS_TEXT)
    tags: list[str] = pydantic.Field(max_length=GROSS_ITEMS)
    links: list[str] = pydantic.Field(max_length=GROSS_ITEMS)
    todos: list[TodoProposal] = pydantic.Field(max_length=GROSS_ITEMS)


@dataclass(frozen=True)
class Candidate:
    """A note the capture may link to: a real title, found by search."""

    title: str
    path: str
    # the search's fused score (hybrid.py): 1 for the best; None where no search ranked it
    score: float | None = None


@dataclass(frozen=True)
class Todo:
    text: str
    due: date | None = None


@dataclass(frozen=True)
class Dropped:
    """A proposed value the program did not keep, and why; logged and shown by the CLI."""

    field: str
    value: str
    reason: str

    def __str__(self) -> str:
        return f"{self.field} {self.value!r}: {self.reason}"


@dataclass(frozen=True)
class Decision:
    """What the program kept from a proposal; the only thing the filed note is written from."""

    title: str
    tags: tuple[str, ...] = ()
    links: tuple[str, ...] = ()
    todos: tuple[Todo, ...] = ()
    dropped: tuple[Dropped, ...] = field(default=())


Status = Literal["filed", "finished", "edited", "dry-run", "empty", "gone"]


@dataclass(frozen=True)
class Outcome:
    """What happened to one capture, for logs, the CLI and tests."""

    capture: str
    status: Status
    filed: str | None = None  # vault-relative path of the filed note
    proposal: Proposal | None = None
    decision: Decision | None = None
    candidates: tuple[Candidate, ...] = ()
