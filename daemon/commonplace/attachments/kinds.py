"""Which files are attachments, and where the owner's editor puts new ones.

Every PDF and image in the vault is an attachment (what Obsidian and Logseq show as one, wherever
it sits), found by the same walk and rules as notes (vault/layout.py): app folders, hidden files,
editor leftovers and sync-conflict copies are never read, no link is followed, and the owner's
exclusions apply (vault/exclusions.py). The editor's attachment folder (Obsidian's
`attachmentFolderPath`, Logseq's `assets/`) matters only for where a new one is saved.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path, PurePosixPath

from commonplace.vault.exclusions import read_settings
from commonplace.vault.layout import _walk, is_ignored

PDF_SUFFIXES = (".pdf",)
IMAGE_SUFFIXES = (".png", ".jpg", ".jpeg", ".webp")
SUFFIXES = PDF_SUFFIXES + IMAGE_SUFFIXES
OBSIDIAN_APP = ".obsidian/app.json"  # {"attachmentFolderPath": "Attachments"}
LOGSEQ_ASSETS = "assets"


def is_attachment(rel_path: str) -> bool:
    """A PDF or image by its name (says nothing of whether it is read: see `is_ignored`)."""
    return rel_path.lower().endswith(SUFFIXES)


def is_pdf(rel_path: str) -> bool:
    return rel_path.lower().endswith(PDF_SUFFIXES)


def attachment_ignored(rel_path: str) -> bool:
    """True for a PDF or image never read: the note rule of vault/layout.py (app folders,
    hidden and temp files, conflict copies) applied to its name as if it were a note."""
    if not is_attachment(rel_path):
        return True
    stem = rel_path[: rel_path.rfind(".")]
    return is_ignored(stem + ".md")


def iter_attachment_paths(vault: Path, under: str = "") -> Iterator[str]:
    """Vault-relative paths of every attachment, walked as notes are (no link followed)."""
    for rel, entry in _walk(vault, under.strip("/")):
        try:
            if entry.is_file(follow_symlinks=False) and not attachment_ignored(rel):
                yield rel
        except OSError:
            continue


def page_label(path: str, page: int | None) -> str:
    """`Manual.pdf, page 4` (an image, or a page unknown: just its name)."""
    name = PurePosixPath(path).name
    return f"{name}, page {page}" if page else name


def attachment_folder(vault: Path, flavor: str, near: str = "") -> str:
    """The vault-relative folder where the editor would put a new attachment of a note in the
    folder `near`: Logseq's `assets/`; in Obsidian, Settings > Files and links > Default location
    for new attachments (`attachmentFolderPath`: "/" the vault's root, "./" the note's own folder,
    "./sub" a folder below it, anything else that folder); unset, the vault's root, as Obsidian
    does."""
    if flavor == "logseq":
        return LOGSEQ_ASSETS
    text, _ = read_settings(vault, OBSIDIAN_APP)
    try:
        data = json.loads(text) if text is not None else {}
    except ValueError:
        data = {}
    raw = data.get("attachmentFolderPath") if isinstance(data, dict) else None
    setting = raw.strip() if isinstance(raw, str) else ""
    if setting in ("", "/"):
        return ""
    if setting == "." or setting.startswith("./"):
        below = setting[1:].strip("/")
        return "/".join(p for p in (near.strip("/"), below) if p)
    folder = setting.strip("/")
    parts = PurePosixPath(folder).parts
    if any(p in ("..", ".") for p in parts):
        return ""  # a folder outside the vault: the root instead
    return folder
