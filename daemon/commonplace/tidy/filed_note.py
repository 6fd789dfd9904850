"""The filed note's text, in the Obsidian or Logseq flavour. Pure functions.

Layout (DESIGN.md "Vault conventions"): properties, then the capture's words exactly as they
are in the capture file (byte for byte: never re-wrapped, re-indented or trimmed), then
`Related: [[...]]`, then the to-dos. `capture_id` ties the note to its capture so a restart can
tell that a capture was already filed.
"""

from __future__ import annotations

import re
from typing import Any

import yaml

from commonplace.capture.inbox import Capture, capture_stamp, split_capture
from commonplace.tidy.models import Decision
from commonplace.vault.markdown import frontmatter_tags, logseq_deadline, todo_line

# Keys the filed note writes itself; the capture's values for these are not carried over.
OWN_KEYS = frozenset(
    {"captured", "via", "tags", "tag", "related", "capture_id", "capture-id", "title"}
)


def filed_name(capture: Capture, title: str, n: int = 1) -> str:
    """'2026-10-20 0805 Order shed timber.md', with ' 2', ' 3' when the name is taken."""
    base = f"{capture.captured.strftime('%Y-%m-%d %H%M')} {title}".strip()
    return f"{base}.md" if n == 1 else f"{base} {n}.md"


def render(
    capture: Capture,
    decision: Decision,
    flavor: str,
    todo_format: str = "plain",
    task_marker: str = "TODO",
) -> str:
    """`task_marker` is the marker a Logseq graph gives new tasks (LATER or TODO)."""
    if flavor == "logseq":
        return render_logseq(capture, decision, task_marker)
    return render_obsidian(capture, decision, todo_format)


def _words_then(body: str) -> str:
    """The body, then a line break if it lacks one, so what follows starts on its own line."""
    if not body:
        return ""
    return body if body.endswith(("\n", "\r")) else body + "\n"


def own_tags(capture: Capture) -> list[str]:
    """Tags the capture's own frontmatter gives (a web clipper's, the user's): kept as they are."""
    return [t for t in frontmatter_tags(capture.meta) if "\n" not in t]


def carried_meta(capture: Capture) -> dict[str, Any]:
    """The capture's other frontmatter (a clipper's `source:`, say): the filed note keeps it."""
    return {k: v for k, v in capture.meta.items() if k not in OWN_KEYS}


def all_tags(capture: Capture, decision: Decision) -> list[str]:
    tags = own_tags(capture)
    return tags + [t for t in decision.tags if t not in tags]


def render_obsidian(capture: Capture, decision: Decision, todo_format: str = "plain") -> str:
    meta: dict[str, object] = {
        "captured": capture_stamp(capture.captured),
        **({"captured_original": capture.captured_unread} if capture.captured_unread else {}),
        "via": capture.via,
        "tags": all_tags(capture, decision),
        "related": [f"[[{t}]]" for t in decision.links],
        "capture_id": capture.capture_id,
        **carried_meta(capture),
    }
    head = yaml.safe_dump(meta, sort_keys=False, allow_unicode=True, default_flow_style=False)
    tail: list[str] = []
    if decision.links:
        tail.append("Related: " + ", ".join(f"[[{t}]]" for t in decision.links))
    if decision.todos:
        lines = [todo_line(t.text, t.due, todo_format) for t in decision.todos]
        tail.append("\n".join(lines))
    end = ("\n" + "\n\n".join(tail) + "\n") if tail else ""
    return f"---\n{head}---\n{_words_then(capture.body)}{end}"


def render_logseq(capture: Capture, decision: Decision, task_marker: str = "TODO") -> str:
    """Page properties as `key:: value`, the words as they are, then Logseq blocks; to-dos
    carry the marker the graph's workflow gives new tasks."""
    props = [
        f"captured:: {capture_stamp(capture.captured)}",
        f"via:: {capture.via}",
    ]
    if capture.captured_unread and "\n" not in capture.captured_unread:
        props.insert(1, f"captured-original:: {capture.captured_unread}")
    tags = all_tags(capture, decision)
    if tags:
        props.append("tags:: " + ", ".join(tags))
    if decision.links:
        props.append("related:: " + ", ".join(f"[[{t}]]" for t in decision.links))
    props.append(f"capture-id:: {capture.capture_id}")
    for key, value in carried_meta(capture).items():
        text = str(value)
        if "\n" not in text and re.fullmatch(r"[A-Za-z][\w-]*", key):
            props.append(f"{key}:: {text}")
    blocks: list[str] = []
    if decision.links:
        blocks.append("- Related: " + ", ".join(f"[[{t}]]" for t in decision.links))
    for todo in decision.todos:
        block = f"- {task_marker} {todo.text}"
        if todo.due:
            block += f"\n  {logseq_deadline(todo.due)}"
        blocks.append(block)
    end = ("\n" + "\n".join(blocks) + "\n") if blocks else ""
    return "\n".join(props) + "\n\n" + _words_then(capture.body) + end


# What the program writes after the words (render_obsidian / render_logseq): nothing else.
_OBSIDIAN_TAIL = re.compile(
    r"(?:\nRelated: [^\n]*\n(?:\n(?:- \[ \] [^\n]*\n)+)?|\n(?:- \[ \] [^\n]*\n)+)?"
)
_LOGSEQ_TAIL = re.compile(
    r"(?:\n(?:- Related: [^\n]*\n)?(?:- (?:TODO|LATER) [^\n]*\n(?:  DEADLINE: <[^\n>]*>\n)?)*)?"
)


def words_of(filed_text: str, capture: Capture) -> bool:
    """True if the filed note carries exactly this capture's words: right after its properties
    (read the way a capture is read, whichever flavour wrote them), followed only by what the
    program adds (the Related line, the to-dos). Words that are only the start of the note's
    words are another capture's (one that had the same name in the same minute, so the same
    capture_id): that capture is not filed yet."""
    rest = split_capture(filed_text)[1]
    words = _words_then(capture.body)
    if not words or not rest.startswith(words):
        return False
    tail = rest[len(words) :]
    return bool(_OBSIDIAN_TAIL.fullmatch(tail) or _LOGSEQ_TAIL.fullmatch(tail))
