"""The discovery file: where a running daemon listens, for the Obsidian plugin on this computer.

The plugin on desktop reads it to find the daemon without being told the address (a vault served
on another port, `[web] port = 0`). It lives in the user's state folder, outside every vault
(platformdirs: $XDG_STATE_HOME/commonplace/daemons/ or ~/.local/state/... on Linux,
~/Library/Application Support/commonplace/daemons/ on macOS, %LOCALAPPDATA%\\commonplace\\daemons\\
on Windows), one small JSON file per vault, written when the server listens and removed when it
stops. It holds an address, never a token: finding the daemon lets the plugin ask to pair,
nothing more. Mobile Obsidian cannot read files outside the vault: there the plugin uses the
address the user types (the ts.net name).
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import logging
import os
from pathlib import Path
from typing import Any

import platformdirs

from commonplace import __version__
from commonplace.vault import replace_file

log = logging.getLogger(__name__)

APP = "commonplace"
FOLDER = "daemons"


def discovery_dir() -> Path:
    return platformdirs.user_state_path(APP, appauthor=False) / FOLDER


def discovery_path(vault: Path) -> Path:
    key = hashlib.sha256(str(vault.resolve()).encode("utf-8", "surrogateescape")).hexdigest()
    return discovery_dir() / f"{key[:16]}.json"


def local_url(host: str, port: int) -> str:
    """The address a program on this computer uses: loopback when the server listens on all."""
    if host in ("", "0.0.0.0", "::", "127.0.0.1", "localhost"):
        return f"http://127.0.0.1:{port}"
    if host == "::1":
        return f"http://[::1]:{port}"
    return f"http://127.0.0.1:{port}" if host.startswith("127.") else f"http://{host}:{port}"


def write_discovery(vault: Path, host: str, port: int, ts_name: str = "") -> Path | None:
    """Say where this daemon listens. A failure is logged, never fatal: the plugin then tries
    the default address."""
    path = discovery_path(vault)
    body: dict[str, Any] = {
        "url": local_url(host, port),
        "vault": str(vault.resolve()),
        "pid": os.getpid(),
        "version": __version__,
        "tailnet_url": f"https://{ts_name}" if ts_name else "",
    }
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        replace_file(path, json.dumps(body, indent=1) + "\n", mode=0o644)
    except OSError as exc:
        log.warning("cannot write the discovery file %s (%s): the plugin tries 8765", path, exc)
        return None
    return path


def remove_discovery(path: Path | None) -> None:
    """At a clean stop; only our own file (another daemon may have taken the vault since)."""
    if path is None:
        return
    with contextlib.suppress(OSError, ValueError):
        if json.loads(path.read_text(encoding="utf-8")).get("pid") == os.getpid():
            path.unlink()


def read_discovery(vault: Path) -> dict[str, Any] | None:
    """The running daemon's entry for this vault, for the CLI (None when there is none)."""
    try:
        data = json.loads(discovery_path(vault).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) and isinstance(data.get("url"), str) else None
