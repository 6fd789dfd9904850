"""POST /api/share: what another app shared (a link, a paragraph, a photo, a PDF) as ONE capture.

Two senders, one request (docs/how-to/share-from-phone.md):

- the phone page's Web Share Target: Android's share sheet posts the share to /share, where the
  page's service worker keeps it in the offline queue (IndexedDB) and the page sends it here,
  with the id the worker gave it (a resend is saved once) and the time it was shared;
- the iPhone's "Share to Commonplace" Shortcut: "Get contents of URL" with a Form body, through
  `tailscale serve` like the page, with `Origin: https://<name>.ts.net` set in its headers.

A third way in: the share target's POST to /share when no service worker takes it, which the
daemon saves itself (share_target.py) through `save_share`, as here. Whichever way a share
comes, the same content shared twice within minutes (a retry, one way or both) is one capture
(sent.py).

Both pass the four checks of every request (security.py); this path takes a form only
(multipart/form-data, or URL-encoded when no file comes). Fields: `title`, `text`, `url` (as
the sharing app gave them: Android puts a link in `text`), `files` (any number: images and
PDFs), and optionally `id`, `captured`, `via` ("share" or "shortcut") and `fetch_page` ("true":
also save the linked page's text).

The words are kept verbatim: the title, the text and the link, each as given, one paragraph
each (a piece repeated by the sharing app, and a link already in the text, once). Files are saved
byte for byte into the attachment folder and embedded above the words (capture/shared_files.py).
"""

from __future__ import annotations

import hashlib
from urllib.parse import parse_qsl

from aiohttp import BodyPartReader, web

from commonplace.capture.clipping import first_link, only_link
from commonplace.capture.shared_files import NotAShareableFile, SharedFile, file_kind
from commonplace.server.api_capture import (
    MAX_CAPTURE_CHARS,
    Wanted,
    check_fields,
    save_wanted,
)
from commonplace.server.context import SETTINGS
from commonplace.server.errors import ApiError, BodyPace, read_body

TEXT_FIELDS = ("title", "text", "url", "id", "captured", "via", "fetch_page")
MAX_FIELD_BYTES = MAX_CAPTURE_CHARS * 4  # UTF-8: four bytes a character at most
SHARE_VIA = ("share", "shortcut")
TRUE = ("1", "true", "on", "yes")
FORM_URLENCODED = "application/x-www-form-urlencoded"


def shared_words(title: str, text: str, url: str) -> str:
    """The title, the text and the link, each exactly as given, a blank line between; a piece
    the sharing app repeated (the title again as the text, the link again in the text) once."""
    kept: list[str] = []
    for piece in (title, text):
        if piece.strip() and all(piece.strip() != k.strip() for k in kept):
            kept.append(piece.strip("\r\n"))
    if url.strip() and not any(url.strip() in k for k in kept):
        kept.append(url.strip("\r\n"))
    return "\n\n".join(kept) + "\n" if kept else ""


def too_large(max_bytes: int) -> ApiError:
    mb = round(max_bytes / (1024 * 1024), 1)
    return ApiError(
        413,
        "too_large",
        f"the shared files are over {mb:g} MB together ([clip] max_share_mb); nothing was "
        "saved. Share fewer files, or smaller ones",
    )


async def read_share(
    request: web.Request, max_bytes: int
) -> tuple[dict[str, str], tuple[SharedFile, ...]]:
    """The text fields and the files; 413 as soon as the files pass `max_bytes` together. A
    form with no file may come URL-encoded (a Shortcut's Form body with text only)."""
    if request.content_type == FORM_URLENCODED:
        data = await read_body(request, len(TEXT_FIELDS) * MAX_FIELD_BYTES)
        try:
            pairs = parse_qsl(data.decode("utf-8"), keep_blank_values=True, errors="strict")
        except (UnicodeDecodeError, ValueError):
            raise ApiError(400, "bad_field", "the form is not UTF-8 text") from None
        return {k: v for k, v in pairs if k in TEXT_FIELDS}, ()
    if request.content_type != "multipart/form-data":
        raise ApiError(415, "bad_type", "send the share as multipart/form-data")
    declared = request.content_length
    if declared is not None and declared > max_bytes + len(TEXT_FIELDS) * MAX_FIELD_BYTES:
        raise too_large(max_bytes)
    reader = await request.multipart()
    pace = BodyPace()  # a share that stops coming gets 408
    fields: dict[str, str] = {}
    files: list[SharedFile] = []
    total = 0
    while (part := await pace.step(reader.next())) is not None:
        if not isinstance(part, BodyPartReader):
            continue
        is_file = part.filename is not None
        limit = max_bytes - total if is_file else MAX_FIELD_BYTES
        chunks: list[bytes] = []
        size = 0
        while chunk := await pace.step(part.read_chunk(64 * 1024)):
            pace.received += len(chunk)
            size += len(chunk)
            if size > limit:
                if is_file:
                    raise too_large(max_bytes)
                raise ApiError(413, "too_large", f"'{part.name}' is too long")
            chunks.append(chunk)
        data = b"".join(chunks)
        if is_file:
            total += size
            if data:  # a share sheet may send an empty file part when nothing was attached
                files.append(SharedFile(part.filename or "file", data))
        elif part.name in TEXT_FIELDS:
            try:
                fields[part.name] = data.decode("utf-8")
            except UnicodeDecodeError:
                raise ApiError(400, "bad_field", f"'{part.name}' is not UTF-8 text") from None
    return fields, tuple(files)


def share_digest(words: str, files: tuple[SharedFile, ...]) -> str:
    """What identifies one share whichever way it came: its words as they are kept and each
    file's bytes (not the files' names, which a sender may change)."""
    digest = hashlib.sha256(words.encode("utf-8"))
    for shared in files:
        digest.update(b"\0" + hashlib.sha256(shared.data).digest())
    return digest.hexdigest()[:32]


async def share(request: web.Request) -> web.Response:
    settings = request.app[SETTINGS]
    max_bytes = int(settings.clip.max_share_mb * 1024 * 1024)
    fields, files = await read_share(request, max_bytes)
    return await save_share(request, fields, files)


async def save_share(
    request: web.Request, fields: dict[str, str], files: tuple[SharedFile, ...]
) -> web.Response:
    """Check a share's fields and files and save them as one capture (or find it saved)."""
    settings = request.app[SETTINGS]
    words = shared_words(fields.get("title", ""), fields.get("text", ""), fields.get("url", ""))
    if not words.strip() and not files:
        raise ApiError(
            400, "empty_share", "the share has no words, link or file; nothing was saved"
        )
    via = fields.get("via") or "share"
    if via not in SHARE_VIA:
        raise ApiError(400, "bad_field", f"'via' must be one of {', '.join(SHARE_VIA)}")
    capture_id = fields.get("id", "")
    check_fields(settings, words, via, capture_id)
    for shared in files:
        try:
            file_kind(shared.data)
        except NotAShareableFile as exc:
            message = f"{shared.name[:80]}: {exc}; nothing was saved"
            raise ApiError(415, "not_shareable", message) from None
    asked = fields.get("fetch_page", "").strip().lower() in TRUE
    link = ""
    if asked:
        link = fields.get("url", "").strip() or first_link(words)
    elif settings.clip.fetch_pages and (found := only_link(words)):
        link = found[0]
    sent_time = fields.get("captured") or None
    digest = share_digest(words, files)
    wanted = Wanted(words, via, capture_id, sent_time, link, files, content=digest)
    return await save_wanted(request, settings, wanted)
