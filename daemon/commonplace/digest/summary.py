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
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from commonplace import prompts
from commonplace.digest.models import DigestData
from commonplace.digest.screen import facts_for, screen
from commonplace.digest.words import split_sentences
from commonplace.llm import LLM, LLMError

MAX_CHARS = 900  # about four sentences; more is trimmed at a sentence end
MAX_SENTENCES = 4
MAX_ITEMS = 80  # per list sent to the model: about 2,000 tokens each at most


class DigestSummary(BaseModel):
    model_config = ConfigDict(extra="ignore")
    summary: str = Field(max_length=4000)


@dataclass(frozen=True)
class Summary:
    text: str | None  # None: no sentences this week
    problem: str = ""  # why not, in words for the note
    model_text: str = ""  # what the model wrote, before clean_summary (kept for the evals)
    left_out: tuple[tuple[str, tuple[str, ...]], ...] = ()  # (sentence, why) the screen stopped
    trimmed: bool = False  # the model wrote more than four sentences or MAX_CHARS


def summary_data(data: DigestData, max_items: int = MAX_ITEMS) -> dict[str, list[Any]]:
    """Everything the model is shown: titles, days, links, counts and kept open to-dos.
    A busy week is cut to fit a small model's context; the counts stay whole."""
    counts = [{"title": title, "captures": len(items)} for title, items in data.groups]
    return {
        "captures": [
            {"title": c.title, "day": f"{c.captured:%a %d %b}", "links": list(c.links)}
            for c in data.captures[:max_items]
        ],
        "linked_notes": counts[:max_items],
        "open_todos": [
            {"text": t.text, "due": t.due.isoformat() if t.due else None, "from": c.title}
            for c in data.captures
            for t in c.kept_todos
        ][:max_items],
    }


def fitted_messages(llm: LLM, data: DigestData) -> list[dict[str, str]]:
    """The request with lists as long as the model's context holds (halved until they fit)."""
    return fitted_request(llm, data)[0]


def fitted_request(llm: LLM, data: DigestData) -> tuple[list[dict[str, str]], dict[str, Any]]:
    """The request, and the data it holds (what the sentences are screened against)."""
    max_items = MAX_ITEMS
    messages = summary_messages(data, max_items)
    while max_items > 5 and llm.prompt_room(messages) < 0:
        max_items //= 2
        messages = summary_messages(data, max_items)
    return messages, summary_data(data, max_items)


def summary_messages(data: DigestData, max_items: int = MAX_ITEMS) -> list[dict[str, str]]:
    block = _compact_json(summary_data(data, max_items))
    user = prompts.render(
        "digest_user",
        week=data.week.label,
        first=data.week.monday.isoformat(),
        last=data.week.sunday.isoformat(),
        data=block,
    )
    return [
        {"role": "system", "content": prompts.render("digest_system")},
        {"role": "user", "content": user},
    ]


def _compact_json(value: dict[str, list[Any]]) -> str:
    """JSON with one item per line: short for the model, still easy to read in a log.
    '<' is escaped so that no title can close the <data> fence."""

    def dump(item: Any) -> str:
        return json.dumps(item, ensure_ascii=False).replace("<", "\\u003c")

    parts = [
        f"{dump(key)}: [\n" + ",\n".join(f"  {dump(item)}" for item in items) + "\n ]"
        for key, items in value.items()
    ]
    return "{\n " + ",\n ".join(parts) + "\n}"


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
    messages, given = fitted_request(llm, data)
    try:
        answer = await llm.chat_json(messages, DigestSummary)
    except LLMError as exc:
        return Summary(None, f"The summary could not be written ({exc}).")
    return screened(answer.summary, data, given, messages[-1]["content"])


def screened(model_text: str, data: DigestData, given: dict[str, Any], sent: str) -> Summary:
    """The model's paragraph with the sentences the lists do not support left out."""
    text = clean_summary(model_text)
    if text is None:
        return Summary(None, "The model's summary was empty.", model_text)
    trimmed = text != flat_summary(model_text)
    facts = facts_for(data, given, sent)
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
