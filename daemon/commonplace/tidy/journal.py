"""Hashes of filed notes we wrote whose capture is not finished yet (data folder).

Kept from just before a filed note is written until its capture has left the inbox. It lets a
restart tell "a note we wrote and nobody touched" (safe to replace when the capture was edited
in between) from a note the user has since edited (left alone).
"""

from __future__ import annotations

import logging
from pathlib import Path

from commonplace.runtime.statefile import read_json, write_json

log = logging.getLogger(__name__)


class Journal:
    def __init__(self, data_path: Path) -> None:
        self.file = data_path / "tidy" / "written.json"

    def _load(self) -> dict[str, str]:
        raw = read_json(self.file)
        return {str(k): str(v) for k, v in raw.items()} if isinstance(raw, dict) else {}

    def _save(self, entries: dict[str, str]) -> None:
        write_json(self.file, entries)

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
