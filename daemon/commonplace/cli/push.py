"""`commonplace push test`: is the path to the phone working?"""

from __future__ import annotations

import click

from commonplace.cli.common import run_async, settings_from
from commonplace.push import PushKeyError, PushMessage, SubscriptionStore, push_folder, send_to_all


@click.group()
def push() -> None:
    """Web push notifications to the phones that turned them on."""


@push.command("test")
@click.pass_context
def push_test(ctx: click.Context) -> None:
    """Send a test notification to every subscribed phone, and say how each one went."""
    settings = settings_from(ctx)
    if not SubscriptionStore(push_folder(settings)).all():
        raise click.ClickException(
            "no phone has turned on notifications yet: open the phone page and turn them on"
        )
    message = PushMessage(
        title="Commonplace", body="Test notification: push works.", tag="commonplace-test"
    )
    try:
        deliveries = run_async(send_to_all(settings, message))
    except PushKeyError as exc:
        raise click.ClickException(str(exc)) from None
    for d in deliveries:
        note = {"sent": "sent", "gone": "gone (the phone unsubscribed; removed)"}.get(d.status)
        problem = "refused" if d.status == "refused" else "failed"
        click.echo(f"{d.service}: {note or f'{problem}: {d.detail}'}")
    if not any(d.status == "sent" for d in deliveries):
        ctx.exit(1)
