"""`commonplace mcp`: the vault for other AI clients (Claude Desktop, agents) over MCP.

On stdio (the way desktop clients start servers) nothing but the protocol may reach standard
output: every message of ours goes to standard error, through logging or `err=True`.

list_tasks reads the vault's to-dos itself, daemon or not (mcp/reading.py); the server reads
them ahead as it starts (assistant/tasks.py `warm`), so a client's first list_tasks on a big
vault does not wait through the whole first read.
"""

from __future__ import annotations

import asyncio
import logging

import click

from commonplace.cli.common import require_vault, settings_from
from commonplace.config import Settings
from commonplace.plugin.apitoken import get_or_create_token, read_token, token_path


@click.command()
@click.option(
    "--http",
    "use_http",
    is_flag=True,
    help="Serve streamable HTTP on 127.0.0.1 instead of stdio; clients must send the token.",
)
@click.option(
    "--port",
    type=click.IntRange(1, 65535),
    default=None,
    help="Port for --http (default: [mcp] port, 8766).",
)
@click.pass_context
def mcp(ctx: click.Context, use_http: bool, port: int | None) -> None:
    """Let other AI clients search, read and ask the vault, and capture into it.

    They can never edit, move or delete a note: any other change becomes a Yes/No question on
    the phone page's Assistant view. With a daemon running, requests go through it; without,
    the index is read read-only.
    """
    settings = settings_from(ctx)
    require_vault(settings)
    # The SDK logs a failed tool's message at INFO, and those can hold a client's words.
    logging.getLogger("mcp").setLevel(logging.WARNING)
    if use_http:
        _serve_http(settings, port or settings.mcp.port)
    else:
        asyncio.run(_serve_stdio(settings))


def _token_for(settings: Settings) -> str:
    """The vault's API token (made the first time), which the daemon accepts from us."""
    return get_or_create_token(token_path(settings.data_path))[0]


async def _serve_stdio(settings: Settings) -> None:
    from commonplace.mcp.access import VaultAccess  # the SDK is slow to import: only here
    from commonplace.mcp.server import build_server
    from commonplace.mcp.stdio import run_stdio

    access = VaultAccess(settings, lambda: _token_for(settings))
    server = build_server(settings, access.backend, max_read_chars=settings.mcp.max_read_chars)
    await access.backend()  # with no daemon running, the to-dos start being read ahead now
    try:
        await run_stdio(server)  # the SDK's, answering requests it cannot read
    finally:
        await access.close()


def _serve_http(settings: Settings, port: int) -> None:
    from commonplace.mcp.access import VaultAccess
    from commonplace.mcp.http import http_auth, port_is_free, serve
    from commonplace.mcp.server import build_server

    if not port_is_free(port):
        raise click.ClickException(
            f"port {port} on 127.0.0.1 is already in use; is another 'commonplace mcp --http' "
            "running? Choose another port with --port"
        )
    path = token_path(settings.data_path)
    try:
        get_or_create_token(path)
    except OSError as exc:
        raise click.ClickException(f"the token file {path} cannot be written: {exc}") from None
    access = VaultAccess(settings, lambda: _token_for(settings))
    server = build_server(
        settings,
        access.backend,
        max_read_chars=settings.mcp.max_read_chars,
        auth=http_auth(port, lambda: read_token(path)),
    )
    click.echo(
        f"MCP over HTTP at http://127.0.0.1:{port}/mcp (this computer only). Clients send "
        "'Authorization: Bearer <token>'; the token: commonplace token. Ctrl-C stops.",
        err=True,
    )

    async def run() -> None:
        await access.backend()  # with no daemon running, the to-dos start being read ahead now
        try:
            await serve(server, port)
        finally:
            await access.close()

    asyncio.run(run())
