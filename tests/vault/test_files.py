"""The vault's read rule (vault/files.py): ordinary files only, never through a link, and no
read may block. Each entry here is one a user, a sync tool or an attacker could put in a vault.

A FIFO read without the rule blocks for ever, so those tests read on a thread with a deadline
and unblock it afterwards: they fail instead of hanging.
"""

from __future__ import annotations

import contextlib
import os
import socket
import stat
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from commonplace.vault import (
    FileRefused,
    NoteSkipped,
    entry_problem,
    file_hash,
    iter_note_paths,
    read_file,
    read_note,
)
from commonplace.vault.files import kind_problem

SECRET = "-----BEGIN OPENSSH PRIVATE KEY----- zanzibar"
NOTE = "# Shed\n\nThe roof needs felt.\n"


@pytest.fixture
def box(tmp_path: Path) -> tuple[Path, Path]:
    """(vault, a secret file outside it)."""
    vault = tmp_path / "vault"
    (vault / "Inbox").mkdir(parents=True)
    (vault / "Projects").mkdir()
    (vault / "Projects" / "Shed.md").write_text(NOTE)
    secret = tmp_path / "id_rsa"
    secret.write_text(SECRET)
    return vault, secret


def within(seconds: float, fn: Callable[[], Any], unblock: Callable[[], None]) -> Any:
    """fn() on a thread; fail (after unblocking it) if it has not returned in time."""
    result: dict[str, Any] = {}

    def run() -> None:
        try:
            result["value"] = fn()
        except BaseException as exc:  # handed back to the test below
            result["error"] = exc

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    thread.join(seconds)
    if thread.is_alive():
        unblock()
        thread.join(5)
        raise AssertionError(f"the read blocked for more than {seconds} s")
    if "error" in result:
        raise result["error"]
    return result.get("value")


def unblock_fifo(path: Path) -> Callable[[], None]:
    def unblock() -> None:
        with contextlib.suppress(OSError):
            os.close(os.open(path, os.O_WRONLY | os.O_NONBLOCK))

    return unblock


@pytest.fixture
def unix_socket(box: tuple[Path, Path]) -> Iterator[Path]:
    path = box[0] / "Inbox" / "s.md"
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        sock.bind(str(path))
    except OSError as exc:  # a very long tmp path on some systems
        pytest.skip(f"cannot bind a unix socket here: {exc}")
    try:
        yield path
    finally:
        sock.close()


def test_a_link_out_of_the_vault_is_not_read(box: tuple[Path, Path]) -> None:
    vault, secret = box
    (vault / "Inbox" / "x.md").symlink_to(secret)
    with pytest.raises(NoteSkipped) as skipped:
        read_note(vault, "Inbox/x.md")
    assert "symbolic link" in skipped.value.reason and not skipped.value.missing
    with pytest.raises(FileRefused):
        read_file(vault, "Inbox/x.md")
    with pytest.raises(FileRefused):
        file_hash(vault / "Inbox" / "x.md")
    assert (vault / "Inbox" / "x.md").is_symlink()  # left exactly where it was


def test_a_link_inside_the_vault_is_not_followed_either(box: tuple[Path, Path]) -> None:
    vault, _ = box
    (vault / "Inbox" / "again.md").symlink_to(vault / "Projects" / "Shed.md")
    with pytest.raises(NoteSkipped, match="symbolic link"):
        read_note(vault, "Inbox/again.md")
    assert read_note(vault, "Projects/Shed.md").text == NOTE  # the note itself is read


def test_a_linked_folder_on_the_way_is_not_followed(box: tuple[Path, Path]) -> None:
    vault, secret = box
    (vault / "Linked").symlink_to(secret.parent)
    (secret.parent / "outside.md").write_text(SECRET)
    with pytest.raises(NoteSkipped, match="Linked/, a symbolic link"):
        read_note(vault, "Linked/outside.md")
    assert entry_problem(vault, "Linked/outside.md") is not None
    assert list(iter_note_paths(vault, under="Linked")) == []


def test_a_fifo_never_blocks_a_read(box: tuple[Path, Path]) -> None:
    vault, _ = box
    fifo = vault / "Inbox" / "pipe.md"
    os.mkfifo(fifo)
    with pytest.raises(NoteSkipped, match="named pipe"):
        within(3, lambda: read_note(vault, "Inbox/pipe.md"), unblock_fifo(fifo))
    with pytest.raises(FileRefused, match="named pipe"):
        within(3, lambda: file_hash(fifo), unblock_fifo(fifo))
    # A link to a FIFO is refused as a link, before anything is opened.
    (vault / "Inbox" / "to-pipe.md").symlink_to(fifo)
    with pytest.raises(NoteSkipped, match="symbolic link"):
        within(3, lambda: read_note(vault, "Inbox/to-pipe.md"), unblock_fifo(fifo))


def test_a_socket_is_not_read(box: tuple[Path, Path], unix_socket: Path) -> None:
    vault, _ = box
    with pytest.raises(NoteSkipped, match="socket"):
        read_note(vault, "Inbox/s.md")


def test_a_link_to_a_device_is_refused_and_devices_are_named() -> None:
    assert kind_problem(Path("/dev/null").stat().st_mode) == "is a device, not a file"
    assert kind_problem(stat.S_IFBLK) == "is a device, not a file"
    assert kind_problem(stat.S_IFREG) is None


def test_a_link_to_a_device_in_the_vault(box: tuple[Path, Path]) -> None:
    vault, _ = box
    (vault / "Inbox" / "zero.md").symlink_to("/dev/zero")
    with pytest.raises(NoteSkipped, match="symbolic link"):
        read_note(vault, "Inbox/zero.md")


def test_the_walk_yields_only_files_and_reports_the_rest(
    box: tuple[Path, Path], unix_socket: Path
) -> None:
    vault, secret = box
    (vault / "Inbox" / "x.md").symlink_to(secret)
    os.mkfifo(vault / "Inbox" / "pipe.md")
    (vault / "Inbox" / "real.md").write_text("buy felt")
    (vault / "Elsewhere").symlink_to(secret.parent, target_is_directory=True)
    (vault / "Inbox" / "picture.png").symlink_to(secret)  # not a note's name: not reported
    (vault / "Inbox" / "loop.md").symlink_to("loop.md")  # a loop was left out silently
    refused: list[tuple[str, str]] = []
    found = sorted(iter_note_paths(vault, refused=lambda p, r: refused.append((p, r))))
    assert found == ["Inbox/real.md", "Projects/Shed.md"]
    reasons = dict(refused)
    assert set(reasons) == {
        "Elsewhere",
        "Inbox/loop.md",
        "Inbox/pipe.md",
        "Inbox/s.md",
        "Inbox/x.md",
    }
    assert "link that loops" in reasons["Inbox/loop.md"]
    assert "link to a folder" in reasons["Elsewhere"]
    assert "named pipe" in reasons["Inbox/pipe.md"]
    assert "socket" in reasons["Inbox/s.md"]
    assert "link to a file" in reasons["Inbox/x.md"]


def test_a_linked_inbox_is_not_walked(tmp_path: Path) -> None:
    vault = tmp_path / "vault"
    vault.mkdir()
    elsewhere = tmp_path / "dropbox-inbox"
    elsewhere.mkdir()
    (elsewhere / "2026-10-20 0805.md").write_text(SECRET)
    (vault / "Inbox").symlink_to(elsewhere, target_is_directory=True)
    refused: list[tuple[str, str]] = []
    assert list(iter_note_paths(vault, "Inbox", refused=lambda p, r: refused.append((p, r)))) == []
    assert refused and refused[0][0] == "Inbox" and "symbolic link" in refused[0][1]


def test_a_file_over_the_limit_is_refused_without_reading_it_all(box: tuple[Path, Path]) -> None:
    vault, _ = box
    (vault / "Inbox" / "big.md").write_bytes(b"x" * 5000)
    with pytest.raises(FileRefused, match="over the 2 KB limit"):
        read_file(vault, "Inbox/big.md", max_bytes=2048)
    data, st = read_file(vault, "Inbox/big.md", max_bytes=8192)
    assert len(data) == 5000 == st.st_size


@pytest.mark.parametrize("rel", ["../id_rsa", "/etc/passwd", "Inbox/../../id_rsa", ""])
def test_paths_that_leave_the_vault_are_refused(box: tuple[Path, Path], rel: str) -> None:
    with pytest.raises(FileRefused, match="not a path inside the vault"):
        read_file(box[0], rel)
