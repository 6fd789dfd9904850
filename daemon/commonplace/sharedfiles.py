"""Files shared into a capture (images, PDFs): saved byte for byte as attachments, embedded.

Each file is written exactly as it came, as a new file in the editor's attachment folder, never
over an existing one, and the capture embeds it above the owner's words by the link the editor
itself would write. The kind (and so the extension) comes from the bytes, never from the name
or type the sender gave.

This mirrors the design of `save_attachment` on the attachments branch (attach32:
attachments/save.py, same signature and result); the lead folds the two into one at merge.
"""

from __future__ import annotations

import json
import posixpath
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path, PurePosixPath

from commonplace.config import Settings
from commonplace.vault import FileChanged, atomic_write
from commonplace.vault.exclusions import read_settings
from commonplace.vault.layout import fit_name

MAX_SAME_MINUTE = 1000
OBSIDIAN_APP = ".obsidian/app.json"  # {"attachmentFolderPath": "Attachments"}
LOGSEQ_ASSETS = "assets"

# The first bytes of each kind a share may bring, and its file extension.
_MAGIC = (
    (b"\xff\xd8\xff", "jpg"),
    (b"\x89PNG\r\n\x1a\n", "png"),
    (b"GIF87a", "gif"),
    (b"GIF89a", "gif"),
    (b"%PDF-", "pdf"),
)
_HEIF_BRANDS = (b"heic", b"heix", b"mif1", b"msf1", b"heif")


class NotAShareableFile(ValueError):
    """The bytes are not an image or a PDF."""


@dataclass(frozen=True)
class SharedFile:
    name: str  # as the sender named it (for messages only; the saved name is ours)
    data: bytes


@dataclass(frozen=True)
class Saved:
    path: str  # vault-relative
    embed: str  # the line that shows it in a note of the capture's folder


def file_kind(data: bytes) -> str:
    """The extension for these bytes (jpg, png, webp, gif, heic, pdf), by their content."""
    for magic, ext in _MAGIC:
        if data.startswith(magic):
            return ext
    if data[:4] == b"RIFF" and data[8:12] == b"WEBP":
        return "webp"
    if data[4:8] == b"ftyp" and data[8:12] in _HEIF_BRANDS:
        return "heic"
    raise NotAShareableFile("only images (JPEG, PNG, WebP, GIF, HEIC) and PDFs can be shared")


def attachment_folder(vault: Path, flavor: str, near: str = "") -> str:
    """Where the editor puts a new attachment of a note in `near`: Logseq's `assets/`; in
    Obsidian its `attachmentFolderPath` ("/" or unset: the vault's root, "./" the note's own
    folder, "./sub" below it, anything else that folder)."""
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
    if any(p in ("..", ".") for p in PurePosixPath(folder).parts):
        return ""  # a folder outside the vault: the root instead
    return folder


def save_attachment(
    settings: Settings, data: bytes, ext: str, when: datetime, *, stem: str = "Shared"
) -> Saved:
    """Write `data` byte for byte as `<attachment folder>/<stem> YYYY-MM-DD HHMM[ n].<ext>`,
    never replacing a file; its path and the embed for a capture in the inbox."""
    inbox = settings.folder("inbox")
    folder = attachment_folder(settings.vault, settings.flavor, near=inbox)
    base = f"{stem} {when.strftime('%Y-%m-%d %H%M')}"
    for n in range(1, MAX_SAME_MINUTE + 1):
        name = fit_name(f"{base}.{ext}" if n == 1 else f"{base} {n}.{ext}")
        rel = f"{folder}/{name}" if folder else name
        try:
            atomic_write(settings.vault / rel, data, expect=None)
        except FileChanged:
            continue
        return Saved(rel, embed_line(settings, rel, inbox))
    raise FileExistsError(f"more than {MAX_SAME_MINUTE} files named {base} in {folder or '/'}")


def embed_line(settings: Settings, rel: str, note_folder: str) -> str:
    """Obsidian `![[path]]`; Logseq `![name](../assets/name)`, relative to the note."""
    name = posixpath.basename(rel)
    if settings.flavor == "logseq":
        target = posixpath.relpath(rel, note_folder or ".")
        return f"![{name}]({target.replace(' ', '%20')})"
    return f"![[{rel}]]"


def save_shared_files(
    settings: Settings, files: tuple[SharedFile, ...], when: datetime
) -> list[Saved]:
    """Save each file (its kind checked before any is written); their embeds, in order."""
    kinds = [file_kind(f.data) for f in files]
    return [
        save_attachment(
            settings, f.data, ext, when, stem="Shared PDF" if ext == "pdf" else "Shared"
        )
        for f, ext in zip(files, kinds, strict=True)
    ]


def embed_above(saved: list[Saved], words: str) -> str:
    """The embeds, one a line, above the owner's words (kept exactly)."""
    if not saved:
        return words
    embeds = "\n".join(s.embed for s in saved) + "\n"
    return f"{embeds}\n{words}" if words.strip() else embeds
