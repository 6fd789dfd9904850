"""Writing a week's digest once: the note, the record of it, and the notification.

A digest is a new file, created with `atomic_write(expect=None)`, so an existing note is never
replaced. The data folder records each week's digest with the hash of what was written; a
second run for the same week then tells "already written" from "you edited it" and changes
neither. A digest the user deleted is not written again by the scheduler; asking for that week
on the command line writes it again.

When the model is not there, the digest is still written, with a line that says the summary
could not be written: the lists are the record, and a digest a day late helps nobody. That
week's digest then has no sentences; it is not rewritten when the model comes back.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any
from urllib.parse import quote

from commonplace.config import Settings
from commonplace.digest.collect import collect
from commonplace.digest.models import DigestData
from commonplace.digest.render import notification_text, render_digest
from commonplace.digest.summary import Summary, write_summary
from commonplace.digest.week import Week, digest_week
from commonplace.llm import LLM
from commonplace.push import PushKeyError, PushMessage, send_to_all
from commonplace.runtime.scheduler import Job, weekly_at
from commonplace.runtime.statefile import read_json, write_json
from commonplace.vault import FileChanged, atomic_write, content_hash, file_hash

log = logging.getLogger(__name__)

STATE_FILE = "digests.json"

MESSAGES = {
    "written": "Wrote {path}",
    "dry-run": "Dry run: would write {path} (nothing written, nothing sent)",
    "unchanged": "{path} was already written; left as it is",
    "edited": "{path} was changed since it was written; not overwritten",
    "exists": "{path} already exists and was not written by this program; not overwritten",
    "deleted": "{path} was written before and has been deleted; not written again",
}


@dataclass(frozen=True)
class DigestOutcome:
    week: Week
    path: str  # vault-relative
    status: str  # a key of MESSAGES
    notification: str
    data: DigestData
    text: str = ""  # the note, when it was rendered

    @property
    def message(self) -> str:
        return MESSAGES[self.status].format(path=self.path)


def digest_path(settings: Settings, week: Week) -> str:
    return f"{settings.folder('digests')}/{week.label}.md"


def _state_path(settings: Settings) -> Path:
    return settings.data_path / STATE_FILE


def load_state(settings: Settings) -> dict[str, Any]:
    raw = read_json(_state_path(settings))
    return raw if isinstance(raw, dict) else {}


def last_written(settings: Settings) -> datetime | None:
    """When the latest digest note was written (by the daemon or `commonplace digest`), if ever."""
    times = []
    for record in load_state(settings).values():
        with contextlib.suppress(AttributeError, KeyError, TypeError, ValueError):
            times.append(datetime.fromisoformat(record["written"]))
    return max(times, default=None)


def _save_state(settings: Settings, state: dict[str, Any]) -> None:
    write_json(_state_path(settings), state)


async def make_digest(
    settings: Settings,
    llm: LLM,
    week: Week,
    *,
    now: datetime,
    dry_run: bool = False,
    rewrite_deleted: bool = False,
) -> DigestOutcome:
    """Write `week`'s digest unless it was written already; never overwrite a note."""
    rel = digest_path(settings, week)
    full = settings.vault / rel
    data = await asyncio.to_thread(collect, settings, week)
    notification = notification_text(data)

    def outcome(status: str, text: str = "") -> DigestOutcome:
        return DigestOutcome(week, rel, status, notification, data, text)

    record = load_state(settings).get(week.label)
    existing = file_hash(full)
    if existing is not None:
        if record is None:
            return outcome("exists")
        return outcome("unchanged" if record.get("hash") == existing else "edited")
    if record is not None and not rewrite_deleted and not dry_run:
        return outcome("deleted")
    if settings.digest.summary:
        summary = await write_summary(llm, data)
    else:
        summary = Summary(None, "Summaries are turned off ([digest] summary = false).")
    if summary.text is None:
        log.info("digest %s: no summary: %s", week.label, summary.problem)
    text = render_digest(data, summary, settings.flavor, now.astimezone(settings.tz))
    if dry_run:
        return outcome("dry-run", text)
    try:
        await asyncio.to_thread(atomic_write, full, text, expect=None)
    except FileChanged:
        return outcome("exists")
    state = load_state(settings)
    state[week.label] = {
        "path": rel,
        "hash": content_hash(text.encode("utf-8")),
        "written": now.isoformat(timespec="seconds"),
    }
    _save_state(settings, state)
    log.info("wrote the digest %s", rel)
    return outcome("written", text)


def digest_message(settings: Settings, outcome: DigestOutcome) -> PushMessage:
    """The notification: the code's sentence, and a link that opens the note in Obsidian."""
    url = "/"
    if settings.flavor == "obsidian":
        note = outcome.path.removesuffix(".md")
        vault, file = quote(settings.vault.name, safe=""), quote(note, safe="")
        url = f"obsidian://open?vault={vault}&file={file}"
    return PushMessage(
        title=f"Weekly digest, week {outcome.week.number}",
        body=outcome.notification,
        tag=f"digest-{outcome.week.label}",
        url=url,
    )


async def scheduled_digest(settings: Settings, llm: LLM, scheduled: datetime) -> DigestOutcome:
    """The scheduler's job: write the digest for the week `scheduled` closes, and tell the
    phones when a new note was written (never for a rerun)."""
    week = digest_week(scheduled, settings.tz)
    outcome = await make_digest(settings, llm, week, now=datetime.now(settings.tz))
    log.info("digest %s: %s", week.label, outcome.message)
    if outcome.status == "written":
        try:
            deliveries = await send_to_all(settings, digest_message(settings, outcome))
        except PushKeyError as exc:  # the note is written; a retry would not notify anyway
            log.error("digest %s: no notification: %s", week.label, exc)
            return outcome
        sent = sum(d.status == "sent" for d in deliveries)
        log.info("digest %s: notified %d of %d phones", week.label, sent, len(deliveries))
    return outcome


def digest_job(settings: Settings, llm: LLM) -> Job:
    """The weekly digest as a scheduler entry ([digest] day and time, in settings.tz)."""

    async def run(scheduled: datetime) -> None:
        if not settings.digest.enabled:
            log.info("digest: turned off ([digest] enabled = false); not written")
            return
        await scheduled_digest(settings, llm, scheduled)

    schedule = weekly_at(settings.digest.day, settings.digest.time, settings.tz)
    return Job("digest", schedule, run)
