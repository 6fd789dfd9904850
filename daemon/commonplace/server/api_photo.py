"""POST /api/capture/photo: a photo (camera or library) with or without typed words.

A multipart form: `photo` (the file), and the capture's own fields `text`, `via`, `id` and
`captured` as /api/capture takes them, with the same checks (the words' size limit, `[tidy]
max_capture_kb`, among them). The photo is saved byte for byte into the vault's attachment
folder (attachments/save.py), then the capture is written with the photo embedded above the
typed words; tidying files it like any capture, and the model reads the photo's text
as data (attachments/pictures.py). An `id` already saved returns the same files again, so a
photo the page sends again after a lost connection is saved once.
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any

from aiohttp import BodyPartReader, web

from commonplace.attachments.save import NotAPicture, picture_kind, save_attachment
from commonplace.capture.inbox import CaptureError, write_capture
from commonplace.config import Settings
from commonplace.server.api_capture import (
    MAX_CAPTURE_CHARS,
    _captured_time,
    check_fields,
    not_saved,
)
from commonplace.server.context import SENT, SETTINGS
from commonplace.server.errors import ApiError, BodyPace

log = logging.getLogger(__name__)

FIELDS = ("text", "via", "id", "captured")
MAX_FIELD_BYTES = MAX_CAPTURE_CHARS * 4  # UTF-8: four bytes a character at most


def too_large(max_bytes: int) -> ApiError:
    mb = round(max_bytes / (1024 * 1024), 1)
    return ApiError(
        413,
        "too_large",
        f"the photo is over {mb:g} MB ([attachments] max_photo_mb); nothing was saved. Send a "
        "smaller one (most phones can share a photo at a smaller size)",
    )


async def read_form(request: web.Request, max_bytes: int) -> tuple[bytes, dict[str, str]]:
    """The photo's bytes and the text fields; 413 as soon as the photo passes `max_bytes`."""
    if request.content_type != "multipart/form-data":
        raise ApiError(415, "bad_type", "send the photo as multipart/form-data")
    declared = request.content_length
    if declared is not None and declared > max_bytes + MAX_FIELD_BYTES + 64 * 1024:
        raise too_large(max_bytes)
    reader = await request.multipart()
    pace = BodyPace()
    photo: bytes | None = None
    fields: dict[str, str] = {}
    while (part := await pace.step(reader.next())) is not None:
        if not isinstance(part, BodyPartReader):
            continue
        limit = max_bytes if part.name == "photo" else MAX_FIELD_BYTES
        chunks: list[bytes] = []
        size = 0
        while chunk := await pace.step(part.read_chunk(64 * 1024)):
            pace.received += len(chunk)
            size += len(chunk)
            if size > limit:
                if part.name == "photo":
                    raise too_large(max_bytes)
                raise ApiError(413, "too_large", f"'{part.name}' is too long")
            chunks.append(chunk)
        data = b"".join(chunks)
        if part.name == "photo":
            photo = data
        elif part.name in FIELDS:
            try:
                fields[part.name] = data.decode("utf-8")
            except UnicodeDecodeError:
                raise ApiError(400, "bad_field", f"'{part.name}' is not UTF-8 text") from None
    if not photo:
        raise ApiError(400, "no_photo", "the form has no photo in it")
    return photo, fields


async def capture_photo(request: web.Request) -> web.Response:
    settings = request.app[SETTINGS]
    max_bytes = int(settings.attachments.max_photo_mb * 1024 * 1024)
    photo, fields = await read_form(request, max_bytes)
    text = fields.get("text", "")
    via = fields.get("via") or "phone"
    capture_id = fields.get("id", "")
    # The checks a typed or shared capture passes, with the same refusals; before the photo is
    # saved, so words over [tidy] max_capture_kb leave no photo behind them.
    check_fields(settings, text, via, capture_id)
    try:
        ext = picture_kind(photo)
    except NotAPicture as exc:
        raise ApiError(415, "not_a_picture", str(exc)) from None
    if not capture_id:
        return await _save(request, settings, photo, ext, text, via, fields, "")
    async with request.app[SENT].one_at_a_time(capture_id):
        return await _save(request, settings, photo, ext, text, via, fields, capture_id)


async def _save(
    request: web.Request,
    settings: Settings,
    photo: bytes,
    ext: str,
    text: str,
    via: str,
    fields: dict[str, Any],
    capture_id: str,
) -> web.Response:
    sent = request.app[SENT]
    if capture_id and (earlier := await asyncio.to_thread(sent.get, capture_id)):
        return web.json_response({"path": earlier, "repeat": True})
    sent_time = fields.get("captured") or None
    when, not_used = _captured_time(sent_time, settings)
    try:
        saved = await asyncio.to_thread(save_attachment, settings, photo, ext, when)
    except OSError as exc:
        raise not_saved(exc) from None
    words = text.strip("\n")
    body = f"{saved.embed}\n\n{words}\n" if words.strip() else f"{saved.embed}\n"
    original = str(sent_time) if not_used and sent_time else ""
    try:
        path = await asyncio.to_thread(write_capture, settings, body, via, when, original=original)
    except CaptureError as exc:
        raise ApiError(400, "bad_capture", str(exc)) from None
    except OSError as exc:  # the photo is saved; the page sends both again (a second photo)
        raise not_saved(exc) from None
    log.info(
        "capture saved: %s with a photo %s (%d KB, via %s, %d characters)",
        path,
        saved.path,
        len(photo) // 1024,
        via,
        len(text),
    )
    if capture_id:
        await asyncio.to_thread(sent.add, capture_id, path)
    return web.json_response({"path": path, "photo": saved.path}, status=201)
