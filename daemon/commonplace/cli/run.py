"""`commonplace run`: start the daemon."""

from __future__ import annotations

import dataclasses
import logging

import click

from commonplace.cli.common import run_async, settings_from
from commonplace.daemon import DaemonError, run_daemon
from commonplace.heap import limit_arenas
from commonplace.sample import make_sample_vault, sample_env, sample_scratch


@click.command()
@click.option(
    "--sample-if-unset",
    is_flag=True,
    help="If no vault is configured, use a fresh copy of the sample vault (`make run`).",
)
@click.pass_context
def run(ctx: click.Context, sample_if_unset: bool) -> None:
    """Watch the vault, serve the phone page and run jobs until stopped (Ctrl-C)."""
    limit_arenas()  # before LanceDB's threads start: see commonplace/heap.py
    settings = settings_from(ctx)
    if sample_if_unset and not settings.vault_configured:
        scratch = sample_scratch()
        vault = make_sample_vault(scratch / "vault")
        settings = dataclasses.replace(settings, vault=vault, data_dir=scratch / "data")
        click.echo(f"No vault configured: using a fresh copy of the sample vault at {vault}")
        click.echo("(set 'vault' in commonplace.toml or COMMONPLACE_VAULT to use your own)")
        click.echo(f"To use the other commands on it from another terminal: {sample_env()}")
    if logging.getLogger().level > logging.INFO:
        logging.getLogger("commonplace").setLevel(logging.INFO)
    web = settings.web
    click.echo(f"Vault: {settings.vault}  ({settings.flavor})")
    click.echo(f"Data:  {settings.data_path}")
    if web.port:
        click.echo(f"Phone page: http://{web.host}:{web.port}/")
    else:
        click.echo("Phone page: on a free port, logged below once it is open")
    if web.ts_name:
        click.echo(f"  on your tailnet (after 'tailscale serve'): https://{web.ts_name}/")
    try:
        run_async(run_daemon(settings))
    except DaemonError as exc:
        raise click.ClickException(str(exc)) from None
    except KeyboardInterrupt:
        pass
