"""`commonplace run`: start the daemon."""

from __future__ import annotations

import dataclasses
import logging
import os
import shlex
from pathlib import Path

import click

from commonplace.cli.common import run_async, settings_from
from commonplace.daemon.run import DaemonError, run_daemon
from commonplace.firstrun.sample import (
    make_sample_data,
    make_sample_vault,
    sample_env,
    sample_scratch,
    sample_week,
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
    vault: Path | None,
    port: int | None,
    quiet_stderr: bool,
) -> None:
    """Watch the vault, serve the phone page and run jobs until stopped (Ctrl-C)."""
    limit_arenas()  # before LanceDB's threads start: see commonplace/runtime/heap.py
    settings = settings_from(ctx, vault=vault, port=port)
    if sample_if_unset and not settings.vault_configured:
        scratch = sample_scratch()
        settings = dataclasses.replace(settings, vault=scratch / "vault", data_dir=scratch / "data")
        # Before the copy is made again: a second `make run` used to replace the vault under
        # the daemon already running on it, deleting what had been captured there.
        running = running_daemon(settings.data_path)
        if running is not None:
            raise click.ClickException(
                f"commonplace is already running on the sample vault ({running.describe()}); "
                f"its copy at {settings.vault} is left as it is. Use that one "
                f"(http://127.0.0.1:{running.port or settings.web.port}/), or stop it first "
                f"(Ctrl-C in its terminal, or kill {running.pid})"
            )
        vault = make_sample_vault(settings.vault, inbox=settings.folder("inbox"))
        make_sample_data(settings.data_dir)
        click.echo(f"No vault configured: using a fresh copy of the sample vault at {vault}")
        click.echo("(set 'vault' in commonplace.toml or COMMONPLACE_VAULT to use your own)")
        click.echo(
            f"(a week of its captures waits in {settings.folder('inbox')}/ to be filed; "
            f"'commonplace digest' on it writes that week's digest, {sample_week()})"
        )
        # The Ollama this run was given goes with it, or `commonplace search` in the other
        # terminal would look for Ollama at the default address and fall back to keywords.
        host = os.environ.get("OLLAMA_HOST", "")
        line = sample_env() + (f" OLLAMA_HOST={shlex.quote(host)}" if host else "")
        click.echo(f"To use the other commands on it from another terminal: {line}")
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
