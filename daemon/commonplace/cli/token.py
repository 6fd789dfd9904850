"""`commonplace token`: the secret the Obsidian plugin (and the MCP server, and MCP clients
over `commonplace mcp --http`) send with every request; `list` and `revoke` for the devices
paired with `commonplace plugin pair`, each with a token of its own."""

from __future__ import annotations

import click

from commonplace.cli.common import settings_from
from commonplace.plugin.apitoken import get_or_create_token, rotate_token, token_path
from commonplace.plugin.devices import devices_path, read_devices, revoke_device


@click.group(invoke_without_command=True)
@click.option("--rotate", is_flag=True, help="Replace the token; the old one stops working.")
@click.pass_context
def token(ctx: click.Context, rotate: bool) -> None:
    """Print the Obsidian plugin's token (made the first time), or replace it with --rotate.

    Only the token goes to standard output, so `commonplace token | pbcopy` copies just it.
    Paired devices have tokens of their own: `commonplace token list`, `... revoke ID`."""
    if ctx.invoked_subcommand is not None:
        if rotate:
            raise click.UsageError("--rotate goes without a subcommand: commonplace token --rotate")
        return
    settings = settings_from(ctx)
    path = token_path(settings.data_path)
    try:
        if rotate:
            value = rotate_token(path)
            note = (
                "a new token; the old one no longer works. Paste this one into the plugin "
                "(and into MCP clients that connect over --http). Paired devices keep theirs."
            )
        else:
            value, made = get_or_create_token(path)
            note = "a new token" if made else "the token"
            note += " (kept in " + str(path) + "). Paste it into Obsidian: Settings > Commonplace."
    except OSError as exc:
        raise click.ClickException(f"the token file {path} cannot be written: {exc}") from None
    click.echo(value)
    click.echo(note[0].upper() + note[1:], err=True)


@token.command("list")
@click.pass_context
def list_devices(ctx: click.Context) -> None:
    """The paired devices, each with its id (for revoke), name and when it was paired."""
    devices = read_devices(devices_path(settings_from(ctx).data_path))
    if not devices:
        click.echo("No paired devices. Pair Obsidian: Settings > Commonplace > Pair.")
        return
    for device in devices:
        click.echo(f"{device.id}  {device.created}  {device.name}")


@token.command()
@click.argument("device_id")
@click.pass_context
def revoke(ctx: click.Context, device_id: str) -> None:
    """Revoke a paired device's token: the daemon refuses it from the next request on."""
    path = devices_path(settings_from(ctx).data_path)
    try:
        gone = revoke_device(path, device_id)
    except OSError as exc:
        raise click.ClickException(f"{path} cannot be written: {exc}") from None
    if gone is None:
        raise click.ClickException(f"no paired device {device_id!r}; see: commonplace token list")
    click.echo(f"Revoked {gone.id} ({gone.name}); pair it again to let it back in.")
