"""Marks for captures the model keeps failing on, kept in the data folder (never in the note).

A capture gets a mark after `max_attempts` garbage answers in a row; a marked capture is not
tried again until its text changes (the mark is tied to the content hash) or the user clears
it with `commonplace tidy PATH`. The phone page and `doctor` show the marks with their reason.
"""

from __future__ import annotations

import logging
from dataclasses import asdict, dataclass
from pathlib import Path

from commonplace.statefile import read_json, write_json

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Mark:
    path: str
    content_hash: str
    attempts: int  # garbage answers in a row for this text
    reason: str
    failing: bool  # True once attempts reached the limit: waits for an edit


class TidyState:
    def __init__(self, data_path: Path) -> None:
        self.file = data_path / "tidy" / "state.json"

    # Read from disk every time: the CLI and the daemon may both change the marks.
    @property
    def _marks(self) -> dict[str, Mark]:
        return self._load()

    def _load(self) -> dict[str, Mark]:
        raw = read_json(self.file)
        try:
            return {m["path"]: Mark(**m) for m in raw.get("marks", [])} if raw else {}
        except (AttributeError, TypeError, KeyError) as exc:
            log.warning("%s holds no valid marks (%s); starting with none", self.file, exc)
            return {}

    def _save(self, marks: dict[str, Mark]) -> None:
        write_json(
            self.file, {"marks": [asdict(m) for m in sorted(marks.values(), key=lambda m: m.path)]}
        )

    def garbage(self, path: str, content_hash: str, reason: str, max_attempts: int) -> Mark:
        """Count one unusable answer for this text of the capture."""
        marks = self._load()
        old = marks.get(path)
        attempts = old.attempts + 1 if old and old.content_hash == content_hash else 1
        mark = Mark(path, content_hash, attempts, reason, attempts >= max_attempts)
        marks[path] = mark
        self._save(marks)
        return mark

    def failing(self, path: str, content_hash: str) -> Mark | None:
        """The mark that stops this capture being tried, if its text is unchanged."""
        mark = self._marks.get(path)
        return mark if mark and mark.failing and mark.content_hash == content_hash else None

    def clear(self, path: str) -> None:
        marks = self._load()
        if marks.pop(path, None) is not None:
            self._save(marks)

    def marks(self) -> list[Mark]:
        return sorted(self._marks.values(), key=lambda m: m.path)
