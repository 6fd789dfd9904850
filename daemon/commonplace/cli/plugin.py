"""`commonplace plugin install | pair`: the Obsidian plugin, installed and paired."""

from __future__ import annotations

import json
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

import click

from commonplace.cli.common import settings_from
from commonplace.plugin.apitoken import get_or_create_token, token_path
from commonplace.plugin.discovery import local_url, read_discovery
from commonplace.plugin.install import CONFIG_DIR, InstallError, install_plugin


@click.group()
def plugin() -> None:
    """The Obsidian plugin: install it into a vault, confirm a pairing."""


@plugin.command()
@click.option(
    "--vault",
    "vault_path",
    type=click.Path(file_okay=False, path_type=Path),
    help="The vault to install into (default: the configured vault).",
)
@click.option("--force", is_flag=True, help="Replace a different version that is installed.")
@click.option(
    "--config-dir",
    default=CONFIG_DIR,
    show_default=True,
    help="The vault's Obsidian settings folder, if you renamed it.",
)
@click.pass_context
def install(ctx: click.Context, vault_path: Path | None, force: bool, config_dir: str) -> None:
    """Copy the plugin into the vault's .obsidian/plugins/; then enable it in Obsidian."""
    vault = vault_path if vault_path is not None else settings_from(ctx).vault
    try:
        done = install_plugin(vault.expanduser(), force=force, config_dir=config_dir)
    except InstallError as exc:
        raise click.ClickException(str(exc)) from None
    except OSError as exc:
        raise click.ClickException(f"the plugin cannot be copied into {vault}: {exc}") from None
    if done.unchanged:
        click.echo(f"Commonplace {done.version} is already installed in {done.folder}.")
    else:
        was = f" (replacing {done.replaced})" if done.replaced else ""
        click.echo(f"Installed Commonplace {done.version}{was} in {done.folder}.")
    click.echo(
        "Next, in Obsidian: Settings > Community plugins, turn them on if asked, and enable "
        "Commonplace (restart Obsidian or reload the list if it is not shown). Then "
        "Settings > Commonplace > Pair, and confirm the code with: commonplace plugin pair"
    )


def _daemon_url(ctx: click.Context) -> tuple[str, str]:
    settings = settings_from(ctx)
    found = read_discovery(settings.vault)
    url = found["url"] if found else local_url(settings.web.host, settings.web.port)
    token, _ = get_or_create_token(token_path(settings.data_path))
    return str(url).rstrip("/"), token


def _call(url: str, token: str, path: str, body: dict[str, Any] | None = None) -> Any:
    data = None if body is None else json.dumps(body).encode("utf-8")
    method = "GET" if data is None else "POST"
    request = urllib.request.Request(url + path, data=data, method=method)
    request.add_header("Authorization", f"Bearer {token}")
    if data is not None:
        request.add_header("Content-Type", "application/json")
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            return json.loads(response.read().decode("utf-8"))
    except urllib.error.HTTPError as exc:
        try:
            message = json.loads(exc.read().decode("utf-8"))["error"]["message"]
        except (ValueError, KeyError, TypeError):
            message = f"HTTP {exc.code}"
        raise click.ClickException(f"the daemon at {url} refused: {message}") from None
    except (urllib.error.URLError, OSError) as exc:
        raise click.ClickException(
            f"no daemon answers at {url} ({exc}); start it with: commonplace run"
        ) from None


@plugin.command()
@click.option("--code", help="Confirm the request showing this code without asking.")
@click.option(
    "--wait",
    type=click.FloatRange(0, 600),
    default=120,
    show_default=True,
    help="Seconds to wait for a request when none is waiting yet.",
)
@click.pass_context
def pair(ctx: click.Context, code: str | None, wait: float) -> None:
    """Confirm Obsidian's request to pair: check that the code is the one Obsidian shows."""
    url, token = _daemon_url(ctx)
    deadline = time.monotonic() + wait
    waiting: list[dict[str, Any]] = _call(url, token, "/api/pair/pending")["requests"]
    if not waiting and wait:
        click.echo("Waiting for Obsidian to ask (Settings > Commonplace > Pair)…", err=True)
    while not waiting and time.monotonic() < deadline:
        time.sleep(1.0)
        waiting = _call(url, token, "/api/pair/pending")["requests"]
    if not waiting:
        raise click.ClickException(
            "no pairing request is waiting: in Obsidian, open Settings > Commonplace and "
            "press Pair, then run this again"
        )
    if code is not None:
        digits = "".join(ch for ch in code if ch.isdigit())
        match = [r for r in waiting if str(r["code"]).replace(" ", "") == digits]
        if not match:
            shown = ", ".join(str(r["code"]) for r in waiting)
            raise click.ClickException(f"no waiting request shows {code!r} (waiting: {shown})")
        waiting = match
    for req in waiting:
        where = f"{req['device']!r} from {req['via']}"
        if code is None and not click.confirm(
            f"Pair {where}, showing the code {req['code']}?", default=False
        ):
            _call(url, token, "/api/pair/deny", {"code": req["code"]})
            click.echo(f"Denied {where}.")
            continue
        done = _call(url, token, "/api/pair/confirm", {"code": req["code"]})
        click.echo(
            f"Paired {where} as device {done['device_id']}; it has its own token now "
            f"(commonplace token list; revoke with: commonplace token revoke {done['device_id']})."
        )
