"""`commonplace briefing`: the morning briefing for a day, printed and (unless --dry-run) sent."""

from __future__ import annotations

from datetime import date, datetime

import click

from commonplace.briefing import Briefing, make_briefing, push_briefing
from commonplace.briefing.service import keep
from commonplace.calendar import CalendarClient
from commonplace.cli.calendar import parse_day
from commonplace.cli.common import require_vault, run_async, settings_from
from commonplace.config import Settings


async def _briefing(settings: Settings, when: date, now: datetime) -> Briefing:
    """The briefing, its calendar client closed before the loop ends (no 'unclosed
    connection' warning under it)."""
    calendar = CalendarClient(settings)
    try:
        return await make_briefing(settings, when, calendar=calendar, now=now)
    finally:
        await calendar.aclose()


@click.command()
@click.option("--date", "day", metavar="YYYY-MM-DD", help="The day (default: today).")
@click.option("--dry-run", is_flag=True, help="Print it; send nothing, record nothing.")
@click.pass_context
def briefing(ctx: click.Context, day: str | None, dry_run: bool) -> None:
    """Print the morning briefing for a day (today's events, tasks due and overdue, the
    weather) and send it to the subscribed phones. Today's, once sent here, is not sent again
    by the daemon at 07:00."""
    settings = settings_from(ctx)
    require_vault(settings)
    now = datetime.now(settings.tz)
    when = parse_day(day, now.date())
    made = run_async(_briefing(settings, when, now))
    click.echo(made.text)
    if dry_run:
        click.echo("Dry run: nothing sent.")
        return
    if when == now.date():
        keep(settings, made, now=now, sent=True)
    sent, subscribed = run_async(push_briefing(settings, made))
    if subscribed:
        click.echo(f"Sent to {sent} of {subscribed} subscribed phone(s).")
    else:
        click.echo("No phone has notifications turned on (phone page › More), so nothing was sent.")
