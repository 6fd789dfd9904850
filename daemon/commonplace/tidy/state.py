"""Marks for captures the model keeps failing on, kept in the data folder (never in the note).

A capture gets a mark after `max_attempts` garbage answers in a row. A model that answered
garbage for a while may recover, so a marked capture is still tried again: after a long wait
(`[tidy] marked_retry_s`, doubling with each further unusable answer, at most a day), and at once
when its text changes, when the chat model or its server changes (the mark keeps which model it was
made with), or when the user runs `commonplace tidy PATH`. The mark stays, with its reason,
until the capture is filed. The phone page and `doctor` show the marks.
"""

from __future__ import annotations

import logging
import time
from dataclasses import asdict, dataclass
from pathlib import Path

from commonplace.basics.backoff import backoff_s
from commonplace.runtime.statefile import read_json, write_json

log = logging.getLogger(__name__)

MARK_RETRY_MAX_S = 86400.0  # the wait between tries of a marked capture grows to a day


@dataclass(frozen=True)
class Mark:
    path: str
    content_hash: str
    attempts: int  # garbage answers in a row (since the capture was last filed)
    reason: str
    failing: bool  # True once attempts reached the limit: marked, tried on a long backoff
    model: str = ""  # the chat model (and its server) that answered: see tidy.service.model_id
    retry_at: float = 0.0  # wall-clock time of the next try while failing


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

    def garbage(
        self,
        path: str,
        content_hash: str,
        reason: str,
        max_attempts: int,
        *,
        model: str = "",
        first_wait_s: float = 3600.0,
    ) -> Mark:
        """Count one unusable answer. Once marked, a capture stays marked (whatever its text)
        until it is filed, and each further unusable answer doubles the wait to its next try."""
        marks = self._load()
        old = marks.get(path)
        counts = old is not None and (old.failing or old.content_hash == content_hash)
        attempts = old.attempts + 1 if old is not None and counts else 1
        failing = attempts >= max_attempts or (old is not None and old.failing)
        wait = backoff_s(first_wait_s, attempts - max_attempts + 1, MARK_RETRY_MAX_S)
        retry_at = time.time() + wait if failing else 0.0
        mark = Mark(path, content_hash, attempts, reason, failing, model, retry_at)
        marks[path] = mark
        self._save(marks)
        return mark

    def mark(self, path: str) -> Mark | None:
        return self._marks.get(path)

    def clear(self, path: str) -> None:
        marks = self._load()
        if marks.pop(path, None) is not None:
            self._save(marks)

    def marks(self) -> list[Mark]:
        return sorted(self._marks.values(), key=lambda m: m.path)
