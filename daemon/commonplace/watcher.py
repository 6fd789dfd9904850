"""Watchdog file events -> debounced `Change`s for the stages. The watcher only routes.

Events are hints: editors save through a temp file and a rename, sync tools deliver bursts, and
inotify drops events under load (the periodic reconciliation repairs that). So a path is emitted
once it has been quiet for `debounce_s`, with its kind decided by what is on disk at that moment,
and a folder move or delete is spelled out as changes of the notes inside it. Nothing here may
raise into watchdog's thread or stop the loop: failures are logged and the watcher goes on.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import stat
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path, PurePath
from typing import Any, Literal

from watchdog.events import (
    DirCreatedEvent,
    DirDeletedEvent,
    DirMovedEvent,
    FileClosedEvent,
    FileCreatedEvent,
    FileDeletedEvent,
    FileModifiedEvent,
    FileMovedEvent,
    FileSystemEvent,
    FileSystemEventHandler,
)
from watchdog.observers import Observer

from commonplace.attention import Attention
from commonplace.changes import Change, ChangeKind
from commonplace.supervise import start_supervised
from commonplace.vault import is_ignored, iter_note_paths

log = logging.getLogger(__name__)

Hint = Literal["created", "modified", "deleted", "folder-created", "folder-deleted"]
OnChanges = Callable[[list[Change]], Awaitable[None]]
COALESCE_S = 0.05
# Only what translate() uses. Without a filter inotify also reports every open and every
# close-without-writing, so a backup or search tool reading the vault in a loop floods the
# kernel's event queue (and overflows it) with events that are thrown away here.
WATCHED_EVENTS = [
    FileCreatedEvent,
    FileModifiedEvent,  # also attribute changes: a chmod that makes a capture readable
    FileDeletedEvent,
    FileMovedEvent,
    FileClosedEvent,  # closed after writing
    DirCreatedEvent,
    DirDeletedEvent,
    DirMovedEvent,
]


def translate(event: FileSystemEvent, vault: Path) -> list[tuple[str, Hint]]:
    """One watchdog event as (vault-relative path, hint) pairs; ignored files are dropped."""
    kind = event.event_type
    if kind in ("opened", "closed_no_write"):
        return []
    src = _inside(vault, event.src_path)
    dest = _inside(vault, event.dest_path) if getattr(event, "dest_path", "") else None
    out: list[tuple[str, Hint]] = []
    if event.is_directory:
        if kind in ("deleted", "moved") and _folder_wanted(src):
            out.append((src or "", "folder-deleted"))
        target = dest if kind == "moved" else src if kind == "created" else None
        if target is not None and _folder_wanted(target):
            out.append((target, "folder-created"))
        return out
    if kind == "moved":
        if _note(src):
            out.append((src or "", "deleted"))
        if _note(dest):
            out.append((dest or "", "created"))
    elif kind in ("created", "modified", "closed") and _note(src):
        out.append((src or "", "created" if kind == "created" else "modified"))
    elif kind == "deleted" and _note(src):
        out.append((src or "", "deleted"))
    return out


def _inside(vault: Path, raw: bytes | str) -> str | None:
    """The event's vault-relative path. Watchdog reports paths under the (resolved) folder it
    watches, so no resolving here: that would cost two syscalls per event, and a link is judged
    as itself later (a stage reports it as skipped; vault/files.py says why)."""
    try:
        return PurePath(os.fsdecode(raw)).relative_to(vault).as_posix()
    except ValueError:
        return None


def _note(rel: str | None) -> bool:
    return bool(rel) and rel != "." and not is_ignored(rel or "")


def _folder_wanted(rel: str | None) -> bool:
    return bool(rel) and rel != "." and not is_ignored(f"{rel}/x.md")


@dataclass
class Debouncer:
    """Per-path quiet periods, with an injected clock so tests need no sleeps."""

    delay: float
    clock: Callable[[], float] = time.monotonic
    _pending: dict[str, tuple[Hint, float]] = field(default_factory=dict)

    def add(self, path: str, hint: Hint) -> None:
        first = self._pending.get(path, (hint, 0.0))[0]
        # Remember whether the path was first seen being created: created-then-deleted within
        # one quiet period is nothing at all.
        keep: Hint = first if first in ("created", "folder-created") else hint
        if hint in ("folder-created", "folder-deleted"):
            keep = hint
        self._pending[path] = (keep, self.clock())

    def due(self) -> list[tuple[str, Hint]]:
        now = self.clock()
        ready = [(p, h) for p, (h, t) in self._pending.items() if now - t >= self.delay]
        for path, _ in ready:
            del self._pending[path]
        return ready

    def next_deadline(self) -> float | None:
        if not self._pending:
            return None
        return min(t for _, t in self._pending.values()) + self.delay

    def __len__(self) -> int:
        return len(self._pending)


def resolve(vault: Path, ready: list[tuple[str, Hint]]) -> list[Change]:
    """Turn quiet paths into Changes by looking at the disk now."""
    changes: dict[str, ChangeKind] = {}
    for path, hint in ready:
        full = vault / path
        if hint == "folder-created":
            if full.is_dir():
                for sub in iter_note_paths(vault, under=path):
                    changes[sub] = "created"
        elif hint == "folder-deleted":
            if not full.exists():
                changes[path] = "deleted"
        elif _is_entry(full):  # links, FIFOs...: reported too, so a stage can say it skips them
            changes[path] = "created" if hint == "created" else "modified"
        elif hint != "created":  # created and gone again within the quiet period: nothing
            changes[path] = "deleted"
    return [Change(path, kind) for path, kind in changes.items()]


def _is_entry(full: Path) -> bool:
    """Something other than a folder is there (not following a link to find out)."""
    try:
        return not stat.S_ISDIR(full.lstat().st_mode)
    except OSError:
        return False


class _Handler(FileSystemEventHandler):
    def __init__(self, watcher: VaultWatcher) -> None:
        self.watcher = watcher

    def on_any_event(self, event: FileSystemEvent) -> None:
        try:
            hints = translate(event, self.watcher.vault)
            loop = self.watcher.loop
            if hints and loop is not None and not loop.is_closed():
                loop.call_soon_threadsafe(self.watcher.record, hints)
        except Exception:  # never let one odd event stop the observer thread
            log.exception("watcher: could not handle %r", event)


class VaultWatcher:
    """Watches the vault and calls `on_changes` with debounced changes, one call at a time."""

    def __init__(
        self,
        vault: Path,
        on_changes: OnChanges,
        *,
        debounce_s: float = 0.5,
        attention: Attention | None = None,
    ) -> None:
        self.vault = vault.resolve()
        self.attention = attention
        self.on_changes = on_changes
        self.debouncer = Debouncer(debounce_s)
        self.loop: asyncio.AbstractEventLoop | None = None
        self._observer: Any = None
        self._task: asyncio.Task[None] | None = None
        self._wake = asyncio.Event()

    async def start(self) -> None:
        self.loop = asyncio.get_running_loop()
        self._wake = asyncio.Event()
        observer = Observer()
        observer.schedule(
            _Handler(self), str(self.vault), recursive=True, event_filter=WATCHED_EVENTS
        )
        try:
            await asyncio.to_thread(observer.start)
        except OSError as exc:
            log.warning(
                "watcher: cannot watch %s (%s); changes are picked up by the periodic "
                "reconciliation only (raise fs.inotify.max_user_watches if the vault is large)",
                self.vault,
                exc,
            )
            return
        self._observer = observer
        self._task = start_supervised("watcher", self._pump, self.attention)

    async def stop(self) -> None:
        if self._observer is not None:
            self._observer.stop()
            await asyncio.to_thread(self._observer.join, 5)
            self._observer = None
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
            self._task = None

    def record(self, hints: list[tuple[str, Hint]]) -> None:
        for path, hint in hints:
            self.debouncer.add(path, hint)
        self._wake.set()

    async def _pump(self) -> None:
        while True:
            deadline = self.debouncer.next_deadline()
            # A little past the first deadline, so that events of one burst (a new folder and
            # the file in it, say) come out as one batch instead of two that repeat a change.
            timeout = (
                None if deadline is None else max(0.0, deadline + COALESCE_S - time.monotonic())
            )
            self._wake.clear()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._wake.wait(), timeout)
            ready = self.debouncer.due()
            if not ready:
                continue
            try:
                changes = await asyncio.to_thread(resolve, self.vault, ready)
                if changes:
                    await self.on_changes(changes)
            except asyncio.CancelledError:
                raise
            except Exception:
                log.exception("watcher: handling %d change(s) failed", len(ready))
