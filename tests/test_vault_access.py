"""A vault the daemon may not read (macOS keeps a launchd agent out of ~/Documents until the
program is allowed) is an attention item naming the permission and the program, cleared once
it is granted. The refusal is the system's own error from os.scandir, as macOS raises it."""

from __future__ import annotations

import errno
import os
import sys
from pathlib import Path
from typing import Any

import pytest

from commonplace.daemon import vault_access
from commonplace.daemon.vault_access import CODE, SOURCE, check_access
from commonplace.runtime.attention import Attention


def refused(monkeypatch: pytest.MonkeyPatch, vault: Path) -> None:
    real = os.scandir

    def scandir(path: Any = ".") -> Any:
        if Path(path) == vault:
            raise PermissionError(errno.EPERM, "Operation not permitted", str(path))
        return real(path)

    monkeypatch.setattr(vault_access.os, "scandir", scandir)


def test_a_refused_vault_names_the_permission_and_the_program(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    vault = tmp_path / "Documents" / "Notes"
    vault.mkdir(parents=True)
    attention = Attention()
    assert check_access(vault, attention, "darwin")
    assert attention.get(SOURCE) is None
    refused(monkeypatch, vault)
    assert not check_access(vault, attention, "darwin")
    entry = attention.get(SOURCE)
    assert entry is not None and entry.code == CODE
    assert "Operation not permitted" in entry.reason
    assert "Files and Folders" in entry.action and "Full Disk Access" in entry.action
    assert str(Path(sys.executable).resolve()) in entry.action
    monkeypatch.undo()  # granted in System Settings
    assert check_access(vault, attention, "darwin")
    assert attention.get(SOURCE) is None


def test_on_linux_it_says_which_user_needs_the_folders(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    refused(monkeypatch, tmp_path)
    attention = Attention()
    assert not check_access(tmp_path, attention, "linux")
    entry = attention.get(SOURCE)
    assert entry is not None and "chmod" in entry.action
