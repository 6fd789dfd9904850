"""What a service starts: the absolute command line of the installed program, with the config
file it was installed with, and the few variables of the installing shell it depends on."""

from __future__ import annotations

import os
import shutil
import sys
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from commonplace.config import Settings

# Carried from the shell that ran `service install` into the service's environment: a service
# manager starts programs with an environment of its own, and a daemon that read another data
# folder (XDG_DATA_HOME) or another Ollama (OLLAMA_HOST) than the one set up would rebuild its
# index and lose the phone's push subscriptions. COMMONPLACE_CONFIG is not: --config says it.
CARRIED = ("OLLAMA_HOST", "TZ", "XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_STATE_HOME")


class ServiceError(Exception):
    """Install, uninstall or status cannot go on; the message says why and what to do."""


def removable(path: Path, *, ours: bool, force: bool) -> bool:
    """Whether uninstall may remove the service file: False when there is none; a file
    commonplace did not write is someone else's and stays unless --force."""
    if not path.exists():
        return False
    if not ours and not force:
        raise ServiceError(
            f"{path} was not written by commonplace; it is left alone (--force removes it)"
        )
    return True


@dataclass(frozen=True)
class ServiceCommand:
    argv: tuple[str, ...]  # absolute program first, then `--config <file> run`
    env: dict[str, str] = field(default_factory=dict)
    vault: Path = Path()
    config: Path = Path()


def installed_program(argv0: str | None = None, executable: str | None = None) -> list[str]:
    """The absolute command that runs this installed `commonplace`: the script this process
    was started as, or the one installed beside this Python (pipx's and uv's environments
    have both), or else this Python with `-m commonplace` (a checkout)."""
    started = Path(argv0 if argv0 is not None else sys.argv[0])
    python = Path(executable or sys.executable)
    if started.stem == "commonplace" and started.is_file():
        return [str(started.absolute())]
    for name in ("commonplace", "commonplace.exe"):
        beside = python.parent / name
        if beside.is_file() and os.access(beside, os.X_OK):
            return [str(beside.absolute())]
    return [str(python.absolute()), "-m", "commonplace"]


def service_command(
    settings: Settings,
    env: Mapping[str, str] | None = None,
    program: list[str] | None = None,
    extra: tuple[str, ...] = (),
) -> ServiceCommand:
    """The command a service runs for these settings. The settings must come from a config
    file (the service reads the vault from it): without one, `commonplace init` writes it."""
    env = os.environ if env is None else env
    if settings.config_path is None:
        raise ServiceError(
            "no config file to install the service with: run `commonplace init` first (it "
            "writes one), or pass --config FILE"
        )
    if not settings.vault.is_dir():
        raise ServiceError(
            f"the vault folder {settings.vault} does not exist; set 'vault' in "
            f"{settings.config_path} (or run `commonplace init --force`)"
        )
    argv = program or installed_program()
    carried = {k: env[k] for k in CARRIED if env.get(k)}
    carried |= {
        k: v for k, v in env.items() if k.startswith("COMMONPLACE_") and k != "COMMONPLACE_CONFIG"
    }
    if env.get("PYTHONPATH"):  # the package this shell runs (a checkout's), not another
        carried["PYTHONPATH"] = env["PYTHONPATH"]
    config = settings.config_path.absolute()
    return ServiceCommand(
        argv=(*argv, "--config", str(config), "run", *extra),
        env=dict(sorted(carried.items())),
        vault=settings.vault.absolute(),
        config=config,
    )


def python_running(command: ServiceCommand) -> Path:
    """The real program macOS sees running the daemon (a script's interpreter, links resolved):
    the one that needs the Files and Folders or Full Disk Access permission."""
    first = Path(command.argv[0])
    if command.argv[1:2] == ("-m",):
        return first.resolve()
    try:
        shebang = first.read_bytes()[:512].split(b"\n", 1)[0]
    except OSError:
        shebang = b""
    if shebang.startswith(b"#!"):
        words = shebang[2:].decode(errors="replace").split()
        if words and Path(words[0]).name == "env" and len(words) > 1:
            found = shutil.which(words[1])
            return Path(found).resolve() if found else Path(words[1])
        if words:
            return Path(words[0]).resolve()
    return first.resolve()
