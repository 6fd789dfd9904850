"""`commonplace token`: the secret the Obsidian plugin (and the MCP server, and MCP clients
over `commonplace mcp --http`) send with every request."""

from __future__ import annotations

import click

from commonplace.apitoken import get_or_create_token, rotate_token, token_path
from commonplace.cli.common import settings_from


@click.command()
@click.option("--rotate", is_flag=True, help="Replace the token; the old one stops working.")
@click.pass_context
def token(ctx: click.Context, rotate: bool) -> None:
    """Print the Obsidian plugin's token (made the first time), or replace it with --rotate.

    Only the token goes to standard output, so `commonplace token | pbcopy` copies just it."""
    settings = settings_from(ctx)
    path = token_path(settings.data_path)
    try:
        if rotate:
            value = rotate_token(path)
            note = (
                "a new token; the old one no longer works. Paste this one into the plugin "
                "(and into MCP clients that connect over --http)."
            )
        else:
            value, made = get_or_create_token(path)
            note = "a new token" if made else "the token"
            note += " (kept in " + str(path) + "). Paste it into Obsidian: Settings > Commonplace."
    except OSError as exc:
        raise click.ClickException(f"the token file {path} cannot be written: {exc}") from None
    click.echo(value)
    click.echo(note[0].upper() + note[1:], err=True)
