"""Files shared into a capture (images, PDFs): saved byte for byte as attachments, embedded.

Each file is written exactly as it came, as a new file in the editor's attachment folder, never
over an existing one, and the capture embeds it above the owner's words by the link the editor
itself would write. The kind (and so the extension) comes from the bytes, never from the name
or type the sender gave.

The saving itself is the attachments' `save_attachment` (attachments/save.py), as for a photo
taken on the capture page: one way of putting a capture's file into the vault.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from commonplace.attachments.save import Saved, content_kind, save_attachment
from commonplace.config import Settings


class NotAShareableFile(ValueError):
    """The bytes are not an image or a PDF."""


@dataclass(frozen=True)
class SharedFile:
    name: str  # as the sender named it (for messages only; the saved name is ours)
    data: bytes


def file_kind(data: bytes) -> str:
    """The extension for these bytes (jpg, png, webp, gif, heic, pdf), by their content."""
    kind = content_kind(data)
    if kind is not None:
        return kind
    raise NotAShareableFile("only images (JPEG, PNG, WebP, GIF, HEIC) and PDFs can be shared")


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
