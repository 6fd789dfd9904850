"""The daemon's Ask-notes job: answer new `?? ` questions in the Ask folder, once each.

A note is handled only after it has been quiet for `quiet_s` (the user may still be typing).
The answer is computed first (slow), then inserted with read -> insert -> atomic_write(expect=
hash read); if the user typed in between, the write is refused and redone on the new text, so
nothing they wrote is lost or reordered. The answer's id marker in the note is what says
"answered"; the record in the data folder counts inserts, so an answer that a stale editor
buffer keeps reverting is re-inserted at most `max_inserts` times.

A note whose answer cannot be written (a full disk, a git operation holding the vault, any
other failure) is tried again with backoff, `retry_s` doubling up to 15 minutes, and shown in
attention meanwhile; an answer already computed is kept for that retry, not asked again. When
the model cannot answer (its server down, a timeout) the note waits on the same backoff, and is
shown in attention once it has failed SHOW_AFTER times in a row.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Callable, Iterable
from typing import Any

from commonplace.ask.answer import AskError, answer_question
from commonplace.ask.asknote import (
    Question,
    ask_root,
    ask_rule,
    insert_answer,
    is_ask_note,
    pending_questions,
)
from commonplace.ask.models import Answer
from commonplace.ask.passages import SearchIndex
from commonplace.ask.record import AnswerRecord
from commonplace.basics.backoff import backoff_s
from commonplace.config import Settings
from commonplace.llm import LLM, LLMError
from commonplace.runtime.attention import Attention
from commonplace.runtime.changes import Change
from commonplace.runtime.supervise import where
from commonplace.vault import (
    FileChanged,
    NoteSkipped,
    atomic_write,
    is_ignored,
    iter_note_paths,
    read_note,
    write_trouble,
)

log = logging.getLogger(__name__)

SOURCE = "ask"  # its entries in attention
BAD_QUESTION = "bad_question"
BAD_QUESTION_ACTION = (
    "shorten the '?? ' line (or split it into several questions); it is answered then"
)
NOT_READ = "not_read"  # a link, a FIFO, a file too big...: never read nor written
NOT_READ_ACTION = "questions are read from ordinary notes only: put the note itself there"
WRITE_TRIES = 5  # read-insert-write rounds before waiting for the note to be quiet again
RETRY_MAX_S = 900.0  # waits after failures double up to this
SHOW_AFTER = 3  # the model failed a note this many times in a row: shown in attention


class AskService:
    """Owns the Ask folder's questions for one vault; driven by the daemon's change batches."""

    def __init__(
        self,
        settings: Settings,
        llm: LLM,
        index: SearchIndex,
        *,
        quiet_s: float | None = None,
        retry_s: float | None = None,
        attention: Attention | None = None,
        may_work: Callable[[], bool] = lambda: True,
    ) -> None:
        self.settings = settings
        # False while another computer's daemon holds the vault's lease (daemon/lease.py); a scan
        # brings every Ask note back when this daemon wins it.
        self.may_work = may_work
        self.llm = llm
        self.index = index
        self.quiet_s = settings.ask.quiet_s if quiet_s is None else quiet_s
        self.retry_s = settings.ask.retry_s if retry_s is None else retry_s
        self.record = AnswerRecord(settings.data_path / "ask" / "answers.json")
        self.attention = attention if attention is not None else Attention()
        self._failures: dict[str, int] = {}  # failures in a row per note, for the backoff
        self._answers: dict[tuple[str, str], Answer] = {}  # computed, not yet written
        self._due: dict[str, float] = {}
        self._workers: dict[str, asyncio.Task[None]] = {}
        self._last_error = ""
        self._closed = False

    # -- the daemon's interface -----------------------------------------------------------------

    async def startup(self) -> None:
        """Look at every Ask note once: questions asked while the daemon was off get answered."""
        await self.scan()

    async def scan(self) -> None:
        """Look at every Ask note (start-up and later scans): a question whose file events
        were lost is answered too. Answered questions are skipped by their id in the note."""
        root = ask_root(*ask_rule(self.settings))  # Logseq: all of the pages directory
        for path in iter_note_paths(self.settings.vault, under=root, refused=self._refused):
            if self._is_ask_note(path):
                self._schedule(path, self.quiet_s)

    async def on_changes(self, changes: Iterable[Change]) -> None:
        """Called with every batch of vault changes; only notes in the Ask folder matter."""
        for change in changes:
            if not self._is_ask_note(change.path) or is_ignored(change.path):
                continue
            if change.kind == "deleted":
                self._due.pop(change.path, None)
                self._forget(change.path)
            else:
                self._schedule(change.path, self.quiet_s)

    @property
    def folder(self) -> str:
        """The Ask folder now: in Logseq it follows the graph's `:pages-directory`."""
        return self.settings.folder("ask")

    def _is_ask_note(self, path: str) -> bool:
        return is_ask_note(path, *ask_rule(self.settings))

    def status(self) -> dict[str, Any]:
        return {
            "folder": self.folder,
            "waiting": sorted(self._due),
            "answers_inserted": self.record.total_inserts(),
            "gave_up": self.record.gave_up(),
            "last_error": self._last_error,
        }

    async def idle(self) -> None:
        """Wait until no note is waiting or being answered (tests, and a clean shutdown)."""
        while self._workers:
            await asyncio.gather(*self._workers.values(), return_exceptions=True)

    async def close(self) -> None:
        self._closed = True
        tasks = list(self._workers.values())
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        self._due.clear()

    # -- scheduling: one worker per note, started when a note changes ---------------------------

    def _schedule(self, path: str, delay: float) -> None:
        if self._closed:
            return
        loop = asyncio.get_running_loop()
        self._due[path] = max(self._due.get(path, 0.0), loop.time() + delay)
        if path not in self._workers:
            self._workers[path] = asyncio.create_task(self._worker(path), name=f"ask:{path}")

    async def _worker(self, path: str) -> None:
        loop = asyncio.get_running_loop()
        try:
            while path in self._due:
                wait = self._due[path] - loop.time()
                if wait > 0:
                    await asyncio.sleep(wait)
                    continue
                del self._due[path]
                try:
                    await self._handle(path)
                except asyncio.CancelledError:
                    raise
                except Exception as exc:  # one note must never stop the others
                    self._failed(path, exc)
                else:
                    if self._failures.pop(path, None) is not None:
                        old = self.attention.get(SOURCE, path)
                        if old is not None and old.code != BAD_QUESTION:
                            self.attention.clear(SOURCE, path)
        finally:
            self._workers.pop(path, None)

    def _failed(self, path: str, exc: Exception) -> None:
        """Try the note again later, with backoff, and say so in attention."""
        n = self._failures[path] = self._failures.get(path, 0) + 1
        wait = backoff_s(self.retry_s, n, RETRY_MAX_S)
        if isinstance(exc, LLMError):
            # The model error's own words (down, a missing model, a timeout): never the note's.
            log.warning("Ask: %s: not answered yet (%s); trying again in %.0f s", path, exc, wait)
            if n >= SHOW_AFTER:  # a blip is not worth the owner's attention; this is
                self.attention.report(
                    SOURCE,
                    path,
                    "not_answered",
                    f"not answered after {n} tries: {exc}",
                    action="it is tried again by itself; 'commonplace doctor' checks the model",
                    retry_at=time.time() + wait,
                )
            self._schedule(path, wait)
            return
        if isinstance(exc, OSError):  # a git operation holds the vault (VaultBusy), a full disk
            trouble = write_trouble(exc)
            code, reason, action = (
                trouble.code,
                f"answer not written yet: {trouble.why}",
                trouble.action,
            )
        else:
            log.error("Ask: could not handle %s", path, exc_info=exc)
            code, reason = "failed", f"could not be answered ({where(exc)})"
            action = "the daemon's log has the details"
        log.warning("Ask: %s: %s; trying again in %.0f s", path, reason, wait)
        self.attention.report(
            SOURCE, path, code, reason, action=action, retry_at=time.time() + wait
        )
        self._schedule(path, wait)

    def _forget(self, path: str) -> None:
        self._failures.pop(path, None)
        self.attention.clear(SOURCE, path)
        for key in [k for k in self._answers if k[0] == path]:
            del self._answers[key]

    # -- one note -------------------------------------------------------------------------------

    async def _handle(self, path: str) -> None:
        if not self.may_work():
            return
        text = self._read(path)
        if text is None:
            return
        questions = pending_questions(text[0])
        asked = {q.qid for q in questions}
        for key in [k for k in self._answers if k[0] == path and k[1] not in asked]:
            del self._answers[key]  # that question was edited or removed meanwhile
        refused = ""
        for question in questions:
            if not self._may_insert(path, question):
                continue
            answer = self._answers.pop((path, question.qid), None)
            if answer is None:
                try:  # the model's one-at-a-time queue is in the LLM client (llm/gate.py)
                    answer = await answer_question(
                        question.text, index=self.index, llm=self.llm, settings=self.settings
                    )
                except AskError as exc:  # too long: no model call can help, the owner can
                    log.warning("Ask: %s: question %s: %s", path, question.qid, exc)
                    refused = str(exc)
                    continue
                except LLMError as exc:
                    self._last_error = str(exc)
                    raise  # tried again with backoff, and shown after a few (see _failed)
                self._last_error = ""
            if not self.may_work():
                return  # the lease went to another computer while the model answered
            try:
                await self._insert(path, question, answer)
            except Exception:
                self._answers[(path, question.qid)] = answer  # kept for the retry
                raise
        self._say_refused(path, refused)

    def _say_refused(self, path: str, reason: str) -> None:
        """A question that cannot be asked as written is shown in attention until it is fixed:
        nothing appears in the note, and the log alone is not where the owner looks."""
        old = self.attention.get(SOURCE, path)
        if reason:
            self.attention.report(SOURCE, path, BAD_QUESTION, reason, action=BAD_QUESTION_ACTION)
        elif old is not None and old.code == BAD_QUESTION:
            self.attention.clear(SOURCE, path)

    def _may_insert(self, path: str, q: Question) -> bool:
        tries = self.record.inserts(path, q.qid)
        if tries >= self.settings.ask.max_inserts:
            if self.record.give_up(path, q.qid):
                log.warning(
                    "Ask: %s: the answer to question %s was removed %d times (an editor with an "
                    "old copy of the note?); not inserting it again. Reword the question to ask "
                    "again.",
                    path,
                    q.qid,
                    tries,
                )
            return False
        if tries:
            log.info("Ask: %s: the answer to question %s is gone; inserting it again", path, q.qid)
        return True

    async def _insert(self, path: str, question: Question, answer: Answer) -> bool:
        full = self.settings.vault / path
        for attempt in range(WRITE_TRIES):
            current = self._read(path)
            if current is None:
                return False
            text, expect = current
            new_text = insert_answer(text, question.qid, answer, self.settings.flavor)
            if new_text is None:
                return False  # the question was edited, deleted or answered meanwhile
            try:  # in a thread: it fsyncs, and waits (bounded) while git holds the vault
                await asyncio.to_thread(atomic_write, full, new_text, expect=expect)
            except FileChanged:
                await asyncio.sleep(0.05 * (attempt + 1))
                continue
            self.record.inserted(path, question.qid)
            log.info(
                "Ask: answered question %s in %s (%d sources)",
                question.qid,
                path,
                len(answer.sources),
            )
            log.debug("Ask: question %s was %r", question.qid, question.text)
            self._tell_index(path)
            return True
        log.warning("Ask: %s kept changing while the answer was written; will retry", path)
        self._schedule(path, self.quiet_s)
        return False

    def _read(self, path: str) -> tuple[str, str] | None:
        try:
            note = read_note(
                self.settings.vault,
                path,
                self.settings.flavor,
                max_bytes=self.settings.index.max_note_kb * 1024,
            )
        except NoteSkipped as exc:
            if exc.missing:
                self.attention.clear(SOURCE, path)
                log.info("Ask: %s", exc)
            else:
                self._refused(path, exc.reason)
            return None
        old = self.attention.get(SOURCE, path)
        if old is not None and old.code == NOT_READ:  # readable again (other entries stay)
            self.attention.clear(SOURCE, path)
        return note.text, note.content_hash

    def _refused(self, path: str, reason: str) -> None:
        """Never read nor written (a link, a FIFO, a file too big...): shown in attention
        (/api/state, doctor) until it changes."""
        if not self._is_ask_note(path):
            return
        old = self.attention.get(SOURCE, path)
        if old is None or old.reason != reason:
            log.warning("Ask: %s is skipped: %s; it is left as it is", path, reason)
            self.attention.report(SOURCE, path, NOT_READ, reason, action=NOT_READ_ACTION)

    def _tell_index(self, path: str) -> None:
        mark = getattr(self.index, "mark_dirty", None)
        if callable(mark):
            with contextlib.suppress(Exception):
                mark([path])
