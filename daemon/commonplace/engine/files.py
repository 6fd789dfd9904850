"""How a model file is written and checked, the same way by a download, an assembly from
packages, a conversion and a copy: into `<name>.part`, hashed, and renamed only when its size
and SHA-256 are right. So a file under a model's name is always whole, and an interrupted
write leaves only a `.part` (which a download resumes and everything else starts over).
"""

from __future__ import annotations

import hashlib
import os
import shutil
from collections.abc import Callable
from pathlib import Path

BLOCK = 1024 * 1024
PART_SUFFIX = ".part"

Progress = Callable[[int, int], None]  # (bytes done, bytes in all)


def part_path(dest: Path) -> Path:
    return dest.with_name(dest.name + PART_SUFFIX)


def sha256_file(path: Path, progress: Progress | None = None) -> str:
    digest = hashlib.sha256()
    total = path.stat().st_size
    done = 0
    with path.open("rb") as f:
        while block := f.read(BLOCK):
            digest.update(block)
            done += len(block)
            if progress is not None:
                progress(done, total)
    return digest.hexdigest()


def free_space(path: Path) -> int:
    """Bytes free on the disk that holds `path` (or its nearest existing parent)."""
    probe = path
    while not probe.exists() and probe != probe.parent:
        probe = probe.parent
    return shutil.disk_usage(probe).free


def publish(part: Path, dest: Path) -> None:
    """Give a checked file its name: flushed to disk first, then one atomic rename, so a crash
    leaves either the old state or the whole file."""
    with part.open("rb+") as f:
        os.fsync(f.fileno())
    part.replace(dest)
    try:
        fd = os.open(dest.parent, os.O_RDONLY)
    except OSError:  # a platform that cannot open a folder (Windows): the rename stands
        return
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def size_text(n: int) -> str:
    """1.1 GB, 46 MB, 612 bytes: the figure a person reads (decimal units, as disks are sold)."""
    if n >= 1_000_000_000:
        return f"{n / 1e9:.1f} GB"
    if n >= 1_000_000:
        return f"{n / 1e6:.0f} MB"
    if n >= 1_000:
        return f"{n / 1e3:.0f} kB"
    return f"{n} bytes"
