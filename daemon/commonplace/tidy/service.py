"""TidyService: watches the inbox through the daemon's changes and tidies captures one by one.

A capture is read only once it is stable (size and modified time unchanged for `stable_s`), so
a file still being written by a sync tool or an editor is never read half-way. Captures are
processed one at a time, oldest capture first. When Ollama is down, slow or answers garbage the
capture waits and is retried with backoff; after `max_attempts` garbage answers in a row it is
marked in the data folder and waits until its text changes.

One capture never holds up the others: a capture that cannot be read, or whose tidying fails in
any way, waits on its own backoff and is shown in attention (/api/state, `doctor`) with what to
do, while the captures after it go on. The worker runs supervised, so even a bug in this file
restarts it instead of silently ending the inbox's processing.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from commonplace.attention import Attention
from commonplace.capture import capture_order_key
from commonplace.changes import Change
from commonplace.config import Settings
from commonplace.llm import LLM, BadAnswer, LLMError, ModelMissing, ModelUnsuitable
from commonplace.supervise import start_supervised, where
from commonplace.tidy.candidates import SearchIndex
from commonplace.tidy.pipeline import CaptureEdited, CaptureUnreadable, TidyContext, tidy_capture
from commonplace.tidy.state import TidyState
from commonplace.vault import file_hash, in_folder, is_ignored, iter_note_paths

log = logging.getLogger(__name__)

SOURCE = "tidy"  # its entries in attention
READ_ACTION = "let the daemon's user read it (e.g. chmod u+r)"
WRITE_ACTION = "check the disk (free space, permissions)"
REPORT_IT = "the daemon's log has the details"

Signature = tuple[int, int]  # (mtime_ns, size)


@dataclass
class _Waiting:
    signature: Signature | None = None
    since: float = 0.0  # clock time the signature was first seen
    not_before: float = 0.0  # backoff: not tried again before this clock time
    failures: int = 0  # failures in a row (any kind), for the backoff
    reason: str = ""  # the last failure, for status()
    parked: bool = False  # waits for the owner (or a long backoff): wait_idle() ignores it


class StabilityTracker:
    """Which paths have kept the same size and modified time for `delay` seconds."""

    def __init__(self, delay: float, clock: Callable[[], float] = time.monotonic) -> None:
        self.delay = delay
        self.clock = clock
        self.waiting: dict[str, _Waiting] = {}

    def add(self, path: str) -> None:
        """(Re)start the quiet period: the file just changed (an edit, a chmod), so whatever
        made it fail may be fixed: it is tried again as soon as it is quiet."""
        item = self.waiting.setdefault(path, _Waiting())
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


class TidyService:
    def __init__(
        self,
        settings: Settings,
        llm: LLM,
        index: SearchIndex | None = None,
        *,
        clock: Callable[[], float] = time.monotonic,
        now: Callable[[], datetime] | None = None,
        attention: Attention | None = None,
        may_work: Callable[[], bool] = lambda: True,
    ) -> None:
        self.settings = settings
        self.attention = attention if attention is not None else Attention()
        # False while another computer's daemon holds the vault's lease (lease.py): captures
        # wait for it; a scan wakes the worker when this daemon wins the lease.
        self.may_work = may_work
        self.ctx = TidyContext(settings, llm, index, now=now)
        self.state = TidyState(settings.data_path)
        self.tracker = StabilityTracker(settings.tidy.stable_s, clock)
        self.filed = 0
        self._busy: str | None = None
        self._wake = asyncio.Event()
        self._idle = asyncio.Event()
        self._task: asyncio.Task[None] | None = None

    # -- the daemon's interface -------------------------------------------------------------

    async def startup(self) -> None:
        """Queue every capture in the inbox (catch-up), then start the worker."""
        await self.scan()

    async def scan(self) -> None:
        """Queue every capture in the inbox: at start-up, and at each later scan, so that a
        capture whose file events were lost (or never came) is still tidied."""
        inbox = self.settings.folder("inbox")
        for path in iter_note_paths(self.settings.vault, under=inbox):
            if path not in self.tracker.waiting:  # one already waiting keeps its backoff
                self.tracker.add(path)
        self._start()
        self._wake.set()

    async def on_changes(self, changes: Iterable[Change]) -> None:
        inbox = self.settings.folder("inbox")
        for change in changes:
            if not in_folder(change.path, inbox) or is_ignored(change.path):
                continue
            if change.kind == "deleted":
                self.tracker.forget(change.path)
                self.attention.clear(SOURCE, change.path)
            else:
                self.tracker.add(change.path)
        self._start()
        self._wake.set()

    def status(self) -> dict[str, Any]:
        """For /api/state and `doctor`: what waits, what is being tidied, what is marked."""
        waiting = [
            {"path": p, "retrying": bool(w.failures), "reason": w.reason}
            for p, w in sorted(self.tracker.waiting.items())
        ]
        failing = [
            {"path": m.path, "reason": m.reason, "attempts": m.attempts}
            for m in self.state.marks()
            if m.failing
        ]
        return {"waiting": waiting, "busy": self._busy, "failing": failing, "filed": self.filed}

    async def close(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
            self._task = None

    async def wait_idle(self) -> None:
        """Wait until no capture is waiting, except those parked until the owner acts (tests
        and one-shot runs; bound it with a timeout)."""
        while self._active() or self._busy:
            self._idle.clear()
            await self._idle.wait()

    def _active(self) -> bool:
        return any(not w.parked for w in self.tracker.waiting.values())

    # -- the worker ---------------------------------------------------------------------------

    def _start(self) -> None:
        if self._task is None or self._task.done():
            self._task = start_supervised("tidy worker", self._work, self.attention)

    def _stat(self, path: str) -> Signature | None:
        try:
            st = (self.settings.vault / path).stat()
        except OSError:
            return None
        return (st.st_mtime_ns, st.st_size)

    def _order(self, path: str) -> tuple[datetime, str]:
        item = self.tracker.waiting.get(path)
        mtime = item.signature[0] / 1e9 if item and item.signature else 0.0
        return capture_order_key(path, self.settings.tz, mtime)

    async def _work(self) -> None:
        while True:
            self._wake.clear()
            ready, next_at = self.tracker.check(self._stat)
            if ready and self.may_work():
                await self._process(min(ready, key=self._order))
                continue
            if ready:
                next_at = None  # until a scan wakes us: the lease is another computer's
            if not self._active():
                self._idle.set()
            timeout = None if next_at is None else max(0.0, next_at - self.tracker.clock())
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._wake.wait(), timeout)

    async def _process(self, path: str) -> None:
        item = self.tracker.waiting[path]
        self._busy = path
        try:
            await self._tidy(path, item)
        except asyncio.CancelledError:
            raise
        except Exception as exc:  # never let one capture stop the worker or the others
            log.exception("%s: tidy failed", path)
            self._failed(path, item, "failed", f"could not be tidied ({where(exc)})", REPORT_IT)
        finally:
            self._busy = None

    async def _tidy(self, path: str, item: _Waiting) -> None:
        try:
            digest = file_hash(self.settings.vault / path)
        except OSError as exc:
            self._unreadable(path, item, exc)
            return
        if digest is None:
            self.tracker.forget(path)
            self.attention.clear(SOURCE, path)
            return
        if self.state.failing(path, digest):
            self.tracker.forget(path)  # marked: waits for the user to change it
            return
        try:
            outcome = await tidy_capture(self.ctx, path)
        except CaptureUnreadable as exc:
            self._unreadable(path, item, exc.error)
        except CaptureEdited as exc:
            log.info("%s; waiting for it to settle", exc)
            item.signature = None
        except LLMError as exc:
            if _unusable(exc):
                self._garbage(path, digest, item, exc)
            else:
                self._back_off(item, str(exc))
        except UnicodeDecodeError:
            self.state.garbage(path, digest, "not UTF-8 text", 1)
            log.warning("%s is not UTF-8 text; it is left in the inbox", path)
            self.tracker.forget(path)
        except OSError as exc:
            reason = f"could not be filed: {exc.strerror or type(exc).__name__}"
            self._failed(path, item, "write_failed", reason, WRITE_ACTION)
        else:
            if outcome.status == "filed":
                self.filed += 1
            self.state.clear(path)
            self.tracker.forget(path)
            self.attention.clear(SOURCE, path)

    def _unreadable(self, path: str, item: _Waiting, exc: OSError) -> None:
        reason = f"cannot be read ({exc.strerror or type(exc).__name__})"
        item.parked = True  # it needs the owner; a chmod or an edit retries it at once
        self._failed(path, item, "unreadable", reason, READ_ACTION)

    def _failed(self, path: str, item: _Waiting, code: str, reason: str, action: str) -> None:
        """This capture waits on its own backoff and is shown with why; the others go on."""
        wait = self._back_off(item, reason, path)
        self.attention.report(
            SOURCE, path, code, reason, action=action, retry_at=time.time() + wait
        )

    def _garbage(self, path: str, digest: str, item: _Waiting, exc: LLMError) -> None:
        """An answer that cannot be used: counted, and after max_attempts the capture is marked."""
        reason = exc.reason if isinstance(exc, BadAnswer) else str(exc)
        mark = self.state.garbage(path, digest, reason, self.settings.tidy.max_attempts)
        if mark.failing:
            log.warning(
                "%s: marked after %d unusable answers (%s); edit it or run "
                "'commonplace tidy \"%s\"' to try again",
                path,
                mark.attempts,
                reason,
                path,
            )
            self.tracker.forget(path)
        else:
            self._back_off(item, str(exc))

    def _back_off(self, item: _Waiting, reason: str, path: str = "") -> float:
        t = self.settings.tidy
        item.failures += 1
        wait = float(min(t.retry_s * 2 ** (item.failures - 1), t.retry_max_s))
        item.not_before = self.tracker.clock() + wait
        item.reason = reason
        prefix = f"{path}: " if path else ""
        log.warning("tidy will try again in %.0f s: %s%s", wait, prefix, reason)
        return wait


def _unusable(exc: LLMError) -> bool:
    """Garbage, or a request Ollama will never accept (a 4xx, such as a schema its runner cannot
    compile): counted towards a mark. A missing or unsuitable model is not the capture's fault:
    it waits (with backoff) for `ollama pull` or a change of settings."""
    if isinstance(exc, ModelMissing | ModelUnsuitable):
        return False
    return isinstance(exc, BadAnswer) or not exc.retryable
