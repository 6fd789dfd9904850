"""Tantivy's writer when its folder is deleted under it: errors the daemon can survive."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from commonplace.index.chunking import IndexedChunk
from commonplace.index.keywords import KeywordIndex


def chunk(path: str, text: str) -> IndexedChunk:
    return IndexedChunk(path, "Title", "Title", text, 0, 1, "2026-10-20", 0.0, text, path)


def test_writes_after_the_folder_is_deleted_fail_as_errors_never_as_panics(
    tmp_path: Path,
) -> None:
    """Tantivy panics in rollback once a commit has failed for lack of its folder; pyo3 raises
    that as a PanicException, a BaseException, which went through every `except Exception`
    and killed the job queue's worker for good."""
    keywords = KeywordIndex(tmp_path / "keywords")
    keywords.replace([], [chunk("a.md", "first words")])
    shutil.rmtree(tmp_path / "keywords")
    for n in range(3):
        with pytest.raises(Exception):  # noqa: B017 (any Exception; a panic is not one)
            keywords.replace(["a.md"], [chunk("a.md", f"words {n}")])
