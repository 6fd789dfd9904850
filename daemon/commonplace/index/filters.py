"""Search filters, applied inside each index (never on a cut top-k).

The tidy stage asks for "the 30 chunks closest to this capture, outside Inbox/, Filed/, Digests/
and Ask/": if the filter ran after a top-k cut, a month of filed captures could push every one
of the user's own notes out of the 30. So the filter becomes a LanceDB prefilter and a Tantivy
query clause.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass


@dataclass(frozen=True)
class SearchFilter:
    include: tuple[str, ...] = ()  # folders (vault-relative); empty: everywhere
    exclude: tuple[str, ...] = ()
    modified_after: float | None = None  # epoch seconds

    @classmethod
    def make(
        cls,
        include: tuple[str, ...] | list[str] = (),
        exclude: tuple[str, ...] | list[str] = (),
        modified_after: float | dt.datetime | dt.date | None = None,
    ) -> SearchFilter:
        return cls(
            include=_clean(include),
            exclude=_clean(exclude),
            modified_after=_epoch(modified_after),
        )

    @property
    def empty(self) -> bool:
        return not self.include and not self.exclude and self.modified_after is None

    def matches(self, path: str, mtime: float) -> bool:
        """The same rule in Python, for tests and for results from other sources."""
        if self.include and not any(_inside(path, f) for f in self.include):
            return False
        if any(_inside(path, f) for f in self.exclude):
            return False
        return self.modified_after is None or mtime > self.modified_after

    def to_sql(self) -> str | None:
        """A LanceDB (DataFusion SQL) filter, or None for no filter."""
        clauses: list[str] = []
        if self.include:
            clauses.append("(" + " OR ".join(_starts(f) for f in self.include) + ")")
        clauses.extend(f"NOT {_starts(f)}" for f in self.exclude)
        if self.modified_after is not None:
            clauses.append(f"mtime > {float(self.modified_after)!r}")
        return " AND ".join(clauses) or None


def _clean(folders: tuple[str, ...] | list[str]) -> tuple[str, ...]:
    out = tuple(dict.fromkeys(f.strip().strip("/") for f in folders))
    return tuple(f for f in out if f)


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
