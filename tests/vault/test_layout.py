"""Which files are notes: one rule for the scan and the watcher."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from commonplace.vault import in_folder, is_ignored, iter_note_paths
from commonplace.vault.layout import remove_stale_temp_files


@pytest.mark.parametrize(
    "path",
    [
        ".obsidian/workspace.md",
        ".trash/old.md",
        ".git/x.md",
        "logseq/bak/pages/a.md",
        "logseq/.recycle/a.md",
        "Notes/.hidden.md",
        "Notes/.n.md.ab12cd34.cptmp",
        "Notes/draft.md~",
        "Notes/.#lock.md",
        "Notes/a.sync-conflict-20261019-101010-ABC.md",
        "Notes/a (conflicted copy 2026-10-19).md",
        "Notes/photo.png",
        "Notes/data.json",
        "node_modules/x/readme.md",
    ],
)
def test_ignored(path: str) -> None:
    assert is_ignored(path)


@pytest.mark.parametrize(
    "path", ["Home.md", "People/Zoë Martín.md", "Inbox/2026-10-19 0812.md", "a/b/c/d.markdown"]
)
def test_notes(path: str) -> None:
    assert not is_ignored(path)


def test_iter_note_paths(tmp_path: Path) -> None:
    for rel in ["A.md", "Sub/B.md", ".obsidian/C.md", "Sub/img.png", "Sub/.D.md.x.cptmp"]:
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text("x")
    assert sorted(iter_note_paths(tmp_path)) == ["A.md", "Sub/B.md"]


def test_in_folder() -> None:
    assert in_folder("Inbox/a.md", "Inbox")
    assert in_folder("Inbox/sub/a.md", "Inbox/")
    assert not in_folder("Inboxes/a.md", "Inbox")
    assert in_folder("anything.md", "")


def test_iter_note_paths_under_a_folder(tmp_path: Path) -> None:
    for rel in ["A.md", "Inbox/x.md", "Inbox/sub/y.md", "Inbox/.obsidian/z.md", "Other/w.md"]:
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text("x")
    assert sorted(iter_note_paths(tmp_path, under="Inbox/")) == ["Inbox/sub/y.md", "Inbox/x.md"]
    assert list(iter_note_paths(tmp_path, under="Missing")) == []


def test_only_our_own_old_temp_files_are_removed(tmp_path: Path) -> None:
    old = time.time() - 3600
    ours = tmp_path / "Filed" / ".2026-10-19 0800 Lunch.md.0badc0de.cptmp"
    young = tmp_path / "Ask" / ".Questions.md.deadbeef.cptmp"
    others = [
        tmp_path / "Filed" / "2026-10-19 0800 Lunch.md",  # a note
        tmp_path / "Filed" / ".notes.md.cptmp",  # not our pattern
        tmp_path / ".obsidian" / ".x.md.0badc0de.cptmp",  # a folder we never write into
    ]
    for path in [ours, young, *others]:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("x")
    for path in [ours, *others]:
        os.utime(path, (old, old))
    assert remove_stale_temp_files(tmp_path) == ["Filed/.2026-10-19 0800 Lunch.md.0badc0de.cptmp"]
    assert not ours.exists() and young.exists() and all(p.exists() for p in others)
