"""The vaults the note apps know about, read where the apps keep their lists.

Obsidian lists every vault it opened in `obsidian.json` (`{"vaults": {id: {"path", "ts",
"open"}}}`) in its config folder: ~/.config/obsidian on Linux (also the Flatpak's and the
Snap's), ~/Library/Application Support/obsidian on macOS, %APPDATA%\\obsidian on Windows.
Logseq keeps one cache file per file-based graph in ~/.logseq/graphs/, named after the graph's
folder: `logseq_local_` then the path with `/` written `++` and `:` written `+3A+` (Logseq's
own `graph-name->path`). Nothing here writes to either app's files.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

LOGSEQ_PREFIX = "logseq_local_"


@dataclass(frozen=True)
class FoundVault:
    path: Path
    app: str  # "Obsidian" or "Logseq": whose list named it
    last_opened: float = 0.0  # seconds since the epoch, 0 when unknown


def obsidian_config_dirs(home: Path, env: Mapping[str, str], platform: str) -> list[Path]:
    if platform == "darwin":
        return [home / "Library" / "Application Support" / "obsidian"]
    if platform == "win32":
        appdata = env.get("APPDATA")
        return [Path(appdata) / "obsidian"] if appdata else []
    config = Path(env["XDG_CONFIG_HOME"]) if env.get("XDG_CONFIG_HOME") else home / ".config"
    return [
        config / "obsidian",
        home / ".var" / "app" / "md.obsidian.Obsidian" / "config" / "obsidian",  # Flatpak
        home / "snap" / "obsidian" / "current" / ".config" / "obsidian",  # Snap
    ]


def obsidian_vaults(home: Path, env: Mapping[str, str], platform: str) -> list[FoundVault]:
    found = []
    for folder in obsidian_config_dirs(home, env, platform):
        try:
            raw = json.loads((folder / "obsidian.json").read_text(encoding="utf-8"))
        except (OSError, ValueError):
            continue
        vaults = raw.get("vaults") if isinstance(raw, dict) else None
        for entry in (vaults or {}).values() if isinstance(vaults, dict) else ():
            if isinstance(entry, dict) and isinstance(entry.get("path"), str):
                ts = entry.get("ts")
                when = ts / 1000 if isinstance(ts, int | float) else 0.0  # milliseconds
                found.append(FoundVault(Path(entry["path"]), "Obsidian", when))
    return found


def logseq_graph_path(file_name: str) -> Path | None:
    """The graph folder a Logseq cache file is named after, or None for another file."""
    if not file_name.startswith(LOGSEQ_PREFIX) or not file_name.endswith(".transit"):
        return None
    name = file_name.removeprefix(LOGSEQ_PREFIX).removesuffix(".transit")
    path = name.replace("+3A+", ":").replace("++", "/")
    return Path(path) if path else None


def logseq_vaults(home: Path) -> list[FoundVault]:
    found = []
    try:
        entries = list(os.scandir(home / ".logseq" / "graphs"))
    except OSError:
        return []
    for entry in entries:
        path = logseq_graph_path(entry.name)
        if path is not None:
            try:
                when = entry.stat().st_mtime
            except OSError:
                when = 0.0
            found.append(FoundVault(path, "Logseq", when))
    return found


def find_vaults(home: Path, env: Mapping[str, str], platform: str) -> list[FoundVault]:
    """Every vault both apps list that is still a folder here, the last opened first."""
    seen: set[Path] = set()
    out = []
    candidates = obsidian_vaults(home, env, platform) + logseq_vaults(home)
    for vault in sorted(candidates, key=lambda v: -v.last_opened):
        key = vault.path.expanduser().absolute()
        if key in seen or not key.is_dir():
            continue
        seen.add(key)
        out.append(FoundVault(key, vault.app, vault.last_opened))
    return out


def detect_flavor(path: Path) -> tuple[str, str]:
    """(flavor setting, what was seen): a Logseq graph holds logseq/config.edn; an Obsidian
    vault a .obsidian folder; a plain folder of Markdown is read as Obsidian's Markdown
    (wiki links, front matter), which any Markdown editor leaves alone."""
    obsidian = (path / ".obsidian").is_dir()
    logseq = (path / "logseq" / "config.edn").is_file()
    if logseq and not obsidian:
        return "logseq", "a Logseq graph (it holds logseq/config.edn)"
    if obsidian:
        return "obsidian", "an Obsidian vault (it holds .obsidian/)"
    return "obsidian", "a plain folder of Markdown notes (read as Obsidian's Markdown)"
