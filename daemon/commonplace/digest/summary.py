"""The model's few sentences above the lists: the least reliable part of the digest.

The request is built from titles, link titles and the to-dos tidying kept, never from a
capture's words (DESIGN.md principle 3): `summary_data` is the only thing that reaches the
prompt, and it is made from FiledCapture values, which carry no captured text at all. When the
model cannot answer, the digest is written without the sentences; the lists are the record.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from commonplace import prompts
from commonplace.digest.models import DigestData
from commonplace.llm import LLM, LLMError

MAX_CHARS = 900  # about four sentences; more is trimmed at a sentence end
MAX_SENTENCES = 4
MAX_ITEMS = 80  # per list sent to the model: about 2,000 tokens each at most
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+")


class DigestSummary(BaseModel):
    model_config = ConfigDict(extra="ignore")
    summary: str = Field(max_length=4000)


@dataclass(frozen=True)
class Summary:
    text: str | None  # None: no sentences this week
    problem: str = ""  # why not, in words for the note
    model_text: str = ""  # what the model wrote, before clean_summary (kept for the evals)


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
    max_items = MAX_ITEMS
    messages = summary_messages(data, max_items)
    while max_items > 5 and llm.prompt_room(messages) < 0:
        max_items //= 2
        messages = summary_messages(data, max_items)
    return messages


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
    sentences = _SENTENCE_END.split(text)[:MAX_SENTENCES]
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
    try:
        answer = await llm.chat_json(fitted_messages(llm, data), DigestSummary)
    except LLMError as exc:
        return Summary(None, f"The summary could not be written ({exc}).")
    text = clean_summary(answer.summary)
    if text is None:
        return Summary(None, "The model's summary was empty.", answer.summary)
    return Summary(text, model_text=answer.summary)
