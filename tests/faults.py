"""Faults at the I/O edge for in-process tests: a full disk for the next few writes, and a real
panic from a Rust library."""

from __future__ import annotations

import contextlib
import errno
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
import tantivy

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


def tantivy_panic() -> BaseException:
    """A real PanicException from Tantivy (what a deleted data folder leads to)."""
    folder = Path(tempfile.mkdtemp())
    builder = tantivy.SchemaBuilder()
    builder.add_text_field("path", stored=True)
    writer = tantivy.Index(builder.build(), path=str(folder)).writer(15_000_000, 1)
    writer.add_document(tantivy.Document(path="a"))
    writer.commit()
    shutil.rmtree(folder)
    for _ in range(3):
        with pytest.raises(ValueError):
            writer.commit()
        try:
            writer.rollback()
        except ValueError:
            continue
        except BaseException as exc:
            assert not isinstance(exc, Exception)
            return exc
    raise AssertionError("Tantivy did not panic")
