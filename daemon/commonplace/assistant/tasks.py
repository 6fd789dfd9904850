"""Tasks: the open to-dos of the vault, and the two changes the owner can say Yes to.

Open to-dos are read with the vault parser from the tasks note (default `Tasks.md`), the filed
notes and the owner's own notes (not the inbox, whose captures are filed with their to-dos, nor
Ask and Digest notes, which only repeat them). A task is found by words from its text, never by
a number: numbers shift when a task is ticked, words do not. A proposal pins the task to its
file and line; at Yes the line is read again and must still say the same.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import logging
import os
import re
import threading
import time
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import date, datetime, timedelta
from pathlib import PurePosixPath
from typing import Any

from commonplace.assistant.actions import Described, Propose, Stale, ToolError
from commonplace.assistant.days import day_for_model
from commonplace.assistant.registry import Param, Tool, ToolContext, as_date
from commonplace.assistant.said import without_due
from commonplace.assistant.vaultfiles import (
    appended,
    check_unchanged,
    note_path,
    read_snapshot,
    write_lines,
)
from commonplace.basics.dates import day_name_near
from commonplace.config import Settings
from commonplace.runtime.daemon_notes import classifier
from commonplace.vault import NoteSkipped, iter_note_paths, read_note
from commonplace.vault.journals import journal_names
from commonplace.vault.logseq_clock import CLOCKED, clock_out, tracking
from commonplace.vault.markdown import (
    LOGSEQ_OPEN,
    logseq_block_end,
    logseq_deadline,
    strip_due_markers,
    todo_line,
)
from commonplace.vault.markdown import todos as parse_todos
from commonplace.vault.notes import page_name

log = logging.getLogger(__name__)

MAX_LISTED = 40  # dated tasks shown by one list_tasks call
MAX_UNDATED = 15  # undated tasks shown after them
MAX_TEXT = 300  # characters in a task the assistant adds
# Words that name no particular task ("tick off the task to order timber").
_STOP = {"a", "an", "the", "to", "my", "for", "of", "on", "in", "at", "and", "or", "task"}
_STOP |= {"tasks", "todo", "to-do", "item", "off", "tick", "mark", "done", "complete", "please"}
_WORD = re.compile(r"\w+")
_OPEN_MD = re.compile(r"^(\s*[-*+] \[)[ /](\] )")
_OPEN_LOGSEQ = re.compile(rf"^(\s*- (?:#{{1,6}} )?)({'|'.join(LOGSEQ_OPEN)})( )")
BLOCK_LINES = 12  # lines after a Logseq task's first that may hold its SCHEDULED/DEADLINE
# A list marker or checkbox the model typed itself ("- [ ] Buy nails"), only with a space
# after it: "-5 kg by June" and "*Urgent*: call the bank" keep their words.
_BOX_PREFIX = re.compile(r"^\s*(?:[-*+]\s+)?(?:\[[ xX/-]?\]\s+)?")
MAX_DAYS_AHEAD = 3660
WARM_BATCH = 100  # notes read per turn by TaskReader.warm (about 30 ms here)
# How long a tool waits for the task list before it says it is still being read: under the
# assistant's tool timeout (engine.TOOL_TIMEOUT_S, 30 s), with time left for the model.
LIST_WAIT_S = 20.0


class TasksNotReady(Exception):
    """The first read of a big vault's tasks has not finished yet; it carries on meanwhile."""


@dataclass(frozen=True)
class Task:
    path: str  # vault-relative
    line: int  # 0-based line of the file
    text: str  # without checkbox and due marker
    due: date | None
    in_tasks_note: bool
    title: str = ""  # the note's title as the editor shows it (a Logseq journal's date)

    @property
    def note(self) -> str:
        return self.title or PurePosixPath(self.path).stem


def task_label(task: Task, today: date) -> str:
    """How the owner's question names a task: 'Order timber (due Friday 23 October)'."""
    if task.due is None:
        return task.text
    return f"{task.text} (due {day_name_near(task.due, today)})"


class TaskReader:
    """Open to-dos of the vault; a note is parsed again only when its size or mtime changed.

    Every call walks the vault and stats each note (an edit in Obsidian a second ago counts),
    but builds and sorts the list again only when a note changed, came or went: at 50,000
    notes a call costs a walk and a stat per note. Safe to call from several threads."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self.tasks_note = note_path(settings, settings.assistant.tasks_note)
        self._cache: dict[str, tuple[tuple[int, int], tuple[Task, ...]]] = {}
        self._sorted: list[Task] | None = None
        self._lock = threading.Lock()
        self._reading: concurrent.futures.Future[list[Task]] | None = None
        self._reading_lock = threading.Lock()

    def open_tasks_within(self, seconds: float | None = None) -> list[Task]:
        """`open_tasks`, but nobody waits past `seconds` (LIST_WAIT_S): the read runs in a
        thread of its own and, if it has not finished by then, TasksNotReady says how far it
        got while it carries on (the next call waits for the same read). At 50,000 notes a
        first read takes 15-25 s on a loaded 2-core machine; `commonplace chat` (and
        `commonplace mcp` with no daemon running) read the vault themselves, and their first
        list_tasks would otherwise pass the tool's timeout with nothing to tell the owner."""
        with self._reading_lock:
            reading = self._reading
            if reading is None or reading.done():
                reading = self._reading = concurrent.futures.Future()
                threading.Thread(
                    target=self._read_into, args=(reading,), name="task list read", daemon=True
                ).start()
        try:
            return reading.result(timeout=LIST_WAIT_S if seconds is None else seconds)
        except concurrent.futures.TimeoutError:
            raise TasksNotReady(
                f"the task list is still being read for the first time ({len(self._cache):,} "
                "notes so far; a big vault takes a while): ask again in a minute"
            ) from None

    def _read_into(self, reading: concurrent.futures.Future[list[Task]]) -> None:
        try:
            reading.set_result(self.open_tasks())
        except Exception as exc:  # handed to whoever waits
            reading.set_exception(exc)

    def open_tasks(self) -> list[Task]:
        s = self.settings
        kind_of = classifier(s)
        vault = str(s.vault)
        with self._lock:
            seen: set[str] = set()
            changed = False
            for path in iter_note_paths(s.vault):
                if kind_of(path) in _NOT_TASKS:
                    continue
                seen.add(path)
                changed |= self._refresh(vault, path)
            for gone in set(self._cache) - seen:
                del self._cache[gone]
                changed = True
            if changed or self._sorted is None:
                every = (t for _, tasks in self._cache.values() for t in tasks)
                self._sorted = sorted(every, key=_order)
            return list(self._sorted)

    def warm(
        self, stop: threading.Event | None = None, *, batch: int = WARM_BATCH, rest: float = 1.0
    ) -> bool:
        """Read every note's tasks ahead of the first list_tasks: on a big vault that first read
        is long (15-25 s at 50,000 notes on a loaded 2-core machine; the tool's timeout is 30 s).
        The daemon calls this once, in a thread of its own, after the start-up index run
        (`commonplace chat` as it starts; `commonplace mcp` too when no daemon runs). It is work
        nobody waits for, so it takes its turn: a batch of notes, then a rest as long as
        the batch took (searches and the event loop get the interpreter at least half the
        time), and a list_tasks meanwhile waits for one batch at most and reads the rest itself.
        `rest` is the rest as a share of the batch's time (0: none, for `commonplace chat`,
        where nothing else in the process needs the interpreter while the owner types).
        Returns False if `stop` was set before it finished."""
        stop = stop or threading.Event()
        s = self.settings
        kind_of = classifier(s)
        vault = str(s.vault)
        paths = [p for p in iter_note_paths(s.vault) if kind_of(p) not in _NOT_TASKS]
        for i in range(0, len(paths), batch):
            if stop.is_set():
                return False
            started = time.perf_counter()
            with self._lock:
                if any([self._refresh(vault, path) for path in paths[i : i + batch]]):
                    self._sorted = None  # built by the next open_tasks
            if stop.wait((time.perf_counter() - started) * rest):  # wait(0): no rest
                return False
        return True

    def _refresh(self, vault: str, path: str) -> bool:
        """Read the note's tasks again if it changed; True if they were read again."""
        try:
            stat = os.stat(f"{vault}/{path}")  # noqa: PTH116 (pathlib doubles the cost per note)
        except OSError:
            stat = None
        key = (stat.st_mtime_ns, stat.st_size) if stat is not None else (-1, -1)
        hit = self._cache.get(path)
        if hit is not None and hit[0] == key:
            return False
        tasks: tuple[Task, ...] = ()
        if stat is not None:
            try:
                limit = self.settings.index.max_note_kb * 1024
                note = read_note(self.settings.vault, path, self.settings.flavor, limit)
            except NoteSkipped:
                pass
            else:
                in_tasks = path == self.tasks_note
                tasks = tuple(
                    Task(path, t.line, t.text, t.due, in_tasks, note.title)
                    for t in note.todos
                    if not t.done and t.text
                )
        self._cache[path] = (key, tasks)
        return True


def warm_in_background(reader: TaskReader, *, rest: float = 1.0) -> threading.Event:
    """Start `reader.warm` in a thread of its own (never one of the pool's, which searches
    use); set the returned event to stop it early."""
    stop = threading.Event()

    def run() -> None:
        started = time.perf_counter()
        try:
            done = reader.warm(stop, rest=rest)
        except Exception:
            log.exception("task list: reading ahead failed; list_tasks reads it when asked")
            return
        if done:
            log.info("task list read ahead in %.1f s", time.perf_counter() - started)

    threading.Thread(target=run, name="task list read-ahead", daemon=True).start()
    return stop


_NOT_TASKS = ("inbox", "ask", "digests")  # captures are filed with their to-dos; the rest repeat


def _order(task: Task) -> tuple[int, date, bool, str, int]:
    return (task.due is None, task.due or date.max, not task.in_tasks_note, task.path, task.line)


def words_of(text: str) -> list[str]:
    return [w for w in _WORD.findall(text.casefold()) if w not in _STOP]


def matches(query: list[str], text: str, *, loose: bool = False) -> bool:
    """Every query word starts a word of the text ('order' finds 'ordered'); `loose` also lets
    a text word start a query word ('renewal' finds 'renew'), for when nothing matches closely."""
    words = _WORD.findall(text.casefold())

    def found(q: str) -> bool:
        return any(w.startswith(q) or (loose and len(w) > 3 and q.startswith(w)) for w in words)

    return all(found(q) for q in query)


def in_note(task: Task, note: str) -> bool:
    """The note the owner (or the model) named is the task's: its title as the editor shows
    it, its file name, or its path, with or without `.md`; or, failing those, words that all
    start words of its title or path ('car' for Areas/Car.md)."""
    named = note.strip().casefold().removesuffix(".md")
    path = task.path.casefold().removesuffix(".md")
    if named in (task.note.casefold(), path, PurePosixPath(path).name):
        return True
    words = _WORD.findall(named)
    return bool(words) and (matches(words, task.note) or matches(words, task.path))


def where_label(task: Task, today: date) -> str:
    """A task as a list of look-alikes names it: with its note, the only thing that differs."""
    return f'"{task_label(task, today)}" in the note "{task.note}"'


def find_task(tasks: list[Task], words: str, today: date, note: str = "") -> Task:
    """The one open task the words name (in the note `note` names, if given); ToolError (for
    the model) when none or several do. The same words in two notes are told apart only by
    the note, so the error then names each one's note and asks for `note`."""
    if note.strip():
        tasks = [t for t in tasks if in_note(t, note)]
        if not tasks:
            raise ToolError(
                f"no note {note!r} has open tasks. Call list_tasks to see which note each task "
                "is in."
            )
    query = words_of(words)
    if not query:
        raise ToolError("say which task, with words from its text")
    if all(w.isdigit() for w in query):
        raise ToolError(
            f"{words!r} is a number; name the task with words from its text (numbers change "
            "as tasks are ticked off)"
        )
    hits = (
        [t for t in tasks if words_of(t.text) == query]
        or [t for t in tasks if matches(query, t.text)]
        or [t for t in tasks if matches(query, t.text, loose=True)]
    )
    if not hits:
        raise ToolError(
            f"no open task matches {words!r}. Call list_tasks to see the open tasks, then use "
            "words from the one the owner means."
        )
    if len({(t.path, t.text, t.due) for t in hits}) == 1:
        return hits[0]  # the same line twice in one note: no words could tell them apart
    if len(hits) > 1:
        shown = "; ".join(where_label(t, today) for t in hits[:5])
        if len({t.text for t in hits}) == 1 and len({t.path for t in hits}) > 1:
            # the same words (due dates aside) in several notes: only the note tells them apart
            raise ToolError(
                f"several open tasks match {words!r}, with the same words in different notes: "
                f"{shown}. Ask the owner which note, then call again with 'note'."
            )
        raise ToolError(
            f"several open tasks match {words!r}: {shown}. Call again with more words from "
            "the one the owner means, or with 'note' naming its note."
        )
    return hits[0]


def describe_for_model(task: Task, today: date) -> str:
    where = "in the tasks note" if task.in_tasks_note else f'in the note "{task.note}"'
    if task.due is None:
        return f'- "{task.text}", no due date, {where}'
    state = "overdue, was due" if task.due < today else "due"
    return f'- "{task.text}", {state} {day_for_model(task.due, today)}, {where}'


def list_text(tasks: list[Task], today: date, within: int | None, words: str) -> str:
    """The open tasks as the model reads them: by due date, dates that cannot be misread."""
    if words:
        query = words_of(words)
        close = [t for t in tasks if matches(query, t.text)]
        tasks = (
            (close or [t for t in tasks if matches(query, t.text, loose=True)]) if query else tasks
        )
    dated = [t for t in tasks if t.due is not None]
    if within is not None:
        dated = [t for t in dated if t.due is not None and t.due <= today + timedelta(within)]
    undated = [] if within is not None else [t for t in tasks if t.due is None]
    head = f"Open tasks, today being {day_for_model(today, today)}"
    head += f", due within {within} days" if within is not None else ""
    head += f", matching {words!r}" if words else ""
    if not dated and not undated:
        return head + ": none."
    lines = [head + ":"]
    lines += [describe_for_model(t, today) for t in dated[:MAX_LISTED]]
    if len(dated) > MAX_LISTED:
        lines.append("More tasks are due later; ask with words from one to find it.")
    if undated:
        lines.append("With no due date:")
        lines += [describe_for_model(t, today) for t in undated[:MAX_UNDATED]]
        if len(undated) > MAX_UNDATED:
            lines.append(
                "More tasks with no due date are in the notes; ask with words to find one."
            )
    return "\n".join(lines)


def todo_block(text: str, due: date | None, settings: Settings) -> list[str]:
    """A new to-do as the vault writes them: a Logseq TODO block, or a Markdown checkbox in the
    configured due-date format (the same one tidy uses)."""
    if settings.flavor == "logseq":
        marker = journal_names(settings.vault).task_marker  # LATER or TODO, as Logseq would
        return [f"- {marker} {text}"] + ([f"  {logseq_deadline(due)}"] if due else [])
    return [todo_line(text, due, settings.tidy.todo_format)]


def clean_task_text(text: str) -> str:
    """The words of a task the model wants added: one line, no checkbox it typed itself."""
    one_line = " ".join(text.split())
    # A due date inside the words would be read back as the task's due date, past the checks
    # on the `due` argument: the argument is the only way to give one.
    cleaned = " ".join(strip_due_markers(_BOX_PREFIX.sub("", one_line, count=1)).split())
    if not cleaned:
        raise ToolError("the task has no words")
    if len(cleaned) > MAX_TEXT:
        raise ToolError(f"the task is longer than {MAX_TEXT} characters; shorten it")
    return cleaned


# --- the tools --------------------------------------------------------------------------------


def task_tools(settings: Settings, reader: TaskReader) -> list[Tool]:
    async def open_tasks() -> list[Task]:
        try:
            return await asyncio.to_thread(reader.open_tasks_within)
        except TasksNotReady as exc:
            raise ToolError(f"{exc}. Tell the owner so.") from None

    async def list_tasks(ctx: ToolContext, args: dict[str, Any]) -> str:
        tasks = await open_tasks()
        within = args["due_within_days"]
        if within is not None and not 0 <= within <= MAX_DAYS_AHEAD:
            raise ToolError(f"'due_within_days' must be 0 to {MAX_DAYS_AHEAD}")
        return list_text(tasks, ctx.today, within, args["words"])

    async def add_task(ctx: ToolContext, args: dict[str, Any]) -> Propose:
        text = clean_task_text(without_due(args["text"], ctx.now))
        due: date | None = args["due"]
        if due is not None and not ctx.today <= due <= ctx.today + timedelta(days=366):
            raise ToolError(
                f"the due date {due.isoformat()} must be between today and a year from now"
            )
        return Propose("add_task", {"text": text, "due": due.isoformat() if due else None})

    async def complete_task(ctx: ToolContext, args: dict[str, Any]) -> Propose:
        tasks = await open_tasks()
        task = find_task(tasks, args["task"], ctx.today, args["note"])
        params: dict[str, Any] = {"path": task.path, "line": task.line, "text": task.text}
        if any(t.text == task.text and t.path != task.path for t in tasks):
            params["name_note"] = True  # the same words elsewhere: the question names its note
        return Propose("complete_task", params)

    return [
        Tool(
            "list_tasks",
            "Call when the owner asks what to do, what is due or overdue, or about a task.",
            (
                Param(
                    "due_within_days",
                    "integer",
                    "only tasks due within this many days",
                    None,
                    said="within",
                ),
                Param("words", "string", "only tasks with these words", ""),
            ),
            list_tasks,
            looks_at="tasks",
            searches_ahead=True,
            status="Looking at your tasks…",
        ),
        Tool(
            "add_task",
            "Call when the owner asks to add a task or a to-do (the owner is asked to confirm).",
            (
                Param("text", "string", "the task, in the owner's words"),
                Param("due", "date", "the due date, if the owner gave one", None, said="due"),
            ),
            add_task,
            looks_at="tasks",
            changes=True,
        ),
        Tool(
            "complete_task",
            "Call when the owner says a task is done or asks to tick it off (the owner is "
            "asked to confirm).",
            (
                Param("task", "string", "words from the task's text"),
                Param("note", "string", "the note the task is in, if several notes have it", ""),
            ),
            complete_task,
            looks_at="tasks",
            changes=True,
        ),
    ]


# --- the actions (run only by the gate, after Yes) --------------------------------------------


@dataclass
class CompleteTask:
    """Tick off exactly one line: the one the question was written from."""

    settings: Settings
    kind: str = "complete_task"

    def _read(self, params: Mapping[str, Any], now: datetime) -> tuple[Described, str]:
        path, number = str(params["path"]), int(params["line"])
        snap = read_snapshot(self.settings.vault, path)
        if not snap.exists:
            raise Stale(f"{path} no longer exists")
        line = snap.line(number)
        if line is None:
            raise Stale(f"{path} no longer has a line {number + 1}")
        # A Logseq task's SCHEDULED and DEADLINE sit on the lines after it, in its block.
        block = [line + "\n", *snap.lines[number + 1 : number + 1 + BLOCK_LINES]]
        todos = [t for t in parse_todos("".join(block)) if t.line == 0]
        asked = params.get("text")  # the task's words when the question was asked
        if asked is not None and (not todos or todos[0].text != asked):
            moved = [t for t in parse_todos("".join(snap.lines)) if t.text == asked and not t.done]
            if moved:  # the line moved (one added or removed above): not another task's question
                raise Stale(
                    f'"{asked}" is now on line {moved[0].line + 1} of {path}, not line '
                    f"{number + 1} (the note was edited since the question). Ask again to tick "
                    "it off where it is now."
                )
        if not todos:
            raise Stale(
                f'line {number + 1} of {path} is no longer a task: it reads "{line.strip()}"'
            )
        todo = todos[0]
        tasks_note = note_path(self.settings, self.settings.assistant.tasks_note)
        title = page_name(self.settings.vault, path, self.settings.flavor)
        task = Task(path, number, todo.text, todo.due, path == tasks_note, title)
        if todo.done:
            raise Stale(f'"{task_label(task, now.date())}" is already ticked off')
        if todo.repeats:
            raise Stale(
                f'"{task_label(task, now.date())}" repeats ({todo.repeats}): tick it off in '
                "Logseq, which moves it to its next date. Marked DONE here, it would stop "
                "repeating, so it is left as it is"
            )
        question = f'Tick off "{task_label(task, now.date())}"'
        if not task.in_tasks_note or params.get("name_note"):
            question += f' in the note "{task.note}"'
        return Described(question + "?", snap.hash), line

    async def describe(self, params: Mapping[str, Any], now: datetime) -> Described:
        described, _ = await asyncio.to_thread(self._read, params, now)
        return described

    async def run(self, params: Mapping[str, Any], seen: Described, now: datetime) -> str:
        def tick() -> str:
            path, number = str(params["path"]), int(params["line"])
            snap = check_unchanged(self.settings.vault, seen.token, path)
            old = snap.lines[number]
            new = _OPEN_MD.sub(r"\1x\2", old, count=1)
            logseq = _OPEN_LOGSEQ.match(old) if new == old else None
            if logseq is not None:
                new = _OPEN_LOGSEQ.sub(r"\1DONE\3", old, count=1)
            if new == old:
                raise Stale(f"line {number + 1} of {path} is not a box that can be ticked")
            lines = list(snap.lines)
            lines[number] = new
            if logseq is not None and logseq.group(2) in CLOCKED:
                self._stop_clock(lines, number, now)
            write_lines(self.settings.vault, snap, lines)
            return seen.question.removeprefix("Tick off ").removesuffix("?")

        what = await asyncio.to_thread(tick)
        return f"Ticked off {what}."

    def _stop_clock(self, lines: list[str], number: int, now: datetime) -> None:
        """A NOW or DOING task's running clock, closed as Logseq closes it when the task is
        done (vault/logseq_clock.py), when the graph tracks time."""
        settings = tracking(self.settings.vault)
        if not settings.enabled:
            return
        end = logseq_block_end([ln.rstrip("\r\n") for ln in lines], number)
        closed = clock_out(lines[number:end], now.astimezone(self.settings.tz), settings.seconds)
        if closed is not None:
            lines[number + closed[0]] = closed[1]


@dataclass
class AddTask:
    """Add one to-do at the end of the tasks note (created if it does not exist yet)."""

    settings: Settings
    kind: str = "add_task"

    @property
    def path(self) -> str:
        return note_path(self.settings, self.settings.assistant.tasks_note)

    def _read(self, params: Mapping[str, Any], now: datetime) -> Described:
        text = clean_task_text(str(params["text"]))
        due = as_date(params["due"]) if params.get("due") else None
        snap = read_snapshot(self.settings.vault, self.path)
        existing = parse_todos("".join(snap.lines))
        if any(not t.done and t.text.casefold() == text.casefold() for t in existing):
            raise Stale(f'"{text}" is already an open task in {self.path}')
        task = Task(self.path, -1, text, due, True)
        return Described(
            f'Add the task "{task_label(task, now.date())}" to {self.path}?', snap.hash
        )

    async def describe(self, params: Mapping[str, Any], now: datetime) -> Described:
        return await asyncio.to_thread(self._read, params, now)

    async def run(self, params: Mapping[str, Any], seen: Described, now: datetime) -> str:
        def add() -> None:
            snap = check_unchanged(self.settings.vault, seen.token, self.path)
            text = clean_task_text(str(params["text"]))
            due = as_date(params["due"]) if params.get("due") else None
            write_lines(
                self.settings.vault,
                snap,
                appended(snap, todo_block(text, due, self.settings)),
            )

        await asyncio.to_thread(add)
        added = seen.question.removeprefix("Add the task ").removesuffix("?")
        return f"Added {added}."
