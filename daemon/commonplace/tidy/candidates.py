"""Candidate links: the notes closest to the capture, never the daemon's own notes.

The daemon folders are excluded inside the search (so a month of filed captures cannot fill the
30 results and push the user's notes out), and so are Logseq's Ask namespace pages, which sit
beside the owner's pages where no folder can name them (`exclude_pages`). The search gives one
result per note: as passages, a few long pages (a changelog, a tutorial) filled the 30 results
and the model was offered five notes of the Logseq docs graph instead of eight. The daemon's
notes are checked once more here (`ours`), in case an index ignores the filter, so the model is
never offered a note validation would refuse. The first 8 distinct titles become the schema's
enum of allowed links.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import Any, Protocol

from commonplace.attachments.kinds import is_attachment
from commonplace.tidy.models import Candidate
from commonplace.vault import in_folder

SEARCH_LIMIT = 30
MAX_CANDIDATES = 8


class SearchHit(Protocol):
    @property
    def path(self) -> str: ...
    @property
    def title(self) -> str: ...
    @property
    def score(self) -> float: ...


class SearchIndex(Protocol):
    """What tidy needs from commonplace.index.Index."""

    async def search(
        self,
        query: str,
        limit: int = ...,
        mode: str = ...,
        *,
        exclude_folders: Sequence[str] = ...,
        group_by_note: bool = ...,
        exclude_pages: Sequence[str] = ...,
    ) -> Any: ...

    def mark_dirty(self, paths: Iterable[str]) -> None: ...


def _nobody(path: str) -> bool:
    return False


def pick_candidates(
    hits: Sequence[SearchHit],
    exclude_folders: Sequence[str],
    limit: int = MAX_CANDIDATES,
    *,
    ours: Callable[[str], bool] = _nobody,
) -> list[Candidate]:
    """First `limit` distinct titles (case-insensitive), in rank order, outside the folders and
    not `ours(path)`."""
    seen: set[str] = set()
    out: list[Candidate] = []
    for hit in hits:
        if any(in_folder(hit.path, folder) for folder in exclude_folders) or ours(hit.path):
            continue
        if is_attachment(hit.path):  # links go to notes: a PDF or image is searched, not linked
            continue
        key = hit.title.casefold()
        if not hit.title.strip() or key in seen:
            continue
        seen.add(key)
        out.append(Candidate(title=hit.title, path=hit.path, score=hit.score))
        if len(out) == limit:
            break
    return out


async def find_candidates(
    index: SearchIndex | None,
    query: str,
    exclude_folders: Sequence[str],
    *,
    exclude_pages: Sequence[str] = (),
    ours: Callable[[str], bool] = _nobody,
) -> list[Candidate]:
    if index is None or not query.strip():
        return []
    response = await index.search(
        query,
        limit=SEARCH_LIMIT,
        mode="hybrid",
        exclude_folders=tuple(exclude_folders),
        group_by_note=True,
        exclude_pages=tuple(exclude_pages),
    )
    return pick_candidates(list(response.results), exclude_folders, ours=ours)
