"""Which captures the phone has already sent: capture id -> the inbox file it became.

The page keeps a capture until the daemon answers with its path; if the answer is lost (the
connection dropped after the file was written) the page sends it again with the same id. This
record turns that resend into "already saved" instead of a second file, also across a daemon
restart, because it lives in the data folder. It holds the last few hundred ids only.
"""

from __future__ import annotations

import logging
from pathlib import Path

from commonplace.statefile import read_json, write_json

log = logging.getLogger(__name__)

KEEP = 500
FILE_NAME = "sent-captures.json"


class SentCaptures:
    def __init__(self, data_path: Path, keep: int = KEEP) -> None:
        self.path = data_path / FILE_NAME
        self.keep = keep
        self._ids: dict[str, str] | None = None

    def get(self, capture_id: str) -> str | None:
        return self._load().get(capture_id)

    def add(self, capture_id: str, path: str) -> None:
        ids = self._load()
        ids[capture_id] = path
        while len(ids) > self.keep:
            del ids[next(iter(ids))]
        self._save(ids)

    def _load(self) -> dict[str, str]:
        if self._ids is None:
            raw = read_json(self.path)
            self._ids = {str(k): str(v) for k, v in raw.items()} if isinstance(raw, dict) else {}
        return self._ids

    def _save(self, ids: dict[str, str]) -> None:
        try:
            write_json(self.path, ids)
        except OSError as exc:  # the capture itself is saved; only the resend guard is lost
            log.warning("could not record sent capture ids in %s: %s", self.path, exc)
