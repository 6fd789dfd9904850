"""`commonplace doctor`: is everything in place?"""

from __future__ import annotations

import click

from commonplace.cli.common import run_async, settings_from
from commonplace.doctor.checks import run_checks


@click.command()
@click.pass_context
def doctor(ctx: click.Context) -> None:
    """Check the config, the vault, the model server and its models; one line per check."""
    settings = settings_from(ctx, check_data=False)  # a check line says it
    checks = run_async(run_checks(settings))
    for check in checks:
        click.echo(check.line())
    if any(c.level == "fail" for c in checks):
        ctx.exit(1)
