"""Ask one question: retrieve passages, ask the model, check what it said.

Each question is a fresh conversation (system rules + one user message); nothing from an
earlier question reaches the model. `answer_question` returns the checked Answer;
`stream_answer` yields safe preview text as it arrives and then the same checked Answer, which
is authoritative: a client replaces the preview with `Answer.answer` when it arrives.
"""

from __future__ import annotations

import contextlib
import dataclasses
import re
from collections.abc import AsyncGenerator
from datetime import date, datetime
from typing import Any

from commonplace import prompts
from commonplace.ask.citations import check_answer, sanitize
from commonplace.ask.daywords import question_days
from commonplace.ask.models import REFUSAL, Answer, Passage
from commonplace.ask.passages import SearchIndex, format_passages, retrieve, today_line
from commonplace.ask.recent import recent_passages, with_recent
from commonplace.ask.support import Checker, FactGate
from commonplace.ask.tighten import tighten_all
from commonplace.config import Settings
from commonplace.llm import LLM, StreamEnd
from commonplace.runtime.daemon_notes import ask_pages, ask_rule, daemon_folder_of

MAX_QUESTION_CHARS = 2000
SEARCH_NOTE = "Search: "  # a finding about the search (keywords only), not about the answer
NO_PASSAGES = "Search found no passages in your notes for this question."
# A reply stopped before its end (the length limit, or the server never said done): what the
# model wrote is kept, and the reader is told the rest is missing rather than left to guess.
CUT_OFF = (
    "The answer was cut off before its end (the model's length limit, or its server stopped it); "
    "ask again, or a narrower question."
)


class AskError(ValueError):
    """The question cannot be asked as given; the message says why."""


def build_messages(question: str, passages: list[Passage], today: date) -> list[dict[str, Any]]:
    """The whole conversation for one question: the rules (the same for every question, so
    the engine keeps them in its prompt cache), then today, the passages and the question with
    the days its words mean."""
    days = question_days(question, today)
    user = prompts.render(
        "ask_user",
        today=today_line(today),
        passages=format_passages(passages),
        question=" ".join(question.split()),
        days=f"\n{days}" if days else "",
    )
    return [
        {"role": "system", "content": prompts.render("ask_system").strip()},
        {"role": "user", "content": user},
    ]


def context_for(question: str, today: date) -> str:
    """What the model is told besides the passages that may back a fact: today, the days."""
    return f"{today_line(today)}\n{question_days(question, today)}"


def given(
    passages: list[Passage], question: str, settings: Settings, today: date | None = None
) -> list[Passage]:
    """What the model reads: the best passages in the search's order, each cut to the lines
    the question is about (tighten.py), numbered again from [1]. Not newest first: with the
    notes of one day first, the small model read an unrelated capture first and refused or
    answered from it (the crumble's oven temperature, the last check-up: 5 of 7 such answers
    came back in the search's order, docs/measurements/small-model-ask.md). A note dated after
    the day asked (a file's modification time) is shown with no date."""
    tight = tighten_all(passages, question, settings.ask.passage_chars)
    if today is not None:
        last = today.isoformat()
        tight = [p if p.note_date <= last else dataclasses.replace(p, note_date="") for p in tight]
    return [dataclasses.replace(p, n=i) for i, p in enumerate(tight, 1)]


def fitted_messages(
    llm: LLM, question: str, passages: list[Passage], today: date
) -> tuple[list[dict[str, Any]], list[Passage]]:
    """The conversation with as many of the passages as the model's context holds: past it,
    the server would cut the prompt and the rules at its top would be lost first. The last
    passages go first: the search's least likely."""
    messages = build_messages(question, passages, today)
    while len(passages) > 1 and llm.prompt_room(messages) < 0:
        passages = passages[:-1]
        messages = build_messages(question, passages, today)
    return messages, passages


def clean_question(question: str) -> str:
    text = " ".join(question.split())
    if not text:
        raise AskError("The question is empty; type what you want to know.")
    if len(text) > MAX_QUESTION_CHARS:
        raise AskError(
            f"The question is {len(text)} characters; keep it under {MAX_QUESTION_CHARS}."
        )
    return text


def local_today(settings: Settings) -> date:
    """Today in the user's timezone: 'this Thursday' means the user's Thursday."""
    return datetime.now(settings.tz).date()


async def _prepare(
    question: str, index: SearchIndex, settings: Settings, today: date | None
) -> tuple[str, list[Passage], list[str], date]:
    question = clean_question(question)
    day = today or local_today(settings)
    folder = settings.folder("ask")
    exclude_folders = (folder,) if folder else ()
    exclude_pages = ask_pages(*ask_rule(settings))

    def exclude(path: str) -> bool:
        return daemon_folder_of(path, settings) == "ask"

    passages, notice = await retrieve(
        question,
        index,
        limit=settings.ask.passages,
        exclude_folder=folder,
        exclude_pages=exclude_pages,
        exclude=exclude,
    )
    if passages:  # none: the search found nothing, and the answer says so
        recent = await recent_passages(
            question,
            index,
            day,
            passages,
            exclude_folders=exclude_folders,
            exclude_pages=exclude_pages,
            exclude=exclude,
        )
        passages = with_recent(passages, recent, settings.ask.passages)
    notes = [f"{SEARCH_NOTE}{notice}"] if notice else []
    return question, passages, notes, day


async def answer_question(
    question: str,
    *,
    index: SearchIndex,
    llm: LLM,
    settings: Settings,
    today: date | None = None,
) -> Answer:
    """Answer from the notes, with the program's checks. Raises LLMError if the model fails."""
    question, passages, notes, day = await _prepare(question, index, settings, today)
    if not passages:
        return check_answer(question, REFUSAL, passages, notes=[*notes, NO_PASSAGES])
    messages, passages = fitted_messages(
        llm, question, given(passages, question, settings, day), day
    )
    reply = await llm.chat(messages)
    notes = [*notes, CUT_OFF] if reply.cut else notes
    return check_answer(
        question,
        reply.raw,
        passages,
        source_chars=settings.ask.source_chars,
        notes=notes,
        context=context_for(question, day),
    )


async def stream_answer(
    question: str,
    *,
    index: SearchIndex,
    llm: LLM,
    settings: Settings,
    today: date | None = None,
) -> AsyncGenerator[str | Answer, None]:
    """Yield preview text pieces (already safe to render), then the checked Answer last."""
    question, passages, notes, day = await _prepare(question, index, settings, today)
    if not passages:
        yield REFUSAL
        yield check_answer(question, REFUSAL, passages, notes=[*notes, NO_PASSAGES])
        return
    safe = SafeStream()
    parts: list[str] = []
    messages, passages = fitted_messages(
        llm, question, given(passages, question, settings, day), day
    )
    context = context_for(question, day)
    gate = FactGate(Checker(passages, question, context))
    # Closed with this generator: a page that goes away frees the model at once.
    end = StreamEnd()
    async with contextlib.aclosing(llm.chat_stream(messages, end=end)) as pieces:
        async for piece in pieces:
            parts.append(piece)
            if out := safe.feed(gate.feed(piece)):
                yield out
    if out := safe.feed(gate.flush()) + safe.flush():
        yield out
    notes = [*notes, CUT_OFF] if end.cut else notes
    yield check_answer(
        question,
        "".join(parts),
        passages,
        source_chars=settings.ask.source_chars,
        notes=notes,
        context=context,
    )


_RISKY_LINE = re.compile(r"!\[|\{\{|<|^\s*(?:>\s*)*[`~]")


class SafeStream:
    """Release streamed text only in pieces that `sanitize` can judge on their own.

    The current line is held back while it may hold the start of an image, embed, macro, tag
    or code fence, and released (sanitized) when it ends; other text passes at once. Each
    released piece is safe by itself, and no construct can be completed across two pieces,
    because a line with a risky start is never split.
    """

    def __init__(self) -> None:
        self._pending = ""

    def feed(self, piece: str) -> str:
        self._pending += piece
        last_break = self._pending.rfind("\n") + 1
        line = self._pending[last_break:]
        cut = len(self._pending)
        if _RISKY_LINE.search(line) or line.endswith(("!", "{")):
            cut = last_break
        out, self._pending = self._pending[:cut], self._pending[cut:]
        return sanitize(out)[0] if out else ""

    def flush(self) -> str:
        out, self._pending = self._pending, ""
        return sanitize(out)[0] if out else ""
