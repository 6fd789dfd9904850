"""POST /api/capture (save words to the inbox) and POST /api/transcribe (audio -> text).

A capture is saved word for word by `write_capture`; the watcher then sees the new file and
queues tidy, exactly as for a file dropped into Inbox/ by hand. The page sends an `id` with
every capture and may send it again after a lost connection, so an id already saved returns
the same file instead of a second copy (see sent.py). A capture kept on the phone while offline
carries the time it was written (`captured`), which is used if it is plausible (30 days); one
that is not is logged and kept in the capture as `captured_original`.

Transcription only returns text: the user edits it and sends it as a capture (`via: dictation`).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import re
import time
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from aiohttp import BodyPartReader, web

from commonplace.basics.net import non_public_reason
from commonplace.capture.clipping import (
    clipping_block,
    extract_text,
    first_link,
    only_link,
    with_clipping,
)
from commonplace.capture.inbox import CaptureError, not_saved_reason, write_capture
from commonplace.capture.inbox import capture_id as make_capture_id
from commonplace.capture.pagefetch import FetchRefused, fetch_page
from commonplace.capture.shared_files import SharedFile, embed_above, save_shared_files
from commonplace.config import Settings
from commonplace.server.context import SENT, SERVICES, SETTINGS, Services
from commonplace.server.errors import ApiError, BodyPace, read_body, read_json, text_field
from commonplace.server.limits import limited
from commonplace.server.sent import share_keys
from commonplace.speech import (
    AudioError,
    AudioTooLong,
    SpeechUnavailable,
    decode_audio,
    duration_s,
    name_hint,
)
from commonplace.vault import write_trouble

log = logging.getLogger(__name__)

MAX_CAPTURE_CHARS = 100_000
CAPTURE_HEAD_BYTES = 64  # the frontmatter write_capture puts above the words
VIA_CHOICES = ("phone", "dictation", "web", "plugin", "api", "mcp", "share", "shortcut")
MAX_BACKDATE = timedelta(days=30)
HINT_CACHE_S = 600.0
_ID = re.compile(r"^[A-Za-z0-9_-]{8,64}$")


async def capture(request: web.Request) -> web.Response:
    settings = request.app[SETTINGS]
    body = await read_json(request, settings.web.max_json_kb * 1024)
    text = text_field(body, "text")
    via = text_field(body, "via", required=False) or "phone"
    capture_id = text_field(body, "id", required=False)
    fetch_page = body.get("fetch_page", False)
    if not isinstance(fetch_page, bool):
        raise ApiError(400, "bad_field", "'fetch_page' must be true or false")
    check_fields(settings, text, via, capture_id)
    sent_time = body.get("captured")
    wanted = Wanted(text, via, capture_id, sent_time, page_link(settings, text, fetch_page))
    return await save_wanted(request, settings, wanted)


def check_fields(settings: Settings, text: str, via: str, capture_id: str) -> None:
    """The checks every capture's fields pass, however it came (typed, shared, a Shortcut)."""
    if via not in VIA_CHOICES:
        raise ApiError(400, "bad_field", f"'via' must be one of {', '.join(VIA_CHOICES)}")
    if capture_id and not _ID.match(capture_id):
        raise ApiError(400, "bad_field", "'id' must be 8-64 letters, digits, '-' or '_'")
    if len(text) > MAX_CAPTURE_CHARS:
        raise ApiError(413, "too_large", f"a capture is limited to {MAX_CAPTURE_CHARS} characters")
    limit_kb = settings.tidy.max_capture_kb
    if len(text.encode("utf-8")) + CAPTURE_HEAD_BYTES > limit_kb * 1024:  # tidy would refuse it
        raise ApiError(413, "too_large", f"a capture is limited to {limit_kb} KB")


def page_link(settings: Settings, words: str, asked: bool) -> str:
    """The link whose page is to be clipped: with the per-capture toggle, the first link in the
    words; with `[clip] fetch_pages`, a capture that is only a link; else none ("")."""
    if asked:
        return first_link(words)
    if settings.clip.fetch_pages and (link := only_link(words)):
        return link[0]
    return ""


@dataclass(frozen=True)
class Wanted:
    """A capture to save: the owner's words exactly, and what comes with them."""

    words: str
    via: str
    capture_id: str
    sent_time: Any  # the phone's 'captured' value, as sent
    link: str = ""  # a page to clip below the words ("" for none)
    files: tuple[SharedFile, ...] = ()  # saved as attachments, embedded above the words
    content: str = ""  # a share's digest: the same share arriving again is saved once (sent.py)


async def save_wanted(request: web.Request, settings: Settings, wanted: Wanted) -> web.Response:
    # Two sends at once of one id, or of one share's content: one file. In sorted order, so two
    # sends holding one key each never wait for each other.
    held = sorted({wanted.capture_id, f"share:{wanted.content}" if wanted.content else ""} - {""})
    async with contextlib.AsyncExitStack() as stack:
        for key in held:
            await stack.enter_async_context(request.app[SENT].one_at_a_time(key))
        return await _save(request, settings, wanted)


async def _save(request: web.Request, settings: Settings, wanted: Wanted) -> web.Response:
    """Write the capture, unless its id (or, for a share, its content shared at about the same
    time) was saved already: then that file's path."""
    sent = request.app[SENT]
    capture_id, via, sent_time = wanted.capture_id, wanted.via, wanted.sent_time
    when, not_used = _captured_time(sent_time, settings)
    seen, record = [capture_id] if capture_id else [], [capture_id] if capture_id else []
    if wanted.content:
        same, key = share_keys(wanted.content, when.timestamp())
        seen, record = [*seen, *same], [*record, key]
    for key in seen:
        if earlier := await asyncio.to_thread(sent.get, key):
            return web.json_response({"path": earlier, "repeat": True})
    original = (
        (sent_time if isinstance(sent_time, str) else json.dumps(sent_time)) if not_used else ""
    )
    text = wanted.words
    answer: dict[str, Any] = {}
    if wanted.link:
        block, answer["page"] = await page_clipping(request, settings, wanted.link)
        if block:
            text = with_clipping(text, block)
            limit = settings.tidy.max_capture_kb * 1024
            if len(text.encode("utf-8")) + CAPTURE_HEAD_BYTES > limit:
                text = wanted.words
                answer["page"] = {"saved": False, "reason": "the page's text is too long to keep"}
    if wanted.files:
        try:
            saved = await asyncio.to_thread(save_shared_files, settings, wanted.files, when)
        except OSError as exc:  # the page keeps the share and sends it again
            raise not_saved(exc) from None
        text = embed_above(saved, text)
        answer["files"] = [f.path for f in saved]
    try:
        path = await asyncio.to_thread(write_capture, settings, text, via, when, original=original)
    except CaptureError as exc:
        raise ApiError(400, "bad_capture", str(exc)) from None
    except OSError as exc:  # nothing was saved: a 5xx, so the page keeps it and sends it again
        raise not_saved(exc) from None
    log.info(
        "capture saved: %s (via %s, %d characters, %d file(s)%s)",
        path,
        via,
        len(wanted.words),
        len(wanted.files),
        ", with a page's text" if answer.get("page", {}).get("saved") else "",
    )
    if not_used:
        log.warning(
            "%s: the 'captured' time sent is %s; the capture has the time it arrived, and the "
            "value sent is kept in it as captured_original",
            path,
            not_used,
        )
    for key in record:
        await asyncio.to_thread(sent.add, key, path)
    local = when.astimezone(settings.tz)  # the minute write_capture named and stamped it by
    answer["capture"] = f"{make_capture_id(path, local)}@{local.strftime('%Y-%m-%d %H%M')}"
    return web.json_response({"path": path, **answer}, status=201)


async def page_clipping(
    request: web.Request, settings: Settings, link: str
) -> tuple[str, dict[str, Any]]:
    """(the clipping block, what the page is told about it). A page that cannot be fetched
    never stops the capture: its words are saved, and the answer says why the page was not."""
    services = request.app[SERVICES]
    try:
        page = await fetch_page(
            link,
            max_bytes=settings.clip.max_page_kb * 1024,
            timeout_s=settings.clip.timeout_s,
            resolver=services.page_resolver,
            reason=services.page_rule or non_public_reason,
        )
    except FetchRefused as exc:
        log.info("a shared link's page was not saved: %s", type(exc).__name__)  # no address
        return "", {"saved": False, "reason": str(exc)}
    if page.content_type == "text/plain":
        text = page.text
    else:
        text = await asyncio.to_thread(extract_text, page.text, page.url)
    if not text.strip():
        return "", {"saved": False, "reason": "no main text was found on the page"}
    today = datetime.now(settings.tz).date()
    return clipping_block(link, today, text), {"saved": True, "chars": len(text)}


def not_saved(exc: OSError) -> ApiError:
    """A capture that could not be written (a git operation holds the vault, the disk is full):
    503 with what to do. Nothing was written; the page keeps the words and sends them again by
    itself (with the same id, so they are saved once)."""
    code = write_trouble(exc).code
    message = (
        f"Not saved yet: {not_saved_reason(exc)}. Nothing was written: send it again in a "
        "moment (the phone page keeps the words and does this by itself)."
    )
    return ApiError(503, code, message, headers={"Retry-After": "10"})


def _captured_time(value: Any, settings: Settings) -> tuple[datetime, str]:
    """The phone's time for an offline capture, if given and plausible; otherwise now, with
    why the value sent was not used ("" when none was sent)."""
    now = datetime.now(settings.tz)
    if value is None or value == "":
        return now, ""
    if not isinstance(value, str):
        return now, "not a time"
    try:
        when = datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        return now, "not an ISO time"
    if when.tzinfo is None:  # the phone always sends a zone; without one the time is ambiguous
        return now, "a time without a zone"
    try:
        when = when.astimezone(settings.tz)
    except OverflowError:  # year 1 or 9999 with an offset: a 500, and the page resent it for ever
        return now, "not a time on the calendar"
    if when < now - MAX_BACKDATE:
        return now, f"more than {MAX_BACKDATE.days} days old"
    if when > now + timedelta(minutes=5):
        return now, "in the future"
    return when, ""


@limited("transcriptions")
async def transcribe(request: web.Request) -> web.StreamResponse:
    settings, services = request.app[SETTINGS], request.app[SERVICES]
    speech = settings.speech
    if services.transcriber is None:
        raise ApiError(503, "speech_unavailable", "dictation is not running in this daemon")
    data = await _audio_bytes(request, int(speech.max_upload_mb * 1024 * 1024))
    try:
        audio = await asyncio.to_thread(decode_audio, data, max_seconds=speech.max_seconds)
    except AudioTooLong as exc:
        raise ApiError(413, "too_long", str(exc)) from None
    except AudioError as exc:
        raise ApiError(422, "bad_audio", str(exc)) from None
    prompt = await _hint(services, settings)
    started = time.monotonic()
    try:
        text = await asyncio.to_thread(services.transcriber, audio, prompt)
    except SpeechUnavailable as exc:
        raise ApiError(503, "speech_unavailable", str(exc)) from None
    seconds = duration_s(audio)
    log.info("transcribed %.1f s of audio in %.1f s", seconds, time.monotonic() - started)
    return web.json_response({"text": text.strip(), "seconds": round(seconds, 2)})


async def _audio_bytes(request: web.Request, max_bytes: int) -> bytes:
    """A raw audio body (what the page sends), or the first file in a multipart form."""
    if request.content_type != "multipart/form-data":
        return await read_body(request, max_bytes)
    declared = request.content_length
    if declared is not None and declared > max_bytes:
        raise ApiError(413, "too_large", f"the recording is over {max_bytes // (1024 * 1024)} MB")
    reader = await request.multipart()
    pace = BodyPace()  # a recording that stops coming gets 408, as a raw body does
    while (part := await pace.step(reader.next())) is not None:
        if isinstance(part, BodyPartReader) and part.filename is not None:
            chunks: list[bytes] = []
            size = 0
            while chunk := await pace.step(part.read_chunk(64 * 1024)):
                pace.received += len(chunk)
                size += len(chunk)
                if size > max_bytes:
                    raise ApiError(
                        413, "too_large", f"the recording is over {max_bytes // (1024 * 1024)} MB"
                    )
                chunks.append(chunk)
            return b"".join(chunks)
    raise ApiError(400, "no_audio", "the form has no audio file in it")


async def _hint(services: Services, settings: Settings) -> str:
    cached = services.hint_cache
    if cached is not None and time.monotonic() - cached[0] < HINT_CACHE_S:
        return cached[1]
    hint = await asyncio.to_thread(
        name_hint, settings.vault, flavor=settings.flavor, limit=settings.speech.hint_names
    )
    services.hint_cache = (time.monotonic(), hint)
    return hint
