"""Whether the daemon may read the vault at all, said as an attention item when it may not.

A daemon started by launchd does not inherit the Terminal's permissions: macOS refuses it a
vault in ~/Documents, ~/Desktop, iCloud Drive or another disk ("Operation not permitted")
until the program running it is allowed in System Settings. Every stage would then find an
empty vault and say nothing; this names the permission and the program instead. Looked at
when the daemon starts and again every `interval_s`, so granting it clears the item.
"""

from __future__ import annotations

import asyncio
import getpass
import logging
import os
import sys
from collections.abc import Awaitable, Callable
from pathlib import Path

from commonplace.runtime.attention import Attention

log = logging.getLogger(__name__)

SOURCE = "vault"
CODE = "vault_not_permitted"


def access_problem(vault: Path, platform: str | None = None) -> tuple[str, str] | None:
    """(reason, action) when listing the vault is refused, else None."""
    try:
        with os.scandir(vault) as entries:
            next(entries, None)
    except PermissionError as exc:
        return f"the vault {vault} cannot be read ({exc.strerror})", advice(platform)
    except OSError:
        return None  # gone, or a disk error: other checks say so
    return None


def advice(platform: str | None = None) -> str:
    program = Path(sys.executable).resolve()
    if (platform or sys.platform) == "darwin":
        return (
            "macOS keeps background programs out of Documents, Desktop, iCloud Drive and other "
            "disks: in System Settings > Privacy & Security > Files and Folders (or Full Disk "
            f"Access) allow {program}, the program that runs commonplace; then restart the "
            "service (commonplace service install)"
        )
    return (
        f"let the daemon's user ({getpass.getuser()}) read and write the vault's folders "
        f"(e.g. chmod -R u+rwX); the program is {program}"
    )


def check_access(vault: Path, attention: Attention, platform: str | None = None) -> bool:
    """Report (or clear) the attention item; True when the vault can be read."""
    problem = access_problem(vault, platform)
    if problem is None:
        attention.clear(SOURCE)
        return True
    reason, action = problem
    if attention.get(SOURCE) is None:
        log.warning("%s; %s", reason, action)
    attention.report(SOURCE, "", CODE, reason, action=action)
    return False


async def keep_checking_access(
    vault: Path,
    attention: Attention,
    interval_s: float,
    *,
    sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
) -> None:
    """Until cancelled (supervised): look again every interval_s."""
    while True:
        await asyncio.to_thread(check_access, vault, attention)
        await sleep(interval_s)
