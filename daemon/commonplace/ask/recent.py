"""The owner's latest notes on a question, found by the program: the newest word wins.

A quick capture ("launch now 26 NOV", "parkrun 24:48!!! PB") is a few lowercase words; a long
project note says the old thing at length, in the question's own words, and outranks it in a
search by meaning (issue 43: "When is the Switchboard public launch?" had the capture that
moved the launch nowhere in its first 60 results, and the model gave the old date). The owner
wrote the capture last, so it is the one that counts. Here, besides the search's own passages,
Ask takes the notes of one day (a capture, a daily note: daywords.day_of_note) written in the
fortnight up to the day asked, that share two of the question's words (or whose day words mean
the day the question names: "by wed" written on Friday 23 October, asked "what's due
tomorrow?" on Tuesday 27th), at most a few, in place of the search's last passages; each shows
its date, and the prompt says the newest is right where passages disagree. A bigger model reads
the search's best passages plus the newest word; it can only gain.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence
from datetime import date, timedelta

from commonplace.ask.daywords import WEEKDAY_WORDS, day_of_note, day_words
from commonplace.ask.models import Passage
from commonplace.ask.passages import SearchHit, SearchIndex, iso_date
from commonplace.ask.tighten import question_words

RECENT_DAYS = 14  # how far back a note of one day is the owner's latest word
MAX_RECENT = 2  # notes of one day added for the question's words, and as many for its days
CANDIDATES = 40  # keyword results looked through
MIN_SHARED = 2  # words of the question (not function words) a note must share to be added


def recent_window(today: date) -> tuple[date, date]:
    return today - timedelta(days=RECENT_DAYS), today


def is_recent(path: str, today: date) -> date | None:
    """The day of a note of one day written in the fortnight up to `today`, else None."""
    day = day_of_note(path)
    first, last = recent_window(today)
    return day if day is not None and first <= day <= last else None


def days_meant(question: str, today: date) -> set[str]:
    """The single days the question's words mean ("tomorrow": "Wednesday 28 October 2026")."""
    return {meaning for _s, _e, meaning in day_words(question, today) if "–" not in meaning}


def day_query(meant: set[str]) -> str:
    """Keywords that find notes naming those days: their weekday in every spelling."""
    words: list[str] = []
    for meaning in sorted(meant):
        weekday = meaning.split()[0].lower()
        words += [w for w, n in WEEKDAY_WORDS.items() if n == _WEEKDAY_NUMBER.get(weekday)]
    return " ".join(dict.fromkeys([*words, "tomorrow", "today"])) if words else ""


_WEEKDAY_NUMBER = {
    "monday": 0, "tuesday": 1, "wednesday": 2, "thursday": 3, "friday": 4, "saturday": 5,
    "sunday": 6,
}  # fmt: skip


def pick(
    hits: Sequence[SearchHit],
    today: date,
    taken: set[tuple[str, int]],
    *,
    wanted: Callable[[SearchHit, date], bool] = lambda hit, day: True,
    limit: int = MAX_RECENT,
) -> list[SearchHit]:
    """The first `limit` hits that are recent notes of one day, not yet taken, and wanted."""
    out: list[SearchHit] = []
    for hit in hits:
        day = is_recent(hit.path, today)
        key = (hit.path, hit.start_line)
        if day is None or key in taken or not hit.text.strip() or not wanted(hit, day):
            continue
        taken.add(key)
        out.append(hit)
        if len(out) == limit:
            break
    return out


async def recent_passages(
    question: str,
    index: SearchIndex,
    today: date,
    given: Sequence[Passage],
    *,
    exclude_folders: Sequence[str] = (),
    exclude_pages: Sequence[str] = (),
    exclude: Callable[[str], bool] = lambda path: False,
) -> list[Passage]:
    """Recent notes of one day that the search's passages (`given`) lack: those matching the
    question's words, and those whose day words mean a day the question names."""
    taken = {(p.path, p.start_line) for p in given}

    async def search(query: str) -> list[SearchHit]:
        response = await index.search(
            query,
            limit=CANDIDATES,
            mode="keyword",
            exclude_folders=tuple(exclude_folders),
            exclude_pages=tuple(exclude_pages),
        )
        return [h for h in response.results if not exclude(h.path)]

    asked = question_words(question)

    def on_the_question(hit: SearchHit, day: date) -> bool:
        return len(asked & question_words(hit.text)) >= MIN_SHARED

    found = pick(await search(question), today, taken, wanted=on_the_question)
    meant = days_meant(question, today)
    if meant and (query := day_query(meant)):

        def names_the_day(hit: SearchHit, day: date) -> bool:
            return any(meaning in meant for _s, _e, meaning in day_words(hit.text, day))

        found += pick(await search(query), today, taken, wanted=names_the_day)
    return [
        Passage(
            n=0,
            path=h.path,
            title=h.title or h.path,
            heading=h.heading or "",
            text=h.text.strip(),
            note_date=iso_date(h.note_date),
            start_line=h.start_line,
        )
        for h in found
    ]


def with_recent(
    passages: Sequence[Passage], recent: Sequence[Passage], limit: int
) -> list[Passage]:
    """The search's passages and the recent ones, at most `limit` (the prompt stays the same
    size: the recent ones take the place of the search's last, after its others), numbered
    again from 1."""
    keep = list(passages[: max(min(len(passages), limit - len(recent)), 1)])
    return [dataclasses.replace(p, n=i) for i, p in enumerate([*keep, *recent], 1)]
