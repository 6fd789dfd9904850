"""A note as the daemon sees it: parsed once from its bytes, never written back.

`parse_note` is pure (text in, Note out); `read_note` is the I/O edge that adds the file's size,
modified time and content hash, and turns unreadable files into a `NoteSkipped` with a reason
instead of an exception that could stop the watcher.
"""

from __future__ import annotations

import dataclasses
import hashlib
import logging
import threading
from collections import OrderedDict
from dataclasses import dataclass, field
from datetime import date
from pathlib import Path, PurePosixPath
from typing import Any

from commonplace.vault import logseq_names, markdown
from commonplace.vault.files import FileRefused, read_file
from commonplace.vault.journals import DEFAULT as DEFAULT_JOURNALS
from commonplace.vault.journals import JournalNames, journal_names
from commonplace.vault.markdown import Todo

log = logging.getLogger(__name__)

NOTE_SUFFIXES = (".md", ".markdown")
WARNED_MAX = 2000  # broken frontmatter blocks remembered as already logged (oldest forgotten)


class NoteSkipped(Exception):
    """A file that is not indexed or read, with the reason shown in logs and `doctor`."""

    def __init__(self, path: str, reason: str, *, missing: bool = False) -> None:
        super().__init__(f"{path}: skipped: {reason}")
        self.path = path
        self.reason = reason
        self.missing = missing  # the file is gone (deleted or moved), not merely unusable


@dataclass(frozen=True, eq=False)
class Note:
    path: str  # vault-relative, '/'-separated
    title: str
    text: str  # the whole file as decoded, exactly
    body: str  # the text after the frontmatter (or Logseq page properties stay in it)
    body_line: int  # the line number where body starts in text
    frontmatter: dict[str, Any] = field(default_factory=dict)
    frontmatter_error: str | None = None
    links: tuple[str, ...] = ()
    tags: tuple[str, ...] = ()
    aliases: tuple[str, ...] = ()
    todos: tuple[Todo, ...] = ()
    content_hash: str = ""
    mtime: float = 0.0
    size: int = 0
    day: date | None = None  # the day a Logseq journal page is for

    @property
    def folder(self) -> str:
        parent = PurePosixPath(self.path).parent.as_posix()
        return "" if parent == "." else parent


def content_hash(data: bytes) -> str:
    """SHA-256 of the file's bytes: what 'unchanged since it was read' is checked against."""
    return hashlib.sha256(data).hexdigest()


def title_from_path(
    path: str, flavor: str = "obsidian", name_format: str = logseq_names.TRIPLE_LOWBAR
) -> str:
    """The note's name from its file name; in Logseq as the graph's `:file/name-format` reads
    it (`a___b.md` is "a/b", or under `:legacy` `a.b.md` is: vault/logseq_names.py)."""
    stem = PurePosixPath(path).stem
    if flavor == "logseq":
        return logseq_names.page_name_of_file(stem, name_format)
    return stem


def page_name(vault: Path, path: str, flavor: str = "obsidian") -> str:
    """The note's name as the editor shows it, without reading the note: its file name, in
    Logseq the page's name (a journal's in the graph's title format, "Nov 30th, 2026"). A
    Logseq `title::` property is not seen: read_note's title has it."""
    if flavor == "logseq":
        return journal_names(vault).file_page_name(path)
    return title_from_path(path, flavor)


def title_property(vault: Path, path: str, max_bytes: int) -> str | None:
    """A Logseq page's `title::` property, read from the file by the vault's rule, or None
    (none, or the file cannot be read): what names the page instead of its file name."""
    try:
        data, _ = read_file(vault, path, max_bytes)
    except (OSError, FileRefused):
        return None
    text = data.decode("utf-8", errors="replace").removeprefix("\ufeff")
    body = markdown.split_frontmatter(text)[1]
    return markdown.parse_logseq_properties(body).get("title") or None


def parse_note(
    path: str, text: str, flavor: str = "obsidian", journals: JournalNames | None = None
) -> Note:
    """Parse a note's text. A broken frontmatter block is kept as body and reported, not fatal.

    In Logseq a journal page's title is the one Logseq shows ("Nov 30th, 2026" for
    journals/2026_11_30.md), by the graph's `journals` settings (Logseq's defaults if None)."""
    clean = text.removeprefix("\ufeff")
    fm_source, body, body_line = markdown.split_frontmatter(clean)
    meta: dict[str, Any] = {}
    error = None
    if fm_source is not None:
        try:
            meta = markdown.parse_frontmatter(fm_source)
        except markdown.FrontmatterError as exc:
            error = str(exc)
            body, body_line = clean, 0
            _warn_once(path, fm_source, error)
    journals = journals or DEFAULT_JOURNALS
    title = title_from_path(path, flavor, journals.name_format)
    day = None
    if flavor == "logseq":
        props = markdown.parse_logseq_properties(body)
        if props.get("title"):
            title = props["title"]
        day = journals.day_of(title, path)
        title = title if day is None else journals.title(day)
        for key, value in props.items():
            meta.setdefault(key, value)
    named = _page_refs(meta, props) if flavor == "logseq" else meta
    tags = dict.fromkeys(markdown.frontmatter_tags(named) + markdown.inline_tags(body, flavor))
    return Note(
        path=path,
        title=title,
        text=text,
        body=body,
        body_line=body_line,
        frontmatter=meta,
        frontmatter_error=error,
        links=tuple(markdown.links(body)),
        tags=tuple(tags),
        aliases=tuple(markdown.frontmatter_aliases(named)),
        todos=tuple(markdown.todos(body, first_line=body_line)),
        day=day,
    )


def _page_refs(meta: dict[str, Any], props: dict[str, str]) -> dict[str, Any]:
    """`meta` with the Logseq page properties that name pages (`alias::`, `tags::`) as the
    lists of names they are: `[[Devon Zuegel]], #tag` is "Devon Zuegel" and "tag"."""
    refs = {
        key: markdown.logseq_page_refs(value)
        for key, value in props.items()
        if key in ("alias", "aliases", "tags", "tag") and meta.get(key) == value
    }
    return meta | refs if refs else meta


_warned: OrderedDict[tuple[str, str], None] = OrderedDict()
_warned_lock = threading.Lock()  # notes are parsed in worker threads too


def _warn_once(path: str, source: str, error: str) -> None:
    """Log a broken frontmatter block once per note and per block: the note is read again at
    every reconciliation and by every question that reads it, and the same line each time
    buried the log. Edited (still broken), it is logged again; Note.frontmatter_error still
    says it at every read."""
    key = (path, hashlib.sha256(source.encode("utf-8", "surrogatepass")).hexdigest())
    with _warned_lock:
        if key in _warned:
            _warned.move_to_end(key)
            return
        _warned[key] = None
        if len(_warned) > WARNED_MAX:
            _warned.popitem(last=False)
    log.warning("%s: %s; reading it as plain text", path, error)


def read_note(
    vault: Path, path: str, flavor: str = "obsidian", max_bytes: int = 2 * 1024 * 1024
) -> Note:
    """Read and parse one note; raise NoteSkipped (never anything else) when it can't be used.

    The file is read by the vault's one rule (files.read_file): an ordinary file, never through
    a symbolic link, never a FIFO, socket or device.
    """
    if not path.lower().endswith(NOTE_SUFFIXES):
        raise NoteSkipped(path, "not a Markdown file")
    try:
        data, stat = read_file(vault, path, max_bytes)
    except FileRefused as exc:
        raise NoteSkipped(path, exc.reason) from None
    except (FileNotFoundError, NotADirectoryError):
        raise NoteSkipped(path, "no longer exists", missing=True) from None
    except OSError as exc:
        raise NoteSkipped(path, f"cannot be read ({exc.strerror or exc})") from None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise NoteSkipped(path, f"is not UTF-8 text (bad byte at {exc.start})") from None
    if "\x00" in text:
        raise NoteSkipped(path, "contains NUL bytes (a binary file?)")
    journals = journal_names(vault) if flavor == "logseq" else None
    return dataclasses.replace(
        parse_note(path, text, flavor, journals),
        content_hash=content_hash(data),
        mtime=stat.st_mtime,
        size=len(data),
    )
