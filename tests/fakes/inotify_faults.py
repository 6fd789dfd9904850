"""Run `commonplace` with inotify failing the way the kernel makes it fail, for daemon tests.

    python -m tests.fakes.inotify_faults limit run
    python -m tests.fakes.inotify_faults overflow:120 run

The faults are injected where watchdog meets the kernel, so everything above (watchdog's
observer and emitters, the daemon's watcher) runs as it does for real:

- `limit`: inotify_add_watch fails with ENOSPC (the fs.inotify.max_user_watches limit) for
  every folder except the vault itself, as on a machine whose watches are used up.
- `overflow:N`: the first N events about files whose name starts with `burst-` are dropped, and
  the kernel's IN_Q_OVERFLOW event takes the place of the N-th, as when a burst of files
  overflows the kernel's event queue.

Everything after the fault's name is passed to the `commonplace` command line.
"""

from __future__ import annotations

import ctypes
import errno
import os
import sys
from pathlib import Path
from typing import Any

from watchdog.observers import inotify_c
from watchdog.observers.inotify_c import InotifyConstants, InotifyEvent, InotifyFD


def watch_limit(vault: Path) -> None:
    root = os.fsencode(str(vault.resolve()))
    real = inotify_c.inotify_add_watch

    def add_watch(fd: int, path: bytes, mask: int) -> int:
        if path.rstrip(b"/") != root:
            ctypes.set_errno(errno.ENOSPC)
            return -1
        return int(real(fd, path, mask))

    inotify_c.inotify_add_watch = add_watch  # type: ignore[assignment]


def queue_overflow(drop: int) -> None:
    real = InotifyFD.read_events
    dropped = 0

    def read_events(self: InotifyFD, **kwargs: Any) -> list[InotifyEvent]:
        nonlocal dropped
        out = []
        for event in real(self, **kwargs):
            if dropped < drop and event.name.startswith(b"burst-"):
                dropped += 1
                if dropped == drop:
                    out.append(InotifyEvent(-1, InotifyConstants.IN_Q_OVERFLOW, 0, b""))
                continue
            out.append(event)
        return out

    InotifyFD.read_events = read_events  # type: ignore[method-assign]


def main() -> None:
    fault, args = sys.argv[1], sys.argv[2:]
    if fault == "limit":
        watch_limit(Path(os.environ["COMMONPLACE_VAULT"]))
    elif fault.startswith("overflow:"):
        queue_overflow(int(fault.split(":", 1)[1]))
    else:
        raise SystemExit(f"unknown fault {fault!r}; use limit or overflow:N")
    from commonplace.cli.main import cli

    cli(args, prog_name="commonplace")


if __name__ == "__main__":
    main()
