"""The config file `commonplace init` writes: only what was chosen, each line saying where it
came from, in the place the program reads it (config.py `default_config_path`, or --config).
An existing file is never replaced without --force, and then it is kept as a backup first."""

from __future__ import annotations

import json
import time
from dataclasses import dataclass
from pathlib import Path

from commonplace.config import DEFAULT_OLLAMA_HOST
from commonplace.vault.atomic import replace_file


@dataclass(frozen=True)
class Choices:
    vault: Path
    vault_from: str  # "Obsidian's list", "Logseq's list", "--vault"
    flavor: str
    flavor_from: str  # what was seen in the folder, or "--flavor"
    timezone: str
    timezone_from: str  # "this computer's zone", "--timezone"
    ollama_host: str = ""  # "" : the default, not written
    backend: str = ""  # "" : auto, not written
    openai_url: str = ""  # [openai] base_url; "" : not written
    chat_model: str = ""
    embed_model: str = ""
    port: int = 0  # 0: the default, not written
    ts_name: str = ""
    owner_login: str = ""
    tailnet_from: str = ""  # "tailscale status", "--ts-name"


def toml_string(value: str) -> str:
    """A TOML basic string (JSON's escapes are TOML's: quotes, backslashes, control codes)."""
    return json.dumps(value, ensure_ascii=False)


def config_text(choices: Choices, *, written: float | None = None) -> str:
    stamp = time.strftime("%Y-%m-%d %H:%M", time.localtime(written or time.time()))
    lines = [
        f"# Commonplace settings, written by `commonplace init` on {stamp}.",
        "# Only what was chosen is here; every other setting has its default.",
        "# `commonplace doctor` checks them; `commonplace init --force` writes this file anew.",
        "",
        f"# The vault, from {choices.vault_from}.",
        f"vault = {toml_string(str(choices.vault))}",
        f"# {choices.flavor_from}",
        f"flavor = {toml_string(choices.flavor)}",
        f"# {choices.timezone_from}: 'due Friday' and the 07:00 briefing are in this zone.",
        f"timezone = {toml_string(choices.timezone)}",
    ]
    model = [
        (key, value)
        for key, value in (
            ("backend", choices.backend if choices.backend != "auto" else ""),
            ("chat_model", choices.chat_model),
            ("embed_model", choices.embed_model),
        )
        if value
    ]
    if model:
        lines += ["", "[model]"]
        lines += [f"{key} = {toml_string(value)}" for key, value in model]
    if choices.ollama_host and choices.ollama_host != DEFAULT_OLLAMA_HOST:
        lines += ["", "[ollama]", f"host = {toml_string(choices.ollama_host)}"]
    if choices.openai_url:
        lines += ["", "[openai]", f"base_url = {toml_string(choices.openai_url)}"]
    web = []
    if choices.port:
        web.append(f"port = {choices.port}  # the phone page's port on this computer")
    if choices.ts_name:
        web += [
            f"# The phone page on your tailnet, from {choices.tailnet_from}.",
            f"ts_name = {toml_string(choices.ts_name)}",
        ]
    if choices.owner_login:
        web.append(f"owner_login = {toml_string(choices.owner_login)}  # the only login let in")
    if web:
        lines += ["", "[web]", *web]
    return "\n".join(lines) + "\n"


def backup_name(path: Path, now: float | None = None) -> Path:
    stamp = time.strftime("%Y%m%d-%H%M%S", time.localtime(now or time.time()))
    candidate = path.with_name(f"{path.name}.{stamp}.bak")
    n = 2
    while candidate.exists():
        candidate = path.with_name(f"{path.name}.{stamp}-{n}.bak")
        n += 1
    return candidate


def write_config(path: Path, text: str) -> Path | None:
    """Write the config (readable by its owner only: it names the owner's login); an existing
    one is first copied to a backup beside it, whose path is returned."""
    backup = None
    if path.exists():
        backup = backup_name(path)
        replace_file(backup, path.read_bytes(), mode=0o600)
    replace_file(path, text, mode=0o600)
    return backup
