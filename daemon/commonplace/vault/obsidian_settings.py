"""Obsidian settings that make the owner's new notes in Commonplace's inbox.

Everything in the inbox is a capture: once it has been left alone for `[tidy] stable_s` it is
filed under a new name and removed from the inbox. Many people keep new notes in a folder named
Inbox (Settings > Files and links > Default location for new notes), and the Daily notes plugin
can make each day's note there: each such note would leave the folder a few seconds after its
owner stopped typing, and nothing said why. Nothing here changes what tidy does (a note put in
the inbox on purpose is a capture); `doctor`, the start-up log and /api/state say it, with what
to change.
"""

from __future__ import annotations

import json
from pathlib import Path

from commonplace.vault.exclusions import read_settings
from commonplace.vault.layout import in_folder

APP = ".obsidian/app.json"  # {"newFileLocation": "folder", "newFileFolderPath": "Inbox"}
DAILY_NOTES = ".obsidian/daily-notes.json"  # {"folder": "Inbox"}
_AFTER = (
    "and Commonplace files everything in {inbox}/ as a capture, removing it from there a few "
    "seconds after you stop typing; "
)


def inbox_clashes(vault: Path, inbox: str) -> list[str]:
    """A sentence for each Obsidian setting that makes new notes inside `inbox` (vault-relative),
    with where to change it; none when there is no Obsidian, or its settings cannot be read
    (exclusions.py reports an unreadable app.json)."""
    inbox = inbox.strip("/")
    found = []
    app = _json(vault, APP)
    if app.get("newFileLocation") == "folder" and _inside(app.get("newFileFolderPath"), inbox):
        found.append(
            f"Obsidian makes every new note in {_folder(app['newFileFolderPath'])}/ (Settings → "
            f"Files and links → Default location for new notes), "
            + _AFTER.format(inbox=inbox)
            + "choose another folder there, or set [folders] inbox in commonplace.toml to a "
            "folder of its own"
        )
    daily = _json(vault, DAILY_NOTES)
    if _inside(daily.get("folder"), inbox):
        found.append(
            f"Obsidian makes each daily note in {_folder(daily['folder'])}/ (Settings → Daily "
            "notes → New file location), "
            + _AFTER.format(inbox=inbox)
            + "choose another folder there, or set [folders] inbox in commonplace.toml to a "
            "folder of its own"
        )
    return found


def _json(vault: Path, rel: str) -> dict[str, object]:
    text, _ = read_settings(vault, rel)
    try:
        data = json.loads(text) if text is not None else {}
    except ValueError:
        return {}
    return data if isinstance(data, dict) else {}


def _folder(value: object) -> str:
    """Obsidian's folder setting as a vault-relative path ("/Inbox/", "./Inbox" -> "Inbox")."""
    text = value.strip() if isinstance(value, str) else ""
    return text.removeprefix("./").strip("/")


def _inside(value: object, inbox: str) -> bool:
    folder = _folder(value)
    return bool(folder and inbox) and in_folder(folder, inbox)
