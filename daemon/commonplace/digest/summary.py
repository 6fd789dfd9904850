"""The model's few sentences above the lists: the least reliable part of the digest.

The request is built from titles, link titles and the to-dos tidying kept, never from a
capture's words (DESIGN.md principle 3): `summary_data` is the only thing that reaches the
prompt, and it is made from FiledCapture values, which carry no captured text at all. Each
sentence the model writes is then screened against the lists (screen.py), and one that claims
what they do not hold is left out. When the model cannot answer, or none of its sentences
holds, the digest is written without them; the lists are the record.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from datetime import date
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from commonplace import prompts
from commonplace.digest.models import DigestData, OpenTodo
from commonplace.digest.screen import facts_for, screen
from commonplace.digest.words import split_sentences
from commonplace.llm import LLM, LLMError

MAX_CHARS = 900  # about four sentences; more is trimmed at a sentence end
MAX_SENTENCES = 4
MAX_ITEMS = 80  # per list sent to the model: about 2,000 tokens each at most


class DigestSummary(BaseModel):
    """Two sentences, each with one job: a small model asked for "two or three sentences"
    wrote six, listing everything; one field per sentence keeps it to its two jobs."""

    model_config = ConfigDict(extra="ignore")
    week: str = Field(max_length=2000)
    todos: str = Field(default="", max_length=2000)

    @property
    def summary(self) -> str:
        return " ".join(part.strip() for part in (self.week, self.todos) if part.strip())


@dataclass(frozen=True)
class Summary:
    text: str | None  # None: no sentences this week
    problem: str = ""  # why not, in words for the note
    model_text: str = ""  # what the model wrote, before clean_summary (kept for the evals)
    left_out: tuple[tuple[str, tuple[str, ...]], ...] = ()  # (sentence, why) the screen stopped
    trimmed: bool = False  # the model wrote more than four sentences or MAX_CHARS


def sent_todos(data: DigestData, max_items: int = MAX_ITEMS) -> list[OpenTodo]:
    """The open to-dos the model is sent: those tidying kept from this week's captures,
    earliest due first (the undated last), as many as fit."""
    todos = [t for c in data.captures for t in c.kept_todos]
    return sorted(todos, key=lambda t: t.due or date.max)[:max_items]


def todos_to_name(data: DigestData, max_items: int = MAX_ITEMS) -> tuple[str, list[OpenTodo]]:
    """The to-dos the model's second sentence names, and which case that is: the overdue
    ones, else those due next week, else none ('overdue', 'next week', 'none')."""
    first, last = data.week.next_seven_days
    todos = sent_todos(data, max_items)
    overdue = [t for t in todos if t.due and t.due < first]
    if overdue:
        return "overdue", overdue
    soon = [t for t in todos if t.due and first <= t.due <= last]
    return ("next week", soon) if soon else ("none", [])


def summary_data(data: DigestData, max_items: int = MAX_ITEMS) -> dict[str, Any]:
    """Everything the model is shown: the week's count, the notes the week was mostly about
    with their captures' titles, the to-dos to name (the overdue ones, else those due next
    week: the digest's own lists, each due day in words), then the other linked notes and the
    captures' titles, days and links. What a small model gets wrong (which note is busiest,
    which to-dos are overdue) it is handed, computed; what it would only copy out (every
    other to-do) it is not sent: the lists below its sentences hold them. A busy week is cut
    to fit its context."""
    case, chosen = todos_to_name(data, max_items)
    key = {"overdue": "overdue_todos", "next week": "todos_due_next_week"}.get(case)
    named = [{"text": t.text, "due": _short(t.due), "from": t.label} for t in chosen if t.due]
    groups = {key: named} if key else {}
    busiest = mostly_about(data)
    notes = [{"title": title, "captures": len(items)} for title, items in data.groups]
    return {
        "captured_this_week": data.captured_count,
        "mostly_about": [
            {"note": title, "captures": len(items), "titles": [c.title for c in items]}
            for title, items in data.groups[: len(busiest)]
        ],
        **groups,
        "linked_notes": notes[:max_items],
        "captures": [
            {"title": c.title, "day": _short(c.captured.date()), "links": list(c.links)}
            for c in data.captures[:max_items]
        ],
    }


def mostly_about(data: DigestData, most: int = 2) -> list[str]:
    """The linked notes the week was mostly about, computed: the busiest one or two, as long
    as each has more captures than every note left out (three notes tied at the top: all
    three). "Which note had the most" is a count, and a small model miscounts."""
    counts = [len(items) for _, items in data.groups]
    if not counts:
        return []
    take = next(
        (
            n
            for n in range(min(most, len(counts)), 0, -1)
            if n == len(counts) or counts[n - 1] > counts[n]
        ),
        counts.count(counts[0]),
    )
    return [title for title, _ in data.groups[:take]]


def fitted_messages(llm: LLM, data: DigestData) -> list[dict[str, str]]:
    """The request with lists as long as the model's context holds (halved until they fit)."""
    return fitted_request(llm, data)[0]


def fitted_request(llm: LLM, data: DigestData) -> tuple[list[dict[str, str]], int]:
    """The request, and how many items per list it holds (what the screen checks against)."""
    max_items = MAX_ITEMS
    messages = summary_messages(data, max_items)
    while max_items > 5 and llm.prompt_room(messages) < 0:
        max_items //= 2
        messages = summary_messages(data, max_items)
    return messages, max_items


def answer_schema(data: DigestData, max_items: int = MAX_ITEMS) -> dict[str, Any]:
    """The answer's schema: both sentences, or only "week" when there is no to-do to name
    (asked to leave "todos" empty, Qwen2.5-Coder-1.5B invented three)."""
    schema = DigestSummary.model_json_schema()
    schema["properties"]["todos"].pop("default", None)  # the default is for reading back
    schema["required"] = ["week", "todos"]
    if todos_to_name(data, max_items)[0] == "none":
        schema["properties"] = {"week": schema["properties"]["week"]}
        schema["required"] = ["week"]
    return schema


def summary_messages(data: DigestData, max_items: int = MAX_ITEMS) -> list[dict[str, str]]:
    block = _compact_json(summary_data(data, max_items))
    case = todos_to_name(data, max_items)[0]
    lines = prompts.sections("digest_todos")
    week, (first, last) = data.week, data.week.next_seven_days
    user = prompts.render(
        "digest_user",
        number=week.number,
        monday=_day(week.monday),
        sunday=_day(week.sunday),
        next_monday=_day(first),
        next_sunday=_day(last),
        data=block,
    )
    return [
        {
            "role": "system",
            "content": prompts.render(
                "digest_system",
                sentences=lines[f"{case} sentences"],
                todos_line=lines[case],
                answer=lines[f"{case} answer"],
            ),
        },
        {"role": "user", "content": user},
    ]


def _short(day: date) -> str:
    return f"{day:%a} {day.day} {day:%b}"


def _day(day: date) -> str:
    return f"{day:%A} {day.day} {day:%B} {day.year}"


def _compact_json(value: dict[str, Any]) -> str:
    """JSON with one item per line: short for the model, still easy to read in a log.
    '<' is escaped so that no title can close the <data> fence."""

    def dump(item: Any) -> str:
        return json.dumps(item, ensure_ascii=False).replace("<", "\\u003c")

    def entry(key: str, items: Any) -> str:
        if not isinstance(items, list):
            return f"{dump(key)}: {dump(items)}"
        if not items:
            return f"{dump(key)}: []"
        return f"{dump(key)}: [\n" + ",\n".join(f"  {dump(item)}" for item in items) + "\n ]"

    return "{\n " + ",\n ".join(entry(k, v) for k, v in value.items()) + "\n}"


def flat_summary(text: str) -> str:
    """The model's paragraph on one line, without a leading "Summary:" label: what
    clean_summary keeps when it has nothing to cut."""
    text = re.sub(r"^\s*(#+\s*)?(summary|digest)\s*:\s*", "", text.strip(), flags=re.IGNORECASE)
    return " ".join(text.split())


def clean_summary(text: str) -> str | None:
    """One paragraph of at most four sentences; None when nothing usable is left."""
    text = flat_summary(text)
    if not text:
        return None
    sentences = split_sentences(text)[:MAX_SENTENCES]
    kept: list[str] = []
    for sentence in sentences:
        if kept and len(" ".join([*kept, sentence])) > MAX_CHARS:
            break
        kept.append(sentence)
    result = " ".join(kept)
    return result if len(result) <= MAX_CHARS else result[: MAX_CHARS - 1].rstrip() + "…"


async def write_summary(llm: LLM, data: DigestData) -> Summary:
    if not data.captures:
        return Summary(None, "Nothing was filed this week, so there is nothing to sum up.")
    messages, max_items = fitted_request(llm, data)
    try:
        answer = await llm.chat_json(messages, DigestSummary, schema=answer_schema(data, max_items))
    except LLMError as exc:
        return Summary(None, f"The summary could not be written ({exc}).")
    return screened(answer.summary, data, max_items, messages[-1]["content"])


def screened(model_text: str, data: DigestData, max_items: int, sent: str) -> Summary:
    """The model's paragraph with the sentences the lists do not support left out (`sent`:
    the request's data block, `max_items`: how much of each list it held)."""
    text = clean_summary(model_text)
    if text is None:
        return Summary(None, "The model's summary was empty.", model_text)
    trimmed = text != flat_summary(model_text)
    facts = facts_for(
        data,
        todos=sent_todos(data, max_items),
        captures=data.captures[:max_items],
        notes=data.groups[:max_items],
        sent=sent,
    )
    kept: list[str] = []
    left_out: list[tuple[str, tuple[str, ...]]] = []
    for sentence in split_sentences(text):
        why = screen(sentence, facts)
        if why:
            left_out.append((sentence, tuple(why)))
        else:
            kept.append(sentence)
    if not kept:
        problem = "The model's sentences said what the lists do not hold, so they are left out."
        return Summary(None, problem, model_text, tuple(left_out), trimmed)
    return Summary(" ".join(kept), "", model_text, tuple(left_out), trimmed)
