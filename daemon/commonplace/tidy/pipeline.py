"""One capture, end to end: read -> candidates -> proposal -> decision -> filed note -> done.

The steps are ordered so that a crash at any point loses nothing and doubles nothing:

1. the filed note is written atomically, as a new file, only if the capture is still what was
   read (your edit wins);
2. it is re-read and compared with what was written;
3. a copy of the capture goes to the archive in the data folder (unless after_filing="delete");
4. the capture leaves the inbox, only if it is still unchanged.

Before any of that, a capture whose filed note already exists (found by the `capture_id` in its
frontmatter, with the capture's words in it) is not tidied again: steps 3-4 finish it. The
filed folder is looked at again just before step 1, because the model's answer takes a while and
another computer's daemon on a synced vault may have filed the capture meanwhile. A filed
note left with older words (the capture was edited after step 1) is replaced, but only if nobody
touched it since it was written (its hash is kept in the data folder until step 4).
"""

from __future__ import annotations

import asyncio
import logging
import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import date, datetime
from pathlib import Path

from commonplace.attachments.pictures import PictureText, picture_texts
from commonplace.attachments.reader import AttachmentReader
from commonplace.capture.inbox import Capture, capture_stamp, read_capture
from commonplace.config import Settings
from commonplace.llm import LLM
from commonplace.runtime.daemon_notes import ask_pages, ask_rule, is_daemon_note
from commonplace.tidy import evidence, filed_by, filed_note, support
from commonplace.tidy.candidates import SearchIndex, find_candidates
from commonplace.tidy.catalog import VaultCatalog
from commonplace.tidy.journal import Journal
from commonplace.tidy.models import Decision, Outcome
from commonplace.tidy.proposal import ask_model
from commonplace.tidy.validate import decide
from commonplace.vault import (
    FileChanged,
    FileRefused,
    atomic_write,
    content_hash,
    file_hash,
    fit_name,
    read_file,
    remove_file,
)
from commonplace.vault.journals import journal_names

log = logging.getLogger(__name__)
MAX_SAME_NAME = 100


def _pictures(ctx: TidyContext, body: str, path: str) -> list[PictureText]:
    """The text read from the pictures the capture embeds: given to the model as data, apart
    from the words. A picture that cannot be read gives nothing; it never fails the capture."""
    reader = ctx.pictures
    if reader is None or "![" not in body:
        return []
    try:
        return picture_texts(reader, body, path)
    except Exception as exc:  # OCR is a help, never a reason a capture is not filed
        log.warning("%s: the text of its pictures was not read: %s", path, exc)
        return []


class CaptureEdited(Exception):
    """The capture changed while it was being tidied; it waits and is tidied again."""


class CaptureUnreadable(Exception):
    """The capture is there but cannot be read (permissions, I/O error); it waits and is shown."""

    def __init__(self, path: str, error: OSError) -> None:
        super().__init__(f"{path} cannot be read: {error.strerror or error}")
        self.error = error


class FiledNoteBroken(Exception):
    """The filed note did not read back as written; the capture stays in the inbox."""


@dataclass
class TidyContext:
    settings: Settings
    llm: LLM
    index: SearchIndex | None = None
    catalog: VaultCatalog | None = None
    journal: Journal | None = None
    now: Callable[[], datetime] | None = None
    _pictures: AttachmentReader | None = field(default=None, repr=False)

    def __post_init__(self) -> None:
        if self.catalog is None:
            self.catalog = VaultCatalog(self.settings)
        if self.journal is None:
            self.journal = Journal(self.settings.data_path)

    @property
    def pictures(self) -> AttachmentReader | None:
        """Reads the pictures a capture embeds (attachments/pictures.py); None when
        attachments are off."""
        if not self.settings.attachments.enabled:
            return None
        if self._pictures is None:
            self._pictures = AttachmentReader(self.settings)
        return self._pictures

    def today(self) -> date:
        now = self.now() if self.now else datetime.now(self.settings.tz)
        return now.astimezone(self.settings.tz).date() if now.tzinfo else now.date()


async def tidy_capture(ctx: TidyContext, path: str, *, dry_run: bool = False) -> Outcome:
    """Tidy one capture. LLMError passes through (the caller retries); CaptureEdited too, and
    FileRefused for a capture that is a link, a FIFO or another non-file (never touched)."""
    assert ctx.catalog is not None
    limit = ctx.settings.tidy.max_capture_kb * 1024
    try:  # CaptureTooLarge passes through: the capture stays in the inbox, untouched
        capture = read_capture(ctx.settings.vault, path, ctx.settings.tz, max_bytes=limit)
    except FileNotFoundError:
        return Outcome(path, "gone")
    except OSError as exc:
        raise CaptureUnreadable(path, exc) from exc
    if not capture.body.strip():
        return Outcome(path, "empty")
    facts = await asyncio.to_thread(ctx.catalog.facts)  # a stat per note: off the event loop
    earlier = facts.filed.get(capture.capture_id, ())
    for filed in earlier:
        if _carries_words(ctx, filed, capture):
            if dry_run:
                return Outcome(path, "dry-run", filed=filed)
            await asyncio.to_thread(finish, ctx, capture, filed)
            _tell_index(ctx, [filed, path])
            return Outcome(path, "finished", filed=filed)
    settings = ctx.settings
    found = await find_candidates(
        ctx.index,
        capture.body,
        settings.daemon_folders(),
        exclude_pages=ask_pages(*ask_rule(settings)),
        ours=lambda path: is_daemon_note(path, settings),
    )
    candidates = evidence.with_named(found, support.owners_words(capture.body), facts)
    pictures = await asyncio.to_thread(_pictures, ctx, capture.body, path)
    proposal = await ask_model(
        ctx.llm, capture, candidates, facts.top_tags(), pictures, facts.note_tags
    )
    decision = decide(
        proposal,
        capture,
        facts,
        flavor=settings.flavor,
        name_format=journal_names(settings.vault).name_format,  # read in the Logseq flavour
        candidates=candidates,
    )
    if decision.dropped:
        # The values are the model's reading of the capture's words: DEBUG only.
        fields = ", ".join(d.field for d in decision.dropped)
        log.info("%s: dropped %d proposed value(s): %s", path, len(decision.dropped), fields)
        for dropped in decision.dropped:
            log.debug("%s: dropped %s", path, dropped)
    if dry_run:
        return Outcome(path, "dry-run", None, proposal, decision, tuple(candidates))
    for filed in await asyncio.to_thread(ctx.catalog.filed_with, capture.capture_id):
        if filed not in earlier and _carries_words(ctx, filed, capture):
            log.info("%s: filed meanwhile as %s (by another daemon?); not filed again", path, filed)
            await asyncio.to_thread(finish, ctx, capture, filed)
            _tell_index(ctx, [filed, path])
            return Outcome(path, "finished", filed=filed)
    marker = journal_names(ctx.settings.vault).task_marker  # read in the Logseq flavour
    text = filed_note.render(
        capture, decision, ctx.settings.flavor, ctx.settings.tidy.todo_format, marker
    )
    # In a thread: the writes fsync, and wait (bounded) while a git operation holds the vault.
    filed = await asyncio.to_thread(file_capture, ctx, capture, decision, text, earlier)
    _tell_index(ctx, [filed, path, *earlier])
    model = ctx.llm.chat_model
    log.info("%s: filed as %s (by %s)", path, filed, model)
    await asyncio.to_thread(
        filed_by.record, ctx.settings.data_path, filed, path, model, ctx.llm.server.where
    )
    if capture.captured_unread:
        log.warning(
            "%s: its 'captured' value is no time; filed with %s (from its file name or modified "
            "time), the value kept in %s as captured_original",
            path,
            capture_stamp(capture.captured),
            filed,
        )
    return Outcome(path, "filed", filed, proposal, decision, tuple(candidates))


def file_capture(
    ctx: TidyContext, capture: Capture, decision: Decision, text: str, earlier: Sequence[str]
) -> str:
    """Steps 1-4 for a capture the model has answered for; returns the filed note's path."""
    filed = write_filed(ctx, capture, decision, text)
    verify_filed(ctx, filed, text)
    for stale in earlier:
        remove_stale(ctx, stale)
    finish(ctx, capture, filed)
    return filed


def _carries_words(ctx: TidyContext, filed: str, capture: Capture) -> bool:
    try:
        text = read_file(ctx.settings.vault, filed)[0].decode("utf-8")
    except (OSError, FileRefused, UnicodeDecodeError):
        return False
    return filed_note.words_of(text, capture)


def check_unchanged(ctx: TidyContext, capture: Capture) -> None:
    if _current_hash(ctx, capture.path) != capture.content_hash:
        raise CaptureEdited(f"{capture.path} changed while it was being tidied")


def _current_hash(ctx: TidyContext, path: str) -> str | None:
    """The capture's hash now, by the vault's rule; a capture that became a link or a FIFO
    counts as changed (and is then skipped, untouched, when it is looked at again)."""
    try:
        return content_hash(read_file(ctx.settings.vault, path)[0])
    except (FileNotFoundError, NotADirectoryError):
        return None
    except FileRefused as exc:
        raise CaptureEdited(f"{path} {exc.reason}") from None


def write_filed(ctx: TidyContext, capture: Capture, decision: Decision, text: str) -> str:
    """Step 1: a new file under the filed folder, never over another; returns its path."""
    assert ctx.journal is not None
    folder = ctx.settings.folder("filed")
    for n in range(1, MAX_SAME_NAME + 1):
        rel = f"{folder}/{filed_note.filed_name(capture, decision.title, n)}"
        if os.path.lexists(ctx.settings.vault / rel):
            continue  # taken; its journal entry (another capture's note) must stay as it is
        check_unchanged(ctx, capture)
        ctx.journal.record(rel, content_hash(text.encode("utf-8")))
        try:
            atomic_write(ctx.settings.vault / rel, text, expect=None)
        except FileChanged:  # taken in the instant since the check: not ours after all
            ctx.journal.forget(rel)
            continue
        return rel
    raise FiledNoteBroken(f"{MAX_SAME_NAME} filed notes already have the name of {capture.path}")


def verify_filed(ctx: TidyContext, filed: str, text: str) -> None:
    """Step 2: read the new note back; only a note that reads back exactly lets the capture go."""
    try:
        data = read_file(ctx.settings.vault, filed)[0]
    except (OSError, FileRefused) as exc:
        raise FiledNoteBroken(f"{filed} cannot be read back: {exc}") from exc
    if data != text.encode("utf-8"):
        raise FiledNoteBroken(f"{filed} did not read back as written; the capture stays")


def archive_capture(ctx: TidyContext, capture: Capture) -> Path | None:
    """Step 3: a copy of the capture in the data folder (the default `after_filing`)."""
    if ctx.settings.tidy.after_filing != "archive":
        return None
    # Named by the capture's bytes too: another capture that had the same name in the same
    # minute (so the same capture_id), or a later version of this one, never replaces a copy.
    # Cut to the file system's limit: the capture's own name may already be near it.
    name = fit_name(f"{capture.capture_id} {capture.content_hash[:12]} {Path(capture.path).name}")
    dest = ctx.settings.data_path / "tidy" / "archive" / name
    data = capture.text.encode("utf-8")
    existing = file_hash(dest)
    if existing != content_hash(data):
        atomic_write(dest, data, expect=existing)
    return dest


def remove_capture(ctx: TidyContext, capture: Capture) -> None:
    """Step 4: the capture leaves the inbox, only if it is still byte for byte what was filed.

    The check is made after any wait for a git operation and right before the delete (see
    `remove_file`): words written meanwhile were not filed, so the capture stays and is tidied
    again as a new change."""
    try:
        remove_file(ctx.settings.vault / capture.path, capture.content_hash)
    except FileChanged:
        raise CaptureEdited(
            f"{capture.path} changed after it was filed; it is kept and will be tidied again"
        ) from None


def finish(ctx: TidyContext, capture: Capture, filed: str) -> None:
    """Steps 3-4, also used on start-up for a capture whose filed note already exists.

    The journal lets the filed note go before the capture leaves the inbox, not after: once the
    capture is gone its name is free, and a new capture in the same minute takes it with the
    same capture_id. A crash between the two must not leave the journal saying the filed note
    is ours to replace, or that new capture's filing would delete it. A crash the other way
    round is harmless: the capture stays, and its filed note still carries its words."""
    assert ctx.journal is not None
    archive_capture(ctx, capture)
    written = ctx.journal.written(filed)
    ctx.journal.forget(filed)
    try:
        remove_capture(ctx, capture)
    except (CaptureEdited, OSError):  # it stays (edited; git busy): tidied again, this replaced
        if written is not None:
            ctx.journal.record(filed, written)
        raise


def remove_stale(ctx: TidyContext, stale: str) -> None:
    """Delete a filed note that holds a capture's older words, only if it is still exactly as we
    wrote it (checked after any wait for git, right before the delete). A note we did not write
    for this capture (another capture that once had the same name and minute) is never ours."""
    assert ctx.journal is not None
    written = ctx.journal.written(stale)
    if written is None:
        return  # not a note this daemon wrote and has not finished: not ours to replace
    try:
        removed = remove_file(ctx.settings.vault / stale, written)
    except FileChanged:
        log.warning("%s holds older words of a capture and was edited; it is left as it is", stale)
        return
    ctx.journal.forget(stale)
    if removed:
        log.info("%s: replaced by a note with the capture's newer words", stale)


def _tell_index(ctx: TidyContext, paths: list[str]) -> None:
    if ctx.index is not None:
        try:
            ctx.index.mark_dirty(paths)
        except Exception:  # the index catches up on its own; never fail a filed capture for it
            log.exception("could not tell the index about %s", paths)
