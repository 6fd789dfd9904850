"""Obsidian settings that put the owner's new notes in Commonplace's inbox.

Everything in Inbox/ is a capture, filed into Filed/ under a new name once it has been quiet for
two seconds. An Obsidian whose new notes (or daily notes) are made in Inbox/, a common inbox
habit, had each new note leave the folder while its owner was still writing it, and nothing
said why.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from commonplace.vault.obsidian_settings import inbox_clashes


def settings_file(vault: Path, name: str, data: object) -> None:
    (vault / ".obsidian").mkdir(exist_ok=True)
    (vault / ".obsidian" / name).write_text(json.dumps(data), encoding="utf-8")


@pytest.mark.parametrize("folder", ["Inbox", "/Inbox/", "Inbox/Quick", "./Inbox"])
def test_new_notes_made_in_the_inbox_are_named(tmp_path: Path, folder: str) -> None:
    settings_file(tmp_path, "app.json", {"newFileLocation": "folder", "newFileFolderPath": folder})
    (line,) = inbox_clashes(tmp_path, "Inbox")
    assert line.startswith("Obsidian makes every new note in Inbox")
    assert "Default location for new notes" in line and "[folders] inbox" in line


def test_daily_notes_made_in_the_inbox_are_named(tmp_path: Path) -> None:
    settings_file(tmp_path, "daily-notes.json", {"folder": "Inbox", "format": "YYYY-MM-DD"})
    (line,) = inbox_clashes(tmp_path, "Inbox")
    assert line.startswith("Obsidian makes each daily note in Inbox")
    assert "Daily notes" in line


@pytest.mark.parametrize(
    "app",
    [
        {"newFileLocation": "folder", "newFileFolderPath": "Notes"},
        {"newFileLocation": "folder", "newFileFolderPath": "Inboxes"},
        {"newFileLocation": "folder", "newFileFolderPath": "/"},
        {"newFileLocation": "current", "newFileFolderPath": "Inbox"},  # the folder is unused
        {"newFileLocation": "root"},
        {},
        ["not", "settings"],
    ],
)
def test_other_places_say_nothing(tmp_path: Path, app: object) -> None:
    settings_file(tmp_path, "app.json", app)
    settings_file(tmp_path, "daily-notes.json", {"folder": "Journal"})
    assert inbox_clashes(tmp_path, "Inbox") == []


def test_no_obsidian_or_unreadable_settings_say_nothing(tmp_path: Path) -> None:
    assert inbox_clashes(tmp_path, "Inbox") == []
    (tmp_path / ".obsidian").mkdir()
    (tmp_path / ".obsidian/app.json").write_text("{not json", encoding="utf-8")
    (tmp_path / ".obsidian/daily-notes.json").write_bytes(b"\xff\xfe")
    assert inbox_clashes(tmp_path, "Inbox") == []
