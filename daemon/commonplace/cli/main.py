"""Entry point of the `commonplace` command."""

from __future__ import annotations

from pathlib import Path

import click

from commonplace import __version__
from commonplace.cli.common import setup_logging
from commonplace.cli.doctor import doctor
from commonplace.cli.run import run


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
cli.add_command(doctor)


def main() -> None:
    cli()
