"""Entry point of the `commonplace` command."""

from __future__ import annotations

from pathlib import Path

import click

from commonplace import __version__
from commonplace.cli.ask import ask
from commonplace.cli.common import setup_logging
from commonplace.cli.digest import digest
from commonplace.cli.doctor import doctor
from commonplace.cli.evals import eval_group
from commonplace.cli.index import index_command, search_command
from commonplace.cli.push import push
from commonplace.cli.run import run
from commonplace.cli.tidy import tidy


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.option(
    "--config",
    "config_path",
    type=click.Path(dir_okay=False, path_type=Path),
    help="Config file (default: $COMMONPLACE_CONFIG or ~/.config/commonplace/commonplace.toml).",
)
@click.option("-v", "--verbose", count=True, help="More log output (-vv for debug).")
@click.version_option(__version__, prog_name="commonplace")
@click.pass_context
def cli(ctx: click.Context, config_path: Path | None, verbose: int) -> None:
    """Commonplace: a private, local AI companion for your Markdown vault."""
    ctx.ensure_object(dict)["config_path"] = config_path
    setup_logging(verbose)


cli.add_command(run)
cli.add_command(ask)
cli.add_command(doctor)
cli.add_command(eval_group)
cli.add_command(digest)
cli.add_command(push)
cli.add_command(tidy)
cli.add_command(index_command)
cli.add_command(search_command)


def main() -> None:
    cli()
