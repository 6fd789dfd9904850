"""The data folder's record of answers inserted into Ask notes.

The id marker in the note says whether a question is answered; this record says how often an
answer was put there. When an editor holding an old copy of the note keeps saving over the
answer, the count grows and the service stops after `max_inserts` instead of fighting the
editor forever. It survives restarts; a lost or broken file only means counting starts again.
"""

from __future__ import annotations

import logging
import time
from pathlib import Path
from typing import Any

from commonplace.runtime.statefile import read_json, write_json

log = logging.getLogger(__name__)


class AnswerRecord:
    def __init__(self, path: Path) -> None:
        self.path = path
        self._notes: dict[str, dict[str, dict[str, Any]]] = self._load()

    def _load(self) -> dict[str, dict[str, dict[str, Any]]]:
        data = read_json(self.path)
        notes = data.get("notes") if isinstance(data, dict) else None
        return notes if isinstance(notes, dict) else {}

    def _entry(self, path: str, qid: str) -> dict[str, Any]:
        entry = self._notes.get(path, {}).get(qid)
        return entry if isinstance(entry, dict) else {}

    def inserts(self, path: str, qid: str) -> int:
        return int(self._entry(path, qid).get("inserts", 0))

    def inserted(self, path: str, qid: str) -> None:
        entry = self._notes.setdefault(path, {}).setdefault(qid, {})
        entry["inserts"] = int(entry.get("inserts", 0)) + 1
        entry["last"] = time.strftime("%Y-%m-%dT%H:%M:%S")
        self._save()

    def give_up(self, path: str, qid: str) -> bool:
        """Mark the question given up; True the first time (so it is logged once)."""
        entry = self._notes.setdefault(path, {}).setdefault(qid, {})
        if entry.get("gave_up"):
            return False
        entry["gave_up"] = True
        self._save()
        return True

    def total_inserts(self) -> int:
        return sum(int(e.get("inserts", 0)) for q in self._notes.values() for e in q.values())

    def gave_up(self) -> list[dict[str, str]]:
        return [
            {"path": path, "id": qid}
            for path, questions in sorted(self._notes.items())
            for qid, e in questions.items()
            if e.get("gave_up")
        ]

    def _save(self) -> None:
        try:
            write_json(self.path, {"version": 1, "notes": self._notes})
        except OSError as exc:
            log.warning("could not save %s: %s", self.path, exc)
