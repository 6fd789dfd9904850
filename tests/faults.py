"""Faults at the I/O edge for in-process tests: a full disk for the next few writes."""

from __future__ import annotations

import contextlib
import errno
from collections.abc import Iterator
from pathlib import Path

import pytest

from commonplace.vault import atomic


def disk_full(monkeypatch: pytest.MonkeyPatch, writes: int) -> list[Path]:
    """The next `writes` atomic writes (notes and state) fail as on a full disk: ENOSPC when
    the temp file is written, nothing reaches the target. Returns the paths refused so far."""
    real = atomic._temp_beside
    refused: list[Path] = []

    @contextlib.contextmanager
    def temp_beside(path: Path, text: str | bytes, mode: int) -> Iterator[Path]:
        if len(refused) < writes:
            refused.append(path)
            raise OSError(errno.ENOSPC, "No space left on device", str(path))
        with real(path, text, mode) as tmp:
            yield tmp

    monkeypatch.setattr(atomic, "_temp_beside", temp_beside)
    return refused
