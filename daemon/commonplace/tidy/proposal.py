"""The question put to the model: a JSON schema the server enforces where it can, and the prompt.

The schema narrows what a small model can say: links are an enum of real candidate titles,
at most five tags of one simple word, and a to-do's `when` is one of the days the capture's
own words name, as those words ("by friday"), or "". The model never writes a date: the
program computes it from the words and the capture's day and time (tidy/when.py), because a
small model given a calendar still got "by Friday" wrong almost every time (issue 43).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

from commonplace import prompts
from commonplace.attachments.pictures import PictureText
from commonplace.capture.inbox import Capture
from commonplace.llm import LLM, budget
from commonplace.tidy import support, when
from commonplace.tidy.models import Candidate, Proposal, ProposalReply

MAX_TAGS = 5
PROPOSED_TAGS = 3  # asked for: a small model fills every place it is given (issue 43)
OFFERED_TAGS = 15  # the tags shown: the candidates' own, then the vault's most used
MAX_TODOS = 8
TITLE_MAX = 60
TAG_PATTERN = r"^[a-z][a-z0-9-]{0,29}$"
MIN_EXCERPT_TOKENS = 256  # even a tiny context gets the capture's first lines
_FENCE = re.compile(r"<(/?)(capture|picture_text)", re.IGNORECASE)


def proposal_schema(candidates: Sequence[Candidate], days: Sequence[str] = ()) -> dict[str, Any]:
    """The answer's schema: with no candidates, `links` can only be empty; `days` are the
    words of the days the capture names (when.offered), a to-do's only choices besides ""."""
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
                "maxItems": PROPOSED_TAGS,
            },
            "links": links,
            "todos": {
                "type": "array",
                "items": {
                    "type": "object",
                    "properties": {
                        "text": {"type": "string", "maxLength": 200},
                        "when": {"type": "string", "enum": [*days, ""]},
                    },
                    "required": ["text", "when"],
                },
                "maxItems": MAX_TODOS,
            },
        },
        "required": ["title", "tags", "links", "todos"],
    }


def days_named(capture: Capture) -> list[str]:
    """The days the owner's own words name (not a clipping's, not text addressed to an AI)."""
    return when.offered(support.owners_words(capture.body), capture.captured)


def offered_tags(
    candidates: Sequence[Candidate],
    note_tags: Mapping[str, Sequence[str]],
    top_tags: Sequence[str],
    n: int = OFFERED_TAGS,
) -> list[str]:
    """The owner's own tags to choose from: those of the notes it may link to first (the
    owner's words for those subjects), then the vault's most used."""
    out: list[str] = []
    for c in candidates:
        out += [t for t in note_tags.get(c.title.casefold(), ()) if t not in out]
    out += [t for t in top_tags if t not in out]
    return out[:n]


def candidate_line(c: Candidate, note_tags: Mapping[str, Sequence[str]]) -> str:
    tags = note_tags.get(c.title.casefold(), ())
    return f"- {c.title}" + (f" ({', '.join(tags)})" if tags else "")


def days_line(days: Sequence[str]) -> str:
    return ", ".join(f'"{d}"' for d in days) or "(none)"


def fence(text: str) -> str:
    """Keep the capture inside its fence: a `</capture>` in the text cannot close it early."""
    return _FENCE.sub(lambda m: f"<{m.group(1)}\u200b{m.group(2)}", text)


def build_messages(
    capture: Capture,
    candidates: Sequence[Candidate],
    top_tags: Sequence[str],
    *,
    body: str | None = None,
    pictures: Sequence[PictureText] = (),
    note_tags: Mapping[str, Sequence[str]] | None = None,
) -> list[dict[str, str]]:
    """The conversation for one capture; `body` replaces the capture's words (an excerpt).
    `pictures`: the text read from the pictures it embeds, each fenced apart from the words.
    `note_tags`: each note's tags by casefolded title (VaultFacts.note_tags), shown with the
    candidates and offered first."""
    note_tags = note_tags or {}
    words = capture.body if body is None else body
    user = prompts.render(
        "tidy_user",
        days=days_line(days_named(capture)),
        candidates="\n".join(candidate_line(c, note_tags) for c in candidates) or "(none)",
        tags=", ".join(offered_tags(candidates, note_tags, top_tags)) or "(none yet)",
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
    pictures: Sequence[PictureText] = (),
    note_tags: Mapping[str, Sequence[str]] | None = None,
) -> list[dict[str, str]]:
    """The conversation, with a capture too large for the model's context cut to its beginning
    and end (the filed note still holds every word: only the model sees less)."""
    frame = build_messages(
        capture, candidates, top_tags, body="", pictures=pictures, note_tags=note_tags
    )
    room = max(llm.prompt_room(frame), MIN_EXCERPT_TOKENS)
    shown = budget.excerpt(capture.body.strip("\n"), room)
    return build_messages(
        capture, candidates, top_tags, body=shown, pictures=pictures, note_tags=note_tags
    )


async def ask_model(
    llm: LLM,
    capture: Capture,
    candidates: Sequence[Candidate],
    top_tags: Sequence[str],
    pictures: Sequence[PictureText] = (),
    note_tags: Mapping[str, Sequence[str]] | None = None,
) -> Proposal:
    """One call; LLMError (including BadAnswer for garbage: not JSON, a required field missing,
    grossly out of schema) goes to the caller, who retries."""
    messages = fitted_messages(llm, capture, candidates, top_tags, pictures, note_tags)
    schema = proposal_schema(candidates, days_named(capture))
    return await llm.chat_json(messages, ProposalReply, schema=schema)
