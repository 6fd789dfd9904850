"""TidyService: watches the inbox through the daemon's changes and tidies captures one by one.

A capture is read only once it is stable (size and modified time unchanged for `stable_s`), so
a file still being written by a sync tool or an editor is never read half-way. Captures are
processed one at a time, oldest capture first. When the model is down, slow or answers garbage the
capture waits and is retried with backoff; after `max_attempts` garbage answers in a row it is
marked in the data folder (see state.py) and tried again on a long backoff, or at once when its
text, the chat model or its server changes: while a marked capture waits, a check every minute
notices a new model or version.

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
from datetime import datetime
from typing import Any

from commonplace.basics.backoff import backoff_s
from commonplace.capture.inbox import CaptureNotText, CaptureTooLarge, capture_order_key
from commonplace.config import Settings
from commonplace.llm import (
    LLM,
    BadAnswer,
    LLMError,
    ModelMissing,
    ModelStatus,
    ModelUnsuitable,
)
from commonplace.runtime.attention import Attention
from commonplace.runtime.changes import Change
from commonplace.runtime.supervise import start_supervised, where
from commonplace.tidy.candidates import SearchIndex
from commonplace.tidy.pipeline import CaptureEdited, CaptureUnreadable, TidyContext, tidy_capture
from commonplace.tidy.state import Mark, TidyState
from commonplace.tidy.tracker import Signature, StabilityTracker, Waiting
from commonplace.tidy.vetting import vet_all
from commonplace.vault import (
    FileRefused,
    content_hash,
    in_folder,
    is_ignored,
    iter_note_paths,
    read_file,
    write_trouble,
)

log = logging.getLogger(__name__)

SOURCE = "tidy"  # its entries in attention
MODEL_CHECK_S = 60.0  # how often the chat model and its server are checked for a change
STATUS_LIST_MAX = 100  # captures listed by status(): /api/state stays small whatever waits
READ_ACTION = "let the daemon's user read it (e.g. chmod u+r)"
NOT_A_FILE_ACTION = (
    "it is never read, moved or deleted: links, FIFOs, sockets and devices are not captures; "
    "put the file itself there, or remove it"
)
REPORT_IT = "the daemon's log has the details"
EMPTY = "has no words (only frontmatter or blank lines); nothing to file"
EMPTY_ACTION = "write something in it, or delete it"
NOT_TEXT = "is not UTF-8 text (a binary file, or text saved in another encoding); not read"
NOT_TEXT_ACTION = "save it again as UTF-8 text, or move it out of the inbox"
HAS_NUL = (
    "holds a NUL character (\\0, as binary files do): filed, it could never be found by a "
    "search; not filed"
)
HAS_NUL_ACTION = (
    "remove the NUL character (an editor may show it as ^@ or \\0) and save it, or move it "
    "out of the inbox"
)
VET_BATCH = 200  # captures looked at per round while the model is down
TOO_LARGE_ACTION = (
    "split it into smaller notes, or move it out of the inbox (or raise [tidy] max_capture_kb)"
)


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
        # False while another computer's daemon holds the vault's lease (daemon/lease.py): captures
        # wait for it; a scan wakes the worker when this daemon wins the lease.
        self.may_work = may_work
        self.ctx = TidyContext(settings, llm, index, now=now)
        self.state = TidyState(settings.data_path)
        self.tz = settings.tz  # once: working it out reads /etc/localtime
        self.tracker = StabilityTracker(settings.tidy.stable_s, clock)
        self.model_id = ""  # model_id() of the chat model answering now, once known
        self._model_checked = -MODEL_CHECK_S  # tracker clock of the last answer to a check
        self._pause_until = 0.0  # clock time: the model server failed, nothing is tried before then
        self.filed = 0
        self._busy: str | None = None
        self._wake = asyncio.Event()
        self._idle = asyncio.Event()
        self._task: asyncio.Task[None] | None = None
        self._model_task: asyncio.Task[None] | None = None

    # -- the daemon's interface -------------------------------------------------------------

    async def startup(self) -> None:
        """Queue every capture in the inbox (catch-up), then start the worker."""
        await self.scan()

    async def scan(self) -> None:
        """Queue every capture in the inbox: at start-up, and at each later scan, so that a
        capture whose file events were lost (or never came) is still tidied."""
        inbox = self.settings.folder("inbox")
        for path in iter_note_paths(self.settings.vault, under=inbox, refused=self._skip):
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
            for p, w in sorted(self.tracker.waiting.items())[:STATUS_LIST_MAX]
        ]
        failing = [
            {"path": m.path, "reason": m.reason, "attempts": m.attempts}
            for m in self.state.marks()
            if m.failing
        ]
        return {
            "waiting": waiting,  # the first STATUS_LIST_MAX, by path
            "waiting_count": len(self.tracker.waiting),
            "busy": self._busy,
            "failing": failing,
            "filed": self.filed,
        }

    async def close(self) -> None:
        for task in (self._task, self._model_task):
            if task is not None:
                task.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await task
        self._task = self._model_task = None

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
        if self._model_task is None or self._model_task.done():
            self._model_task = start_supervised(
                "tidy model check", self._watch_model, self.attention
            )

    def _stat(self, path: str) -> Signature | None:
        try:
            st = (self.settings.vault / path).lstat()  # a link is judged as itself
        except OSError:
            return None
        return (st.st_mtime_ns, st.st_size)

    def _order(self, path: str) -> tuple[datetime, str]:
        item = self.tracker.waiting.get(path)
        mtime = item.signature[0] / 1e9 if item and item.signature else 0.0
        return capture_order_key(path, self.tz, mtime)

    async def _work(self) -> None:
        while True:
            self._wake.clear()
            ready, next_at = self.tracker.check(self._stat)
            leased_elsewhere = not self.may_work()
            if ready and not leased_elsewhere and self.tracker.clock() >= self._pause_until:
                await self._process(min(ready, key=self._order))
                continue
            if ready and leased_elsewhere:
                next_at = None  # until a scan wakes us: the lease is another computer's
            elif (
                ready
            ):  # the model server itself failed a moment ago: no capture is tried before then,
                unseen = [p for p in ready if self._unvetted(p)][:VET_BATCH]
                if unseen:  # but what needs the owner is found and shown meanwhile
                    await self._vet(unseen)
                    continue
                next_at = self._pause_until if next_at is None else min(next_at, self._pause_until)
            if not self._active():
                self._idle.set()
            timeout = None if next_at is None else max(0.0, next_at - self.tracker.clock())
            with contextlib.suppress(TimeoutError):  # (not wait_for: see llm/client.py status)
                async with asyncio.timeout(timeout):
                    await self._wake.wait()

    def _unvetted(self, path: str) -> bool:
        item = self.tracker.waiting[path]
        return item.vetted is None or item.vetted != item.signature

    async def _vet(self, paths: list[str]) -> None:
        seen = {p: self.tracker.waiting[p].signature for p in paths}
        limit = self.settings.tidy.max_capture_kb * 1024
        verdicts = await asyncio.to_thread(vet_all, self.settings.vault, paths, self.tz, limit)
        for verdict in verdicts:
            item = self.tracker.waiting.get(verdict.path)
            if item is None or item.signature != seen[verdict.path]:
                continue  # changed meanwhile: it is looked at again
            item.vetted = item.signature
            if verdict.problem == "gone":
                self.tracker.forget(verdict.path)
                self.attention.clear(SOURCE, verdict.path)
            elif isinstance(verdict.error, CaptureTooLarge):
                self._too_large(verdict.error)
            elif isinstance(verdict.error, FileRefused):
                self._skip(verdict.path, verdict.error.reason)
            elif isinstance(verdict.error, OSError):
                self._unreadable(verdict.path, item, verdict.error)
            elif verdict.problem == "empty":
                self._set_aside(verdict.path, "empty", EMPTY, EMPTY_ACTION)
            elif verdict.problem in ("not_text", "nul"):
                self._not_text(verdict.path, nul=verdict.problem == "nul")

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

    async def _tidy(self, path: str, item: Waiting) -> None:
        limit = self.settings.tidy.max_capture_kb * 1024
        if item.signature is not None and item.signature[1] > limit:
            self._too_large(CaptureTooLarge(path, item.signature[1], limit))
            return  # not read at all
        try:  # by the vault's read rule: never through a link, never blocking (vault/files.py)
            digest = content_hash(read_file(self.settings.vault, path, limit)[0])
        except FileRefused as exc:
            if exc.size is not None:  # grew past the limit since it was looked at
                self._too_large(CaptureTooLarge(path, exc.size, limit))
            else:
                self._skip(path, exc.reason)
            return
        except (FileNotFoundError, NotADirectoryError):
            self.tracker.forget(path)
            self.attention.clear(SOURCE, path)
            return
        except OSError as exc:
            self._unreadable(path, item, exc)
            return
        if not self.model_id or self._model_check_due():
            await self._check_model()  # so that a mark made now says which model gave it
        mark = self.state.mark(path)
        if mark is not None and mark.failing and not self._mark_due(mark, digest):
            self._park_marked(path, item, mark)
            return
        try:
            outcome = await tidy_capture(self.ctx, path)
        except CaptureUnreadable as exc:
            self._unreadable(path, item, exc.error)
        except CaptureTooLarge as exc:  # it grew past the limit since it was looked at
            self._too_large(exc)
        except CaptureEdited as exc:
            log.info("%s; waiting for it to settle", exc)
            item.signature = None
        except FileRefused as exc:  # replaced by a link or a FIFO since it was looked at
            self._skip(path, exc.reason)
        except LLMError as exc:
            if _unusable(exc):
                self._garbage(path, digest, item, exc)
            else:  # the server's trouble, not this capture's: the others wait with it
                wait = self._back_off(item, str(exc))
                self._pause_until = self.tracker.clock() + wait
        except UnicodeDecodeError:
            # The file's fault, not the model's: set aside and shown until it changes (it was
            # marked as if the model had answered garbage, and shown as that after a restart).
            self._not_text(path, nul=False)
        except CaptureNotText:  # the same, for a NUL character: the index would skip the note
            self._not_text(path, nul=True)
        except OSError as exc:  # a git operation holds the vault (VaultBusy), a full disk...
            trouble = write_trouble(exc)
            reason = f"not filed yet: {trouble.why}"
            self._failed(path, item, trouble.code, reason, trouble.action)
        else:
            if outcome.status == "filed":
                self.filed += 1
            self.state.clear(path)
            if outcome.status == "empty":
                self._set_aside(path, "empty", EMPTY, EMPTY_ACTION)
                return
            self.tracker.forget(path)
            self.attention.clear(SOURCE, path)

    def _skip(self, path: str, reason: str) -> None:
        """A link, FIFO, socket or device: never read, moved or deleted; shown in attention
        (/api/state, doctor) until it changes or goes."""
        old = self.attention.get(SOURCE, path)
        if old is None or old.reason != reason:
            log.warning("%s is skipped: %s; it is left where it is", path, reason)
        self._set_aside(path, "not_a_file", reason, NOT_A_FILE_ACTION)

    def _not_text(self, path: str, *, nul: bool) -> None:
        """Not UTF-8, or holding a NUL: left in the inbox as it is and shown until it changes
        (found by tidying it, or by the checks made while the model is down)."""
        reason, action = (HAS_NUL, HAS_NUL_ACTION) if nul else (NOT_TEXT, NOT_TEXT_ACTION)
        old = self.attention.get(SOURCE, path)
        if old is None or old.reason != reason:
            what = "holds a NUL character" if nul else "is not UTF-8 text"
            log.warning("%s %s; it is left in the inbox", path, what)
        self.state.clear(path)
        self._set_aside(path, "not_text", reason, action)

    def _too_large(self, exc: CaptureTooLarge) -> None:
        kb, limit = exc.size // 1024, exc.limit // 1024
        log.warning(
            "%s: %d KB, over the %d KB capture limit; left in the inbox", exc.path, kb, limit
        )
        reason = f"{kb} KB, over the {limit} KB limit for a capture; not read, left as it is"
        self._set_aside(exc.path, "too_large", reason, TOO_LARGE_ACTION)

    def _set_aside(self, path: str, code: str, reason: str, action: str) -> None:
        """Left in the inbox as it is, shown with why, until it changes (a change re-adds it)."""
        self.tracker.forget(path)
        self.attention.report(SOURCE, path, code, reason, action=action)

    def _unreadable(self, path: str, item: Waiting, exc: OSError) -> None:
        reason = f"cannot be read ({exc.strerror or type(exc).__name__})"
        item.parked = True  # it needs the owner; a chmod or an edit retries it at once
        self._failed(path, item, "unreadable", reason, READ_ACTION)

    def _failed(self, path: str, item: Waiting, code: str, reason: str, action: str) -> None:
        """This capture waits on its own backoff and is shown with why; the others go on."""
        wait = self._back_off(item, reason, path)
        self.attention.report(
            SOURCE, path, code, reason, action=action, retry_at=time.time() + wait
        )

    def _garbage(self, path: str, digest: str, item: Waiting, exc: LLMError) -> None:
        """An answer that cannot be used: counted, and after max_attempts the capture is marked."""
        reason = exc.reason if isinstance(exc, BadAnswer) else str(exc)
        t = self.settings.tidy
        mark = self.state.garbage(
            path,
            digest,
            reason,
            t.max_attempts,
            model=self.model_id,
            first_wait_s=t.marked_retry_s,
        )
        if mark.failing:
            log.warning(
                "%s: marked after %d unusable answers (%s); tried again in %.0f s, or at once "
                "when it is edited or the model changes",
                path,
                mark.attempts,
                reason,
                mark.retry_at - time.time(),
            )
            self._park_marked(path, item, mark)
        else:
            self._back_off(item, str(exc), path)

    def _mark_due(self, mark: Mark, digest: str) -> bool:
        """A marked capture is tried when its text or the model changed, or its wait is over."""
        changed = mark.content_hash != digest or self._other_model(mark)
        return changed or time.time() >= mark.retry_at

    def _other_model(self, mark: Mark) -> bool:
        return bool(self.model_id and mark.model) and mark.model != self.model_id

    def _park_marked(self, path: str, item: Waiting, mark: Mark) -> None:
        item.not_before = self.tracker.clock() + max(0.0, mark.retry_at - time.time())
        item.parked = True
        item.reason = mark.reason
        self.attention.report(
            SOURCE,
            path,
            "unusable_answers",
            f"the model gave {mark.attempts} unusable answers (last: {mark.reason})",
            action="it is tried again by itself, and at once when you edit it or the chat model "
            f"or its server changes; or run: commonplace tidy '{path}'",
            retry_at=mark.retry_at,
        )

    # -- noticing a new model ---------------------------------------------------------------

    async def _watch_model(self) -> None:
        """While a marked capture waits, every MODEL_CHECK_S: which chat model and server
        answer; a change tries every marked capture again at once (the garbage may have been
        the old model's). With none marked, a change would retry nothing, so the server is not
        asked: an idle daemon must not wake it every minute (each check lists its models,
        which reads them from its disk). The marks are read from the data folder each time,
        since `commonplace tidy` may add one; a capture being tidied checks for itself."""
        while True:
            if any(mark.failing for mark in self.state.marks()):
                await self._check_model()
            await asyncio.sleep(MODEL_CHECK_S)

    def _model_check_due(self) -> bool:
        return self.tracker.clock() - self._model_checked >= MODEL_CHECK_S

    async def _check_model(self) -> None:
        try:
            status = await self.ctx.llm.status()
        except Exception as exc:  # a probe: whatever went wrong, the next one may work
            log.info("tidy: could not ask the model server which models it has: %s", where(exc))
            return
        if not status.reachable:
            return
        self._model_checked = self.tracker.clock()
        current = model_id(self.ctx.llm.chat_model, status)
        if current != self.model_id:
            if self.model_id:
                log.info("tidy: the chat model or its server changed; marked captures are retried")
            self.model_id = current
            self._wake_marked()

    def _wake_marked(self) -> None:
        woken = [m.path for m in self.state.marks() if m.failing and self._other_model(m)]
        for path in woken:
            if path in self.tracker.waiting:
                self.tracker.add(path)
        if woken:
            self._wake.set()

    def _back_off(self, item: Waiting, reason: str, path: str = "") -> float:
        t = self.settings.tidy
        item.failures += 1
        wait = backoff_s(t.retry_s, item.failures, t.retry_max_s)
        item.not_before = self.tracker.clock() + wait
        item.reason = reason
        prefix = f"{path}: " if path else ""
        log.warning("tidy will try again in %.0f s: %s%s", wait, prefix, reason)
        return wait


def model_id(name: str, status: ModelStatus) -> str:
    """Which chat model answers, down to its digest, and which server: a mark made with another
    is tried again."""
    return f"{name}@{status.digest(name)[:12]} {status.backend} {status.version} at {status.host}"


def _unusable(exc: LLMError) -> bool:
    """Garbage, or a request the server will never accept (a 4xx, such as a schema its runner
    cannot compile): counted towards a mark. A missing or unsuitable model is not the capture's
    fault: it waits (with backoff) for the model to be installed or a change of settings."""
    if isinstance(exc, ModelMissing | ModelUnsuitable):
        return False
    return isinstance(exc, BadAnswer) or not exc.retryable
