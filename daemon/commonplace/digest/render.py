"""The digest note and its notification, written by code from DigestData (pure).

The lists are plain bullets, never checkboxes: a digest repeats to-dos that live in other notes,
and a second checkbox would be a second to-do in Obsidian Tasks, Logseq and our own collector.
Obsidian gets frontmatter and Markdown headings; Logseq gets page properties and an outline.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date, datetime
from pathlib import PurePosixPath

from commonplace.digest.models import DigestData, FiledCapture, OpenTodo
from commonplace.digest.summary import Summary

DISCLAIMER = (
    "The paragraph above was written by a language model from this week's titles, links and "
    "to-dos, never from what you captured. It is the least reliable part of this note; "
    "the lists below are the record."
)
LONG_LIST = 50  # "Later" and "No due date" show this many; a vault can hold thousands
_TASK_MARKER = re.compile(
    r"^(\[.\](?=\s|$)|(?:TODO|DOING|LATER|NOW|WAITING|DONE|CANCELED|CANCELLED)\b)"
)


def notification_text(data: DigestData) -> str:
    """'20 notes captured this week. To do: 2 overdue, 3 due in the next seven days.'"""
    n = data.captured_count
    first = f"{n} note{'' if n == 1 else 's'} captured this week."
    overdue, soon = len(data.todos.overdue), len(data.todos.next_seven_days)
    if not overdue and not soon:
        return f"{first} To do: nothing overdue or due in the next seven days."
    return f"{first} To do: {overdue} overdue, {soon} due in the next seven days."


def span(first: date, last: date) -> str:
    """'19–25 October 2026', '26 October – 1 November 2026', '28 December 2026 – 3 January 2027'."""
    if first.year != last.year:
        return f"{first.day} {first:%B %Y} – {last.day} {last:%B %Y}"
    if first.month != last.month:
        return f"{first.day} {first:%B} – {last.day} {last:%B %Y}"
    return f"{first.day}–{last.day} {last:%B %Y}"


def short_day(day: date) -> str:
    return f"{day:%a} {day.day} {day:%b}"


@dataclass(frozen=True)
class _Section:
    heading: str
    items: tuple[str, ...]
    level: int  # 2 or 3
    empty: str = ""  # shown when there are no items; no section at all when ""


def _link(target: str, label: str, flavor: str) -> str:
    if flavor == "logseq" or target == label:
        return f"[[{target}]]"
    return f"[[{target}|{label}]]"


def _inbox_link(path: str, flavor: str) -> str:
    """A capture still in the inbox: Obsidian links by path, Logseq by page name (the stem)."""
    stem = PurePosixPath(path).stem
    return _link(stem if flavor == "logseq" else path.removesuffix(".md"), stem, flavor)


def _capture_line(capture: FiledCapture, flavor: str) -> str:
    return f"{short_day(capture.captured.date())} · {_link(capture.link, capture.title, flavor)}"


def _todo_line(todo: OpenTodo, flavor: str) -> str:
    text = _TASK_MARKER.sub(lambda m: f"`{m.group(1)}`", todo.text) or "(no text)"
    source = _link(todo.link, todo.label, flavor)
    when = f"{short_day(todo.due)} · " if todo.due else ""
    return f"{when}{text} · {source}"


def _sections(data: DigestData, flavor: str) -> list[_Section]:
    todos = data.todos
    first, last = data.week.next_seven_days
    nothing = "" if data.captured_count else "Nothing was captured this week."
    sections = [_Section(f"Captured this week ({data.captured_count})", (), 2, nothing)]
    for title, captures in data.groups:
        lines = tuple(_capture_line(c, flavor) for c in captures)
        sections.append(_Section(f"[[{title}]] ({len(captures)})", lines, 3))
    if data.unlinked:
        lines = tuple(_capture_line(c, flavor) for c in data.unlinked)
        sections.append(_Section(f"Not linked to any note ({len(lines)})", lines, 3))
    if data.inbox:
        lines = tuple(_inbox_link(p, flavor) for p in data.inbox)
        sections.append(_Section(f"Still in the inbox, not filed yet ({len(lines)})", lines, 3))

    def todo_section(
        heading: str, items: Sequence[OpenTodo], empty: str = "", limit: int | None = None
    ) -> _Section:
        lines = tuple(_todo_line(t, flavor) for t in items[:limit])
        if limit is not None and len(items) > limit:
            lines += (f"… and {len(items) - limit} more, not listed here",)
        return _Section(f"{heading} ({len(items)})", lines, 3, empty)

    sections += [
        _Section("Open to-dos", (), 2),
        todo_section("Overdue", todos.overdue, "Nothing overdue."),
        todo_section(
            f"Due in the next seven days, {short_day(first)} – {short_day(last)}",
            todos.next_seven_days,
            "Nothing due.",
        ),
        todo_section("Later", todos.later, limit=LONG_LIST),
        todo_section("No due date", todos.undated, limit=LONG_LIST),
    ]
    return [s for s in sections if s.items or s.empty or s.level == 2]


def _properties(data: DigestData, written: datetime) -> list[tuple[str, str]]:
    week = data.week
    return [
        ("digest", week.label),
        ("week", f"{week.monday.isoformat()} to {week.sunday.isoformat()}"),
        ("written", f"{written:%Y-%m-%dT%H:%M}"),
        ("captures", str(data.captured_count)),
        ("overdue", str(len(data.todos.overdue))),
        ("due-next-seven-days", str(len(data.todos.next_seven_days))),
    ]


def _opening(summary: Summary) -> list[str]:
    if summary.text is None:
        return [f"{summary.problem} The lists below are the record."]
    n = len(summary.left_out)
    if not n:
        return [summary.text, f"*{DISCLAIMER}*"]
    which = "one sentence" if n == 1 else f"{n} sentences"
    left = f" The program left out {which} of the model's that the lists do not support."
    return [summary.text, f"*{DISCLAIMER}{left}*"]


def render_digest(data: DigestData, summary: Summary, flavor: str, written: datetime) -> str:
    """The whole note. `written` is the user's local time of writing."""
    title = f"Week {data.week.number}: {span(data.week.monday, data.week.sunday)}"
    if flavor == "logseq":
        return _render_logseq(data, summary, written, title)
    out = ["---", *(f"{k}: {v}" for k, v in _properties(data, written)), "---", f"# {title}", ""]
    for paragraph in _opening(summary):
        out += [paragraph, ""]
    for section in _sections(data, flavor):
        out += [f"{'#' * section.level} {section.heading}", ""]
        if section.items:
            out += [f"- {item}" for item in section.items] + [""]
        elif section.empty:
            out += [section.empty, ""]
    return "\n".join(out).rstrip("\n") + "\n"


def _render_logseq(data: DigestData, summary: Summary, written: datetime, title: str) -> str:
    out = [f"{k}:: {v}" for k, v in _properties(data, written)]
    out += ["", f"- # {title}"]
    out += [f"- {paragraph}" for paragraph in _opening(summary)]
    for section in _sections(data, "logseq"):
        indent = "\t" * (section.level - 2)
        out.append(f"{indent}- {'#' * section.level} {section.heading}")
        for item in section.items or ((section.empty,) if section.empty else ()):
            out.append(f"{indent}\t- {item}")
    return "\n".join(out) + "\n"
