"""A rename that never replaces what is at its target.

`put_back` returns a file to its name only if the name is still free: a sync tool may have
delivered a newer version there meanwhile, and replacing it would lose those words. A hard link
does this atomically, but exFAT and some network mounts have none; there a check and then a
rename left a window in which a delivered file would be replaced. Linux (renameat2 with
RENAME_NOREPLACE) and macOS (renamex_np with RENAME_EXCL) rename without replacing in one step;
only a file system that offers neither falls back to the check.
"""

from __future__ import annotations

import ctypes
import errno
import os
import sys
from collections.abc import Callable
from functools import cache
from pathlib import Path

AT_FDCWD = -100  # <fcntl.h>: paths relative to the working folder
RENAME_NOREPLACE = 1  # <linux/fs.h>
RENAME_EXCL = 0x00000004  # macOS <stdio.h>
_UNSUPPORTED = {errno.EINVAL, errno.ENOSYS, errno.ENOTSUP, errno.EOPNOTSUPP}


def rename_exclusive(src: Path, dst: Path) -> None:
    """Rename `src` to `dst`; FileExistsError (and nothing moved) if `dst` exists."""
    native = _native()
    if native is not None:
        if native(src, dst) == 0:
            return
        err = ctypes.get_errno()
        if err == errno.EEXIST:
            raise FileExistsError(err, os.strerror(err), str(dst))
        if err not in _UNSUPPORTED:
            raise OSError(err, os.strerror(err), str(src))
    if os.path.lexists(dst):  # neither call here: a check, then the rename
        raise FileExistsError(errno.EEXIST, os.strerror(errno.EEXIST), str(dst))
    src.rename(dst)


@cache
def _native() -> Callable[[Path, Path], int] | None:
    """The system's no-replace rename as f(src, dst) -> 0 or -1 (errno set), if it has one."""
    try:
        libc = ctypes.CDLL(None, use_errno=True)  # the C library the interpreter already uses
    except OSError:
        return None
    if sys.platform.startswith("linux") and hasattr(libc, "renameat2"):
        renameat2 = libc.renameat2
        renameat2.argtypes = [
            ctypes.c_int,
            ctypes.c_char_p,
            ctypes.c_int,
            ctypes.c_char_p,
            ctypes.c_uint,
        ]
        renameat2.restype = ctypes.c_int
        return lambda src, dst: int(
            renameat2(AT_FDCWD, os.fsencode(src), AT_FDCWD, os.fsencode(dst), RENAME_NOREPLACE)
        )
    if sys.platform == "darwin" and hasattr(libc, "renamex_np"):
        renamex_np = libc.renamex_np
        renamex_np.argtypes = [ctypes.c_char_p, ctypes.c_char_p, ctypes.c_uint]
        renamex_np.restype = ctypes.c_int
        return lambda src, dst: int(renamex_np(os.fsencode(src), os.fsencode(dst), RENAME_EXCL))
    return None
