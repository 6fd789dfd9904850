"""Searching past results a stage must drop, so they never take the places of the owner's notes.

The index filters the daemon's folders itself, but one kind of daemon note no folder can name:
Logseq keeps Ask pages beside the owner's pages (`pages/Ask___Name.md`, see daemon_notes.py).
They are dropped after the search, and a Logseq owner who asked about a topic before has several
such pages ranking first for the next question on it. With a fixed number of results, Ask would
then get fewer passages and tidy fewer candidate links. So the search is asked again, for more,
while too few results were kept and the last answer was full.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from typing import Any, Protocol, TypeVar


class Response(Protocol):
    @property
    def results(self) -> Sequence[Any]: ...


R = TypeVar("R", bound=Response)

MOST = 240  # results; past this the stage makes do with what it kept


async def search_past(
    search: Callable[[int], Awaitable[R]],
    *,
    first: int,
    enough: Callable[[R], bool],
    most: int = MOST,
) -> R:
    """`search(limit)` from `first` results, four times more each time (up to `most`) while the
    answer was full (more may exist) and not `enough(response)`."""
    limit = first
    while True:
        response = await search(limit)
        if enough(response) or len(response.results) < limit or limit >= most:
            return response
        limit = min(most, limit * 4)
