"""Requests first: long background loops pause while the daemon answers someone.

Python threads share one interpreter lock. A worker thread that reads and chunks thousands of
notes holds it nearly all the time, and a search running meanwhile gets it back only in 5 ms
slices, again and again: on a 20,000-note first start a 20 ms search took most of a second. So
each request the server answers counts as foreground work for its first `FOREGROUND_S`, and the
long background loops (reading and chunking notes, filling the keyword index, scanning the vault
for tidy) call `pause()` between items: while foreground work is under way they sleep, which
lets go of the lock. A pause lasts at most `MAX_PAUSE_S`, and a long request (an answer from the
model) stops counting after `FOREGROUND_S`, so background work is slowed, never stopped.

`pause()` does nothing on a thread that runs an event loop (that would stall the loop itself).
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import threading
import time
from collections.abc import Iterator

FOREGROUND_S = 1.0  # a request counts as foreground for this long
MAX_PAUSE_S = 1.0  # one pause never lasts longer
STEP_S = 0.01

_lock = threading.Lock()
_started: dict[int, float] = {}  # request token -> monotonic start
_tokens = itertools.count()


@contextlib.contextmanager
def foreground() -> Iterator[None]:
    """Mark the enclosed work (a request) as foreground."""
    token = next(_tokens)
    with _lock:
        _started[token] = time.monotonic()
    try:
        yield
    finally:
        with _lock:
            _started.pop(token, None)


def busy(now: float | None = None) -> bool:
    """Is foreground work under way (started less than FOREGROUND_S ago)?"""
    now = time.monotonic() if now is None else now
    with _lock:
        return any(now - t < FOREGROUND_S for t in _started.values())


def pause() -> float:
    """Called by background loops between items: wait while foreground work runs (at most
    MAX_PAUSE_S); returns the seconds waited."""
    if not _started or not busy() or _in_event_loop():
        return 0.0
    start = time.monotonic()
    while busy() and time.monotonic() - start < MAX_PAUSE_S:
        time.sleep(STEP_S)
    return time.monotonic() - start


def _in_event_loop() -> bool:
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return False
    return True
