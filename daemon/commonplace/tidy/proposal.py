"""The question put to the model: a JSON schema the server enforces where it can, and the prompt.

The schema narrows what a small model can say (links are an enum of real candidate titles,
at most five tags of one simple word, ISO dates), and the prompt gives it every date it needs,
computed here, so it never has to work out which day "Friday" is on its own.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from datetime import date, timedelta
from typing import Any

from commonplace import prompts
from commonplace.attachments.pictures import PictureText
from commonplace.capture.inbox import Capture
from commonplace.llm import LLM, budget
from commonplace.tidy.models import Candidate, Proposal, ProposalReply

MAX_TAGS = 5
MAX_TODOS = 8
TITLE_MAX = 60
TAG_PATTERN = r"^[a-z][a-z0-9-]{0,29}$"
CALENDAR_DAYS = 14
MIN_EXCERPT_TOKENS = 256  # even a tiny context gets the capture's first lines
_FENCE = re.compile(r"<(/?)(capture|picture_text)", re.IGNORECASE)


def proposal_schema(candidates: Sequence[Candidate]) -> dict[str, Any]:
    """The answer's schema: with no candidates, `links` can only be empty."""
    if candidates:
        links: dict[str, Any] = {
            "type": "array",
            "items": {"type": "string", "enum": [c.title for c in candidates]},
            "maxItems": len(candidates),
        }
    else:
        links = {"type": "array", "items": {"type": "string"}, "maxItems": 0}
    return {
        "type": "object",
        "properties": {
            "title": {"type": "string", "maxLength": TITLE_MAX},
            "tags": {
                "type": "array",
                "items": {"type": "string", "pattern": TAG_PATTERN},
                "maxItems": MAX_TAGS,
            },
            "links": links,
            "todos": {
                "type": "array",
                "items": {
                    "type": "object",
                    "properties": {
                        "text": {"type": "string", "maxLength": 200},
                        "due": {"type": "string", "format": "date"},
                    },
                    "required": ["text"],
                },
                "maxItems": MAX_TODOS,
            },
        },
        "required": ["title", "tags", "links", "todos"],
    }


def day_label(day: date) -> str:
    return f"{day.strftime('%A')} {day.isoformat()}"


def calendar_line(start: date, days: int = CALENDAR_DAYS) -> str:
    return ", ".join(
        f"{(start + timedelta(d)).strftime('%a')} {start + timedelta(d)}" for d in range(days)
    )


def fence(text: str) -> str:
    """Keep the capture inside its fence: a `</capture>` in the text cannot close it early."""
    return _FENCE.sub(lambda m: f"<{m.group(1)}\u200b{m.group(2)}", text)


def build_messages(
    capture: Capture,
    candidates: Sequence[Candidate],
    top_tags: Sequence[str],
    today: date,
    *,
    body: str | None = None,
    pictures: Sequence[PictureText] = (),
) -> list[dict[str, str]]:
    """The conversation for one capture; `body` replaces the capture's words (an excerpt).
    `pictures`: the text read from the pictures it embeds, each fenced apart from the words."""
    captured = f"{day_label(capture.day)} at {capture.captured.strftime('%H:%M')}"
    words = capture.body if body is None else body
    user = prompts.render(
        "tidy_user",
        today=day_label(today),
        captured=captured,
        calendar=calendar_line(capture.day),
        candidates="\n".join(f"- {c.title}" for c in candidates) or "(none)",
        tags=", ".join(top_tags) or "(none yet)",
        capture=fence(words.strip("\n")),
        pictures="".join(
            f'\n<picture_text name="{_attr(p.name)}">\n{fence(p.text.strip())}\n</picture_text>'
            for p in pictures
        ),
    )
    return [
        {"role": "system", "content": prompts.render("tidy_system")},
        {"role": "user", "content": user},
    ]


def _attr(value: str) -> str:
    return " ".join(value.replace('"', "'").replace("<", "‹").replace(">", "›").split())


def fitted_messages(
    llm: LLM,
    capture: Capture,
    candidates: Sequence[Candidate],
    top_tags: Sequence[str],
    today: date,
    pictures: Sequence[PictureText] = (),
) -> list[dict[str, str]]:
    """The conversation, with a capture too large for the model's context cut to its beginning
    and end (the filed note still holds every word: only the model sees less)."""
    frame = build_messages(capture, candidates, top_tags, today, body="", pictures=pictures)
    room = max(llm.prompt_room(frame), MIN_EXCERPT_TOKENS)
    shown = budget.excerpt(capture.body.strip("\n"), room)
    return build_messages(capture, candidates, top_tags, today, body=shown, pictures=pictures)


async def ask_model(
    llm: LLM,
    capture: Capture,
    candidates: Sequence[Candidate],
    top_tags: Sequence[str],
    today: date,
    pictures: Sequence[PictureText] = (),
) -> Proposal:
    """One call; LLMError (including BadAnswer for garbage: not JSON, a required field missing,
    grossly out of schema) goes to the caller, who retries."""
    messages = fitted_messages(llm, capture, candidates, top_tags, today, pictures)
    return await llm.chat_json(messages, ProposalReply, schema=proposal_schema(candidates))
