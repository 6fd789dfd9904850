"""What a crash leaves in the vault, cleared while the daemon runs: files moved aside by a
delete are put back, temp files of a write that never got renamed are removed.

Tidy deletes a capture (or its own filed note) by renaming it aside, checking it and deleting it
(vault/atomic.py `remove_file`); a crash in between leaves the file under a hidden name, where
the owner cannot see it. It is put back at start-up, but only once it is a few seconds old (a
younger one may be a removal still being checked), so a restart within seconds of a crash
found it too young. It is therefore put back again the moment it is old enough, and at every
periodic scan (another computer's daemon may have crashed over a synced vault), so a file a crash
left aside always comes back while the daemon runs.

The temp files (`.<name>.<hex>.cptmp`, vault/atomic.py) are treated the same way: a service
manager restarts a crashed daemon within a second or two, when the crash's temp file is still
too young to remove (it might be a write in progress), so it is removed the moment it is old
enough, and at every periodic scan, in the vault and in the data folder.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable

from commonplace.config import Settings
from commonplace.vault.atomic import removal_wait_s, restore_removals
from commonplace.vault.layout import sweep_temp_files

log = logging.getLogger(__name__)

FOLDERS = ("inbox", "filed")  # where tidy deletes
MARGIN_S = 0.5  # past the moment a file is old enough: file times are not exact


def put_back_left_aside(settings: Settings) -> float | None:
    """Put back what is old enough and remove the temp files old enough; return in how many
    seconds the next one is (None: none waits, or only files that could not be put back,
    which the next scan tries again). Blocking: call it from a thread in async code."""
    waits = []
    for root in (settings.vault, settings.data_path):
        if not root.is_dir():
            continue
        removed, wait = sweep_temp_files(root)
        if removed:
            log.info("removed %d temp file(s) left by a crash in %s", len(removed), root)
            log.debug("removed %s", removed)
        if wait is not None:
            waits.append(wait)
    for key in FOLDERS:
        folder = settings.vault / settings.folder(key)
        if not folder.is_dir():
            continue
        restored = restore_removals(folder)
        if restored:
            log.warning("put back %d half-removed file(s) in %s", len(restored), folder)
            log.info("put back %s", restored)
        wait = removal_wait_s(folder)
        if wait:  # 0: one old enough is still there (it could not be put back; logged)
            waits.append(wait)
    return min(waits, default=None)


async def keep_putting_back(
    settings: Settings,
    interval_s: float,
    *,
    sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
) -> None:
    """Every `interval_s` (the periodic scan's), and as soon as a file moved aside is old
    enough, put back what a crash left aside. Runs until cancelled (supervised)."""
    while True:
        wait = await asyncio.to_thread(put_back_left_aside, settings)
        await sleep(interval_s if wait is None else min(wait + MARGIN_S, interval_s))
