"""The MCP tools with no daemon running: the index read-only, the same capture and gate code.

The MCP process never opens the index for writing (a daemon started later must be able to
take it), so with no daemon the index is as fresh as the daemon or `commonplace index` last
left it. It is opened on the first search and opened again when its manifest changed. The
to-dos are read from the vault (a read changes nothing), ahead once `read_tasks_ahead` is called.
"""

from __future__ import annotations

import asyncio
import logging
import threading
from datetime import date, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from commonplace.ask import AskError, answer_question
from commonplace.assistant import Assistant, ToolError, build_assistant
from commonplace.assistant.engine import Clock
from commonplace.assistant.task_list import task_list
from commonplace.assistant.tasks import TaskReader, TasksNotReady, warm_in_background
from commonplace.capture.inbox import CaptureError, not_saved_reason, write_capture
from commonplace.config import Settings
from commonplace.llm import LLM, LLMError, make_llm
from commonplace.mcp.backend import BackendError

if TYPE_CHECKING:
    from commonplace.index import Index

log = logging.getLogger(__name__)

VIA = "mcp"
MAX_CAPTURE_CHARS = 100_000  # as POST /api/capture


class LocalBackend:
    def __init__(
        self, settings: Settings, llm: LLM | None = None, *, clock: Clock | None = None
    ) -> None:
        self.settings = settings
        self.llm = llm or make_llm(settings)
        self.clock = clock or (lambda: datetime.now(settings.tz))
        self._index: Index | None = None
        self._index_stamp: tuple[int | None, ...] = ()
        self._assistant: Assistant | None = None
        self.task_reader = TaskReader(settings)
        self._reading: threading.Event | None = None  # set it to stop the read-ahead

    def read_tasks_ahead(self) -> None:
        """Start reading the vault's to-dos in the background (once), so that a first
        list_tasks on a big vault finds them read (tasks.py `warm`)."""
        if self._reading is None:
            self._reading = warm_in_background(self.task_reader)

    async def search(self, query: str, limit: int, mode: str, folder: str) -> dict[str, Any]:
        index = await self._open_index()
        folders = [folder] if folder else []
        response = await index.search(query, limit=limit, mode=mode, include_folders=folders)
        return response.to_json()

    async def ask(self, question: str) -> dict[str, Any]:
        index = await self._open_index()
        try:
            answer = await answer_question(
                question, index=index, llm=self.llm, settings=self.settings
            )
        except AskError as exc:
            raise BackendError(str(exc)) from None
        except LLMError as exc:
            raise BackendError(exc.to_person()) from None
        return answer.to_json()

    async def capture(self, text: str) -> str:
        if len(text) > MAX_CAPTURE_CHARS:
            raise BackendError(f"a capture is limited to {MAX_CAPTURE_CHARS} characters")
        now = self.clock()
        try:
            path = await asyncio.to_thread(write_capture, self.settings, text, VIA, now)
        except CaptureError as exc:
            raise BackendError(str(exc)) from None
        except OSError as exc:  # a git operation holds the vault, the disk is full...
            raise BackendError(
                f"not saved: {not_saved_reason(exc)}; send it again in a moment"
            ) from None
        log.info("capture saved: %s (via %s, %d characters)", path, VIA, len(text))
        return path

    async def propose(self, tool: str, arguments: dict[str, Any], client: str) -> dict[str, Any]:
        if self._assistant is None:
            self._assistant = build_assistant(self.settings, self.llm, clock=self.clock)
        try:
            done = await self._assistant.propose(tool, arguments, source="mcp", client=client)
        except ToolError as exc:
            raise BackendError(str(exc)) from None
        return done.to_json()

    async def tasks(self, today: date, due_within_days: int | None) -> dict[str, Any]:
        try:
            found = await asyncio.to_thread(self.task_reader.open_tasks_within)
        except TasksNotReady as exc:
            raise BackendError(str(exc)) from None
        return task_list(found, today, due_within_days)

    async def close(self) -> None:
        if self._reading is not None:
            reading, self._reading = self._reading, None
            reading.set()
        await self._close_index()

    async def _close_index(self) -> None:
        if self._index is not None:
            index, self._index = self._index, None
            await asyncio.to_thread(index.close)

    async def _open_index(self) -> Index:
        stamp = _stamp(self.settings.data_path / "index")
        if self._index is not None and stamp == self._index_stamp:
            return self._index
        await self._close_index()
        self._index = await asyncio.to_thread(self._open_read_only)
        self._index_stamp = _stamp(self.settings.data_path / "index")  # opening may touch it
        return self._index

    def _open_read_only(self) -> Index:
        from commonplace.index import Index, IndexUnavailable  # slow: only when searching

        try:
            return Index.open(self.settings, self.llm, read_only=True)
        except IndexUnavailable as exc:
            raise BackendError(f"the search index cannot be opened: {exc}") from None


def _stamp(folder: Path) -> tuple[int | None, ...]:
    """When the index was last written (the manifest and its write-ahead log)."""
    stamps: list[int | None] = []
    for name in ("manifest.sqlite", "manifest.sqlite-wal"):
        try:
            stamps.append((folder / name).stat().st_mtime_ns)
        except OSError:
            stamps.append(None)
    return tuple(stamps)
