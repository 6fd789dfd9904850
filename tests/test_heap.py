"""The daemon's malloc arena cap (commonplace/runtime/heap.py), seen in glibc's own account of
its heaps."""

from __future__ import annotations

import subprocess
import sys

import pytest

from commonplace.runtime.heap import _libc

pytestmark = pytest.mark.skipif(_libc() is None, reason="not glibc: the daemon leaves malloc alone")

# Threads that allocate at the same moment make glibc open arenas; malloc_info counts them.
SCRIPT = r"""
import ctypes, sys, tempfile, threading
from commonplace.runtime.heap import _libc, limit_arenas
libc = _libc()
if sys.argv[1] == "cap":
    assert limit_arenas()
libc.malloc.restype = ctypes.c_void_p
libc.free.argtypes = [ctypes.c_void_p]
start = threading.Barrier(16)
def work():
    start.wait()
    for _ in range(3000):
        libc.free(libc.malloc(4096))
threads = [threading.Thread(target=work) for _ in range(16)]
for t in threads: t.start()
for t in threads: t.join()
with tempfile.NamedTemporaryFile() as out:
    libc.fopen.restype = ctypes.c_void_p
    libc.fclose.argtypes = [ctypes.c_void_p]
    libc.malloc_info.argtypes = [ctypes.c_int, ctypes.c_void_p]
    stream = libc.fopen(out.name.encode(), b"w")
    libc.malloc_info(0, stream)
    libc.fclose(stream)
    print(open(out.name).read().count("<heap nr="))
"""


def arenas(mode: str) -> int:
    done = subprocess.run(
        [sys.executable, "-c", SCRIPT, mode], capture_output=True, text=True, check=True
    )
    return int(done.stdout.strip())


def test_the_daemon_keeps_to_two_malloc_arenas_however_many_threads_allocate() -> None:
    assert arenas("default") > 2  # the threads do contend: glibc opens more arenas
    assert arenas("cap") <= 2
