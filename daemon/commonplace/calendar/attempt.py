"""One calendar call's work in the worker thread, and its point of no return.

Split from calendar/client.py, whose docstring says why a change, once sent, is waited for and
why a write never starts once the caller has stopped waiting.
"""

from __future__ import annotations

import asyncio
import threading
import time
from typing import Any

from commonplace.calendar.models import CalendarError

SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS", "PROPFIND", "REPORT"})  # read, never change


class GaveUp(CalendarError):
    """The caller stopped waiting before this call's change was sent: it is never sent."""


class Attempt:
    """One call's work in the worker thread, and its point of no return.

    The caller stops waiting after timeout_s, but a thread cannot be stopped: left alone, it
    would go on to write after the owner was told that nothing changed. So a write asks
    `begin_write` first, which refuses once the caller gave up; and once a write is on its way,
    `give_up` answers True: "nothing was changed" is no longer known to be true.

    States: "reading" -> "writing" (the write began; no changing request has left this
    computer yet) -> "sent" (`on_wire`: one has) -> "made" | "refused" (the server answered).
    """

    def __init__(self, deadline: float | None = None) -> None:
        self._lock = threading.Lock()
        self._given_up = False
        self._state = "reading"
        self._on_wire = 0  # changing requests sent in this write (caldav may send one again)
        self._deadline = deadline  # time.monotonic() when the caller stops waiting

    def read_time_left(self, method: str) -> float | None:
        """Seconds a request may still wait: a read before any write shares the caller's wait
        (so the thread stops when the caller does); None (its full timeout) for a change, and
        for anything once a write began, whose outcome the owner must learn."""
        with self._lock:
            if self._deadline is None or method not in SAFE_METHODS or self._state != "reading":
                return None
            return self._deadline - time.monotonic()

    def check(self) -> None:
        with self._lock:
            if self._given_up:
                raise GaveUp("the caller stopped waiting")

    def begin_write(self, *, watched: bool) -> None:
        """`watched`: the HTTP session reports when a request goes out (`on_wire`); without
        that, the write counts as sent from here (it may be, and nothing would say)."""
        with self._lock:
            if self._given_up:
                raise GaveUp("the caller stopped waiting; nothing was sent")
            self._state = "writing" if watched else "sent"
            self._on_wire = 0

    def on_wire(self) -> None:
        """A changing request is about to go out on a live connection."""
        with self._lock:
            if self._state in ("writing", "sent"):
                self._state = "sent"
                self._on_wire += 1

    @property
    def resent(self) -> bool:
        """The change went out more than once (caldav sends a PUT again after a 5xx): an
        answer to the last one says nothing of what the first did."""
        with self._lock:
            return self._on_wire > 1

    def answered(self, *, made: bool) -> None:
        with self._lock:
            self._state = "made" if made else "refused"

    @property
    def sent(self) -> bool:
        """A change went out and no answer says what became of it: it may have been made."""
        with self._lock:
            return self._state == "sent"

    def give_up(self) -> bool:
        """The caller stops waiting; True if a change may already have been made (a write
        that began goes on in its thread, so it counts from then)."""
        with self._lock:
            self._given_up = True
            return self._state in ("writing", "sent", "made")


def collect(work: asyncio.Future[Any]) -> None:
    """A call the caller stopped waiting for still ends: its outcome is taken here, so asyncio
    does not report an exception nobody retrieved."""
    if not work.cancelled():
        work.exception()
