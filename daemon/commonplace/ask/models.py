"""What the Ask stage passes around: numbered passages, cited sources and the checked answer."""

from __future__ import annotations

import posixpath
from dataclasses import dataclass, field
from pathlib import PurePosixPath
from typing import Any

from commonplace.attachments.kinds import is_attachment, is_pdf, page_label

# The one sentence the model must give when the passages don't hold the answer.
REFUSAL = "I can't find that in your notes."


@dataclass(frozen=True)
class Passage:
    """One retrieved chunk, numbered as the model sees it ([n] counts from 1)."""

    n: int
    path: str  # vault-relative
    title: str
    heading: str  # heading path, "A > B", or "" for the text before the first heading
    text: str
    note_date: str = ""  # ISO date of the note, "" when unknown
    start_line: int = 0  # 0-based line in the note, for "open the passage"


@dataclass(frozen=True)
class Source:
    """A passage the answer cites, with its text shortened for showing under the answer."""

    n: int
    path: str
    title: str
    heading: str
    text: str
    note_date: str = ""
    start_line: int = 0

    @property
    def last_heading(self) -> str:
        return self.heading.rsplit(" > ", 1)[-1].strip() if self.heading else ""

    @property
    def page(self) -> int | None:
        """A PDF passage's page (start_line holds it: index/attachment_chunks.py), else None."""
        return self.start_line if is_pdf(self.path) else None

    @property
    def label(self) -> str:
        return page_label(self.path, self.page) if is_attachment(self.path) else self.title

    def link(self, flavor: str = "obsidian", *, from_folder: str = "pages") -> str:
        """A wikilink to the note (and its heading in Obsidian; Logseq has no heading links).
        An attachment: `[[Manual.pdf#page=4]]`, which Obsidian opens at that page; in Logseq
        its own asset link, `![Manual.pdf](../assets/Manual.pdf)`, relative to the folder of
        the page that holds it (`from_folder`), which opens it in Logseq's PDF viewer."""
        if is_attachment(self.path):
            return attachment_link(self.path, self.page, flavor, from_folder)
        if flavor == "logseq":
            return f"[[{_link_safe(self.title)}]]"
        target = _link_safe(str(PurePosixPath(self.path).with_suffix("")))
        heading = _link_safe(self.last_heading).replace("#", " ")
        label = _link_safe(self.title) + (f" › {heading}" if heading else "")
        return f"[[{target}{'#' + heading if heading else ''}|{label}]]"

    def to_json(self) -> dict[str, Any]:
        return {
            "n": self.n,
            "path": self.path,
            "title": self.title,
            "heading": self.heading,
            "text": self.text,
            "note_date": self.note_date,
            "start_line": self.start_line,
            "page": self.page,
            "label": self.label,
            "attachment": is_attachment(self.path),
        }


def attachment_link(path: str, page: int | None, flavor: str, from_folder: str = "pages") -> str:
    """The editor's link to an attachment (and its page, where the editor has one)."""
    if flavor == "logseq":
        name = _link_safe(PurePosixPath(path).name).replace("(", "").replace(")", "")
        target = posixpath.relpath(path, from_folder.strip("/") or ".")
        return f"![{name}]({target.replace(' ', '%20').replace(')', '%29')})"
    target = _link_safe(path).replace("#", " ")
    return f"[[{target}#page={page}]]" if page else f"[[{target}]]"


@dataclass(frozen=True)
class Answer:
    """A checked answer. `answer` is safe to render: no remote images, embeds or HTML."""

    question: str
    answer: str
    refused: bool
    sources: tuple[Source, ...] = ()
    findings: tuple[str, ...] = ()  # the program's remarks, one sentence each
    passages: tuple[Passage, ...] = field(default=(), repr=False)
    cited: tuple[int, ...] = ()  # every number the answer cites, valid or not, in order
    added: tuple[int, ...] = ()  # the citations the program added where the model gave none
    replaced: bool = False  # the refusal stands in for an answer no passage supported

    def to_json(self) -> dict[str, Any]:
        """The shape shared by `commonplace ask --json` and the API."""
        return {
            "question": self.question,
            "answer": self.answer,
            "refused": self.refused,
            "sources": [s.to_json() for s in self.sources],
            "findings": list(self.findings),
            "passages": len(self.passages),
        }


def _link_safe(text: str) -> str:
    """Characters that would end or split a wikilink are dropped from its parts."""
    return "".join(c for c in text if c not in "[]|^\n\r").strip()
