"""The queue of attachments whose text is not cached yet, read one at a time in the background.

The index never reads an attachment's pages itself: a refresh hashes the file, finds its text
in the cache (cache.py) and indexes it, or hands the path to this queue and goes on with the
notes. `read_next` then reads one file in the extraction child (extraction.py), outside the
index's lock, and the index takes it on its next refresh: so a note's change is never held up
behind a 2,000-page PDF, and a file that hangs costs its time limit once.

What went wrong with a file (`problems`: encrypted, damaged, over a limit) is kept in the data
folder, so the attention list says it again after a restart without the file being read again.
"""

from __future__ import annotations

import logging
import threading
from dataclasses import dataclass

from commonplace.attachments.cache import TextCache
from commonplace.attachments.extraction import Extraction, Options, content_key, extract
from commonplace.config import Settings
from commonplace.runtime.statefile import read_json, write_json
from commonplace.vault import FileRefused, read_file

log = logging.getLogger(__name__)

PROBLEMS_FILE = "problems.json"

ACTIONS = {
    "encrypted": "remove its password (save an unprotected copy) if it should be searchable",
    "malformed": "open it in a PDF viewer; save a repaired copy if it should be searchable",
    "bomb": "nothing needed if you do not know this file; it may be made to harm readers",
    "too_many_pages": "raise [attachments] max_pages to read more",
    "too_slow": "raise [attachments] max_seconds to read more",
    "too_large": "raise [attachments] max_file_mb to read it",
    "unreadable": "let this user read it",
    "crashed": "open it in a PDF viewer; save a repaired copy if it should be searchable",
}


@dataclass(frozen=True)
class Problem:
    code: str
    reason: str


class AttachmentReader:
    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self.cache = TextCache.in_data_folder(settings.data_path)
        self.due: dict[str, None] = {}
        self.reading: str | None = None
        self.done = 0  # files read since the queue was last empty
        self.pages_read = 0
        self._opts: Options | None = None
        self._lock = threading.Lock()  # problems: written from worker threads
        self._problems_file = self.cache.folder / PROBLEMS_FILE
        loaded = read_json(self._problems_file)
        self.problems: dict[str, Problem] = {}
        if isinstance(loaded, dict):
            for path, value in loaded.items():
                if isinstance(value, dict) and {"code", "reason"} <= set(value):
                    self.problems[str(path)] = Problem(str(value["code"]), str(value["reason"]))

    @property
    def options(self) -> Options:
        if self._opts is None:  # asks whether Tesseract is here: once
            self._opts = Options.from_settings(self.settings)
        return self._opts

    @property
    def max_bytes(self) -> int:
        return int(self.settings.attachments.max_file_mb * 1024 * 1024)

    def want(self, path: str) -> None:
        self.due[path] = None

    def status(self) -> dict[str, object]:
        return {
            "waiting": len(self.due),
            "reading": self.reading,
            "read": self.done,
            "pages_read": self.pages_read,
            "problems": len(self.problems),
            "ocr": self.options.ocr,
        }

    # -- problems -------------------------------------------------------------------------

    def record(
        self, path: str, extraction: Extraction | None, problem: Problem | None = None
    ) -> None:
        """What the latest reading of `path` said: a problem, or none."""
        if problem is None and extraction is not None and extraction.problem:
            problem = Problem(extraction.problem, extraction.reason)
        with self._lock:
            if self.problems.get(path) == problem:
                return
            if problem is None:
                self.problems.pop(path, None)
            else:
                self.problems[path] = problem
            self._save()

    def forget(self, paths: list[str]) -> None:
        with self._lock:
            if any(p in self.problems for p in paths):
                for path in paths:
                    self.problems.pop(path, None)
                self._save()

    def _save(self) -> None:
        try:
            self._problems_file.parent.mkdir(parents=True, exist_ok=True)
            write_json(
                self._problems_file,
                {p: {"code": v.code, "reason": v.reason} for p, v in sorted(self.problems.items())},
            )
        except OSError as exc:
            log.warning("attachments: the list of unreadable files was not saved: %s", exc)

    # -- reading ----------------------------------------------------------------------------

    def read_now(self, path: str) -> Extraction | None:
        """Read `path` into the cache unless its text is there (in a worker thread: it may take
        up to `max_seconds`). None when the file is gone or refused (the index says why)."""
        vault = self.settings.vault
        try:
            data, _ = read_file(vault, path, self.max_bytes)
        except (FileNotFoundError, FileRefused, OSError):
            return None  # the refresh that follows records why
        sha, opts = content_key(data), self.options
        found = self.cache.get(sha, opts.signature)
        if found is not None:
            return found
        log.info("attachments: reading %s (%d KB)", path, len(data) // 1024)
        extraction = extract(data, path, opts)
        try:
            self.cache.put(sha, opts.signature, extraction)
        except OSError as exc:
            log.warning("attachments: the text of %s was not cached: %s", path, exc)
        log.info(
            "attachments: %s: %d of %d pages read in %.1f s%s",
            path,
            len(extraction.pages),
            extraction.page_count,
            extraction.seconds,
            f" ({extraction.reason})" if extraction.problem else "",
        )
        self.pages_read += len(extraction.pages)
        return extraction


def problem_action(code: str) -> str:
    return ACTIONS.get(code, "")
