"""The memory note: things the owner wants the assistant to keep in mind, in a note they edit.

Its lines go into the instructions. The model can only propose a line to add or remove; the
owner says Yes or No like any other change, and can always edit the note by hand.
"""

from __future__ import annotations

import asyncio
import logging
import re
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

from commonplace.assistant.actions import Described, Propose, Stale, ToolError
from commonplace.assistant.registry import Param, Tool, ToolContext
from commonplace.assistant.tasks import matches, words_of
from commonplace.assistant.vaultfiles import (
    Snapshot,
    appended,
    check_unchanged,
    note_path,
    read_snapshot,
    write_lines,
)
from commonplace.config import Settings
from commonplace.vault.markdown import code_mask, split_frontmatter

log = logging.getLogger(__name__)

MAX_LINES = 60  # memory lines given to the model
MAX_CHARS = 4000
MAX_FACT = 300
_BULLET = re.compile(r"^\s*(?:[-*+]|\d+[.)])\s+(?:\[[ xX]\]\s+)?")
_WORD = re.compile(r"\w+")


@dataclass(frozen=True)
class MemoryLine:
    line: int  # 0-based line of the file
    text: str  # without the list marker


def memory_lines(snapshot: Snapshot) -> list[MemoryLine]:
    """The facts in the note: its non-empty lines, minus frontmatter, headings, comments, code."""
    text = "".join(snapshot.lines)
    _, body, first = split_frontmatter(text.removeprefix("\ufeff"))
    lines = body.splitlines()
    found = []
    in_comment = False
    for i, (line, in_code) in enumerate(zip(lines, code_mask(lines), strict=True)):
        stripped = line.strip()
        if "<!--" in stripped and "-->" not in stripped:
            in_comment = True
        if in_comment:
            in_comment = "-->" not in stripped
            continue
        if in_code or not stripped or stripped.startswith(("#", "<!--", "---", "|")):
            continue
        fact = _BULLET.sub("", line).strip()
        if fact:
            found.append(MemoryLine(first + i, fact))
    return found


def memory_for_instructions(snapshot: Snapshot) -> str:
    """The memory lines as the instructions carry them, bounded so a huge note cannot crowd out
    the rest (the newest lines, at the end, are the ones kept)."""
    facts = [m.text for m in memory_lines(snapshot)]
    kept: list[str] = []
    size = 0
    for fact in reversed(facts[-MAX_LINES:]):
        size += len(fact) + 3
        if size > MAX_CHARS:
            break
        kept.append(f"- {fact}")
    return "\n".join(reversed(kept)) if kept else "(nothing yet)"


MAX_MEMORY_BYTES = 256 * 1024  # read for every message: a bigger note is not read at all


def memory_text(vault: Path, path: str) -> str:
    """The memory lines for the instructions, or a short line saying why there are none: a
    note that cannot be read (not UTF-8, a link, too big) must not stop the assistant."""
    try:
        snapshot = read_snapshot(vault, path, MAX_MEMORY_BYTES)
    except Stale as exc:
        log.warning("assistant: the memory note %s is not used: %s", path, exc)
        return f"(the memory note cannot be read: {exc})"
    return memory_for_instructions(snapshot)


def clean_fact(text: str) -> str:
    fact = _BULLET.sub("", " ".join(text.split())).strip()
    if not fact:
        raise ToolError("there is nothing to remember")
    if len(fact) > MAX_FACT:
        raise ToolError(f"keep it under {MAX_FACT} characters")
    return fact


def find_line(lines: list[MemoryLine], words: str) -> MemoryLine:
    query = words_of(words)
    if not query:
        raise ToolError("say which line to forget, with words from it")
    hits = (
        [m for m in lines if words_of(m.text) == query]  # "Zoë is vegan", not "... vegan now"
        or [m for m in lines if matches(query, m.text)]
        or [m for m in lines if matches(query, m.text, loose=True)]
    )
    if not hits:
        raise ToolError(f"no line of the memory note matches {words!r}")
    if len({m.text for m in hits}) == 1:
        return hits[0]  # the same line twice: no words could tell them apart
    if len(hits) > 1:
        shown = "; ".join(f'"{m.text}"' for m in hits[:5])
        raise ToolError(f"several lines match {words!r}: {shown}. Call again with more words.")
    return hits[0]


def memory_tools(settings: Settings) -> list[Tool]:
    async def remember(ctx: ToolContext, args: dict[str, Any]) -> Propose:
        return Propose("add_memory", {"text": clean_fact(args["fact"])})

    async def forget(ctx: ToolContext, args: dict[str, Any]) -> Propose:
        path = note_path(settings, settings.assistant.memory_note)  # where it is now
        snap = await asyncio.to_thread(read_snapshot, settings.vault, path)
        found = find_line(memory_lines(snap), args["words"])
        return Propose("remove_memory", {"line": found.line, "text": found.text})

    return [
        Tool(
            "remember",
            "Call when the owner asks you to remember something (the owner is asked to confirm).",
            (Param("fact", "string", "the fact to remember, as a short sentence"),),
            remember,
            looks_at="memory",
            changes=True,
        ),
        Tool(
            "forget",
            "Call when the owner asks you to forget something you remember (the owner is asked "
            "to confirm).",
            (Param("words", "string", "words from the line to forget"),),
            forget,
            looks_at="memory",
            changes=True,
        ),
    ]


@dataclass
class AddMemory:
    settings: Settings
    kind: str = "add_memory"

    @property
    def path(self) -> str:
        return note_path(self.settings, self.settings.assistant.memory_note)

    def _read(self, params: Mapping[str, Any]) -> Described:
        fact = clean_fact(str(params["text"]))
        snap = read_snapshot(self.settings.vault, self.path)
        if any(m.text.casefold() == fact.casefold() for m in memory_lines(snap)):
            raise Stale(f'"{fact}" is already in {self.path}')
        return Described(f'Add to your memory note: "{fact}"?', snap.hash)

    async def describe(self, params: Mapping[str, Any], now: datetime) -> Described:
        return await asyncio.to_thread(self._read, params)

    async def run(self, params: Mapping[str, Any], seen: Described, now: datetime) -> str:
        def add() -> None:
            snap = check_unchanged(self.settings.vault, seen.token, self.path)
            fact = clean_fact(str(params["text"]))
            write_lines(self.settings.vault, snap, appended(snap, [f"- {fact}"]))

        await asyncio.to_thread(add)
        return f"Added to {self.path}: {seen.question.split(': ', 1)[1].removesuffix('?')}."


@dataclass
class RemoveMemory:
    settings: Settings
    kind: str = "remove_memory"

    @property
    def path(self) -> str:
        return note_path(self.settings, self.settings.assistant.memory_note)

    def _read(self, params: Mapping[str, Any]) -> Described:
        number = int(params["line"])
        snap = read_snapshot(self.settings.vault, self.path)
        if not snap.exists:
            raise Stale(f"{self.path} no longer exists")
        found = next((m for m in memory_lines(snap) if m.line == number), None)
        asked = params.get("text")  # the line's words when the question was asked
        if asked is not None and (found is None or found.text != asked):
            moved = [m for m in memory_lines(snap) if m.text == asked]
            if moved:  # the line moved (one added or removed above): not another line's question
                raise Stale(
                    f'"{asked}" is now on line {moved[0].line + 1} of {self.path}, not line '
                    f"{number + 1} (the note was edited since the question). Ask again to "
                    "remove it where it is now."
                )
        if found is None:
            raise Stale(f"line {number + 1} of {self.path} is no longer a remembered fact")
        return Described(f'Remove from your memory note: "{found.text}"?', snap.hash)

    async def describe(self, params: Mapping[str, Any], now: datetime) -> Described:
        return await asyncio.to_thread(self._read, params)

    async def run(self, params: Mapping[str, Any], seen: Described, now: datetime) -> str:
        def remove() -> None:
            snap = check_unchanged(self.settings.vault, seen.token, self.path)
            lines = list(snap.lines)
            del lines[int(params["line"])]
            write_lines(self.settings.vault, snap, lines)

        await asyncio.to_thread(remove)
        return f"Removed from {self.path}: {seen.question.split(': ', 1)[1].removesuffix('?')}."
