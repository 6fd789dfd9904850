"""macOS: a launchd agent in ~/Library/LaunchAgents, loaded with `launchctl bootstrap`.

`KeepAlive = {SuccessfulExit: false}` restarts a daemon that crashed but not one that was
stopped (SIGTERM, exit 0); `RunAtLoad` starts it at login. launchd never rotates the files
it sends stdout and stderr to, so the agent runs `run --quiet-stderr`: stderr gets warnings
and errors only, everything else goes to the daemon's own rotating log in the same folder.

A background job does not inherit the Terminal's permissions: a vault in ~/Documents,
~/Desktop, ~/Downloads, iCloud Drive (where Obsidian's iCloud vaults live) or on another disk
needs the program that runs the daemon allowed in System Settings > Privacy & Security
(Files and Folders, or Full Disk Access), which install says, and the daemon says again as an
attention item when it meets "Operation not permitted" on the vault (daemon/vault_access.py).
"""

from __future__ import annotations

import os
import plistlib
from collections.abc import Callable
from pathlib import Path
from typing import Any

from commonplace.runtime.logfile import log_dir
from commonplace.service.program import ServiceCommand, ServiceError, removable
from commonplace.service.tools import call, drop_empty_folders
from commonplace.vault.atomic import replace_file

LABEL = "local.commonplace.daemon.run"
EXIT_TIMEOUT_S = 60  # launchd's wait between SIGTERM and SIGKILL (its default is 20 s)
Say = Callable[[str], None]


def plist_path() -> Path:
    return Path.home() / "Library" / "LaunchAgents" / f"{LABEL}.plist"


def domain() -> str:
    return f"gui/{os.getuid()}"


def plist_data(command: ServiceCommand) -> dict[str, Any]:
    logs = log_dir()
    data: dict[str, Any] = {
        "Label": LABEL,
        "ProgramArguments": list(command.argv),
        "RunAtLoad": True,
        "KeepAlive": {"SuccessfulExit": False},
        "ThrottleInterval": 10,
        "ExitTimeOut": EXIT_TIMEOUT_S,
        "StandardOutPath": str(logs / "launchd-stdout.log"),
        "StandardErrorPath": str(logs / "launchd-stderr.log"),
    }
    if command.env:
        data["EnvironmentVariables"] = dict(command.env)
    return data


def plist_text(command: ServiceCommand) -> str:
    return plistlib.dumps(plist_data(command), sort_keys=False).decode("utf-8")


PROTECTED = (
    ("Documents", "your Documents folder"),
    ("Desktop", "your Desktop folder"),
    ("Downloads", "your Downloads folder"),
    ("Library/Mobile Documents", "iCloud Drive"),
)


def protected_place(vault: Path, home: Path | None = None) -> str | None:
    """The place macOS guards that the vault is in (a background job needs permission for it),
    or None."""
    home = home or Path.home()
    vault = vault.absolute()  # not resolved: /Volumes/X may be a link to /
    for folder, name in PROTECTED:
        if vault == home / folder or (home / folder) in vault.parents:
            return name
    if vault.parts[:2] == ("/", "Volumes"):
        return "another disk"
    return None


def permission_advice(place: str, program: Path) -> str:
    what = "Removable Volumes" if place == "another disk" else "Files and Folders"
    return (
        f"The vault is in {place}, which macOS guards: a background job does not inherit the "
        f"Terminal's permission. Open System Settings > Privacy & Security > {what} (or Full "
        f"Disk Access), and allow {program} (the program that runs commonplace); then run: "
        "commonplace service install"
    )


def install(command: ServiceCommand, *, force: bool, program: Path, say: Say) -> bool:
    path = plist_path()
    if path.exists() and not _ours(path) and not force:
        raise ServiceError(
            f"{path} exists and was not written by commonplace; move it away, or run "
            "`commonplace service install --force` to replace it"
        )
    log_dir().mkdir(parents=True, exist_ok=True, mode=0o700)
    replace_file(path, plist_text(command), mode=0o644)
    say(f"Wrote {path}")
    place = protected_place(command.vault)
    if place:
        say(permission_advice(place, program))
    call("launchctl", "bootout", f"{domain()}/{LABEL}")  # the one loaded before, if any
    call("launchctl", "enable", f"{domain()}/{LABEL}")  # in case it was disabled
    done = call("launchctl", "bootstrap", domain(), str(path))
    if not done.ok:
        say(
            f"`{done.line()}` failed: {done.why()}. The agent is written at {path}; load it "
            f"with: launchctl bootstrap {domain()} {path}"
        )
        return False
    say(f"Loaded {LABEL}: it starts now and at every login")
    return True


def uninstall(*, force: bool, say: Say) -> bool:
    path = plist_path()
    if not removable(path, ours=_ours(path), force=force):
        say(f"No service to remove ({path} does not exist)")
        return False
    done = call("launchctl", "bootout", f"{domain()}/{LABEL}")
    if not done.ok:
        say(f"(`{done.line()}`: {done.why()})")
    path.unlink()
    drop_empty_folders(path.parent, 1)  # LaunchAgents, made by install if empty now
    drop_empty_folders(log_dir(), 1)  # the log folder stays while it holds a log
    say(f"Stopped {LABEL}; removed {path}")
    return True


def status() -> tuple[bool, list[str]]:
    path = plist_path()
    if not path.exists():
        return False, [f"service: not installed (no {path}); run: commonplace service install"]
    done = call("launchctl", "print", f"{domain()}/{LABEL}")
    if not done.ok:
        return True, [f"service: {path} is installed but not loaded ({done.why()})"]
    found = _fields(done.out)
    line = f"service: {found.get('state', '?')}"
    if "pid" in found:
        line += f", pid {found['pid']}"
    if "last exit code" in found:
        line += f", last exit code {found['last exit code']}"
    return True, [f"{line}; agent {path}"]


def _fields(text: str) -> dict[str, str]:
    """The top-level `key = value` lines of `launchctl print` (its format is not stable, so
    only the few lines read here are looked for)."""
    found: dict[str, str] = {}
    for line in text.splitlines():
        key, sep, value = line.strip().partition(" = ")
        if sep and key in ("state", "pid", "last exit code") and key not in found:
            found[key] = value.strip()
    return found


def _ours(path: Path) -> bool:
    try:
        with path.open("rb") as handle:
            data = plistlib.load(handle)
    except (OSError, plistlib.InvalidFileException, ValueError):
        return False
    return isinstance(data, dict) and data.get("Label") == LABEL
