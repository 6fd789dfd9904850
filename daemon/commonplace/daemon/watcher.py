"""Watchdog file events -> debounced `Change`s for the stages. The watcher only routes.

Events are hints: editors save through a temp file and a rename, sync tools deliver bursts, and
inotify drops events under load. So a path is emitted once it has been quiet for `debounce_s`,
with its kind decided by what is on disk at that moment, and a folder move or delete is spelled
out as changes of the notes inside it. Nothing here may raise into watchdog's thread or stop the
loop: failures are logged and the watcher goes on.

When events are known to be missing, the watcher says so instead of going quiet: a folder that
cannot be watched (the kernel's watch limit) is logged once with what to do, and the folders
given as `poll` (the inbox and the Ask notes, whose changes must not wait for the next scan)
are then checked every `poll_s` seconds; lost events (the kernel's queue overflowed) call
`on_lost`, and the daemon scans the vault at once. Which folders those are is asked again at
every round (`PollPlan`): a Logseq graph's `:pages-directory` can move the inbox while the
daemon runs, and a folder that does not exist yet is polled from when it appears.
"""

from __future__ import annotations

import asyncio
import contextlib
import errno
import logging
import os
import stat
import time
from collections.abc import Awaitable, Callable, Sequence
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

from commonplace.attachments.kinds import attachment_ignored, iter_attachment_paths
from commonplace.daemon.watch_observer import make_observer
from commonplace.runtime.attention import Attention
from commonplace.runtime.changes import Change, ChangeKind
from commonplace.runtime.supervise import start_supervised
from commonplace.vault import is_ignored, iter_note_paths
from commonplace.vault.atomic import replaced_here

log = logging.getLogger(__name__)

# "moved-in": a file renamed onto this path (an editor's atomic save), which may have replaced a
# note that was there: unlike "created", it is not a path that did not exist a moment ago.
Hint = Literal["created", "moved-in", "modified", "deleted", "folder-created", "folder-deleted"]
OnChanges = Callable[[list[Change]], Awaitable[None]]
OnLost = Callable[[str], None]
Signature = tuple[int, int]  # (mtime_ns, size)
COALESCE_S = 0.05
POLL_S = 2.0
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
            out.append((dest or "", "moved-in"))
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
    """A note, or a PDF or image (the index reads those: attachments/; every other stage
    looks at notes only)."""
    return (
        bool(rel)
        and rel != "."
        and (not is_ignored(rel or "") or not attachment_ignored(rel or ""))
    )


def _folder_wanted(rel: str | None) -> bool:
    return bool(rel) and rel != "." and not is_ignored(f"{rel}/x.md")


@dataclass
class Debouncer:
    """Per-path quiet periods, with an injected clock so tests need no sleeps.

    A burst (a `git checkout`, a sync tool catching up: `burst` paths or more settling at once)
    is held back while its files are still being written, and comes out as one batch once they
    are all quiet, or every `hold` seconds while it goes on; otherwise each path settling on its
    own would make hundreds of small batches, each a job.
    """

    delay: float
    clock: Callable[[], float] = time.monotonic
    burst: int = 20
    hold: float = 3.0
    _pending: dict[str, tuple[Hint, float]] = field(default_factory=dict)
    _held_since: float | None = None

    def add(self, path: str, hint: Hint) -> None:
        before = self._pending.get(path, (None, 0.0))[0]
        # Remember whether the path was first seen being created: created-then-deleted within
        # one quiet period is nothing at all. A path that may have held a note when the period
        # began (a rename onto it, or a delete first) is another matter: created again later in
        # the period it is "moved-in", so that gone at the end it is a delete, never nothing
        # (which left the old note in the index).
        keep: Hint
        if hint in ("folder-created", "folder-deleted"):
            keep = hint
        elif before in ("created", "folder-created"):
            keep = before
        elif before is None:
            keep = hint
        elif hint in ("created", "moved-in") or (before == "moved-in" and hint != "deleted"):
            keep = "moved-in"
        else:
            keep = hint
        self._pending[path] = (keep, self.clock())

    def due(self) -> list[tuple[str, Hint]]:
        now = self.clock()
        ready = [(p, h) for p, (h, t) in self._pending.items() if now - t >= self.delay]
        if ready and len(ready) < len(self._pending) and len(self._pending) >= self.burst:
            if self._held_since is None:
                self._held_since = now
            if now - self._held_since < self.hold:
                return []  # part of a burst that is still being written: one batch later
        self._held_since = None
        for path, _ in ready:
            del self._pending[path]
        return ready

    def next_deadline(self) -> float | None:
        if not self._pending:
            return None
        times = [t for _, t in self._pending.values()]
        if self._held_since is not None:  # when the whole burst is quiet, or the hold ends
            return min(max(times) + self.delay, self._held_since + self.hold)
        return min(times) + self.delay

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
                for sub in iter_attachment_paths(vault, under=path):
                    changes[sub] = "created"
        elif hint == "folder-deleted":
            if not full.exists():
                changes[path] = "deleted"
        elif _is_entry(full):  # links, FIFOs...: reported too, so a stage can say it skips them
            # A rename onto a note (an atomic save) arrives as its creation; the daemon's own
            # rewrites (an Ask note's answer) are known to be edits.
            new = hint in ("created", "moved-in") and not replaced_here(full)
            changes[path] = "created" if new else "modified"
        elif hint != "created":  # created and gone again within the quiet period: nothing
            changes[path] = "deleted"
    return [Change(path, kind) for path, kind in changes.items()]


def poll_snapshot(
    vault: Path, folders: Sequence[str], wanted: Callable[[str], bool] | None = None
) -> dict[str, Signature]:
    """(mtime, size) of every note under `folders` that `wanted` accepts."""
    out: dict[str, Signature] = {}
    for folder in folders:
        for rel in iter_note_paths(vault, under=folder):
            if wanted is not None and not wanted(rel):
                continue
            try:
                st = (vault / rel).stat()
            except OSError:
                continue
            out[rel] = (st.st_mtime_ns, st.st_size)
    return out


def poll_diff(old: dict[str, Signature], new: dict[str, Signature]) -> list[tuple[str, Hint]]:
    """What changed between two snapshots, as the hints file events would have given."""
    hints: list[tuple[str, Hint]] = [
        (path, "created" if path not in old else "modified")
        for path, sig in new.items()
        if old.get(path) != sig
    ]
    hints.extend((path, "deleted") for path in old if path not in new)
    return hints


def _why(error: OSError) -> str:
    if error.errno == errno.ENOSPC:
        return (
            "the limit of inotify watches is reached; raise it with "
            "'sudo sysctl fs.inotify.max_user_watches=524288' (and in /etc/sysctl.d/ to keep it)"
        )
    if error.errno == errno.EMFILE:
        return (
            "the limit of inotify instances is reached; raise it with "
            "'sudo sysctl fs.inotify.max_user_instances=1024' (and in /etc/sysctl.d/ to keep it)"
        )
    return str(error)


def _is_entry(full: Path) -> bool:
    """Something other than a folder is there (not following a link to find out)."""
    try:
        return not stat.S_ISDIR(full.lstat().st_mode)
    except OSError:
        return False


@dataclass(frozen=True)
class PollPlan:
    """The folders to poll when file events go missing, and which notes in them count."""

    folders: tuple[str, ...]
    wanted: Callable[[str], bool] | None = None


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
        poll: Sequence[str] | Callable[[], PollPlan] = (),
        poll_wanted: Callable[[str], bool] | None = None,
        poll_s: float = POLL_S,
        on_lost: OnLost | None = None,
        attention: Attention | None = None,
    ) -> None:
        self.vault = vault.resolve()
        self.attention = attention
        self.on_changes = on_changes
        self.debouncer = Debouncer(debounce_s)
        # A callable is asked at every round (the folders may move); a sequence is fixed.
        self.poll_plan: Callable[[], PollPlan]
        if isinstance(poll, Sequence):
            fixed = PollPlan(tuple(poll), poll_wanted)
            self.poll_plan = lambda: fixed
        else:
            self.poll_plan = poll
        self.poll_s = poll_s
        self.on_lost = on_lost
        self.loop: asyncio.AbstractEventLoop | None = None
        self.unwatched = 0  # folders that could not be watched
        self.overflows = 0  # times the kernel dropped events
        self._observer: Any = None
        self._task: asyncio.Task[None] | None = None
        self._poller: asyncio.Task[None] | None = None
        self._wake = asyncio.Event()

    async def start(self) -> None:
        self.loop = asyncio.get_running_loop()
        self._wake = asyncio.Event()
        self._task = start_supervised("watcher", self._pump, self.attention)
        observer = make_observer(self)
        observer.schedule(
            _Handler(self), str(self.vault), recursive=True, event_filter=WATCHED_EVENTS
        )
        try:
            await asyncio.to_thread(observer.start)
        except OSError as exc:
            with contextlib.suppress(Exception):
                observer.stop()  # its inotify reader thread runs from construction
            self._unwatched(str(self.vault), exc)
            return
        self._observer = observer

    async def stop(self) -> None:
        if self._observer is not None:
            self._observer.stop()
            await asyncio.to_thread(self._observer.join, 5)
            self._observer = None
        for task in (self._poller, self._task):
            if task is not None:
                task.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await task
        self._poller = self._task = None

    def status(self) -> dict[str, Any]:
        """For /api/state: are file events complete, and what stands in where they are not."""
        return {
            "events": self._observer is not None,
            "unwatched_folders": self.unwatched,
            "polling": list(self.poll_plan().folders) if self._poller is not None else [],
            "overflows": self.overflows,
        }

    # -- faults, reported from watchdog's threads (watch_observer.Faults) ----------------------

    def watch_failed(self, path: str, error: OSError) -> None:
        self._threadsafe(self._unwatched, path, error)

    def events_lost(self) -> None:
        self._threadsafe(self._lost)

    def _threadsafe(self, fn: Callable[..., None], *args: Any) -> None:
        loop = self.loop
        if loop is not None and not loop.is_closed():
            loop.call_soon_threadsafe(fn, *args)

    def _unwatched(self, path: str, error: OSError) -> None:
        self.unwatched += 1
        if self.unwatched == 1:  # once: a big vault can fail on thousands of folders
            rel = _inside(self.vault, path) or path
            log.warning(
                "watcher: %s cannot be watched (%s). Until then the inbox and Ask folders are "
                "checked every %.0f s and the rest of the vault at each periodic scan",
                "the vault" if rel == "." else repr(rel),
                _why(error),
                self.poll_s,
            )
            if self.attention is not None:
                self.attention.report(
                    "watcher",
                    "",
                    "unwatched",
                    f"some folders cannot be watched ({_why(error).split(';')[0]}); the inbox "
                    "and Ask folders are polled, the rest waits for the periodic scan",
                    action=_why(error).split("; ", 1)[-1],
                )
        if self._poller is None and self.poll_plan().folders:
            self._poller = start_supervised("watcher polling", self._poll, self.attention)

    def _lost(self) -> None:
        self.overflows += 1
        log.warning(
            "watcher: the kernel's queue of file events overflowed and events were lost "
            "(%d time(s) so far); scanning the vault now",
            self.overflows,
        )
        if self.attention is not None:
            self.attention.report(
                "file events",
                "",
                "events_lost",
                "the kernel's queue of file events overflowed and events were lost; the vault "
                "was scanned at once",
                action="if this keeps happening, look for a program reading the vault in a loop",
                level="info",
            )
        if self.on_lost is not None:
            self.on_lost("file events were lost")

    async def _poll(self) -> None:
        seen: dict[str, Signature] = {}  # empty: what is there now is reported once, as new
        folders: tuple[str, ...] = ()
        while True:
            try:
                plan = self.poll_plan()
                now = await asyncio.to_thread(poll_snapshot, self.vault, plan.folders, plan.wanted)
                if plan.folders != folders:
                    if folders:
                        log.info("watcher: now polling %s", ", ".join(plan.folders))
                        # what the old folders held left the poll; it was not deleted
                        seen = {path: sig for path, sig in seen.items() if path in now}
                    folders = plan.folders
                hints = poll_diff(seen, now)
                seen = now
                if hints:
                    self.record(hints)
            except Exception:
                log.exception("watcher: polling %s failed", ", ".join(folders) or "the folders")
            await asyncio.sleep(self.poll_s)

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
            with contextlib.suppress(TimeoutError):  # (not wait_for: see llm/client.py status)
                async with asyncio.timeout(timeout):
                    await self._wake.wait()
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
