"""A day's conversation: an append-only JSON Lines file in the data folder, never in the vault.

A conversation never outlives its day: the first message of a new day (in the user's timezone)
starts a new file, and yesterday's questions expire with yesterday's file. Everything the page,
the CLI and the model need is folded from the events, so nothing is ever rewritten: a crash
loses at most the line being written, and each line is appended whole under a lock on the file,
whichever process (the daemon, `commonplace chat`) writes it.

Two locks, each across processes (see Conversations): `turn()` for a whole owner message, so one
turn's events follow each other; `locked()` only around reading the day to decide and writing
what was decided (an answer, a question). An answer never waits for a model: an answer given
while a turn runs is an event between that turn's events, and the turn tells the model about it
before its next call (a `model` event with `answer`: the id it heard). A turn that fails is not
sent back to the model, so the answers it heard are told after it instead.

Event types: user, reply (the checked text the owner saw, and the model's own text), model (a
message the model saw: its tool calls, tool results, reminders, answers given meanwhile),
proposal (with `source` and `client` when an outside client such as an MCP client asked for
it), answer, error.
"""

from __future__ import annotations

import asyncio
import contextlib
import fcntl
import json
import logging
import os
import secrets
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from datetime import date, datetime
from pathlib import Path
from typing import Any

from commonplace.assistant.actions import Propose
from commonplace.assistant.gate import Proposal

log = logging.getLogger(__name__)

MAX_HISTORY_CHARS = 16_000  # of earlier turns sent back to the model; the oldest go first


@dataclass
class DayState:
    """What a day's events add up to."""

    messages: list[dict[str, Any]] = field(default_factory=list)  # for the owner's view
    proposals: dict[str, Proposal] = field(default_factory=dict)
    answers: dict[str, dict[str, Any]] = field(default_factory=dict)  # id -> answer event
    turns: list[list[dict[str, Any]]] = field(default_factory=list)  # model messages per turn

    @property
    def pending(self) -> list[Proposal]:
        return [p for pid, p in self.proposals.items() if pid not in self.answers]

    def history(self, limit_chars: int = MAX_HISTORY_CHARS) -> list[dict[str, Any]]:
        """Earlier complete turns as model messages, newest kept when they do not all fit."""
        kept: list[list[dict[str, Any]]] = []
        size = 0
        for turn in reversed(self.turns):
            size += sum(len(str(m.get("content") or "")) + 40 for m in turn)
            if kept and size > limit_chars:
                break
            kept.append(turn)
        return [m for turn in reversed(kept) for m in turn]


def fold(events: list[dict[str, Any]]) -> DayState:
    state = DayState()
    turn: list[dict[str, Any]] | None = None
    questions: list[dict[str, Any]] = []  # shown under the reply of the turn that asked them
    # Answers given while a turn ran, in order, and those its model heard in it (a `model`
    # event with `answer`). A turn kept in the history carries the notes it heard; the others
    # go to the model after it. A turn dropped (it failed, or a crash cut it short) takes its
    # notes with it, so all its answers go after it: the model hears each answer once.
    answered: dict[str, dict[str, Any]] = {}
    heard: set[str] = set()

    def end_turn(kept: bool) -> None:
        state.turns.extend([note] for pid, note in answered.items() if not (kept and pid in heard))
        answered.clear()
        heard.clear()

    for event in events:
        kind = event.get("type")
        when = event.get("t", "")
        if kind == "user":
            end_turn(kept=False)  # a turn cut short by a crash: its answers are still owed
            turn = [{"role": "user", "content": event["text"]}]
            state.messages.append({"role": "user", "text": event["text"], "time": when})
        elif kind == "model" and turn is not None:
            turn.append(event["message"])
            if event.get("answer"):
                heard.add(str(event["answer"]))
        elif kind == "reply":
            state.messages.append(
                {"role": "assistant", "text": event["text"], "time": when}
                | ({"notes": event["notes"]} if event.get("notes") else {})
            )
            if turn is not None and not event.get("typed_answer"):
                turn.append({"role": "assistant", "content": event.get("model_text", "")})
                state.turns.append(turn)
                end_turn(kept=True)
            else:
                end_turn(kept=False)
            turn = None
            state.messages.extend(questions)
            questions = []
        elif kind == "error":
            state.messages.append({"role": "error", "text": event["text"], "time": when})
            state.messages.extend(questions)
            questions = []
            turn = None  # a turn that failed is not sent back to the model
            end_turn(kept=False)
        elif kind == "proposal":
            p = Proposal(
                id=event["id"],
                kind=event["kind"],
                params=event["params"],
                question=event["question"],
                day=event["day"],
                source=event.get("source", ""),
                client=event.get("client", ""),
            )
            state.proposals[p.id] = p
            question = {"role": "question", "id": p.id, "text": p.question, "time": when}
            if p.source:
                question["asked_by"] = p.asked_by
            (questions if turn is not None else state.messages).append(question)
        elif kind == "answer":
            state.answers[event["id"]] = event
            state.messages.append(
                {
                    "role": "result",
                    "id": event["id"],
                    "answer": event["answer"],
                    "ran": event["ran"],
                    "text": event["message"],
                    "time": when,
                }
            )
            # The model hears what the owner decided, so "Done" after a Yes is true.
            note = answer_note(event, state.proposals)
            if turn is None:
                state.turns.append([note])
            else:
                answered[str(event["id"])] = note
    end_turn(kept=False)  # read mid-turn: the open turn is not in the history yet
    return state


def answer_note(event: dict[str, Any], proposals: dict[str, Proposal]) -> dict[str, Any]:
    """The owner's answer as the model hears it, in its turn or the next one."""
    asked = proposals.get(event["id"])
    return {"role": "user", "content": _answer_note(event, asked.question if asked else "")}


def _answer_note(event: dict[str, Any], question: str) -> str:
    said = "Yes" if event["answer"] == "yes" else "No"
    return f"[The owner answered {said} to: {question} Result: {event['message']}]"


class DayLog:
    """One day's events; `path` None keeps them in memory (evals, tests)."""

    def __init__(self, day: date, path: Path | None) -> None:
        self.day = day
        self.path = path
        self._memory: list[dict[str, Any]] = []

    def events(self) -> list[dict[str, Any]]:
        if self.path is None:
            return list(self._memory)
        try:
            lines = self.path.read_text(encoding="utf-8").splitlines()
        except FileNotFoundError:
            return []
        events = []
        for number, line in enumerate(lines, 1):
            if not line.strip():
                continue
            try:
                events.append(json.loads(line))
            except ValueError:
                # A line cut short by a crash: skip it, keep the rest of the day.
                log.warning("%s line %d is not JSON; skipped", self.path, number)
        return events

    def state(self) -> DayState:
        return fold(self.events())

    def append(self, event: dict[str, Any], now: datetime) -> None:
        event = {"t": now.isoformat(timespec="seconds"), **event}
        if self.path is None:
            self._memory.append(event)
            return
        data = (json.dumps(event, ensure_ascii=False, default=str) + "\n").encode("utf-8")
        self.path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
        try:
            # A whole line at a time, whoever else appends (the daemon, `commonplace chat`):
            # held only for this write, so waiting for it is never waiting for a model.
            fcntl.flock(fd, fcntl.LOCK_EX)
            view = memoryview(data)
            while view:
                view = view[os.write(fd, view) :]
            os.fsync(fd)
        finally:
            os.close(fd)  # and the file lock with it


class Conversations:
    """Day logs under `<data folder>/assistant/`, or in memory when `folder` is None."""

    def __init__(self, folder: Path | None) -> None:
        self.folder = folder
        self._memory: dict[date, DayLog] = {}
        # flock is per open file, so two coroutines of one process would not exclude each
        # other with it alone: each lock is an asyncio lock here and a file lock across.
        self._turn = asyncio.Lock()
        self._decide = asyncio.Lock()

    def day(self, day: date) -> DayLog:
        if self.folder is None:
            return self._memory.setdefault(day, DayLog(day, None))
        return DayLog(day, self.folder / f"{day.isoformat()}.jsonl")

    @contextlib.asynccontextmanager
    async def turn(self) -> AsyncIterator[None]:
        """One owner message at a time, across processes (the daemon and `commonplace chat`),
        so that a turn's events follow each other. Held for a whole model turn: nothing else
        waits for it, answers and outside questions take `locked()` only."""
        async with self._turn, self._file_lock(".turn.lock"):
            yield

    @contextlib.asynccontextmanager
    async def locked(self) -> AsyncIterator[None]:
        """Across processes: read the day, decide, append, with nobody deciding in between (an
        answer is given once; a question is not asked twice). Held for that only, never
        across a model call. Not re-entrant: take it once."""
        async with self._decide, self._file_lock(".lock"):
            yield

    @contextlib.asynccontextmanager
    async def _file_lock(self, name: str) -> AsyncIterator[None]:
        """The lock is waited for in a thread, so the daemon's event loop keeps serving while
        `commonplace chat` holds it."""
        if self.folder is None:
            yield
            return
        self.folder.mkdir(parents=True, exist_ok=True)
        fd = os.open(self.folder / name, os.O_RDWR | os.O_CREAT, 0o600)
        try:
            await asyncio.to_thread(fcntl.flock, fd, fcntl.LOCK_EX)
            try:
                yield
            finally:
                fcntl.flock(fd, fcntl.LOCK_UN)
        finally:
            os.close(fd)


def proposal_day(proposal_id: str) -> date | None:
    """Proposal ids start with their day ('2026-10-26-3f9a1c'), so an old one reads as expired."""
    try:
        return date.fromisoformat(proposal_id[:10])
    except ValueError:
        return None


def asked_in_last_turn(events: list[dict[str, Any]]) -> set[str]:
    """Ids of the questions raised by the turn whose reply is the log's last event."""
    if not events or events[-1].get("type") != "reply" or events[-1].get("typed_answer"):
        return set()
    asked: set[str] = set()
    for event in reversed(events[:-1]):
        if event.get("type") == "user":
            break
        if event.get("type") == "proposal":
            asked.add(str(event["id"]))
    return asked


def asked_since_last_message(events: list[dict[str, Any]]) -> set[str]:
    """Ids of the questions asked after the owner's last message: by this turn's tools, or by
    an outside client meanwhile. The page and the terminal show them after this reply."""
    asked: set[str] = set()
    for event in reversed(events):
        if event.get("type") == "user":
            break
        if event.get("type") == "proposal":
            asked.add(str(event["id"]))
    return asked


def ran_since_last_message(events: list[dict[str, Any]]) -> bool:
    """Did a Yes run since the owner's previous message? Then "Done" is true."""
    return any(e.get("ran") for e in answers_since_last_message(events))


def answered_since_last_message(events: list[dict[str, Any]]) -> bool:
    """Was a question answered since then (a No too)? Then a change was proposed."""
    return bool(answers_since_last_message(events))


def answers_since_last_message(events: list[dict[str, Any]]) -> list[dict[str, Any]]:
    answers = []
    for event in reversed(events):
        if event.get("type") == "reply":
            break
        if event.get("type") == "answer":
            answers.append(event)
    return answers


def record_proposal(
    day_log: DayLog,
    request: Propose,
    question: str,
    now: datetime,
    source: str = "",
    client: str = "",
) -> Proposal:
    """Store a question the gate wrote; from now on it waits for the owner's Yes or No."""
    day = now.date().isoformat()
    proposal = Proposal(
        id=f"{day}-{secrets.token_hex(4)}",
        kind=request.kind,
        params=request.params,
        question=question,
        day=day,
        source=source,
        client=client,
    )
    event: dict[str, Any] = {
        "type": "proposal",
        "id": proposal.id,
        "kind": proposal.kind,
        "params": proposal.params,
        "question": proposal.question,
        "day": proposal.day,
    }
    if source:
        event |= {"source": source, "client": client}
    day_log.append(event, now)
    log.info(
        "assistant: proposed %s (%s), asked by %s", proposal.kind, proposal.id, source or "chat"
    )
    return proposal
