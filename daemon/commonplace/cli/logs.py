"""`commonplace logs [-f]`: the daemon's log file, wherever the platform keeps it."""

from __future__ import annotations

import contextlib

import click

from commonplace.cli.common import settings_from
from commonplace.config import Settings
from commonplace.runtime.logfile import follow, log_path, tail


def show_logs(settings: Settings, *, follow_on: bool, lines: int) -> None:
    """Print the last `lines` lines of this vault's log, then (with `follow_on`) what is added
    until Ctrl-C; shared by `commonplace logs` and `commonplace service logs`."""
    path = log_path(settings)
    click.echo(f"# {path}", err=True)
    if not path.exists() and not follow_on:
        raise click.ClickException(
            f"no log yet at {path}: the daemon writes it once it runs on {settings.vault} "
            "(commonplace run, or commonplace service install)"
        )
    for line in tail(path, lines):
        click.echo(line, nl=False)
    if follow_on:
        with contextlib.suppress(KeyboardInterrupt):  # Ctrl-C: the way to stop following
            follow(path, lambda text: click.echo(text, nl=False))


@click.command()
@click.option("-f", "--follow", "follow_on", is_flag=True, help="Keep showing new lines.")
@click.option(
    "-n", "--lines", default=50, show_default=True, type=click.IntRange(0), help="Lines shown."
)
@click.pass_context
def logs(ctx: click.Context, follow_on: bool, lines: int) -> None:
    """Show the daemon's log for this vault (-f: and follow it, like tail -f)."""
    show_logs(settings_from(ctx), follow_on=follow_on, lines=lines)
