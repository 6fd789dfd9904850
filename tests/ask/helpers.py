"""Test helpers for Ask: an index that returns chosen passages, and a scripted model that
answers from the numbered passages it finds in the request (as a real model would have to)."""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from commonplace.index.models import SearchResponse, SearchResult

PASSAGE = re.compile(
    r'<passage n="(\d+)" note="([^"]*)" date="([^"]*)"[^>]*>\n(.*?)\n</passage>', re.S
)


def hit(path: str, text: str, *, note_date: str = "2026-10-01", heading: str = "") -> SearchResult:
    title = path.rsplit("/", 1)[-1].removesuffix(".md")
    return SearchResult(
        path=path,
        title=title,
        heading=heading,
        text=text,
        score=1.0,
        note_date=note_date,
        modified=0.0,
        start_line=3,
        ordinal=0,
    )


@dataclass
class FixedIndex:
    """Returns the same hits for every query and records the queries."""

    hits: Sequence[SearchResult]
    notice: str | None = None
    queries: list[str] = field(default_factory=list)
    dirty: list[str] = field(default_factory=list)

    async def search(
        self,
        query: str,
        *,
        limit: int,
        mode: str = "hybrid",
        exclude_folders: Sequence[str] = (),
        exclude_pages: Sequence[str] = (),
    ) -> SearchResponse:
        """Ignores `exclude_folders` and `exclude_pages`, so the Ask stage's own check is what
        is tested."""
        self.queries.append(query)
        return SearchResponse(results=list(self.hits)[:limit], mode=mode, notice=self.notice)

    def mark_dirty(self, paths: Sequence[str]) -> None:
        self.dirty.extend(paths)


def passages_in(request: dict[str, Any]) -> list[tuple[int, str, str, str]]:
    """(n, note title, date, text) of every passage in the chat request's user message."""
    user = next(m["content"] for m in request["messages"] if m["role"] == "user")
    return [(int(n), note, day, text) for n, note, day, text in PASSAGE.findall(user)]


def cite_passage_with(word: str, sentence: str) -> Callable[[dict[str, Any]], str]:
    """A model that answers `sentence` citing the passage containing `word`, or refuses."""

    def handler(request: dict[str, Any]) -> str:
        for n, _, _, text in passages_in(request):
            if word.lower() in text.lower():
                return f"{sentence} [{n}]."
        return "I can't find that in your notes."

    return handler
