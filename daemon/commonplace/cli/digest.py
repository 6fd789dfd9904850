"""`commonplace digest`: write (or preview) a week's Digest note."""

from __future__ import annotations

from datetime import datetime
from pathlib import Path

import click

from commonplace.cli.common import require_vault, run_async, settings_from
from commonplace.digest import Week, digest_week, make_digest, parse_week
from commonplace.digest.service import digest_message
from commonplace.firstrun.sample import recorded_sample_week
from commonplace.llm import make_llm
from commonplace.push import PushKeyError, send_to_all
from commonplace.runtime.scheduler import weekly_at


@click.command()
@click.option(
    "--week",
    "week_label",
    metavar="YYYY-Www",
    help="The week, e.g. 2026-W43 (default: the week the last scheduled digest covered; on "
    "the sample vault, the sample's week).",
)
@click.option("--dry-run", is_flag=True, help="Print the note instead of writing it; send nothing.")
@click.option("--push", "notify", is_flag=True, help="Notify the phones if a new note is written.")
@click.pass_context
def digest(ctx: click.Context, week_label: str | None, dry_run: bool, notify: bool) -> None:
    """Write a week's Digest note once, and print its notification text.

    Overdue and "the next seven days" are counted from the end of that week, so a past week
    can be written again (after deleting its note) with the same lists.
    """
    settings = settings_from(ctx)
    require_vault(settings)
    now = datetime.now(settings.tz)
    if week_label:
        try:
            week = parse_week(week_label)
        except ValueError as exc:
            raise click.BadParameter(str(exc), param_hint="--week") from None
        if week.monday > now.date():
            raise click.BadParameter(f"{week.label} has not started yet", param_hint="--week")
    elif sample := _sample_week(settings.data_dir):
        # The sample captured nothing in the week just past: its own week shows what a digest is.
        week = sample
        click.echo(
            f"The sample vault: the digest of the week its captures were written, {week.label} "
            "(--week for another)."
        )
    else:
        schedule = weekly_at(settings.digest.day, settings.digest.time, settings.tz)
        week = digest_week(schedule.last_at_or_before(now), settings.tz)
    outcome = run_async(
        make_digest(
            settings, make_llm(settings), week, now=now, dry_run=dry_run, rewrite_deleted=True
        )
    )
    if dry_run:
        click.echo(outcome.text)
    click.echo(f"Notification: {outcome.notification}")
    click.echo(outcome.message)
    if outcome.status == "written":
        click.echo(f"  {settings.vault / outcome.path}")
        if notify:
            try:
                sent = run_async(send_to_all(settings, digest_message(settings, outcome)))
            except PushKeyError as exc:
                raise click.ClickException(str(exc)) from None
            ok = sum(d.status == "sent" for d in sent)
            click.echo(f"Notified {ok} of {len(sent)} subscribed phone(s).")


def _sample_week(data_dir: Path) -> Week | None:
    """The week the sample vault is set in, when this is `make run`'s sample (its data folder
    records it)."""
    label = recorded_sample_week(data_dir)
    try:
        return parse_week(label) if label else None
    except ValueError:
        return None
