"""Text read from attachments, kept in the data folder and keyed by content.

The key is the SHA-256 of the file's bytes and the extractor's signature (its version and the
options that decide what is read: extraction.Options). So a changed file is read again, a file
renamed or copied is not (its bytes are the same), and a new extractor or OCR language reads
everything again. A result with a problem (encrypted, damaged, over a limit) is kept too: the
same bytes would fail the same way, and a file that took the whole time limit must not take it
again at every scan. Nothing is ever written into the vault.
"""

from __future__ import annotations

import logging
from pathlib import Path

from commonplace.attachments.extraction import Extraction
from commonplace.runtime.statefile import read_json, write_json

log = logging.getLogger(__name__)

FOLDER = "attachments"  # under the data folder


class TextCache:
    def __init__(self, folder: Path) -> None:
        self.folder = folder

    @classmethod
    def in_data_folder(cls, data_path: Path) -> TextCache:
        return cls(data_path / FOLDER)

    def _file(self, sha: str, signature: str) -> Path:
        return self.folder / sha[:2] / f"{sha}-{signature}.json"

    def get(self, sha: str, signature: str) -> Extraction | None:
        path = self._file(sha, signature)
        try:
            data = read_json(path)
        except Exception as exc:  # unreadable or damaged: read the file again
            log.warning("cached text %s not used: %s", path.name, exc)
            return None
        if not isinstance(data, dict):
            return None
        try:
            return Extraction.from_json(data)
        except (KeyError, TypeError, ValueError) as exc:
            log.warning("cached text %s not used: %s", path.name, exc)
            return None

    def put(self, sha: str, signature: str, extraction: Extraction) -> None:
        path = self._file(sha, signature)
        path.parent.mkdir(parents=True, exist_ok=True)
        write_json(path, extraction.to_json(), private=True)
