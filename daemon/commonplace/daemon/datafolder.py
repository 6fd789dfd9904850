"""The data folder deleted while the daemon runs (the owner "resetting" it, a disk cleaner).

Nothing in the vault is lost with it, but the daemon's lock file goes too, so a second
`commonplace run` on the same vault would start and work beside this one (two indexes written
into one folder, two servers), and `doctor` would say no daemon runs. The search index that was
open keeps failing its writes until the next start rebuilds it from the vault. So the lock is
put back at once, and the owner is told, in attention and the log, to restart the daemon.
"""

from __future__ import annotations

import asyncio
import logging

from commonplace.runtime.attention import Attention
from commonplace.runtime.lock import VaultLock

log = logging.getLogger(__name__)

SOURCE = "data folder"
CHECK_EVERY_S = 10.0
RESTART = "restart the daemon (Ctrl-C, then commonplace run): it rebuilds the index from the vault"


async def keep_lock(lock: VaultLock, attention: Attention, every_s: float = CHECK_EVERY_S) -> None:
    """Every `every_s`: the lock file still names this daemon, or is put back and said."""
    while True:
        await asyncio.sleep(every_s)
        gone = not await asyncio.to_thread(lock.path.exists)
        other = await asyncio.to_thread(lock.restore)
        folder = lock.path.parent
        if other is not None:
            reason = (
                f"another commonplace ({other.describe()}) took this vault after {folder} was "
                "deleted; two daemons now work on one vault"
            )
            seen = attention.get(SOURCE)
            if seen is None or seen.code != "lock_taken":
                log.error("%s", reason)
            attention.report(SOURCE, "", "lock_taken", reason, action="stop one of them")
        elif gone:
            reason = (
                f"{folder} was deleted while the daemon ran: the search index, the archive of "
                "filed captures and the daemon's state went with it (the vault is untouched)"
            )
            log.error("%s; %s", reason, RESTART)
            attention.report(SOURCE, "", "data_folder_deleted", reason, action=RESTART)
