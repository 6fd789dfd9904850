"""Retrieve passages for a question and lay them out, numbered and fenced, for the model.

Retrieval is the only I/O here; numbering and formatting are pure so a prompt change shows up
in a test diff. Passages from the Ask folder are left out: they hold earlier questions and the
model's own answers, and an answer that cites an answer is not a source.
"""

from __future__ import annotations

import calendar
import re
from collections.abc import Callable, Iterable, Sequence
from datetime import date
from typing import Any, Protocol

from commonplace.ask.daywords import day_of_note, mark_days
from commonplace.ask.models import Passage
from commonplace.basics.dates import day_name_year
from commonplace.vault import in_folder

MAX_PASSAGE_CHARS = 4000  # a chunk is ~400 tokens; this only guards against a huge one
_FENCE_TAG = re.compile(r"<(/?)\s*(passages?)\b", re.IGNORECASE)


class SearchHit(Protocol):
    """What the index returns per result (commonplace.index.SearchResult)."""

    @property
    def path(self) -> str: ...
    @property
    def title(self) -> str: ...
    @property
    def heading(self) -> str: ...
    @property
    def text(self) -> str: ...
    @property
    def note_date(self) -> Any: ...
    @property
    def start_line(self) -> int: ...


class SearchResponse(Protocol):
    @property
    def results(self) -> Sequence[SearchHit]: ...
    @property
    def notice(self) -> str | None: ...


class SearchIndex(Protocol):
    """commonplace.index.Index, as far as Ask uses it."""

    async def search(
        self,
        query: str,
        *,
        limit: int,
        mode: str,
        exclude_folders: Sequence[str],
        exclude_pages: Sequence[str],
    ) -> SearchResponse: ...


async def retrieve(
    question: str,
    index: SearchIndex,
    *,
    limit: int,
    exclude_folder: str = "",
    exclude_pages: Sequence[str] = (),
    exclude: Callable[[str], bool] = lambda path: False,
) -> tuple[list[Passage], str]:
    """The `limit` best passages by hybrid search, numbered from 1, and the index's notice.

    The index leaves out `exclude_folder` and what a folder can't name (`exclude_pages`:
    Logseq's Ask namespace pages, daemon_notes.ask_pages) before it cuts its results, so one
    search gives a full set however many earlier answers match the question. `exclude(path)`
    checks the results once more: citing an earlier answer is circular.
    """
    response = await index.search(
        question,
        limit=limit + 5,  # a few spare for exact duplicates (number_passages)
        mode="hybrid",
        exclude_folders=(exclude_folder,) if exclude_folder else (),
        exclude_pages=tuple(exclude_pages),
    )
    kept = [
        h
        for h in response.results
        if not (exclude_folder and in_folder(h.path, exclude_folder)) and not exclude(h.path)
    ]
    return number_passages(kept, limit), str(response.notice or "")


def number_passages(hits: Iterable[SearchHit], limit: int) -> list[Passage]:
    """Number hits [1]..[n] in rank order, dropping exact duplicates of a chunk."""
    passages: list[Passage] = []
    seen: set[tuple[str, int, str]] = set()
    for hit in hits:
        key = (hit.path, hit.start_line, hit.text)
        if key in seen or not hit.text.strip():
            continue
        seen.add(key)
        passages.append(
            Passage(
                n=len(passages) + 1,
                path=hit.path,
                title=hit.title or hit.path,
                heading=hit.heading or "",
                text=hit.text.strip()[:MAX_PASSAGE_CHARS],
                note_date=iso_date(hit.note_date),
                start_line=hit.start_line,
            )
        )
        if len(passages) == limit:
            break
    return passages


def iso_date(value: Any) -> str:
    """The index may give a date, a datetime or an ISO string; the model sees YYYY-MM-DD."""
    if not value:
        return ""
    if isinstance(value, date):
        return value.isoformat()[:10]
    text = str(value).strip()
    return text[:10] if re.match(r"\d{4}-\d{2}-\d{2}", text) else ""


def format_passages(passages: Sequence[Passage]) -> str:
    """Each passage fenced as data, labelled with its number, note, date and section.

    The note text is untrusted: it cannot close the fence (a '</passage>' inside it is
    defused), and the rules tell the model that the fence holds data, not instructions.
    The date carries its weekday, and day words in a note of one day carry their dates
    (model_text), so the model never has to work a date out.
    """
    blocks = []
    for p in passages:
        attrs = f'n="{p.n}" note="{_attr(model_title(p))}" date="{shown_date(p.note_date)}"'
        section = _section(p)
        if section:
            attrs += f' section="{_attr(section)}"'
        blocks.append(f"<passage {attrs}>\n{defuse(model_text(p))}\n</passage>")
    return "\n\n".join(blocks)


def model_text(p: Passage) -> str:
    """The passage as the model reads it: in a note of one day (a capture, a daily note), each
    relative day word followed by the date it meant that day ("by friday [Friday 30 October
    2026]"). The owner's own words are unchanged, and what is shown to the owner is p.text."""
    day = day_of_note(p.path)
    return mark_days(p.text, day) if day else p.text


_STAMP_TITLE = re.compile(r"^\d{4}[-_]\d{2}[-_]\d{2}(?:[ T_]\d{2}[:.]?\d{2})?\s*")


def model_title(p: Passage) -> str:
    """The note's title without a capture's time stamp ("2026-10-24 1430" is no time of
    anything the note says: a small model read it as the delivery's time)."""
    if day_of_note(p.path) is None:
        return p.title
    return _STAMP_TITLE.sub("", p.title).strip() or "note of that day"


def shown_date(iso: str) -> str:
    """'2026-10-24' -> 'Saturday 24 October 2026'; 'unknown' when there is none."""
    try:
        return day_name_year(date.fromisoformat(iso)) if iso else "unknown"
    except ValueError:
        return "unknown"


def _section(p: Passage) -> str:
    """The heading path without the note's own title at its start (it is in note=)."""
    parts = [h.strip() for h in p.heading.split(" > ") if h.strip()]
    if parts and parts[0] == p.title:
        parts = parts[1:]
    return " › ".join(parts)


def defuse(text: str) -> str:
    """Make passage text unable to open or close a passage fence."""
    return _FENCE_TAG.sub(lambda m: f"‹{m.group(1)}{m.group(2)}", text)


def _attr(value: str) -> str:
    return " ".join(value.replace('"', "'").replace("<", "‹").replace(">", "›").split())


def today_line(today: date) -> str:
    """'Sunday 29 November 2026 (2026-11-29)': the weekday lets "this Thursday" work."""
    weekday = calendar.day_name[today.weekday()]
    month = calendar.month_name[today.month]
    return f"{weekday} {today.day} {month} {today.year} ({today.isoformat()})"
