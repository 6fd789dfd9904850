"""Which captures the phone has already sent: capture id -> the inbox file it became.

The page keeps a capture until the daemon answers with its path; if the answer is lost (the
connection dropped after the file was written) the page sends it again with the same id. This
record turns that resend into "already saved" instead of a second file, also across a daemon
restart, because it lives in the data folder. It holds the last few hundred ids only.
"""

from __future__ import annotations

import json
import logging
import secrets
from pathlib import Path

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
            try:
                raw = json.loads(self.path.read_text(encoding="utf-8"))
                self._ids = (
                    {str(k): str(v) for k, v in raw.items()} if isinstance(raw, dict) else {}
                )
            except FileNotFoundError:
                self._ids = {}
            except (OSError, ValueError) as exc:
                log.warning("%s cannot be read (%s); starting a new one", self.path, exc)
                self._ids = {}
        return self._ids

    def _save(self, ids: dict[str, str]) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        tmp = self.path.with_name(f".{self.path.name}.{secrets.token_hex(4)}")
        try:
            tmp.write_text(json.dumps(ids), encoding="utf-8")
            tmp.replace(self.path)
        except OSError as exc:  # the capture itself is saved; only the resend guard is lost
            log.warning("could not record sent capture ids in %s: %s", self.path, exc)
            tmp.unlink(missing_ok=True)
