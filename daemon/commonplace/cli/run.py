"""`commonplace run`: start the daemon."""

from __future__ import annotations

import dataclasses
import logging
import os
import shlex
from pathlib import Path

import click

from commonplace.cli.common import run_async, settings_from
from commonplace.config import Settings
from commonplace.daemon.run import DaemonError, run_daemon
from commonplace.firstrun.sample import (
    sample_env,
    sample_kept,
    sample_paths,
    sample_week,
    start_sample,
)
from commonplace.runtime.heap import limit_arenas
from commonplace.runtime.lock import running_daemon
from commonplace.runtime.logfile import log_path, logging_to_file, quiet_stream_handlers


@click.command()
@click.option(
    "--sample-if-unset",
    is_flag=True,
    help="If no vault is configured, use a fresh copy of the sample vault (`make run`).",
)
@click.option(
    "--fresh-sample",
    is_flag=True,
    help="With --sample-if-unset: start the sample vault over from a fresh copy, deleting the "
    "earlier copy and what was captured in it (`make run FRESH=1`).",
)
@click.option(
    "--vault",
    type=click.Path(file_okay=False, path_type=Path, resolve_path=True),
    help="The vault to watch, in place of the config's 'vault' (and COMMONPLACE_VAULT).",
)
@click.option(
    "--port",
    type=click.IntRange(0, 65535),
    help="The phone page's port, in place of the config's web.port (0: any free port).",
)
@click.option(
    "--quiet-stderr",
    is_flag=True,
    hidden=True,
    help="Warnings only on stderr, the rest in the log file (a launchd agent's stderr file).",
)
@click.pass_context
def run(
    ctx: click.Context,
    sample_if_unset: bool,
    fresh_sample: bool,
    vault: Path | None,
    port: int | None,
    quiet_stderr: bool,
) -> None:
    """Watch the vault, serve the phone page and run jobs until stopped (Ctrl-C)."""
    limit_arenas()  # before LanceDB's threads start: see commonplace/runtime/heap.py
    settings = settings_from(ctx, vault=vault, port=port)
    if sample_if_unset and not settings.vault_configured:
        settings = use_sample(settings, fresh=fresh_sample)
    elif fresh_sample:
        click.echo(
            f"(--fresh-sample, FRESH=1: only the sample vault is started over; {settings.vault} "
            "is yours and is left as it is)"
        )
    if logging.getLogger().level > logging.INFO:
        logging.getLogger("commonplace").setLevel(logging.INFO)
    if quiet_stderr:
        quiet_stream_handlers()
    web = settings.web
    click.echo(f"Vault: {settings.vault}  ({settings.flavor})")
    click.echo(f"Data:  {settings.data_path}")
    click.echo(f"Log:   {log_path(settings)}")
    if web.port:
        click.echo(f"Phone page: http://{web.host}:{web.port}/")
    else:
        click.echo("Phone page: on a free port, logged below once it is open")
    if web.ts_name:
        click.echo(f"  on your tailnet (after 'tailscale serve'): https://{web.ts_name}/")
    try:
        with logging_to_file(settings):
            run_async(run_daemon(settings))
    except DaemonError as exc:
        raise click.ClickException(str(exc)) from None
    except KeyboardInterrupt:
        pass


def use_sample(settings: Settings, *, fresh: bool) -> Settings:
    """The settings for the sample vault: the copy an earlier `make run` made, with what was
    captured in it since, or (the first time, or `fresh`) a new copy. Says which."""
    vault, data = sample_paths()
    settings = dataclasses.replace(settings, vault=vault, data_dir=data)
    # Before anything is copied: a second `make run` used to replace the vault under the
    # daemon already running on it, deleting what had been captured there.
    running = running_daemon(settings.data_path)
    if running is not None:
        raise click.ClickException(
            f"commonplace is already running on the sample vault ({running.describe()}); "
            f"its copy at {vault} is left as it is. Use that one "
            f"(http://127.0.0.1:{running.port or settings.web.port}/), or stop it first "
            f"(Ctrl-C in its terminal, or kill {running.pid})"
        )
    inbox = settings.folder("inbox")
    kept = sample_kept(vault, data)
    if kept and not fresh:
        click.echo(
            f"No vault configured: going on with the sample vault at {vault}, as the last run "
            "left it (what you captured in it is there)"
        )
        click.echo("(to start over from a fresh copy, deleting it: make run FRESH=1)")
    else:
        start_sample(vault, data, inbox)
        if kept:
            click.echo(
                f"Starting over (FRESH=1): a fresh copy of the sample vault at {vault}; the "
                "earlier copy, and what was captured in it, is deleted"
            )
        else:
            click.echo(f"No vault configured: using a fresh copy of the sample vault at {vault}")
        click.echo(
            f"(a week of its captures waits in {inbox}/ to be filed; 'commonplace digest' on "
            f"it writes that week's digest, {sample_week()}; make run keeps this copy, "
            "make run FRESH=1 starts over)"
        )
    click.echo("(set 'vault' in commonplace.toml or COMMONPLACE_VAULT to use your own)")
    # The Ollama this run was given goes with it, or `commonplace search` in the other
    # terminal would look for Ollama at the default address and fall back to keywords.
    host = os.environ.get("OLLAMA_HOST", "")
    line = sample_env() + (f" OLLAMA_HOST={shlex.quote(host)}" if host else "")
    click.echo(f"To use the other commands on it from another terminal: {line}")
    return settings
