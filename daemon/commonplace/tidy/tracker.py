"""Which captures are waiting, since when, and until when they must wait.

A capture is read only once it is stable (size and modified time unchanged for `delay`), so a
file still being written by a sync tool or an editor is never read half-way; after a failure it
also waits out its backoff (`not_before`). A change to the file starts it afresh.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass

Signature = tuple[int, int]  # (mtime_ns, size)


@dataclass
class Waiting:
    signature: Signature | None = None
    since: float = 0.0  # clock time the signature was first seen
    not_before: float = 0.0  # backoff: not tried again before this clock time
    failures: int = 0  # failures in a row (any kind), for the backoff
    reason: str = ""  # the last failure, for status()
    parked: bool = False  # waits for the owner (or a long backoff): wait_idle() ignores it
    vetted: Signature | None = None  # the signature vetting.vet() last looked at


class StabilityTracker:
    """Which paths have kept the same size and modified time for `delay` seconds."""

    def __init__(self, delay: float, clock: Callable[[], float] = time.monotonic) -> None:
        self.delay = delay
        self.clock = clock
        self.waiting: dict[str, Waiting] = {}

    def add(self, path: str) -> None:
        """(Re)start the quiet period: the file just changed (an edit, a chmod), so whatever
        made it fail may be fixed: it is tried again as soon as it is quiet."""
        item = self.waiting.setdefault(path, Waiting())
        item.signature = None
        item.not_before = 0.0
        item.parked = False

    def forget(self, path: str) -> None:
        self.waiting.pop(path, None)

    def check(self, stat: Callable[[str], Signature | None]) -> tuple[list[str], float | None]:
        """(paths ready now, clock time of the next check or None)."""
        now = self.clock()
        ready: list[str] = []
        next_at: float | None = None
        for path, item in list(self.waiting.items()):
            if item.signature is not None and item.not_before > now:
                # Backing off: no need to look at the file before then (a change re-adds it).
                next_at = item.not_before if next_at is None else min(next_at, item.not_before)
                continue
            sig = stat(path)
            if sig is None:
                del self.waiting[path]
                continue
            if sig != item.signature:
                item.signature, item.since = sig, now
            due = max(item.since + self.delay, item.not_before)
            if now >= due:
                ready.append(path)
            else:
                next_at = due if next_at is None else min(next_at, due)
        return ready, next_at
