"""What the daemon runs: the start-up scan, watcher changes, and later scans.

File events are hints, not the truth (inotify drops events under load, sync tools batch), so a
reconciliation at start-up and at every scan (daemon/scans.py) repairs whatever the events missed.
It is also the retry of a failed index write (a full disk): the changes stay pending, and the
failure is shown in attention until a write succeeds, in the words every failed write is told
in (vault/atomic.py `write_trouble`): what happened to the data folder's disk, what to do.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Sequence

from commonplace.attachments.reader import problem_action
from commonplace.config import Settings
from commonplace.index.indexer import Index
from commonplace.index.models import RefreshStats
from commonplace.runtime.attention import Attention, Entry
from commonplace.runtime.changes import Change
from commonplace.runtime.heap import release_memory
from commonplace.runtime.supervise import where
from commonplace.vault import os_error_of, write_trouble

log = logging.getLogger(__name__)

SOURCE = "search index"  # its entry in attention
ATTACHMENTS = "attachments"  # attention's entries for PDFs and images that could not be read


class IndexService:
    def __init__(
        self, index: Index, settings: Settings, *, attention: Attention | None = None
    ) -> None:
        self.index = index
        self.settings = settings
        self.attention = attention if attention is not None else Attention()
        self._reading: asyncio.Task[None] | None = None  # attachments read in the background

    async def close(self) -> None:
        """Stop reading attachments (the file being read is read again at the next start)."""
        task, self._reading = self._reading, None
        if task is not None and not task.done():
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task

    def _read_attachments(self) -> None:
        """Start the background reading of queued attachments, unless it runs already. Each is
        read in a child process, outside the index's lock; a note's change waits for at most
        the indexing of one file, never for the reading of all of them."""
        self._attachment_attention()
        reader = self.index.attachments
        if reader is None or not reader.due:
            return
        if self._reading is not None and not self._reading.done():
            return
        self._reading = asyncio.create_task(self._read_all(), name="attachments")

    async def _read_all(self) -> None:
        try:
            read = await self.index.read_attachments(on_file=lambda _: self._attachment_attention())
            if read:
                log.info("attachments: %d file(s) read and indexed", read)
        except asyncio.CancelledError:
            raise
        except Exception as exc:
            self._failed(exc, "reading attachments")
        finally:
            self._attachment_attention()

    def _attachment_attention(self) -> None:
        """The attachments that could not be read, or only in part, as attention items."""
        reader = self.index.attachments
        problems = {} if reader is None else dict(reader.problems)
        self.attention.replace(
            ATTACHMENTS,
            [
                Entry(
                    ATTACHMENTS,
                    path,
                    p.code,
                    p.reason,
                    action=problem_action(p.code),
                    level="info" if p.code in ("too_many_pages", "too_slow") else "warn",
                )
                for path, p in sorted(problems.items())
            ],
        )

    async def startup(self) -> None:
        """Reconcile the index with the vault (progress is logged by the index)."""
        log.info("search index: checking the vault against the index")
        stats = await self._reconcile()
        release_memory()
        self._read_attachments()
        if stats is not None:
            log.info(
                "search index ready: %d notes, %d chunks (%d re-indexed, %d removed, "
                "%d chunks embedded, %d reused) in %.1f s",
                stats.notes,
                stats.chunks,
                stats.indexed,
                stats.deleted,
                stats.embedded,
                stats.reused,
                stats.seconds,
            )

    async def on_changes(self, changes: Sequence[Change]) -> None:
        """Index what the watcher reported, now, so the note is searchable within a second."""
        self.index.mark_dirty(c.path for c in changes)
        try:
            await self.index.apply_pending()
        except Exception as exc:
            self.index.mark_dirty(c.path for c in changes)
            self._failed(exc, f"applying {len(changes)} change(s)")
        else:
            self.attention.clear(SOURCE)
            self._read_attachments()
            if self.index.vectors_dropped:
                # Until then the meaning side knows only the notes embedded since the drop.
                log.info("search index: the embedding size changed; embedding every note now")
                await self.scan()

    async def scan(self) -> None:
        """Reconcile again (a later scan); logged only when it found something."""
        stats = await self._reconcile()
        self._read_attachments()
        if stats is not None and (stats.indexed or stats.deleted or stats.errors):
            log.info(
                "search index: reconciliation re-indexed %d and removed %d note(s)",
                stats.indexed,
                stats.deleted,
            )

    async def _reconcile(self) -> RefreshStats | None:
        try:
            stats = await self.index.refresh()
            if self.index.vectors_dropped:  # dropped during this run: read what it left
                stats = await self.index.refresh()
        except asyncio.CancelledError:
            raise
        except Exception as exc:
            self._failed(exc, "reconciliation")
            return None
        self.attention.clear(SOURCE)
        return stats

    def _failed(self, exc: Exception, doing: str) -> None:
        """Logged, and shown until the next change or reconciliation writes the index. The
        data folder's disk (full, read-only, not writable) is worded as the vault's is for
        every other write, whichever library met it (Tantivy, LanceDB and SQLite each word it
        their own way: `os_error_of`), with what to do and no traceback; anything else is a
        bug, logged with its traceback and shown by its type and line."""
        found = os_error_of(exc)
        if found is None:
            log.error("search index: %s failed; it will run again later", doing, exc_info=exc)
            why, action = where(exc), "check the disk of the data folder (free space, permissions)"
        else:
            trouble = write_trouble(found, "data folder")
            why, action = trouble.why, trouble.action
            log.warning(
                "search index: %s failed: %s; %s (%s). It will run again later",
                doing,
                why,
                action,
                self.settings.data_path,
            )
        self.attention.report(
            SOURCE,
            "",
            "write_failed",
            f"the search index could not be updated: {why}; searches may miss recent changes",
            action=action,
            retry_at=time.time() + self.settings.index.reconcile_minutes * 60,
        )
