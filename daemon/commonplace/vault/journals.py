"""What Logseq calls a journal page: `journals/2026_11_30.md` is the page "Nov 30th, 2026".

A link the daemon writes must name the page Logseq shows, or clicking it opens a new, empty
page. Logseq (file graphs, graph-parser's extract.cljc and block.cljs convert-page-if-journal)
takes a page's name from its `title::` property or its file name, and when that name reads as a
day in `:journal/page-title-format` or one of "MMM do, yyyy", "yyyy-MM-dd", "yyyy_MM_dd"
(date-time-util/safe-journal-title-formatters), the page is that day's journal and is named by
`:journal/page-title-format` (default "MMM do, yyyy"; the old key `:date-formatter` too). New
journal files are named by `:journal/file-name-format` (default "yyyy_MM_dd") in
`:journals-directory` (default "journals"), so a file there is also read in that format.

The same file says how the graph's files are named (`:file/name-format`: vault/logseq_names.py),
which a page's name and so its journal day depend on, and where Logseq writes a new page
(`:pages-directory`, default "pages"; frontend config.cljs get-pages-directory, used by
modules/file/core.cljs when it makes a page's file), which is where the daemon's folders go in a
Logseq graph (config.py Settings.folder); JournalNames carries both. Both directories are
relative to the graph's folder, as Logseq joins them (logseq.common.path/path-join): runs of
'/' (or '\\') are one, '.' and '..' are resolved, and a leading or trailing '/' is dropped.

The settings come from `logseq/config.edn`, read again whenever that file changes (one stat
per call). A format this module cannot read (vault/datepattern.py says which fields it knows)
is logged once and Logseq's default is used instead.
"""

from __future__ import annotations

import logging
import threading
from dataclasses import dataclass, field
from datetime import date
from pathlib import Path, PurePosixPath

from commonplace.vault import logseq_names
from commonplace.vault.datepattern import PatternError, compile_day_name, format_day, parse_day
from commonplace.vault.exclusions import (
    LOGSEQ_SETTINGS,
    edn_keyword,
    edn_string,
    read_settings,
    without_edn_comments,
)

log = logging.getLogger(__name__)

DEFAULT_TITLE_FORMAT = "MMM do, yyyy"
DEFAULT_FILE_FORMAT = "yyyy_MM_dd"
DEFAULT_DIRECTORY = "journals"
DEFAULT_PAGES = "pages"
# Every name in one of these is a journal day, whatever the settings (Logseq's safe formatters).
ALWAYS_READ = ("MMM do, yyyy", "yyyy-MM-dd", "yyyy_MM_dd")


@dataclass(frozen=True)
class JournalNames:
    """How this graph names its journal pages and files, and its pages after their files."""

    title_format: str = DEFAULT_TITLE_FORMAT
    file_format: str = DEFAULT_FILE_FORMAT
    directory: str = DEFAULT_DIRECTORY
    name_format: str = logseq_names.TRIPLE_LOWBAR  # :file/name-format
    # The marker a new task gets (state.cljs get-preferred-todo): LATER in Logseq's default
    # workflow (`:preferred-workflow :now`), TODO with `:preferred-workflow :todo`.
    task_marker: str = "LATER"
    # :pages-directory: where Logseq writes new pages. Page names do not depend on it (a file's
    # name is read alike in any folder: logseq_names.py), so the signature leaves it out.
    pages: str = DEFAULT_PAGES
    problems: tuple[str, ...] = field(default=(), compare=False)

    def day_of(self, name: str, path: str = "") -> date | None:
        """The day a page named `name` (stored at `path`, if given) is the journal of."""
        formats = [self.title_format, *ALWAYS_READ]
        if path and PurePosixPath(path).parent.as_posix() == self.directory:
            formats.insert(0, self.file_format)
        for pattern in dict.fromkeys(formats):
            day = parse_day(pattern, name)
            if day is not None:
                return day
        return None

    def title(self, day: date) -> str:
        """The name of the day's journal page ("Nov 30th, 2026")."""
        return format_day(self.title_format, day)

    def page_name(self, name: str, path: str = "") -> str:
        """The name Logseq shows for a page named `name`: a journal's in the title format, any
        other page's unchanged."""
        day = self.day_of(name, path)
        return name if day is None else self.title(day)

    def file_page_name(self, path: str) -> str:
        """The name Logseq gives the page in the file `path` (no `title::`), a journal's in
        the title format: `pages/a___b.md` is "a/b", `journals/2026_11_30.md` "Nov 30th, 2026"."""
        name = logseq_names.page_name_of_file(PurePosixPath(path).stem, self.name_format)
        return self.page_name(name, path)

    @property
    def signature(self) -> str:
        """The settings in one string: a stored one tells when titles must be made again."""
        return "\n".join((self.title_format, self.file_format, self.directory, self.name_format))

    @classmethod
    def from_signature(cls, signature: str) -> JournalNames | None:
        """The settings a signature was made from; one from before file name formats were
        read (three lines) stands for `:triple-lowbar`, which is how names were read then."""
        parts = signature.split("\n")
        if len(parts) == 3:
            parts.append(logseq_names.TRIPLE_LOWBAR)
        if len(parts) != 4 or parts[3] not in logseq_names.FORMATS:
            return None
        names = cls(parts[0], parts[1], parts[2], parts[3])
        try:
            compile_day_name(names.title_format)
            compile_day_name(names.file_format)
        except PatternError:
            return None
        return names


DEFAULT = JournalNames()


def journal_names_from(text: str) -> JournalNames:
    """The journal settings in config.edn's text; a format that cannot be read is replaced
    by Logseq's default and named in `problems`."""
    clean = without_edn_comments(text)
    problems: list[str] = []

    def setting(keys: tuple[str, ...], default: str) -> str:
        for key in keys:
            value = edn_string(clean, key)
            if value is None:
                continue
            try:
                compile_day_name(value)
            except PatternError as exc:
                problems.append(
                    f"{LOGSEQ_SETTINGS}: {key} {value!r} cannot be read ({exc}); journal pages "
                    f"are named as Logseq's default {default!r} names them"
                )
                return default
            return value
        return default

    title_format = setting((":journal/page-title-format", ":date-formatter"), DEFAULT_TITLE_FORMAT)
    file_format = setting((":journal/file-name-format",), DEFAULT_FILE_FORMAT)
    directory = graph_folder(clean, ":journals-directory", DEFAULT_DIRECTORY, problems)
    pages = graph_folder(clean, ":pages-directory", DEFAULT_PAGES, problems)
    name_format = logseq_names.read_format(edn_keyword(clean, ":file/name-format"))
    workflow = edn_keyword(clean, ":preferred-workflow") or edn_string(clean, ":preferred-workflow")
    marker = "TODO" if workflow and "now" not in workflow.lower() else "LATER"
    return JournalNames(
        title_format,
        file_format,
        directory,
        name_format,
        marker,
        pages,
        tuple(problems),
    )


def graph_folder(clean: str, key: str, default: str, problems: list[str]) -> str:
    """The folder a directory setting names (`:pages-directory "notes"`), vault-relative, as
    Logseq joins it to the graph's folder; `default` when the key is absent or not a string.

    One that names no folder inside the graph (empty, ".", or one that climbs out of it with
    '..') is named in `problems` and replaced by `default`: Logseq would write those pages at
    the graph's top level or outside it, where the daemon will not put its folders."""
    value = edn_string(clean, key)
    if value is None:
        return default
    folder = _joined(value)
    if folder is None:
        problems.append(
            f"{LOGSEQ_SETTINGS}: {key} {value!r} names no folder inside the graph; "
            f"it is read as Logseq's default {default!r}"
        )
        return default
    return folder


def _joined(value: str) -> str | None:
    """`value` as one '/'-separated relative path, or None if it is none inside the graph."""
    parts: list[str] = []
    for part in value.replace("\\", "/").split("/"):
        if part == "..":
            if not parts:
                return None
            parts.pop()
        elif part not in ("", "."):
            parts.append(part)
    return "/".join(parts) or None


_lock = threading.Lock()
_cache: dict[str, tuple[tuple[int, int], JournalNames]] = {}


def journal_names(vault: Path) -> JournalNames:
    """The graph's journal settings now (read again when logseq/config.edn changes); the
    defaults when there is no config.edn or it cannot be read (said once in the log)."""
    path = vault / LOGSEQ_SETTINGS
    try:
        st = path.stat()
        key = (st.st_mtime_ns, st.st_size)
    except OSError:
        key = (-1, -1)
    where = str(vault)
    with _lock:
        hit = _cache.get(where)
    if hit is not None and hit[0] == key:
        return hit[1]
    text, problem = read_settings(vault, LOGSEQ_SETTINGS) if key[0] >= 0 else (None, None)
    if text is not None:
        names = journal_names_from(text)
    elif problem is not None:
        names = JournalNames(problems=(f"{problem}; Logseq's defaults are used",))
    else:
        names = DEFAULT
    with _lock:
        before = _cache.get(where)
        _cache[where] = (key, names)
    _log_change(before[1] if before else None, names)
    return names


def _log_change(before: JournalNames | None, after: JournalNames) -> None:
    if before is not None and before == after and before.problems == after.problems:
        return
    if after != DEFAULT or (before is not None and before != DEFAULT):
        log.info(
            "Logseq journal pages are named %r, their files %r in %s/; new pages go in %s/, "
            "page files are read in the :%s file name format (%s)",
            after.title_format,
            after.file_format,
            after.directory,
            after.pages,
            after.name_format,
            LOGSEQ_SETTINGS,
        )
    for problem in after.problems:
        if before is None or problem not in before.problems:
            log.warning("%s", problem)
