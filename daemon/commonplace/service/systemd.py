"""Linux: a systemd user unit, enabled and started with `systemctl --user`.

`Restart=on-failure` restarts a daemon that crashed (or was killed) within seconds; a stop is
systemd's SIGTERM, on which the daemon finishes the job in hand and exits 0 (daemon/run.py), so a
stop is never counted as a failure. Without lingering (`loginctl enable-linger`) systemd
starts a user's units at login and stops them at logout: said plainly at install.
"""

from __future__ import annotations

import getpass
import os
import re
import time
from collections.abc import Callable, Mapping
from pathlib import Path

from commonplace.service.program import ServiceCommand, ServiceError, removable
from commonplace.service.tools import Called, call, drop_empty_folders
from commonplace.vault.atomic import replace_file

UNIT = "commonplace.service"
MARK = "# Written by `commonplace service install`"
STOP_TIMEOUT_S = 60  # the daemon's own grace for the job in hand is 10 s (daemon/jobs.py)

Say = Callable[[str], None]


def unit_path(env: Mapping[str, str] | None = None) -> Path:
    """Where systemd looks for this user's own units ($XDG_CONFIG_HOME honoured)."""
    env = os.environ if env is None else env
    base = Path(env["XDG_CONFIG_HOME"]) if env.get("XDG_CONFIG_HOME") else Path.home() / ".config"
    return base / "systemd" / "user" / UNIT


_PLAIN = re.compile(r"[A-Za-z0-9_@%$+=:,./-]+")


def quote(word: str, *, exec_line: bool = True) -> str:
    """One word as systemd reads it back: `%` is a specifier (written %%), `$` expands a
    variable on an Exec line (written $$), spaces and quotes need double quotes."""
    word = word.replace("%", "%%")
    if exec_line:
        word = word.replace("$", "$$")
    if _PLAIN.fullmatch(word):
        return word
    escaped = word.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")
    return f'"{escaped}"'


def unit_text(command: ServiceCommand, *, written: float | None = None) -> str:
    """The unit file for `command`: short, commented, nothing the defaults already say."""
    stamp = time.strftime("%Y-%m-%d %H:%M", time.localtime(written or time.time()))
    lines = [
        f"{MARK} on {stamp};",
        "# `commonplace service uninstall` removes it. Edit the config file, not this one.",
        "[Unit]",
        "Description=Commonplace for the vault " + str(command.vault).replace("%", "%%"),
        # Five failed starts within five minutes (a broken config): it stops trying, and
        # `commonplace service status` says so, instead of a restart every few seconds for ever.
        "StartLimitIntervalSec=300",
        "StartLimitBurst=5",
        "",
        "[Service]",
        "Type=simple",
        "ExecStart=" + " ".join(quote(word) for word in command.argv),
    ]
    lines += [f"Environment={quote(f'{k}={v}', exec_line=False)}" for k, v in command.env.items()]
    lines += [
        "Restart=on-failure",
        "RestartSec=5",
        "# A stop is SIGTERM: the daemon finishes the job in hand and exits cleanly.",
        "KillSignal=SIGTERM",
        f"TimeoutStopSec={STOP_TIMEOUT_S}",
        "",
        "[Install]",
        "WantedBy=default.target",
        "",
    ]
    return "\n".join(lines)


def systemctl(*args: str) -> Called:
    return call("systemctl", "--user", *args)


def install(command: ServiceCommand, *, force: bool, running_pid: int | None, say: Say) -> bool:
    """Write the unit, enable it and (re)start it; True when it runs. `running_pid`: a daemon
    already running on this vault, which the service must not fight for the vault's lock."""
    path = unit_path()
    text = unit_text(command)
    if path.exists() and not _ours(path) and not force:
        raise ServiceError(
            f"{path} exists and was not written by commonplace; move it away, or run "
            "`commonplace service install --force` to replace it"
        )
    replace_file(path, text, mode=0o644)
    say(f"Wrote {path}")
    steps = [("daemon-reload",), ("enable", UNIT)]
    service_pid = _main_pid()
    if running_pid is not None and running_pid != service_pid:
        for step in steps:
            if not _step(systemctl(*step), path, say):
                return False
        say(
            f"commonplace is already running on this vault outside the service (pid "
            f"{running_pid}, in a terminal?), so the service is enabled but not started: stop "
            f"that one (Ctrl-C, or kill {running_pid}), then run: systemctl --user start {UNIT}"
        )
        return False
    for step in (*steps, ("restart", UNIT)):
        if not _step(systemctl(*step), path, say):
            return False
    active = systemctl("is-active", UNIT).out.strip() or "unknown"
    say(f"Service {UNIT}: {active}, and started at every login")
    _say_lingering(say)
    return active in ("active", "activating")


def _step(done: Called, path: Path, say: Say) -> bool:
    if done.ok:
        return True
    say(
        f"`{done.line()}` failed: {done.why()}. The unit is written at {path}; once systemd's "
        f"user manager answers, run: systemctl --user daemon-reload && systemctl --user "
        f"enable --now {UNIT}"
    )
    return False


def _main_pid() -> int | None:
    done = systemctl("show", UNIT, "--property=MainPID", "--value")
    try:
        pid = int(done.out.strip()) if done.ok else 0
    except ValueError:
        pid = 0
    return pid or None


def _say_lingering(say: Say) -> None:
    user = getpass.getuser()
    done = call("loginctl", "show-user", user, "--property=Linger", "--value")
    if done.ok and done.out.strip() == "no":
        say(
            "It runs only while you are logged in: systemd stops your services when you log "
            "out and starts them at your next login (captures sent meanwhile wait in the "
            "inbox). To keep it running after logout and start it at boot, run: "
            f"sudo loginctl enable-linger {user}"
        )
    elif not done.ok:
        say(f"(could not ask loginctl whether it runs after logout: {done.why()})")


def uninstall(*, force: bool, say: Say) -> bool:
    """Stop and disable the service, remove the unit file install wrote; True if removed."""
    path = unit_path()
    if not removable(path, ours=_ours(path), force=force):
        say(f"No service to remove ({path} does not exist)")
        return False
    stopped = systemctl("disable", "--now", UNIT)
    if not stopped.ok:
        say(f"(`{stopped.line()}`: {stopped.why()})")
    path.unlink()
    drop_empty_folders(path.parent, 2)  # systemd/user, systemd: made by install if empty now
    systemctl("daemon-reload")
    systemctl("reset-failed", UNIT)
    say(f"Stopped and disabled {UNIT}; removed {path}")
    return True


STATUS_PROPERTIES = (
    "LoadState",
    "ActiveState",
    "SubState",
    "UnitFileState",
    "MainPID",
    "NRestarts",
    "Result",
    "ActiveEnterTimestamp",
)


def status() -> tuple[bool, list[str]]:
    """(installed, lines): what systemd says about the service."""
    path = unit_path()
    if not path.exists():
        return False, [f"service: not installed (no {path}); run: commonplace service install"]
    done = systemctl("show", UNIT, *(f"--property={p}" for p in STATUS_PROPERTIES))
    if not done.ok:
        return True, [f"service: {path} is installed; systemctl --user says: {done.why()}"]
    props = dict(line.split("=", 1) for line in done.out.splitlines() if "=" in line)
    state = f"{props.get('ActiveState', '?')} ({props.get('SubState', '?')})"
    lines = [f"service: {state}, {props.get('UnitFileState', '?')} at login; unit {path}"]
    if props.get("ActiveState") == "active":
        lines.append(
            f"service: pid {props.get('MainPID', '?')} since "
            f"{props.get('ActiveEnterTimestamp', '?')}; restarted {props.get('NRestarts', '0')} "
            "time(s) after a failure"
        )
    elif props.get("ActiveState") == "failed":
        lines.append(
            f"service: it failed ({props.get('Result', '?')}); see `commonplace service logs` "
            f"and `journalctl --user -u {UNIT}`, then: systemctl --user restart {UNIT}"
        )
    return True, lines


def _ours(path: Path) -> bool:
    try:
        return path.read_text(encoding="utf-8").startswith(MARK)
    except (OSError, UnicodeDecodeError):
        return False
