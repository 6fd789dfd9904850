"""The digest's lists, computed from the vault by code.

Two things are gathered: the week's filed captures, grouped under the notes they link to, and
every open to-do in the vault, split by due date. "Overdue" and "the next seven days" are date
comparisons against the END of the digest's week (its Sunday), so a past week gives the same
lists whenever it is written. The pure functions take parsed notes; `collect` is the I/O edge.

Captured words are never copied out of a filed note here: a FiledCapture holds the title from
the file name, the related titles and the to-dos that tidying added below the words.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Iterable, Iterator
from datetime import date, datetime
from pathlib import PurePosixPath
from zoneinfo import ZoneInfo

from commonplace.capture.inbox import captured_time
from commonplace.config import Settings
from commonplace.digest.models import DigestData, FiledCapture, OpenTodo, TodoLists
from commonplace.digest.week import Week
from commonplace.vault import Note, NoteSkipped, in_folder, iter_note_paths, read_note
from commonplace.vault.markdown import wikilinks

log = logging.getLogger(__name__)

_STAMP = re.compile(r"^(\d{4}-\d{2}-\d{2}) (\d{2})(\d{2})(?: (.+))?$")
_RELATED_LINE = re.compile(r"^\s*(?:[-*] )?Related:\s*(.*)$")
_SCHEDULE_LINE = re.compile(r"^\s*(?:DEADLINE|SCHEDULED):")


def captured_at(note: Note, tz: ZoneInfo) -> datetime | None:
    """When the capture was written, read the way the tidy stage reads it."""
    return captured_time(note.frontmatter, note.path, tz)


def display_title(note: Note) -> str:
    """A filed note's title: its file name after 'YYYY-MM-DD HHMM '."""
    match = _STAMP.match(PurePosixPath(note.path).stem)
    if match and match.group(4):
        return match.group(4).strip()
    return note.title


def link_target(note: Note, flavor: str) -> str:
    """What goes inside [[...]] to reach this note: the path in Obsidian (unambiguous even
    when two notes share a name), the page name in Logseq."""
    if flavor == "logseq":
        return note.title
    return str(PurePosixPath(note.path).with_suffix(""))


def related_titles(note: Note) -> tuple[str, ...]:
    """The notes a filed note links to: its `related` field and its 'Related:' line."""
    found: dict[str, None] = {}
    raw = note.frontmatter.get("related")
    items = raw if isinstance(raw, list) else [raw] if isinstance(raw, str) else []
    for item in items:
        if isinstance(item, str):
            for title in wikilinks(item) or [t.strip() for t in item.split(",")]:
                if title:
                    found.setdefault(title, None)
    for line in note.body.splitlines():
        match = _RELATED_LINE.match(line)
        if match:
            for title in wikilinks(match.group(1)):
                found.setdefault(title, None)
    return tuple(found)


def kept_todo_lines(note: Note) -> set[int]:
    """Line numbers of the to-dos tidying added.

    Tidy writes them as the last block of the note, right after the 'Related:' line, or after a
    blank line that ends the captured words. A checkbox typed inside the words is not one, nor
    one at the very end of the words: there the block has neither before it.
    """
    lines = note.text.splitlines()
    todo_lines = {t.line for t in note.todos}
    i = len(lines) - 1
    while i >= note.body_line:
        line = lines[i]
        if not line.strip() or i in todo_lines or _SCHEDULE_LINE.match(line):
            i -= 1
            continue
        break
    after_related = i >= note.body_line and _RELATED_LINE.match(lines[i]) is not None
    after_blank = i + 1 < len(lines) and not lines[i + 1].strip()
    return {n for n in todo_lines if n > i} if after_related or after_blank else set()


def open_todos(note: Note, flavor: str, label: str | None = None) -> list[OpenTodo]:
    link = link_target(note, flavor)
    shown = label or display_title(note)
    return [OpenTodo(t.text, t.due, note.path, link, shown) for t in note.todos if not t.done]


def filed_capture(note: Note, tz: ZoneInfo, flavor: str) -> FiledCapture | None:
    moment = captured_at(note, tz)
    if moment is None:
        log.info("%s: no 'captured' time and no date in its name; not in any digest", note.path)
        return None
    kept = kept_todo_lines(note)
    link, title = link_target(note, flavor), display_title(note)
    todos = tuple(
        OpenTodo(t.text, t.due, note.path, link, title)
        for t in note.todos
        if not t.done and t.line in kept
    )
    return FiledCapture(
        path=note.path,
        link=link,
        title=title,
        captured=moment,
        links=related_titles(note),
        kept_todos=todos,
    )


def group_by_link(
    captures: Iterable[FiledCapture],
) -> tuple[tuple[tuple[str, tuple[FiledCapture, ...]], ...], tuple[FiledCapture, ...]]:
    """Captures under each note they link to (a capture with two links is under both), the
    busiest notes first; and the captures that link nowhere."""
    groups: dict[str, list[FiledCapture]] = {}
    unlinked: list[FiledCapture] = []
    for capture in captures:
        if not capture.links:
            unlinked.append(capture)
        for title in capture.links:
            groups.setdefault(title, []).append(capture)
    ordered = sorted(groups.items(), key=lambda item: (-len(item[1]), item[0].casefold()))
    return tuple((title, tuple(items)) for title, items in ordered), tuple(unlinked)


def split_todos(
    todos: Iterable[OpenTodo], week: Week, recent: frozenset[str] = frozenset()
) -> TodoLists:
    """Overdue: due on or before the week's Sunday. Next seven days: the Monday to Sunday
    after it. Later: after that. Plain date comparisons; a due date has no time of day.
    Within a list, earliest first; to-dos from the notes in `recent` (this week's) lead."""
    first, last = week.next_seven_days
    overdue, soon, later, undated = [], [], [], []
    for todo in todos:
        if todo.due is None:
            undated.append(todo)
        elif todo.due < first:
            overdue.append(todo)
        elif todo.due <= last:
            soon.append(todo)
        else:
            later.append(todo)

    def by_date(items: list[OpenTodo]) -> tuple[OpenTodo, ...]:
        def key(t: OpenTodo) -> tuple[date, bool, str, str]:
            return (t.due or date.max, t.source not in recent, t.label.casefold(), t.text)

        return tuple(sorted(items, key=key))

    return TodoLists(by_date(overdue), by_date(soon), by_date(later), by_date(undated))


def build(
    notes: Iterable[Note], week: Week, *, tz: ZoneInfo, flavor: str, filed: str, inbox: str
) -> DigestData:
    """The digest's data from parsed notes (already without the digests folder)."""
    captures: list[FiledCapture] = []
    pending: list[str] = []
    todos: list[OpenTodo] = []
    for note in notes:
        if in_folder(note.path, filed):
            capture = filed_capture(note, tz, flavor)
            if capture is not None and week.contains(capture.captured, tz):
                captures.append(capture)
        elif in_folder(note.path, inbox):
            moment = captured_at(note, tz)
            if moment is not None and week.contains(moment, tz):
                pending.append(note.path)
        todos.extend(open_todos(note, flavor))
    captures.sort(key=lambda c: (c.captured, c.path))
    groups, unlinked = group_by_link(captures)
    return DigestData(
        week=week,
        captures=tuple(captures),
        groups=groups,
        unlinked=unlinked,
        todos=split_todos(todos, week, frozenset(c.path for c in captures)),
        inbox=tuple(sorted(pending)),
    )


def vault_notes(settings: Settings) -> Iterator[Note]:
    """Every readable note outside the digests folder (a digest's lists are not to-dos)."""
    digests = settings.folder("digests")
    limit = settings.index.max_note_kb * 1024
    for path in iter_note_paths(settings.vault):
        if in_folder(path, digests):
            continue
        try:
            yield read_note(settings.vault, path, settings.flavor, max_bytes=limit)
        except NoteSkipped as exc:
            log.info("%s", exc)


def collect(settings: Settings, week: Week) -> DigestData:
    return build(
        vault_notes(settings),
        week,
        tz=settings.tz,
        flavor=settings.flavor,
        filed=settings.folder("filed"),
        inbox=settings.folder("inbox"),
    )
