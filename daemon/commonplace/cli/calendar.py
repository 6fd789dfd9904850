"""`commonplace calendar`: the events exactly as the assistant's tools see them."""

from __future__ import annotations

import asyncio
import json
from datetime import date, datetime, timedelta

import click

from commonplace.calendar import CalendarClient, CalendarError
from commonplace.calendar.models import EventList
from commonplace.calendar.text import event_json, listing
from commonplace.cli.common import settings_from
from commonplace.config import Settings


def parse_day(value: str | None, today: date, option: str = "--date") -> date:
    if not value:
        return today
    try:
        return date.fromisoformat(value)
    except ValueError:
        raise click.BadParameter(
            f"{value!r} is not a date; use YYYY-MM-DD", param_hint=option
        ) from None


async def _events(settings: Settings, first: date, days: int) -> EventList:
    """The days' events; the client's connections are closed before the loop ends, so no
    'unclosed connection' warning is printed under the listing."""
    client = CalendarClient(settings)
    try:
        return await client.events_on(first, days)
    finally:
        await client.aclose()


@click.command("calendar")
@click.option("--date", "day", metavar="YYYY-MM-DD", help="The first day (default: today).")
@click.option("--days", type=click.IntRange(1, 62), default=1, show_default=True, help="Days.")
@click.option("--json", "as_json", is_flag=True, help="Print the events as JSON.")
@click.pass_context
def calendar_command(ctx: click.Context, day: str | None, days: int, as_json: bool) -> None:
    """List the calendar's events (title, times in your timezone, all-day, calendar), as the
    assistant sees them: use it to check the [calendar] set-up."""
    settings = settings_from(ctx)
    first = parse_day(day, datetime.now(settings.tz).date())
    if first > date.max - timedelta(days=days):  # the window's end: a traceback otherwise
        raise click.BadParameter(
            f"{first.isoformat()} and {days} day(s) after it pass the calendar's last day, "
            f"{date.max.isoformat()}",
            param_hint="--date",
        )
    try:
        events = asyncio.run(_events(settings, first, days))
    except CalendarError as exc:
        raise click.ClickException(str(exc)) from None
    if as_json:
        click.echo(json.dumps([event_json(e) for e in events], ensure_ascii=False, indent=2))
    else:
        click.echo(listing(events, first, days, settings.tz.key, unreadable=events.unreadable))
