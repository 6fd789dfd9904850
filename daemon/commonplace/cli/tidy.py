"""`commonplace tidy`: file the captures in the inbox, showing what the model proposed and what
the program kept, dropped (with the reason) and where each note went."""

from __future__ import annotations

import asyncio
import logging
import os
import time
from pathlib import Path

import click

from commonplace.capture.inbox import CaptureTooLarge, capture_order_key
from commonplace.cli import common
from commonplace.cli.common import require_vault, run_async, settings_from
from commonplace.config import Settings
from commonplace.daemon.lease import daemon_id, read_lease
from commonplace.index import Index, IndexUnavailable
from commonplace.llm import LLM, BadAnswer, make_llm
from commonplace.runtime.changes import Change
from commonplace.tidy.models import Outcome
from commonplace.tidy.pipeline import (
    CaptureEdited,
    CaptureUnreadable,
    FiledNoteBroken,
    TidyContext,
    tidy_capture,
)
from commonplace.tidy.service import TidyService
from commonplace.tidy.state import TidyState
from commonplace.vault import FileRefused, in_folder, iter_note_paths
from commonplace.vault.layout import relative

log = logging.getLogger(__name__)
POLL_S = 2.0
STOPPED = "Stopped. New captures wait in the inbox until the next tidy (or the daemon) files them."


def watching(settings: Settings) -> str:
    """What `commonplace tidy` without --once is about to do, and how to stop it."""
    inbox = settings.vault / settings.folder("inbox")
    return (
        f"Tidying {inbox}: the captures in it now, then each new one as it arrives. This keeps "
        "running until you press Ctrl-C; to tidy what is there now and stop, run: "
        "commonplace tidy --once"
    )


@click.command()
@click.option("--once", is_flag=True, help="Tidy what is in the inbox now, then exit.")
@click.option("--dry-run", is_flag=True, help="Show what would be filed; write nothing.")
@click.argument("path", required=False, type=click.Path(path_type=Path))
@click.pass_context
def tidy(ctx: click.Context, once: bool, dry_run: bool, path: Path | None) -> None:
    """File captures from the inbox (or just PATH) as notes in the filed folder.

    Without --once, --dry-run or PATH it keeps watching the inbox until Ctrl-C.
    """
    settings = settings_from(ctx)
    require_vault(settings)
    if not dry_run:
        _refuse_if_leased_elsewhere(settings)
    targets = [_capture_path(settings, path)] if path else None
    if targets is None and not once and not dry_run:
        # Said first, before the index is brought up to date (minutes on a big vault): a
        # newcomer who saw nothing for ten minutes took it for hung and killed it.
        click.echo(watching(settings))
        try:
            run_async(_watch(settings))
        except KeyboardInterrupt:
            click.echo(STOPPED)
        return
    failed = run_async(_tidy_now(settings, targets, dry_run=dry_run))
    if failed:
        raise click.ClickException(f"{failed} capture(s) could not be tidied; see above")


def _refuse_if_leased_elsewhere(settings: Settings) -> None:
    """Another computer's daemon tidies this vault (it holds the lease, daemon/lease.py): tidying
    here too could file a capture twice. A one-shot command cannot watch the lease change, so it
    goes by the heartbeat's time, as written by that computer's clock."""
    info, _ = read_lease(settings.vault)
    if info is None or info.released or info.holder == daemon_id(settings.data_path, create=False):
        return
    age = time.time() - info.heartbeat
    if age < settings.lease.stale_s:
        raise click.ClickException(
            f"the daemon on {info.who()} holds this vault's lease (last heartbeat "
            f"{max(0, age):.0f} s ago by its clock) and tidies the inbox; run tidy there, or "
            "stop that daemon first"
        )


def _capture_path(settings: Settings, path: Path) -> str:
    """PATH as given (vault-relative or not), checked to be a capture in the inbox."""
    inbox = settings.folder("inbox")
    candidates = [path] if path.is_absolute() else [Path.cwd() / path, settings.vault / path]
    for full in candidates:
        folder = relative(settings.vault, full.parent)  # the file itself may be a link
        rel = None if folder is None else f"{folder}/{full.name}".removeprefix("./")
        if rel is not None and os.path.lexists(full) and not full.is_dir():
            if not in_folder(rel, inbox):
                raise click.ClickException(f"{path} is not in the inbox folder '{inbox}/'")
            return rel
    raise click.ClickException(f"{path}: no such capture in {settings.vault / inbox}")


def inbox_captures(settings: Settings) -> list[str]:
    """Captures waiting in the inbox, oldest first."""
    inbox = settings.folder("inbox")
    paths = list(iter_note_paths(settings.vault, under=inbox))

    mtimes = _mtimes(settings, paths)
    found = [p for p in paths if p in mtimes]
    return sorted(found, key=lambda p: capture_order_key(p, settings.tz, mtimes[p] / 1e9))


def _mtimes(settings: Settings, paths: list[str]) -> dict[str, int]:
    out: dict[str, int] = {}
    for p in paths:
        try:
            out[p] = (settings.vault / p).stat().st_mtime_ns
        except OSError:
            continue
    return out


async def open_index(settings: Settings, llm: LLM) -> Index | None:
    """The search index brought up to date, or None (then there are no candidate links)."""
    try:
        index, writable = common.open_index(settings, llm)
    except IndexUnavailable as exc:
        click.echo(f"(search index unavailable, no links will be proposed: {exc})", err=True)
        return None
    if writable:  # else the daemon keeps it up to date; read it as it is
        click.echo("Bringing the search index up to date first (links are proposed from it)...")
        await index.refresh()
    return index


# What stops one capture (the message says why) without stopping the others.
NOT_TIDIED = (BadAnswer, CaptureEdited, FiledNoteBroken, FileRefused, UnicodeDecodeError)


async def _tidy_now(settings: Settings, targets: list[str] | None, *, dry_run: bool) -> int:
    llm = make_llm(settings)
    index = await open_index(settings, llm)
    try:
        context = TidyContext(settings, llm, index)
        state = TidyState(settings.data_path)
        paths = targets if targets is not None else inbox_captures(settings)
        if not paths:
            click.echo(f"Nothing to tidy in {settings.folder('inbox')}/.")
        failed = 0
        for rel in paths:
            if targets is not None and not dry_run:
                state.clear(rel)  # an explicit PATH is tried again even if it was marked
            try:
                outcome = await tidy_capture(context, rel, dry_run=dry_run)
            except (
                BadAnswer,
                CaptureEdited,
                CaptureTooLarge,
                CaptureUnreadable,
                FiledNoteBroken,
                FileRefused,
                UnicodeDecodeError,
            ) as exc:
                click.echo(f"{rel}: not tidied: {exc}")
                failed += 1
                continue
            click.echo(describe(outcome))
        return failed
    finally:
        if index is not None:
            index.close()


def describe(outcome: Outcome) -> str:
    """The report for one capture: proposal, kept, dropped with reasons, where it went."""
    lines = [f"== {outcome.capture}"]
    if outcome.candidates:
        lines.append("candidates: " + ", ".join(c.title for c in outcome.candidates))
    if outcome.proposal is not None:
        lines.append("proposed:   " + outcome.proposal.model_dump_json())
    d = outcome.decision
    if d is not None:
        lines.append(f"kept:       title {d.title!r}")
        lines.append("            tags " + (", ".join(d.tags) or "(none)"))
        lines.append("            links " + (", ".join(f"[[{t}]]" for t in d.links) or "(none)"))
        for todo in d.todos:
            due = f" (due {todo.due.isoformat()})" if todo.due else ""
            lines.append(f"            to-do {todo.text}{due}")
        for dropped in d.dropped:
            lines.append(f"dropped:    {dropped}")
    where = {
        "filed": f"filed as {outcome.filed}",
        "finished": f"was already filed as {outcome.filed}; removed from the inbox",
        "dry-run": (
            f"dry run: already filed as {outcome.filed}"
            if outcome.filed
            else "dry run: nothing written"
        ),
        "empty": "empty capture: left in the inbox",
        "gone": "no longer in the inbox",
        "edited": "changed while being tidied: left in the inbox",
    }[outcome.status]
    lines.append(f"->          {where}")
    return "\n".join(lines)


async def _watch(settings: Settings) -> None:
    """Watch the inbox by polling (the daemon uses the real watcher) until interrupted."""
    if logging.getLogger().level > logging.INFO:
        logging.getLogger("commonplace").setLevel(logging.INFO)
    llm = make_llm(settings)
    index = await open_index(settings, llm)
    service = TidyService(settings, llm, index)
    await service.startup()
    click.echo(
        f"Watching {settings.vault / settings.folder('inbox')} for new captures (Ctrl-C to stop)"
    )
    known = _mtimes(settings, inbox_captures(settings))
    try:
        while True:
            await asyncio.sleep(POLL_S)
            now = _mtimes(settings, inbox_captures(settings))
            changes = [Change(p, "modified") for p, m in now.items() if known.get(p) != m]
            changes += [Change(p, "deleted") for p in known.keys() - now.keys()]
            known = now
            if changes:
                await service.on_changes(changes)
    finally:
        await service.close()
        if index is not None:
            index.close()
