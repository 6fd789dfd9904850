"""Search filters, applied inside each index (never on a cut top-k).

The tidy stage asks for "the 30 chunks closest to this capture, outside Inbox/, Filed/, Digests/
and Ask/": if the filter ran after a top-k cut, a month of filed captures could push every one
of the user's own notes out of the 30. So the filter becomes a LanceDB prefilter and a Tantivy
query clause.

A folder cannot name Logseq's Ask pages: Logseq keeps the namespace pages Ask/... beside the
owner's pages, as pages/Ask___Name.md (or pages/Ask%2FName.md), in any case. `exclude_pages`
names them by their start ('pages/ask___'): the notes directly in that folder whose file name
starts so, any case. One regex (`page_pattern`) says it to Tantivy, LanceDB (DataFusion) and
Arrow (RE2) alike, so every search leaves them out before its cut, as it does the folders.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass


@dataclass(frozen=True)
class SearchFilter:
    include: tuple[str, ...] = ()  # folders (vault-relative); empty: everywhere
    exclude: tuple[str, ...] = ()
    modified_after: float | None = None  # epoch seconds
    exclude_pages: tuple[str, ...] = ()  # 'folder/name-start', any case (see the module doc)

    @classmethod
    def make(
        cls,
        include: tuple[str, ...] | list[str] = (),
        exclude: tuple[str, ...] | list[str] = (),
        modified_after: float | dt.datetime | dt.date | None = None,
        exclude_pages: tuple[str, ...] | list[str] = (),
    ) -> SearchFilter:
        return cls(
            include=_clean(include),
            exclude=_clean(exclude),
            modified_after=_epoch(modified_after),
            exclude_pages=_pages(exclude_pages),
        )

    @property
    def empty(self) -> bool:
        return (
            not self.include
            and not self.exclude
            and self.modified_after is None
            and not self.exclude_pages
        )

    def matches(self, path: str, mtime: float) -> bool:
        """The same rule in Python, for tests and for results from other sources."""
        if self.include and not any(_inside(path, f) for f in self.include):
            return False
        if any(_inside(path, f) for f in self.exclude):
            return False
        if any(_page(path, start) for start in self.exclude_pages):
            return False
        return self.modified_after is None or mtime > self.modified_after

    def to_sql(self) -> str | None:
        """A LanceDB (DataFusion SQL) filter, or None for no filter."""
        clauses: list[str] = []
        if self.include:
            clauses.append("(" + " OR ".join(_starts(f) for f in self.include) + ")")
        clauses.extend(f"NOT {_starts(f)}" for f in self.exclude)
        clauses.extend(
            f"NOT regexp_like(path, '^{page_pattern(start)}$')" for start in self.exclude_pages
        )
        if self.modified_after is not None:
            clauses.append(f"mtime > {float(self.modified_after)!r}")
        return " AND ".join(clauses) or None


def _clean(folders: tuple[str, ...] | list[str]) -> tuple[str, ...]:
    out = tuple(dict.fromkeys(f.strip().strip("/") for f in folders))
    return tuple(f for f in out if f)


def page_pattern(start: str) -> str:
    """The notes `exclude_pages` names as a regex that matches a whole path: Rust's regex
    (Tantivy's regex query, DataFusion's regexp_like) and RE2 (Arrow) read it the same. Every
    character but letters and digits is written as its code (\\x{..}), so a folder name can hold
    no regex syntax and no quote that would end the SQL string."""
    written = "".join(c if c.isalnum() else f"\\x{{{ord(c):x}}}" for c in start)
    return f"(?i){written}[^/]*"


def _pages(starts: tuple[str, ...] | list[str]) -> tuple[str, ...]:
    return tuple(dict.fromkeys(s.strip().lstrip("/") for s in starts if s.strip().strip("/")))


def _page(path: str, start: str) -> bool:
    """`path` is a note directly in start's folder whose name begins with start's name."""
    return path.lower().startswith(start.lower()) and "/" not in path[len(start) :]


def _inside(path: str, folder: str) -> bool:
    return path.startswith(folder + "/")


def _starts(folder: str) -> str:
    quoted = (folder + "/").replace("'", "''")
    return f"starts_with(path, '{quoted}')"


def _epoch(value: float | dt.datetime | dt.date | None) -> float | None:
    if value is None:
        return None
    if isinstance(value, dt.datetime):
        return value.timestamp()
    if isinstance(value, dt.date):
        return dt.datetime.combine(value, dt.time()).astimezone().timestamp()
    return float(value)
