"""What the daemon runs: the start-up scan, watcher changes, and later scans.

File events are hints, not the truth (inotify drops events under load, sync tools batch), so a
reconciliation at start-up and at every scan (scans.py) repairs whatever the events missed.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Sequence

from commonplace.changes import Change
from commonplace.config import Settings
from commonplace.index.indexer import Index
from commonplace.index.models import RefreshStats

log = logging.getLogger(__name__)


class IndexService:
    def __init__(self, index: Index, settings: Settings) -> None:
        self.index = index
        self.settings = settings

    async def startup(self) -> None:
        """Reconcile the index with the vault (progress is logged by the index)."""
        log.info("search index: checking the vault against the index")
        stats = await self._reconcile()
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
        except Exception:
            log.exception("search index: could not apply %d change(s); will retry", len(changes))
            self.index.mark_dirty(c.path for c in changes)

    async def scan(self) -> None:
        """Reconcile again (a later scan); logged only when it found something."""
        stats = await self._reconcile()
        if stats is not None and (stats.indexed or stats.deleted or stats.errors):
            log.info(
                "search index: reconciliation re-indexed %d and removed %d note(s)",
                stats.indexed,
                stats.deleted,
            )

    async def _reconcile(self) -> RefreshStats | None:
        try:
            return await self.index.refresh()
        except asyncio.CancelledError:
            raise
        except Exception:
            log.exception("search index: reconciliation failed; it will run again later")
            return None
