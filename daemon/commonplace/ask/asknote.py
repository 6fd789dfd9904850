"""Questions in Ask notes, and answers inserted below them: pure text in, text out.

The marker: a line whose text starts with `?? ` is a question, in Obsidian (`?? When ...`, also
as a list item `- ?? When ...`) and in Logseq (a block `- ?? When ...`). Lines in frontmatter,
code blocks and quotes/callouts are never questions.

An answer is inserted directly below its question (after any earlier answers to it) and no other
line is touched: the new text is the old text with lines added, nothing removed or reordered.
Each answer carries its question's id (a hash of the question's words), so a question whose
answer is in the note is never answered again, whatever a sync tool or an editor did to the
rest of the note. Editing the question's words gives it a new id, and a new answer.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass

from commonplace.ask.models import Answer
from commonplace.runtime.daemon_notes import ask_root, ask_rule, is_ask_note
from commonplace.vault import markdown

__all__ = ["ask_root", "ask_rule", "is_ask_note"]  # the rule lives with the other daemon notes

_QUESTION = re.compile(r"^(?P<indent>[ \t]*)(?P<bullet>[-*+][ \t]+)?\?\?[ \t]+(?P<text>\S.*?)\s*$")
_MARKER = re.compile(r"cp-answer::?[ \t]*([0-9a-f]{10}(?:-\d+)?)\b")
_OBSIDIAN_ANSWER = re.compile(r"^[ \t]*>[ \t]*\[!answer\]", re.IGNORECASE)
_LOGSEQ_BULLET = re.compile(r"^(?P<indent>[ \t]*)- ")
_LOGSEQ_MARKER = re.compile(r"^[ \t]*cp-answer::")
_NOTE_TAG = re.compile(r"(?<![\w\\])#(?=\w)")


@dataclass(frozen=True)
class Question:
    line: int  # 0-based line of the question in the note's text
    text: str
    qid: str
    indent: str  # leading whitespace of the question line
    bullet: str  # "- " etc. when the question is a list item or Logseq block


def question_id(text: str, repeat: int = 1) -> str:
    """A short hash of the question's words; case, spacing and end punctuation don't count."""
    norm = " ".join(text.lower().split()).rstrip("?!. ")
    digest = hashlib.sha256(norm.encode("utf-8")).hexdigest()[:10]
    return digest if repeat == 1 else f"{digest}-{repeat}"


def split_lines(text: str) -> list[str]:
    """Lines with their '\\n' kept; only '\\n' splits (editors don't break lines at U+2028)."""
    parts = text.split("\n")
    lines = [p + "\n" for p in parts[:-1]]
    return [*lines, parts[-1]] if parts[-1] else lines


def find_questions(text: str) -> list[Question]:
    """Every question in the note, in order, with its id."""
    lines = split_lines(text)
    _, _, body_line = markdown.split_frontmatter(text)
    in_code = markdown.code_mask([ln.rstrip("\r\n") for ln in lines])
    found: list[Question] = []
    counts: dict[str, int] = {}
    for i in range(body_line, len(lines)):
        if in_code[i]:
            continue
        match = _QUESTION.match(lines[i].rstrip("\r\n"))
        if not match:
            continue
        q_text = match.group("text")
        base = question_id(q_text)
        counts[base] = counts.get(base, 0) + 1
        found.append(
            Question(
                line=i,
                text=q_text,
                qid=question_id(q_text, counts[base]),
                indent=match.group("indent"),
                bullet=match.group("bullet") or "",
            )
        )
    return found


def answered_ids(text: str) -> set[str]:
    """Ids of the questions whose answer is in the note."""
    return set(_MARKER.findall(text))


def pending_questions(text: str) -> list[Question]:
    done = answered_ids(text)
    return [q for q in find_questions(text) if q.qid not in done]


def insert_answer(text: str, qid: str, answer: Answer, flavor: str) -> str | None:
    """The note with the answer inserted below question `qid`; None if that question is gone
    (edited or deleted since it was asked) or already has an answer."""
    if qid in answered_ids(text):
        return None
    question = next((q for q in find_questions(text) if q.qid == qid), None)
    if question is None:
        return None
    lines = split_lines(text)
    newline = "\r\n" if "\r\n" in text else "\n"
    if flavor == "logseq":
        at, edited = _logseq_insert_at(lines, question)
        unit = _indent_unit(lines)
        block = logseq_block(answer, qid, question.indent + unit, unit, edited=edited)
    else:
        at, edited = _obsidian_insert_at(lines, question)
        cont = question.indent + " " * len(question.bullet)
        block = obsidian_block(answer, qid, cont, edited=edited)
        if at < len(lines) and lines[at].strip():
            block.append(cont.rstrip() if cont.strip() else "")  # a callout runs on otherwise
    rendered = "".join(line + newline for line in block)
    before = "".join(lines[:at])
    if before and not before.endswith("\n"):
        before += newline  # the question was the last line, with no line break after it
    return before + rendered + "".join(lines[at:])


# -- where the answer goes --------------------------------------------------------------------


def _obsidian_insert_at(lines: list[str], q: Question) -> tuple[int, bool]:
    """After the question and any answer callouts that already follow it."""
    at, edited, i = q.line + 1, False, q.line + 1
    while i < len(lines) and _OBSIDIAN_ANSWER.match(lines[i]):
        i += 1
        while i < len(lines) and lines[i].lstrip(" \t").startswith(">"):
            i += 1
        at, edited = i, True
        while i < len(lines) and not lines[i].strip():
            i += 1
    return at, edited


def _depth(indent: str) -> int:
    return len(indent.replace("\t", "    "))


def _logseq_insert_at(lines: list[str], q: Question) -> tuple[int, bool]:
    """After the question block's own lines and any answer blocks that follow as children."""
    depth = _depth(q.indent)
    i = _block_end(lines, q.line, depth)
    at, edited = i, False
    while i < len(lines):
        child = _LOGSEQ_BULLET.match(lines[i])
        if not child or _depth(child.group("indent")) <= depth:
            break
        own_end = _block_end(lines, i, _depth(child.group("indent")))
        if not any(_LOGSEQ_MARKER.match(ln) for ln in lines[i + 1 : own_end]):
            break
        i = _subtree_end(lines, i, _depth(child.group("indent")))
        at, edited = i, True
    return at, edited


def _lead_depth(line: str) -> int:
    return _depth(line[: len(line) - len(line.lstrip(" \t"))])


def _block_end(lines: list[str], start: int, depth: int) -> int:
    """End of the block starting at `start`: its continuation lines, not its children."""
    i = start + 1
    while (
        i < len(lines)
        and lines[i].strip()
        and not _LOGSEQ_BULLET.match(lines[i])
        and _lead_depth(lines[i]) > depth
    ):
        i += 1
    return i


def _subtree_end(lines: list[str], start: int, depth: int) -> int:
    """End of the block starting at `start` with all its children."""
    i = start + 1
    while i < len(lines) and lines[i].strip() and _lead_depth(lines[i]) > depth:
        i += 1
    return i


def _indent_unit(lines: list[str]) -> str:
    """Logseq indents with tabs by default; follow the note if it uses spaces."""
    for line in lines:
        m = _LOGSEQ_BULLET.match(line)
        if m and m.group("indent"):
            return "\t" if m.group("indent").startswith("\t") else "  "
    return "\t"


# -- what the answer looks like ---------------------------------------------------------------


def _defang(line: str) -> str:
    """Answer text must not forge a question, a marker or (in Logseq) a property."""
    line = line.replace("%%", "% %").replace("cp-answer", "cp answer")
    return re.sub(r"^(\s*)\?\?", r"\1\\??", line)


def _title(answer: Answer, edited: bool) -> str:
    if edited:
        return "New answer (the question was changed)"
    return "Not in your notes" if answer.refused else "Answer"


def obsidian_block(answer: Answer, qid: str, cont: str, *, edited: bool) -> list[str]:
    """A `> [!answer]` callout: the answer, its sources as [[Note#Heading]] links, the checks."""
    q = f"{cont}>"
    out = [f"{q} [!answer] {_title(answer, edited)}"]
    out += [f"{q} {_defang(ln)}".rstrip() for ln in answer.answer.splitlines()] or [q]
    if answer.sources:
        out += [q, f"{q} Sources:"]
        for s in answer.sources:
            date = f" ({s.note_date})" if s.note_date else ""
            text = _NOTE_TAG.sub(r"\\#", _defang(s.text))  # a quoted #tag is not the Ask note's
            out.append(f"{q} - [{s.n}] {s.link('obsidian')}{date}: {text}")
    if answer.findings:
        out += [q, f"{q} Checks:"]
        out += [f"{q} - {_defang(f)}" for f in answer.findings]
    out.append(f"{q} %% cp-answer: {qid} %%")
    return out


def logseq_block(answer: Answer, qid: str, child: str, unit: str, *, edited: bool) -> list[str]:
    """A child block of the question, carrying the id as a block property."""

    def clean(text: str) -> str:
        return _defang(text).replace("::", ":")

    out = [f"{child}- **{_title(answer, edited)}**", f"{child}  cp-answer:: {qid}"]
    inner = child + unit
    for ln in answer.answer.splitlines():
        text = re.sub(r"^\s*(?:[-*+]\s+)", "", ln).strip()
        if text:
            out.append(f"{inner}- {clean(text)}")
    if answer.sources:
        out.append(f"{inner}- Sources:")
        for s in answer.sources:
            date = f" ({s.note_date})" if s.note_date else ""
            section = f" › {clean(s.last_heading)}" if s.last_heading else ""
            out.append(f"{inner}{unit}- [{s.n}] {s.link('logseq')}{section}{date}: {clean(s.text)}")
    if answer.findings:
        out.append(f"{inner}- Checks:")
        out += [f"{inner}{unit}- {clean(f)}" for f in answer.findings]
    return out
