"""The C heap under the daemon: fewer malloc arenas, and freed pages given back.

glibc gives each thread that meets a busy heap an arena of its own, up to eight per core, and
an arena's freed pages are rarely returned. LanceDB, Arrow and Tantivy run many native threads,
so while a big vault is indexed the freed memory is spread over dozens of arenas and the
daemon's resident size keeps growing. Measured with eval_suite/bench_daemon.py on 20,000 notes
(340 MB): peak 1,855-1,993 MB and 1,782 MB once ready with glibc's default, 1,470 MB and 897 MB
with two arenas, searches as fast. Other C libraries (macOS, musl) have neither call, and the
daemon runs as before there.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import gc
import logging
from functools import cache
from typing import Any

log = logging.getLogger(__name__)

M_ARENA_MAX = -8  # glibc's mallopt parameter (malloc.h)
ARENAS = 2


@cache  # find_library runs `ldconfig -p` in a subprocess: once per process is enough
def _libc() -> Any | None:
    name = ctypes.util.find_library("c")
    if not name:
        return None
    try:
        libc = ctypes.CDLL(name)
    except OSError:
        return None
    return libc if hasattr(libc, "mallopt") and hasattr(libc, "malloc_trim") else None


def limit_arenas(arenas: int = ARENAS) -> bool:
    """Cap glibc's malloc arenas for this process (call before threads start: arenas made
    earlier stay). True when the C library took it."""
    libc = _libc()
    if libc is None:
        return False
    done = bool(libc.mallopt(M_ARENA_MAX, arenas))
    if not done:
        log.debug("malloc arenas: mallopt refused the limit")
    return done


def release_memory() -> None:
    """Give the memory freed after a big piece of work (the start-up scan) back to the system
    (glibc keeps freed heap pages otherwise: about 10 MB of an idle daemon on the sample vault)."""
    gc.collect()
    libc = _libc()
    if libc is not None:
        libc.malloc_trim(0)
