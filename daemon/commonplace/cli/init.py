"""`commonplace init`: the first run. Finds the vault, writes a short config file, checks
the model server and Tailscale, and says what to do next. Every question has a flag, and --yes takes
every default, so it runs in scripts and tests as it runs for a person."""

from __future__ import annotations

import dataclasses
import os
import shlex
import sys
import tempfile
import time
from pathlib import Path
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

import click

from commonplace.cli.common import run_async
from commonplace.config import (
    ConfigError,
    Settings,
    default_config_path,
    load_settings,
    local_timezone_name,
)
from commonplace.firstrun.configfile import Choices, config_text, write_config
from commonplace.firstrun.qr import qr_text
from commonplace.firstrun.tailnet import TailscaleMissing, serve_command, tailnet_status
from commonplace.firstrun.vaults import FoundVault, detect_flavor, find_vaults
from commonplace.plugin.install import plugin_in_this_install


@click.command()
@click.option("--vault", "vault_opt", type=click.Path(path_type=Path), help="The vault's folder.")
@click.option("--flavor", type=click.Choice(["obsidian", "logseq"]), help="Default: as seen.")
@click.option("--timezone", "timezone_opt", help="An IANA zone (default: this computer's).")
@click.option(
    "--backend",
    type=click.Choice(["auto", "ollama", "openai", "builtin"]),
    default="auto",
    help="The model server (default auto: Ollama when it answers, else the built-in model).",
)
@click.option("--ollama-host", default="", help="Ollama's address (default: 127.0.0.1:11434).")
@click.option(
    "--openai-url", default="", help="An OpenAI-compatible server, e.g. http://127.0.0.1:1234/v1."
)
@click.option("--chat-model", default="", help="Default: the server's (Ollama: qwen3.5:9b).")
@click.option("--embed-model", default="", help="Default: the server's (nomic-embed-text).")
@click.option("--port", type=click.IntRange(1, 65535), help="The phone page's port (8765).")
@click.option("--ts-name", default=None, help="The tailnet name (default: from tailscale).")
@click.option("--owner-login", default=None, help="The Tailscale login let in (ditto).")
@click.option("--no-tailscale", is_flag=True, help="Leave the Tailscale settings out.")
@click.option("-y", "--yes", is_flag=True, help="Take every default; ask nothing.")
@click.option("--force", is_flag=True, help="Replace an existing config (kept as a backup).")
@click.pass_context
def init(
    ctx: click.Context,
    vault_opt: Path | None,
    flavor: str | None,
    timezone_opt: str | None,
    backend: str,
    ollama_host: str,
    openai_url: str,
    chat_model: str,
    embed_model: str,
    port: int | None,
    ts_name: str | None,
    owner_login: str | None,
    no_tailscale: bool,
    yes: bool,
    force: bool,
) -> None:
    """Set Commonplace up: find the vault, write the config, check the model and Tailscale."""
    target = ctx.ensure_object(dict).get("config_path") or default_config_path(os.environ)
    target = target.expanduser().absolute()
    if target.exists() and not force:
        raise click.ClickException(
            f"{target} exists, and is left as it is. To write a new one (the old one is kept "
            "as a backup beside it): commonplace init --force"
        )
    vault, vault_from = choose_vault(vault_opt, yes)
    seen_flavor, seen = detect_flavor(vault)
    click.echo(f"Vault: {vault}: {seen}")
    zone, zone_from = choose_timezone(timezone_opt, yes)
    choices = Choices(
        vault=vault,
        vault_from=vault_from,
        flavor=flavor or seen_flavor,
        flavor_from="--flavor" if flavor else f"Seen in the vault: {seen}.",
        timezone=zone,
        timezone_from=zone_from,
        ollama_host=ollama_host,
        backend="openai" if openai_url and backend == "auto" else backend,
        openai_url=openai_url,
        chat_model=chat_model,
        embed_model=embed_model,
        port=port or 0,
    )
    if not no_tailscale:
        choices = choose_tailnet(choices, ts_name, owner_login, yes)
    text = config_text(choices)
    settings = checked(text)
    backup = write_config(target, text)
    click.echo(f"Wrote {target}" + (f" (the old one is kept as {backup})" if backup else ""))
    model_ready, server = check_model(settings)
    phone_page(settings)
    next_steps(settings, target, model_ready, server)


def choose_vault(given: Path | None, yes: bool) -> tuple[Path, str]:
    if given is not None:
        vault = given.expanduser().absolute()
        if not vault.is_dir():
            raise click.ClickException(f"--vault {given}: no such folder")
        return vault, "--vault"
    found = find_vaults(Path.home(), os.environ, sys.platform)
    if not found:
        if yes:
            raise click.ClickException(
                "no vault found in Obsidian's or Logseq's lists of vaults; name yours with "
                "--vault PATH"
            )
        answer = click.prompt("No vault found in Obsidian's or Logseq's lists. Your vault's folder")
        return choose_vault(Path(answer), yes)
    if len(found) == 1 or yes:
        chosen = found[0]
        if len(found) > 1:
            click.echo(f"{len(found)} vaults found; taking the last opened (--vault for another)")
        return chosen.path, f"{chosen.app}'s list of vaults"
    click.echo("Vaults found (the last opened first):")
    for n, item in enumerate(found, 1):
        click.echo(f"  {n}. {item.path}  ({item.app}{opened(item)})")
    answer = click.prompt("Which one? A number, or another folder", default="1")
    if answer.strip().isdigit() and 1 <= int(answer) <= len(found):
        chosen = found[int(answer) - 1]
        return chosen.path, f"{chosen.app}'s list of vaults"
    return choose_vault(Path(answer.strip()), yes)


def opened(vault: FoundVault) -> str:
    if not vault.last_opened:
        return ""
    return ", opened " + time.strftime("%Y-%m-%d", time.localtime(vault.last_opened))


def choose_timezone(given: str | None, yes: bool) -> tuple[str, str]:
    if given is None:
        zone = local_timezone_name()
        if not yes:
            zone = click.prompt("Timezone", default=zone)
        given_by = "This computer's zone" if zone == local_timezone_name() else "Chosen"
    else:
        zone, given_by = given, "--timezone"
    try:
        ZoneInfo(zone)
    except (ZoneInfoNotFoundError, ValueError):
        raise click.ClickException(
            f"timezone {zone!r} is not a known zone; use an IANA name such as Europe/London"
        ) from None
    return zone, given_by


def choose_tailnet(
    choices: Choices, ts_name: str | None, owner_login: str | None, yes: bool
) -> Choices:
    """The tailnet name and login for the phone page: given, or read from Tailscale."""
    if ts_name is not None or owner_login is not None:
        return dataclasses.replace(
            choices,
            ts_name=(ts_name or "").strip().rstrip("."),
            owner_login=(owner_login or "").strip(),
            tailnet_from="--ts-name",
        )
    try:
        tailnet = tailnet_status()
    except TailscaleMissing as exc:
        click.echo(
            f"Tailscale: {exc}, so the phone page is on this computer only. To open it on your "
            "phone, install Tailscale on both (https://tailscale.com/download), then run "
            "commonplace init --force"
        )
        return choices
    if not tailnet.running:
        click.echo(
            f"Tailscale is {tailnet.state or 'not running'}: run `tailscale up`, then "
            "commonplace init --force, for the phone page on your phone"
        )
        return choices
    if not yes and not click.confirm(
        f"Open the phone page on your phone as https://{tailnet.dns_name}/, letting in only "
        f"{tailnet.login or 'your login'}?",
        default=True,
    ):
        return choices
    return dataclasses.replace(
        choices,
        ts_name=tailnet.dns_name,
        owner_login=tailnet.login,
        tailnet_from="tailscale status (this computer's name on your tailnet)",
    )


def checked(text: str) -> Settings:
    """The settings the text gives, read as the daemon will read them (a value the program
    would refuse is said now, before anything is written)."""
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "commonplace.toml"
        path.write_text(text, encoding="utf-8")
        # Where the daemon will look, as it will run from this shell (the service carries
        # these along): its data folder and its model server.
        env = {k: v for k, v in os.environ.items() if k in CARRIED_ENV}
        try:
            settings = load_settings(path, env=env)
        except ConfigError as exc:
            raise click.ClickException(str(exc).replace(str(path), "the config")) from None
    return dataclasses.replace(settings, config_path=None)


# The environment the daemon's service will carry (service/program.py), as init checks it.
CARRIED_ENV = ("COMMONPLACE_DATA", "OLLAMA_HOST")


def check_model(settings: Settings) -> tuple[bool, str]:
    """Which model server will answer and why, and its two models, with doctor's own checks;
    what to run for each missing. Returns whether all is well, and which server it is."""
    from commonplace.doctor.models import model_capabilities, model_checks
    from commonplace.llm import make_llm

    backend = ""

    async def checks() -> list[str]:
        nonlocal backend
        llm = make_llm(settings, retries=0)
        backend = llm.server.kind
        try:
            status = await llm.status()
            if not status.reachable:
                label = "ollama" if status.backend == "ollama" else "model"
                lines = [f"FAIL {label}: {status.error}"]
                if status.backend == "ollama":
                    lines += [
                        f"then run: ollama pull {model}"
                        for model in (llm.chat_model, llm.embed_model)
                    ]
                return lines
            caps = await model_capabilities(llm, status)
            found = model_checks(
                settings, status, caps, chat_model=llm.chat_model, embed_model=llm.embed_model
            )
            return [c.line() for c in found]
        finally:
            await llm.aclose()

    lines = run_async(checks())
    for line in lines:
        click.echo(line)
    return not any(line.startswith(("FAIL", "then")) for line in lines), backend


def phone_page(settings: Settings) -> None:
    web = settings.web
    if not web.ts_name:
        return
    address = f"https://{web.ts_name}/"
    click.echo(
        f"Phone page on your tailnet: {address} (only {web.owner_login} is let in). Let "
        f"Tailscale pass it on, once: {serve_command(web.port)}"
    )
    click.echo("Point the phone's camera at this to open it:")
    click.echo(qr_text(address), nl=False)


def next_steps(settings: Settings, config: Path, model_ready: bool, server: str = "") -> None:
    web = settings.web
    steps = []
    if not model_ready:
        which = "Ollama" if server == "ollama" else "the model"
        steps.append(f"get {which} ready: the lines above say what is missing")
    steps.append("start it now and at every login: commonplace service install")
    steps.append(f"open the page on this computer: http://127.0.0.1:{web.port}/")
    if web.ts_name:
        steps.append(
            f"on the phone, open https://{web.ts_name}/ and add it to the Home Screen "
            "(Safari: Share > Add to Home Screen; Chrome: menu > Install app)"
        )
    missing = plugin_in_this_install()
    if settings.flavor == "obsidian" and missing:
        # Installed from a checkout without Node.js: say so now, not at `plugin install`.
        steps.append(missing[:1].upper() + missing[1:])
    elif settings.flavor == "obsidian":
        # The plugin is not in Obsidian's directory of community plugins: the installed program
        # carries it, and this command puts it in the vault.
        steps.append(
            "in Obsidian, the Commonplace plugin: "
            f"commonplace plugin install --vault {shlex.quote(str(settings.vault))}\n"
            "     then enable Commonplace in Obsidian (Settings > Community plugins) and press "
            "Pair in its settings; confirm the code it shows with: commonplace plugin pair"
        )
    steps.append("check everything: commonplace doctor")
    click.echo("Next:")
    for n, step in enumerate(steps, 1):
        click.echo(f"  {n}. {step}")
    if config != default_config_path(os.environ).absolute():
        click.echo(f"(every command needs --config {config}, or COMMONPLACE_CONFIG={config})")
