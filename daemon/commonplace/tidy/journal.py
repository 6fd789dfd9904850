"""Hashes of filed notes we wrote whose capture is not finished yet (data folder).

Kept from just before a filed note is written until its capture has left the inbox. It lets a
restart tell "a note we wrote and nobody touched" (safe to replace when the capture was edited
in between) from a note the user has since edited (left alone).
"""

from __future__ import annotations

import json
import logging
from pathlib import Path

from commonplace.vault import atomic_write, file_hash

log = logging.getLogger(__name__)


class Journal:
    def __init__(self, data_path: Path) -> None:
        self.file = data_path / "tidy" / "written.json"

    def _load(self) -> dict[str, str]:
        try:
            raw = json.loads(self.file.read_text(encoding="utf-8"))
        except FileNotFoundError:
            return {}
        except ValueError as exc:
            log.warning("%s is unreadable (%s); starting afresh", self.file, exc)
            return {}
        return {str(k): str(v) for k, v in raw.items()} if isinstance(raw, dict) else {}

    def _save(self, entries: dict[str, str]) -> None:
        text = json.dumps(entries, indent=1, sort_keys=True) + "\n"
        atomic_write(self.file, text, expect=file_hash(self.file))

    def record(self, filed: str, written_hash: str) -> None:
        entries = self._load()
        entries[filed] = written_hash
        self._save(entries)

    def written(self, filed: str) -> str | None:
        return self._load().get(filed)

    def forget(self, filed: str) -> None:
        entries = self._load()
        if entries.pop(filed, None) is not None:
            self._save(entries)
