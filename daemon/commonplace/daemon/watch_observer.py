"""The file-event observer, with the two failures watchdog keeps to itself reported.

watchdog handles both quietly. A folder it cannot watch (the kernel's limit on inotify watches,
`fs.inotify.max_user_watches`, errno 28) is skipped without a word, so changes in it are never
seen. When the kernel's event queue overflows (a burst of changes, or a busy reader), watchdog
logs a line and rebuilds its watches, but the lost events stay lost and nobody downstream is
told. Both mean changes will be missed, so both are passed to `Faults`: the watcher then polls
the folders whose changes must not wait (the inbox, the Ask notes) and the daemon scans the vault.

Only Linux's inotify observer has these hooks; elsewhere the platform's own observer is used and
the periodic scan is the safety net.
"""

from __future__ import annotations

import errno
import logging
import os
from typing import Any, Protocol

from watchdog.observers import Observer

log = logging.getLogger(__name__)

# A folder that vanished while watches were being added is not a fault: it is simply gone.
_NOT_FAULTS = {errno.ENOENT, errno.ENOTDIR}


class Faults(Protocol):
    """Called from watchdog's threads: implementations must hand over to their own loop."""

    def watch_failed(self, path: str, error: OSError) -> None: ...

    def events_lost(self) -> None: ...


def make_observer(faults: Faults) -> Any:
    """An observer that reports to `faults` where it can, else the platform's plain one."""
    try:
        return _inotify_observer(faults)
    except Exception as exc:  # not Linux (no inotify), or a watchdog without these classes
        log.debug("watcher: no inotify fault hooks (%s); using the platform's observer", exc)
        return Observer()


def _inotify_observer(faults: Faults) -> Any:
    from watchdog.observers.inotify import InotifyEmitter, InotifyObserver, InotifyWatchGroup

    class ReportingFD:
        """The shared inotify instance, with every watch that cannot be added reported."""

        def __init__(self, fd: Any) -> None:
            self._fd = fd

        def add_callback(self, path: bytes, *args: Any) -> Any:
            try:
                return self._fd.add_callback(path, *args)
            except OSError as exc:
                if exc.errno not in _NOT_FAULTS:
                    faults.watch_failed(os.fsdecode(path), exc)
                raise  # watchdog skips a sub-folder it cannot watch, and fails on the root

        def remove_callbacks(self, callbacks: Any) -> None:
            self._fd.remove_callbacks(callbacks)

    class Group(InotifyWatchGroup):  # type: ignore[misc]
        def on_queue_overflow(self) -> None:
            super().on_queue_overflow()  # watchdog re-adds its watches (they may fail again)
            faults.events_lost()

    class Emitter(InotifyEmitter):  # type: ignore[misc]
        def on_thread_start(self) -> None:
            fd: Any = ReportingFD(self._inotify_fd)  # stands in for the InotifyFD
            self._inotify = Group(
                fd,
                os.fsencode(self.watch.path),
                is_recursive=self.watch.is_recursive,
                event_mask=self.get_event_mask_from_filter(),
                follow_symlink=self.watch.follow_symlink,
            )

    observer = InotifyObserver()
    observer._emitter_class = Emitter  # the observer builds one emitter per scheduled watch
    return observer
