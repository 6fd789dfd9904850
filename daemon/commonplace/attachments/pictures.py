"""The text of the pictures a capture embeds, for tidy: read by OCR, handed over as data.

A capture from the phone embeds its photo (`![[Attachments/Photo ....jpg]]`, or Logseq's
`![name](../assets/name)`). Tidy gives the model the typed words and, apart from them, the
text read from each picture, marked as such (the tidy prompt says it is data, never orders).
The text comes from the same cache and extraction child as the index's (reader.py), so a
photo is read once whoever asks first.
"""

from __future__ import annotations

import posixpath
import re
from dataclasses import dataclass
from urllib.parse import unquote

from commonplace.attachments.kinds import IMAGE_SUFFIXES, attachment_ignored, iter_attachment_paths
from commonplace.attachments.reader import AttachmentReader
from commonplace.vault import is_regular_file

MAX_PICTURES = 4  # pictures read for one capture
MAX_CHARS = 4000  # of each picture's text given to the model

_WIKI_EMBED = re.compile(r"!\[\[([^\]|#\n]+)(?:[#|][^\]\n]*)?\]\]")
_MD_EMBED = re.compile(r"!\[[^\]\n]*\]\(([^)\s]+)\)")


@dataclass(frozen=True)
class PictureText:
    name: str
    text: str


def embedded_targets(body: str, note_folder: str) -> list[str]:
    """What the body embeds that names a picture: wiki targets as written, Markdown targets
    made vault-relative from the note's folder."""
    found: list[str] = []
    for m in _WIKI_EMBED.finditer(body):
        found.append(m.group(1).strip())
    for m in _MD_EMBED.finditer(body):
        target = unquote(m.group(1))
        if "://" in target:
            continue
        found.append(posixpath.normpath(posixpath.join(note_folder, target)))
    return [t for t in dict.fromkeys(found) if t.lower().endswith(IMAGE_SUFFIXES)]


def resolve(reader: AttachmentReader, target: str) -> str | None:
    """The vault-relative path of an embed target: as written if it is a file there, else the
    first picture of that name (Obsidian links by name)."""
    vault = reader.settings.vault
    if (
        not target.startswith("../")
        and not attachment_ignored(target)
        and is_regular_file(vault / target)
    ):
        return target
    name = posixpath.basename(target)
    return next((p for p in iter_attachment_paths(vault) if posixpath.basename(p) == name), None)


def picture_texts(reader: AttachmentReader, body: str, note_path: str) -> list[PictureText]:
    """The text read from each picture the capture embeds (in a worker thread: OCR may take
    seconds). A picture that is missing, unreadable or without text gives nothing."""
    out: list[PictureText] = []
    folder = posixpath.dirname(note_path)
    for target in embedded_targets(body, folder)[:MAX_PICTURES]:
        path = resolve(reader, target)
        if path is None:
            continue
        extraction = reader.read_now(path)
        if extraction is None:
            continue
        text = "\n".join(p.text.strip() for p in extraction.pages if p.text.strip())
        if text:
            out.append(PictureText(posixpath.basename(path), text[:MAX_CHARS]))
    return out
