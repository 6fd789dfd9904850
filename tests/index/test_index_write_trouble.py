"""The search index's own failed writes are told in the words every failed write is told in.

Captures, tidying, answers and the assistant say "the disk is full" and "free some space on
the vault's disk" (vault/atomic.py `write_trouble`); the index said its data folder's trouble
in its libraries' words, or as an error's type and line ("ValueError in indexer.py:312"):
Tantivy, LanceDB and SQLite each word a full disk their own way. Here the data folder is a
real, small file system (tmpfs) that is filled up under the real index;
the entry in attention (what /api/state and doctor show) and the log line are what the owner
reads. Mounting needs root (CAP_SYS_ADMIN); elsewhere those tests are skipped, and the
wording is checked on the words the three libraries gave on a full tmpfs.
"""

from __future__ import annotations

import errno
import logging
import sqlite3
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from commonplace.config import Settings
from commonplace.doctor.checks import entry_check
from commonplace.index import Index, IndexService
from commonplace.llm import make_llm
from commonplace.runtime.changes import Change
from commonplace.vault import os_error_of, write_trouble
from tests.index.conftest import write


@pytest.fixture
def small_disk(isettings: Settings) -> Iterator[Path]:
    """The data folder on a 64 MB tmpfs of its own (unmounted afterwards)."""
    folder = isettings.data_dir
    folder.mkdir(parents=True, exist_ok=True)
    mounted = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", "size=64m", "tmpfs", str(folder)],
        capture_output=True,
        text=True,
        check=False,
    )
    if mounted.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here ({mounted.stderr.strip()})")
    try:
        yield folder
    finally:
        subprocess.run(["umount", "-l", str(folder)], capture_output=True, check=False)


def fill(folder: Path) -> Path:
    """Write a file until the disk is full; it is the one to delete to free the space."""
    filler = folder / "filler"
    with filler.open("wb") as f:
        try:
            while True:
                f.write(b"\0" * (1 << 20))
                f.flush()
        except OSError as exc:
            assert exc.errno == errno.ENOSPC
    return filler


async def test_a_full_data_folder_disk_is_named_with_what_to_do_and_the_index_catches_up(
    isettings: Settings, small_disk: Path, caplog: pytest.LogCaptureFixture
) -> None:
    why, action = "the disk is full", "free some space on the data folder's disk"
    index = Index.open(isettings, make_llm(isettings))
    service = IndexService(index, isettings)
    try:
        await service.startup()
        assert service.attention.entries() == []
        filler = fill(small_disk)
        write(isettings.vault, "New.md", "a new okapi in the garden\n")
        with caplog.at_level(logging.WARNING, logger="commonplace.index"):
            await service.on_changes([Change("New.md", "created")])
        (entry,) = service.attention.entries()
        reason = f"the search index could not be updated: {why}; searches may miss recent changes"
        assert (entry.source, entry.code, entry.reason) == ("search index", "write_failed", reason)
        assert entry.action == action
        # doctor's line (and /api/state's entry), with when it is tried again by itself
        assert entry_check(entry).line().startswith(f"warn search index: {reason}; {action} (")
        [logged] = [r for r in caplog.records if r.name.startswith("commonplace.index")]
        assert logged.levelno == logging.WARNING and logged.exc_info is None  # no traceback
        assert f"{why}; {action} ({isettings.data_path})" in logged.getMessage()

        # Space again: the next change writes it, and the entry goes.
        filler.unlink()
        write(isettings.vault, "New.md", "a new okapi in the garden, again\n")
        await service.on_changes([Change("New.md", "modified")])
        assert service.attention.entries() == []
        found = await index.search("okapi", limit=1, mode="keyword")
        assert [r.path for r in found.results] == ["New.md"]
    finally:
        index.close()


# What the libraries raised on a full tmpfs (Tantivy, LanceDB, SQLite; LanceDB's words for a
# read-only disk are the same with error 30): each comes out as the system's error, and so in
# the shared words.
def _sqlite_full() -> sqlite3.OperationalError:
    exc = sqlite3.OperationalError("database or disk is full")
    exc.sqlite_errorcode = 13  # SQLITE_FULL, as sqlite3 sets it
    return exc


@pytest.mark.parametrize(
    ("raised", "code"),
    [
        (
            ValueError(
                "An IO error occurred: 'No space left on device (os error 28) at path "
                '"/data/index/keywords/.tmppQyXAq"\''
            ),
            errno.ENOSPC,
        ),
        (
            RuntimeError(
                "lance error: LanceError(IO): No space left on device (os error 28), "
                "/root/.cargo/registry/src/lance-file-13.0.0/src/writer/structural.rs:191:9"
            ),
            errno.ENOSPC,
        ),
        (RuntimeError("lance error: LanceError(IO): Read-only file system (os error 30)"), 30),
        (_sqlite_full(), errno.ENOSPC),
        (OSError(errno.EACCES, "Permission denied"), errno.EACCES),
    ],
)
def test_each_librarys_words_for_a_disk_error_are_the_systems_error(
    raised: Exception, code: int
) -> None:
    found = os_error_of(raised)
    assert found is not None and found.errno == code
    # ...also when the index raised its own error from it
    try:
        try:
            raise raised
        except Exception as inner:
            raise RuntimeError("the index could not be written") from inner
    except RuntimeError as outer:
        assert (os_error_of(outer) or OSError()).errno == code


def test_other_errors_are_no_disks_fault() -> None:
    assert os_error_of(KeyError("chunks")) is None
    assert os_error_of(ValueError("a schema field is missing")) is None


def test_the_data_folder_is_named_where_the_vault_was() -> None:
    denied = OSError(errno.EACCES, "Permission denied")
    assert write_trouble(denied).action == (
        "let the daemon's user write in the vault's folders (e.g. chmod u+w)"
    )
    assert write_trouble(denied, "data folder").action == (
        "let the daemon's user write in the data folder (e.g. chmod u+w)"
    )
    assert write_trouble(OSError(errno.ENOSPC, "full")).action == (
        "free some space on the vault's disk"
    )
