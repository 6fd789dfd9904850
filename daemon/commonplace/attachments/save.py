"""Saving a file that came with a capture (a photo from the phone) into the vault.

The bytes are written exactly as they came, as a new file in the editor's attachment folder
(kinds.attachment_folder), never over an existing one, and the capture embeds it by the link
the editor itself would write. Kept apart from the capture's words so that anything that brings
a file with a capture (the phone page's photo, a share from another app) saves it the same way.
"""

from __future__ import annotations

import posixpath
from dataclasses import dataclass
from datetime import datetime

from commonplace.attachments.kinds import attachment_folder
from commonplace.config import Settings
from commonplace.vault import FileChanged, atomic_write
from commonplace.vault.layout import fit_name

MAX_SAME_MINUTE = 1000

# The first bytes of each kind a photo or a share may bring, and its file extension.
_MAGIC = (
    (b"\xff\xd8\xff", "jpg"),
    (b"\x89PNG\r\n\x1a\n", "png"),
    (b"GIF87a", "gif"),
    (b"GIF89a", "gif"),
    (b"%PDF-", "pdf"),
)
_HEIF_BRANDS = (b"heic", b"heix", b"mif1", b"msf1", b"heif")
PICTURES = ("jpg", "png", "webp")  # what the phone page's camera saves


class NotAPicture(ValueError):
    """The bytes are not a JPEG, PNG or WebP picture."""


@dataclass(frozen=True)
class Saved:
    path: str  # vault-relative
    embed: str  # the line that shows it in a note of the capture's folder


def content_kind(data: bytes) -> str | None:
    """The extension for these bytes (jpg, png, webp, gif, heic, pdf) by their content, never
    their name; None for anything else. The one sniffer of both the photo and the share."""
    for magic, ext in _MAGIC:
        if data.startswith(magic):
            return ext
    if data[:4] == b"RIFF" and data[8:12] == b"WEBP":
        return "webp"
    if data[4:8] == b"ftyp" and data[8:12] in _HEIF_BRANDS:
        return "heic"
    return None


def picture_kind(data: bytes) -> str:
    """The extension for these bytes (jpg, png, webp), by their content, never their name."""
    kind = content_kind(data)
    if kind in PICTURES:
        return kind
    raise NotAPicture("a photo must be a JPEG, PNG or WebP picture; nothing was saved")


def save_attachment(
    settings: Settings, data: bytes, ext: str, when: datetime, *, stem: str = "Photo"
) -> Saved:
    """Write `data` byte for byte as `<attachment folder>/<stem> YYYY-MM-DD HHMM[ n].<ext>`,
    never replacing a file; returns its path and the embed for a capture in the inbox."""
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
    """How the editor embeds the file in a note of `note_folder`: Obsidian `![[name]]` (its
    links find a file by name wherever it is), Logseq `![name](../assets/name)` relative to
    the note."""
    name = posixpath.basename(rel)
    if settings.flavor == "logseq":
        target = posixpath.relpath(rel, note_folder or ".")
        return f"![{name}]({target.replace(' ', '%20')})"
    return f"![[{rel}]]"
