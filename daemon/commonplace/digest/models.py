"""What the digest is made of: frozen values passed from collect to render and summary."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date, datetime

from commonplace.digest.week import Week


@dataclass(frozen=True)
class OpenTodo:
    text: str
    due: date | None
    source: str  # vault-relative path of the note it is in
    link: str  # the page name a [[link]] to that note uses
    label: str  # how the note is shown in the digest


@dataclass(frozen=True)
class FiledCapture:
    """A filed note of the week. Only its title, links and kept to-dos leave this module;
    the captured words are never read into it."""

    path: str
    link: str  # page name for [[...]]: the file name (or Logseq title::)
    title: str  # the part of the file name after 'YYYY-MM-DD HHMM '
    captured: datetime  # aware, in the user's zone
    links: tuple[str, ...] = ()
    kept_todos: tuple[OpenTodo, ...] = ()  # open to-dos tidying added below the words


@dataclass(frozen=True)
class TodoLists:
    overdue: tuple[OpenTodo, ...] = ()
    next_seven_days: tuple[OpenTodo, ...] = ()
    later: tuple[OpenTodo, ...] = ()
    undated: tuple[OpenTodo, ...] = ()


@dataclass(frozen=True)
class DigestData:
    week: Week
    captures: tuple[FiledCapture, ...]  # in captured order
    groups: tuple[tuple[str, tuple[FiledCapture, ...]], ...]  # (linked title, captures)
    unlinked: tuple[FiledCapture, ...]
    todos: TodoLists
    inbox: tuple[str, ...] = field(default=())  # captures of the week not filed yet (paths)

    @property
    def captured_count(self) -> int:
        return len(self.captures) + len(self.inbox)
