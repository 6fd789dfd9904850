"""Pure Markdown reading: frontmatter split, headings, links, tags and to-dos.

These work on text only, so every rule can be tested without files. Lines inside fenced code
blocks are never headings, links, tags or to-dos: a pasted shell script is not a task list.
The block rules follow CommonMark as Obsidian applies them: a fence is closed only by a line of
the same character at least as long as the one that opened it (a ```` fence holds ``` lines),
and a heading may be indented by up to three spaces. Frontmatter is read as YAML 1.2 reads it,
as Obsidian does: `no`, `on`, `yes` and `off` are words, not booleans.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from datetime import date
from typing import Any
from urllib.parse import unquote

import yaml

from commonplace.vault.yamlbounds import YamlTooLarge, check_node

_FENCE_OPEN = re.compile(r"^ {0,3}(`{3,}(?=[^`]*$)|~{3,})")
_HEADING = re.compile(r"^ {0,3}(#{1,6})(?:[ \t]+(.*?))??(?:[ \t]+#+)?[ \t]*$")
_BULLET_HEADING = re.compile(r"^[ \t]*[-*+] (#{1,6})[ \t]+(.*?)[ \t]*#*[ \t]*$")  # `- ## Usage`
_WIKILINK = re.compile(r"!?\[\[([^\[\]\n|#^]*)(?:#[^\[\]\n|]*)?(?:\|[^\[\]\n]*)?\]\]")
_MD_LINK = re.compile(
    r"(?<!\\)\[(?:[^\[\]\n]|\[[^\[\]\n]*\])*\]\((<[^<>\n]*>|[^()\s]*)(?:\s+\"[^\"\n]*\")?\)"
)
_URL_SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:")
_INLINE_CODE = re.compile(r"`[^`\n]*`")
_TAG = re.compile(r"(?<![\w/&#])#(\w[\w/-]*)")
_TODO_MD = re.compile(r"^(\s*)[-*+] \[([ xX\-/])\] (.*)$")
# Logseq's task markers (frontend/util/marker.cljs), after the bullet and an optional heading.
LOGSEQ_OPEN = ("TODO", "DOING", "LATER", "NOW", "WAITING", "WAIT", "IN-PROGRESS")
LOGSEQ_CLOSED = ("DONE", "CANCELED", "CANCELLED")
# A task's priority, which Logseq draws as a badge: `- TODO [#A] call the bank`. Not a tag.
LOGSEQ_PRIORITY = r"\[#[A-Ca-c]\]"
_PRIORITY = re.compile(LOGSEQ_PRIORITY)
_TODO_LOGSEQ = re.compile(rf"^(\s*)- (?:#{{1,6}} )?({'|'.join(LOGSEQ_OPEN + LOGSEQ_CLOSED)}) (.*)$")
# A Logseq block's date line: `DEADLINE: <2026-12-03 Thu 10:00 .+1w>` (time and repeater optional).
_LOGSEQ_DATE = re.compile(
    r"^\s+(DEADLINE|SCHEDULED): *<(\d{4}-\d{2}-\d{2})[^>]*?((?:\.\+|\+\+|\+)\d+[hdwmy])?>"
)
_DUE_PATTERNS = (
    re.compile(r"\s*\(due (\d{4}-\d{2}-\d{2})\)"),
    re.compile(r"\s*📅\s*(\d{4}-\d{2}-\d{2})"),
    re.compile(r"\s*\[due:: *(\d{4}-\d{2}-\d{2})\]"),
    re.compile(r"\s*due:: *(\d{4}-\d{2}-\d{2})"),
    re.compile(r"\s*(?:DEADLINE|SCHEDULED): *<(\d{4}-\d{2}-\d{2})[^>]*>"),
)
_LOGSEQ_PROPERTY = re.compile(r"^\s*(?:- )?([A-Za-z][\w-]*):: ?(.*)$")


class _Yaml12Loader(yaml.SafeLoader):
    """PyYAML's safe loader with YAML 1.2's plain scalars: only true/false are booleans, and
    no sexagesimal (`1:20` stays text) or leading-zero octal numbers. PyYAML reads YAML 1.1,
    where `tags: [no, on]` would become two booleans; Obsidian reads them as two words."""


_BOOL, _INT, _FLOAT = (f"tag:yaml.org,2002:{t}" for t in ("bool", "int", "float"))
_Yaml12Loader.yaml_implicit_resolvers = {
    first: [(tag, rx) for tag, rx in resolvers if tag not in (_BOOL, _INT, _FLOAT)]
    for first, resolvers in yaml.SafeLoader.yaml_implicit_resolvers.items()
}
_Yaml12Loader.add_implicit_resolver(
    _BOOL, re.compile(r"^(?:true|True|TRUE|false|False|FALSE)$"), list("tTfF")
)
_Yaml12Loader.add_implicit_resolver(
    _INT, re.compile(r"^(?:[-+]?(?:0|[1-9][0-9]*)|0o[0-7]+|0x[0-9a-fA-F]+)$"), list("-+0123456789")
)
_Yaml12Loader.add_implicit_resolver(
    _FLOAT,
    re.compile(
        r"^(?:[-+]?(?:\.[0-9]+|(?:0|[1-9][0-9]*)(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?"
        r"|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN))$"
    ),
    list("-+0123456789."),
)


@dataclass(frozen=True)
class Heading:
    level: int
    text: str
    line: int  # 0-based line number in the text it was found in


@dataclass(frozen=True)
class Todo:
    text: str  # without the checkbox and the due marker
    due: date | None
    done: bool
    line: int  # 0-based line number in the note's full text
    repeats: str = ""  # a Logseq repeater on its date (".+1w"): ticked in Logseq, it moves on


class FrontmatterError(ValueError):
    """The note opens with a frontmatter block that is not valid YAML mapping."""


def split_frontmatter(text: str) -> tuple[str | None, str, int]:
    """Return (frontmatter source or None, body, body's first line number).

    Only a block that opens on the very first line with '---' and closes with '---' or '...'
    counts, as in Obsidian; anything else is body.
    """
    lines = text.splitlines(keepends=True)
    if not lines or lines[0].rstrip("\r\n").rstrip() != "---":
        return None, text, 0
    for i in range(1, len(lines)):
        if lines[i].rstrip("\r\n").rstrip() in ("---", "..."):
            return "".join(lines[1:i]), "".join(lines[i + 1 :]), i + 1
    return None, text, 0


def parse_frontmatter(source: str) -> dict[str, Any]:
    """Parse YAML frontmatter safely; raise FrontmatterError when it is not a mapping."""
    if not source.strip():
        return {}
    loader = _Yaml12Loader(source)
    try:
        node = loader.get_single_node()
        if node is not None:
            check_node(node)  # before the aliases become values anything walks (yamlbounds.py)
        data = loader.construct_document(node) if node is not None else None
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" at line {mark.line + 2}" if mark is not None else ""
        raise FrontmatterError(f"frontmatter is not valid YAML{where}") from exc
    except YamlTooLarge as exc:
        raise FrontmatterError(f"frontmatter is not read: {exc}") from exc
    except RecursionError:  # `[[[[...` thousands deep: PyYAML's parser recurses
        raise FrontmatterError("frontmatter is not read: it nests too deeply") from None
    finally:
        loader.dispose()
    if data is None:
        return {}
    if not isinstance(data, dict):
        raise FrontmatterError("frontmatter is not a list of 'key: value' lines")
    return {str(k): v for k, v in data.items()}


def parse_logseq_properties(body: str) -> dict[str, str]:
    """Logseq page properties: the leading 'key:: value' lines of the first block."""
    props: dict[str, str] = {}
    for line in body.splitlines():
        if not line.strip():
            if props:
                break
            continue
        match = _LOGSEQ_PROPERTY.match(line)
        if not match:
            break
        props[match.group(1).lower()] = match.group(2).strip()
    return props


_LOGSEQ_REF = re.compile(r"\s*#?\[\[([^\[\]\n]+)\]\]|\s*#?([^\s,#\[\]][^,\[\]\n]*)")


def logseq_page_refs(value: str) -> list[str]:
    """The pages a Logseq `alias::` or `tags::` value names: `[[Devon Zuegel]], #tag, plain`
    gives "Devon Zuegel", "tag", "plain" (a comma inside `[[...]]` belongs to the name)."""
    names = (m.group(1) or m.group(2) or "" for m in _LOGSEQ_REF.finditer(value))
    return list(dict.fromkeys(n.strip() for n in names if n.strip()))


def code_mask(lines: list[str]) -> list[bool]:
    """True for each line that is inside (or delimits) a fenced code block.

    A fence closes only on a line holding nothing but the opening character, at least as many
    times, indented by at most three spaces; an unclosed fence runs to the end (CommonMark)."""
    mask: list[bool] = []
    fence: str | None = None
    for line in lines:
        if fence is None:
            match = _FENCE_OPEN.match(line)
            if match:
                fence = match.group(1)
            mask.append(bool(match))
            continue
        mask.append(True)
        stripped = line.rstrip(" \t")
        indent = len(stripped) - len(stripped.lstrip(" "))
        run = stripped.lstrip(" ")
        if indent <= 3 and len(run) >= len(fence) and run == fence[0] * len(run):
            fence = None
    return mask


def prose_lines(text: str) -> Iterator[tuple[int, str]]:
    """(line number, line) for every line outside fenced code, inline code removed."""
    lines = text.splitlines()
    for i, (line, in_code) in enumerate(zip(lines, code_mask(lines), strict=True)):
        if not in_code:
            yield i, _INLINE_CODE.sub("", line)


def headings(text: str, *, outline: bool = False) -> list[Heading]:
    """Markdown headings; with `outline`, also a list item that is a heading (Logseq writes
    `- ## Usage`), as Logseq and Obsidian both render it."""
    found = []
    for i, line in prose_lines(text):
        match = _HEADING.match(line) or (_BULLET_HEADING.match(line) if outline else None)
        if match and match.group(2) and match.group(2).strip():
            found.append(Heading(len(match.group(1)), match.group(2).strip(), i))
    return found


def links(text: str) -> list[str]:
    """Notes this text links to: wikilinks and Markdown links to notes (`[text](Note.md)`,
    `[text](Folder/My%20Note.md#Heading)`), as titles or paths without `.md`, in order, unique.
    Web addresses and links to other files (images, PDFs) are not notes."""
    seen = dict.fromkeys(wikilinks(text))
    for _, line in prose_lines(text):
        for match in _MD_LINK.finditer(line):
            target = _note_target(match.group(1))
            if target:
                seen.setdefault(target, None)
    return list(seen)


def _note_target(raw: str) -> str:
    target = unquote(raw.strip("<>")).split("#", 1)[0].strip()
    if not target or _URL_SCHEME.match(target):
        return ""
    name = target.rsplit("/", 1)[-1]
    if name.lower().endswith(".md"):
        return target[:-3]
    return target if "." not in name else ""


def wikilinks(text: str) -> list[str]:
    """Link targets (note titles or paths, without heading or alias), in order, unique."""
    seen: dict[str, None] = {}
    for _, line in prose_lines(text):
        for match in _WIKILINK.finditer(line):
            target = match.group(1).strip()
            if target:
                seen.setdefault(target, None)
    return list(seen)


def inline_tags(text: str, flavor: str = "obsidian") -> list[str]:
    """`#tags` outside code; in Logseq not a task's priority `[#A]` (which it draws as one)."""
    seen: dict[str, None] = {}
    for _, line in prose_lines(text):
        if flavor == "logseq" and "[#" in line:
            line = _PRIORITY.sub("", line)
        for match in _TAG.finditer(line):
            tag = match.group(1).rstrip("/-")
            if tag and not tag.replace("_", "").isdigit():
                seen.setdefault(tag, None)
    return list(seen)


def frontmatter_tags(meta: Mapping[str, Any]) -> list[str]:
    """Tags from 'tags' or 'tag' as a YAML list or a comma/space separated string."""
    raw = meta.get("tags", meta.get("tag"))
    if raw is None:
        return []
    items = raw if isinstance(raw, list) else re.split(r"[,\s]+", str(raw))
    tags: dict[str, None] = {}
    for item in items:
        if item is None:
            continue
        item = str(item).lower() if isinstance(item, bool) else item  # `true` as written
        tag = str(item).strip().lstrip("#").strip()
        if tag:
            tags.setdefault(tag, None)
    return list(tags)


def frontmatter_aliases(meta: Mapping[str, Any]) -> list[str]:
    """Other names of a note, from 'aliases' or 'alias': a YAML list or a comma list."""
    raw = meta.get("aliases", meta.get("alias"))
    items = raw if isinstance(raw, list) else str(raw).split(",") if raw else []
    return list(dict.fromkeys(str(a).strip() for a in items if a is not None and str(a).strip()))


def todos(text: str, first_line: int = 0) -> list[Todo]:
    """Markdown checkboxes and Logseq TODO/DONE blocks, with their due dates if any."""
    found: list[Todo] = []
    lines = text.splitlines()
    prose = dict(prose_lines(text))
    for i, line in enumerate(lines):
        if i not in prose:
            continue
        md = _TODO_MD.match(line)
        lq = None if md else _TODO_LOGSEQ.match(line)
        if md:
            done, rest = md.group(2) in "xX-", md.group(3)
        elif lq:
            done, rest = lq.group(2) in LOGSEQ_CLOSED, lq.group(3)
            text_part, due = _extract_due(rest)
            dated, repeats = logseq_block_date(lines, i)
            found.append(Todo(text_part, dated or due, done, first_line + i, repeats))
            continue
        else:
            continue
        text_part, due = _extract_due(rest)
        found.append(Todo(text=text_part, due=due, done=done, line=first_line + i))
    return found


def logseq_block_end(lines: list[str], first: int) -> int:
    """The index after the last line of the Logseq block starting at line `first`: its own
    lines are those after the first that are indented and start no other block."""
    end = first + 1
    while end < len(lines):
        line = lines[end]
        if not line.strip() or not line[:1].isspace() or line.lstrip().startswith("- "):
            break
        end += 1
    return end


def logseq_block_date(lines: list[str], first: int) -> tuple[date | None, str]:
    """The due date of the Logseq block starting at line `first`, and its repeater if any:
    its DEADLINE, else its SCHEDULED, on the block's own lines (the lines after its first
    that are indented and start no other block), as Logseq writes them."""
    found: dict[str, tuple[date | None, str]] = {}
    for line in lines[first + 1 : logseq_block_end(lines, first)]:
        match = _LOGSEQ_DATE.match(line)
        if match and match.group(1) not in found:
            try:
                day: date | None = date.fromisoformat(match.group(2))
            except ValueError:
                day = None
            found[match.group(1)] = (day, match.group(3) or "")
    return found.get("DEADLINE") or found.get("SCHEDULED") or (None, "")


def strip_due_markers(text: str) -> str:
    """The text without any due marker this parser reads, so a to-do written back has one."""
    for pattern in _DUE_PATTERNS:
        text = pattern.sub("", text)
    return text


def _extract_due(rest: str) -> tuple[str, date | None]:
    for pattern in _DUE_PATTERNS:
        match = pattern.search(rest)
        if match:
            try:
                due: date | None = date.fromisoformat(match.group(1))
            except ValueError:
                due = None
            cleaned = (rest[: match.start()] + rest[match.end() :]).strip()
            return cleaned, due
    return rest.strip(), None


# --- writing to-dos: the counterpart of the due patterns above ----------------------------------

DUE_FORMATS = {
    "plain": "{text} (due {day})",
    "tasks": "{text} 📅 {day}",  # the Obsidian Tasks plugin
    "dataview": "{text} [due:: {day}]",  # a Dataview inline field
}


def todo_line(text: str, due: date | None, todo_format: str = "plain") -> str:
    """A Markdown to-do in the chosen format; the vault reader reads all three back."""
    if due is None:
        return f"- [ ] {text}"
    return "- [ ] " + DUE_FORMATS[todo_format].format(text=text, day=due.isoformat())


def logseq_deadline(day: date) -> str:
    """The line under a Logseq TODO block that gives its due date."""
    return f"DEADLINE: <{day.isoformat()} {day.strftime('%a')}>"
