"""Capture files: writing a new one into the inbox, and reading one back.

A capture is the user's words plus two facts, when (`captured:`, the ISO minute in the user's
zone) and how (`via:`). Writing never overwrites: two captures in the same minute become
`... HHMM 2.md`, `... HHMM 3.md`. Reading keeps the words exactly as they are on disk (the body
after the frontmatter, byte for byte), because those words are copied into the filed note.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import date, datetime
from pathlib import Path, PurePosixPath
from typing import Any
from zoneinfo import ZoneInfo

from commonplace.config import Settings
from commonplace.vault import (
    FileChanged,
    FileRefused,
    atomic_write,
    content_hash,
    markdown,
    read_file,
    write_trouble,
)

_NAME_TIME = re.compile(r"^(\d{4}-\d{2}-\d{2})[ T_](\d{2})[:.]?(\d{2})")
_VIA = re.compile(r"^[\w.-]{1,32}$")
_MAX_SAME_MINUTE = 1000
MAX_ORIGINAL = 100  # characters of an unused `captured` value kept as `captured_original`


class CaptureError(ValueError):
    """A capture cannot be written; the message says why."""


class CaptureNotText(ValueError):
    """A capture holding a NUL character: it decodes, but nothing reads such a file as text (the
    index skips a note with one: filed, it would never be found), so it stays in the inbox."""

    def __init__(self, path: str) -> None:
        super().__init__(f"{path} holds a NUL character; it stays in the inbox")
        self.path = path


class CaptureTooLarge(Exception):
    """A capture file over the size limit: it is not read, and stays in the inbox untouched."""

    def __init__(self, path: str, size: int, limit: int) -> None:
        super().__init__(
            f"{path} is {size // 1024} KB, over the {limit // 1024} KB limit for a capture "
            "([tidy] max_capture_kb); it stays in the inbox"
        )
        self.path = path
        self.size = size
        self.limit = limit


@dataclass(frozen=True)
class Capture:
    """One capture as read from the inbox."""

    path: str  # vault-relative, '/'-separated
    text: str  # the whole file, exactly
    body: str  # the user's words: everything after the frontmatter, exactly
    captured: datetime  # aware, in the user's zone, to the minute
    via: str
    content_hash: str  # of the file's bytes, for "unchanged since read"
    meta: dict[str, Any] = field(default_factory=dict, compare=False)  # its own frontmatter
    # Its own `captured` value when that is no time ("yesterday"): `captured` then comes from the
    # file name or modified time, and the filed note keeps this as `captured_original`.
    captured_unread: str = ""

    @property
    def capture_id(self) -> str:
        return capture_id(self.path, self.captured)

    @property
    def day(self) -> date:
        return self.captured.date()


def capture_id(path: str, captured: datetime) -> str:
    """The identifier a filed note carries so a restart can tell its capture was filed."""
    key = f"{path}\n{captured.strftime('%Y-%m-%dT%H:%M')}"
    return hashlib.sha256(key.encode("utf-8")).hexdigest()[:16]


def capture_stamp(when: datetime) -> str:
    """The `captured:` value: ISO date and minute, no seconds, no zone (it is the user's)."""
    return when.strftime("%Y-%m-%dT%H:%M")


def write_capture(
    settings: Settings, text: str, via: str, now: datetime, *, original: str = ""
) -> str:
    """Save `text` word for word as a new capture; return its vault-relative path.

    `now` may be naive (taken as the user's zone) or aware (converted to it). The file is written
    atomically and never replaces an existing one. `original` is a capture time that was sent
    but not used (too old, no time at all): kept as `captured_original`, so it is not lost.
    """
    if not text.strip():
        raise CaptureError("the capture is empty; nothing was saved")
    if "\x00" in text:  # a file with one is taken for binary: filed, then never searched
        raise CaptureError(
            "the capture holds a NUL character (\\u0000), which is not text; nothing was "
            "saved: remove it and send it again"
        )
    if not _VIA.match(via):
        raise CaptureError(f"via = {via!r} must be one short word such as 'phone'")
    tz = settings.tz
    local = now.replace(tzinfo=tz) if now.tzinfo is None else now.astimezone(tz)
    kept = f"captured_original: {json.dumps(original[:MAX_ORIGINAL])}\n" if original else ""
    head = f"---\ncaptured: {capture_stamp(local)}\n{kept}via: {via}\n---\n"
    limit_kb = settings.tidy.max_capture_kb
    if len((head + text).encode("utf-8")) > limit_kb * 1024:  # tidy would leave it unread
        raise CaptureError(f"the capture is over {limit_kb} KB ([tidy] max_capture_kb); not saved")
    folder = settings.folder("inbox")
    base = local.strftime("%Y-%m-%d %H%M")
    for n in range(1, _MAX_SAME_MINUTE + 1):
        name = base if n == 1 else f"{base} {n}"
        rel = f"{folder}/{name}.md"
        try:
            atomic_write(settings.vault / rel, head + text, expect=None)
        except FileChanged:
            continue
        return rel
    raise CaptureError(f"more than {_MAX_SAME_MINUTE} captures in the minute {base}")


def not_saved_reason(exc: OSError) -> str:
    """Why `write_capture` could not write (nothing was written), with what to do."""
    trouble = write_trouble(exc)
    return f"{trouble.why} ({trouble.action})"


def split_capture(text: str) -> tuple[dict[str, Any], str]:
    """(frontmatter, body). The body is the exact text after a valid frontmatter block; a
    broken block is kept as part of the words, so nothing the user wrote is dropped."""
    start = 1 if text.startswith("\ufeff") else 0
    source, body, _ = markdown.split_frontmatter(text[start:])
    if source is None:
        return _logseq_properties(text[start:])
    try:
        return markdown.parse_frontmatter(source), body
    except markdown.FrontmatterError:
        return {}, text[start:]  # the BOM is not a word: it must not land mid-note when filed


def _logseq_properties(text: str) -> tuple[dict[str, Any], str]:
    """A Logseq capture may open with `captured:: ...` lines instead of YAML."""
    lines = text.splitlines(keepends=True)
    meta: dict[str, Any] = {}
    n = 0
    for line in lines:
        match = re.match(r"^([A-Za-z][\w-]*):: ?(.*?)\s*$", line)
        if not match:
            break
        meta[match.group(1).lower()] = match.group(2)
        n += 1
    if "captured" not in meta:
        return {}, text
    if n < len(lines) and not lines[n].strip():
        n += 1
    return meta, "".join(lines[n:])


def parse_capture(path: str, data: bytes, tz: ZoneInfo, mtime: float | None = None) -> Capture:
    """Read a capture's bytes. When `captured:` is missing or unreadable the time comes from the
    file name (`YYYY-MM-DD HHMM`), then from the file's modified time. Bytes that are not UTF-8
    raise UnicodeDecodeError; a NUL character, CaptureNotText."""
    text = data.decode("utf-8")
    if "\x00" in text:
        raise CaptureNotText(path)
    meta, body = split_capture(text)
    given = meta.get("captured")
    unread = "" if given in (None, "") or _as_datetime(given, tz) else str(given)
    when = captured_time(meta, path, tz)
    if when is None:
        when = datetime.fromtimestamp(mtime or 0.0, tz)
    via = str(meta.get("via") or "").strip() or "file"
    return Capture(
        path=path,
        text=text,
        body=body,
        captured=when.replace(second=0, microsecond=0),
        via=via if _VIA.match(via) else "file",
        content_hash=content_hash(data),
        meta=meta,
        captured_unread=unread,
    )


def read_capture(vault: Path, path: str, tz: ZoneInfo, max_bytes: int | None = None) -> Capture:
    """Read a capture from disk by the vault's rule (an ordinary file, never through a link,
    never blocking: vault/files.py). FileRefused, FileNotFoundError, UnicodeDecodeError and
    CaptureNotText pass through.

    With `max_bytes`, never more than that is read (a file that grows past it while being read
    too): a larger file raises CaptureTooLarge, so memory stays bounded whatever lands in the
    inbox."""
    try:
        data, stat = read_file(vault, path, max_bytes)
    except FileRefused as exc:
        if exc.size is not None and max_bytes is not None:
            raise CaptureTooLarge(path, exc.size, max_bytes) from None
        raise
    return parse_capture(path, data, tz, stat.st_mtime)


def captured_time(meta: Mapping[str, Any], path: str, tz: ZoneInfo) -> datetime | None:
    """When a capture was written, on the user's clock: its `captured` field, else the
    'YYYY-MM-DD HHMM' its file name starts with; None when neither says."""
    return _as_datetime(meta.get("captured"), tz) or _time_from_name(path, tz)


def capture_order_key(path: str, tz: ZoneInfo, mtime: float) -> tuple[datetime, str]:
    """Sort key for processing captures in the order they were captured, without reading them."""
    when = _time_from_name(path, tz) or datetime.fromtimestamp(mtime, tz)
    return when, path


def _as_datetime(value: Any, tz: ZoneInfo) -> datetime | None:
    """`captured` as a time in the owner's zone; None when it is none, or one at the very edge
    of the calendar (`9999-12-31T23:59-12:00` is in the year 10000 in London, which Python
    cannot hold: the OverflowError failed the capture's every tidy, a traceback each time)."""
    if isinstance(value, datetime):
        if value.tzinfo is None:
            return value.replace(tzinfo=tz)
        try:
            return value.astimezone(tz)
        except OverflowError:
            return None
    if isinstance(value, date):
        return datetime(value.year, value.month, value.day, tzinfo=tz)
    if isinstance(value, str):
        try:
            parsed = datetime.fromisoformat(value.strip())
        except ValueError:
            return None
        return _as_datetime(parsed, tz)
    return None


def _time_from_name(path: str, tz: ZoneInfo) -> datetime | None:
    match = _NAME_TIME.match(PurePosixPath(path).name)
    if not match:
        return None
    try:
        return datetime.fromisoformat(
            f"{match.group(1)}T{match.group(2)}:{match.group(3)}"
        ).replace(tzinfo=tz)
    except ValueError:
        return None
