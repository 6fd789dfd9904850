"""The owner's latest notes of one day join the search's passages (ask/recent.py)."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import date

import pytest

from commonplace.ask.models import Passage
from commonplace.ask.recent import day_query, days_meant, is_recent, recent_passages, with_recent
from commonplace.index.models import SearchResponse, SearchResult

from .helpers import hit

MONDAY = date(2026, 10, 26)


@pytest.mark.parametrize(
    ("path", "expected"),
    [
        ("captures/2026-10-23 0840.md", date(2026, 10, 23)),
        ("Inbox/2026-10-26 0700.md", MONDAY),  # written today
        ("Journal/2026-10-12.md", date(2026, 10, 12)),  # a fortnight back: still recent
        ("Journal/2026-10-11.md", None),  # older
        ("captures/2026-10-27 0900.md", None),  # after the day asked (an eval's earlier day)
        ("Projects/Switchboard Redesign.md", None),  # a note that grows: not one day's
    ],
)
def test_recent_notes_of_one_day(path: str, expected: date | None) -> None:
    assert is_recent(path, MONDAY) == expected


@pytest.mark.parametrize(
    ("question", "today", "meant"),
    [
        ("What must be done by tomorrow?", date(2026, 10, 27), {"Wednesday 28 October 2026"}),
        ("What's due this Friday?", date(2026, 10, 21), {"Friday 23 October 2026"}),
        ("How far did I run last week?", MONDAY, set()),  # a span, not a day
        ("When is the Switchboard public launch?", MONDAY, set()),
    ],
)  # fmt: skip
def test_days_the_question_means(question: str, today: date, meant: set[str]) -> None:
    assert days_meant(question, today) == meant


def test_day_query_names_the_weekday_in_every_spelling() -> None:
    words = day_query({"Wednesday 28 October 2026"}).split()
    assert {"wednesday", "wed", "weds", "tomorrow"} <= set(words)
    assert "friday" not in words
    assert day_query(set()) == ""


@dataclass
class ByMode:
    """An index answering keyword searches from its own hits, and recording the queries."""

    hybrid: Sequence[SearchResult]
    keyword: Sequence[SearchResult]
    calls: list[tuple[str, str]] = field(default_factory=list)

    async def search(
        self,
        query: str,
        *,
        limit: int,
        mode: str = "hybrid",
        exclude_folders: Sequence[str] = (),
        exclude_pages: Sequence[str] = (),
    ) -> SearchResponse:
        self.calls.append((mode, query))
        hits = self.keyword if mode == "keyword" else self.hybrid
        words = set(query.lower().replace("?", "").split())
        matching = [h for h in hits if words & set(h.text.lower().split())]
        return SearchResponse(results=matching[:limit], mode=mode, notice=None)


def passage(path: str, text: str, n: int = 1) -> Passage:
    return Passage(n=n, path=path, title=path, heading="", text=text, note_date="2026-10-01")


def test_the_newest_capture_on_the_question_joins_the_passages() -> None:
    given = [passage("Projects/Switchboard Redesign.md", "Public launch: 12 November.")]
    index = ByMode(
        hybrid=[],
        keyword=[
            hit("Projects/Switchboard Redesign.md", "public launch: 12 november."),
            hit("captures/2026-10-23 0840.md", "switchboard: launch now 26 NOV, 5% beta 18 nov."),
            hit("captures/2026-10-22 0900.md", "book launch party"),  # one word shared: no
            hit("captures/2026-09-01 0900.md", "switchboard launch party ideas"),  # too old
            hit("captures/2026-10-20 1251.md", "switchboard launch 12 nov confirmed"),
            hit("captures/2026-10-19 1315.md", "switchboard launch again"),  # past the first two
        ],
    )
    question = "When is the Switchboard launch?"
    recent = asyncio.run(recent_passages(question, index, MONDAY, given))
    assert [p.path for p in recent] == [
        "captures/2026-10-23 0840.md",
        "captures/2026-10-20 1251.md",
    ]
    assert recent[0].note_date == "2026-10-01"  # the index's date, as for any passage
    assert index.calls == [("keyword", question)]  # no day named: one search


def test_a_capture_whose_day_words_mean_the_day_asked_about_joins() -> None:
    index = ByMode(
        hybrid=[],
        keyword=[
            # Friday 23 October: "by wed" is Wednesday 28 October.
            hit("captures/2026-10-23 0840.md", "update the payment screen by wed"),
            # Wednesday 21 October: "by wed" is the 28th too ("by" a weekday is the next one).
            hit("captures/2026-10-21 1200.md", "bins out by wed"),
            # Monday 19 October: "on wed" is the 21st, not the day asked about.
            hit("captures/2026-10-19 0742.md", "chess on wed"),
        ],
    )
    question = "What do I need to have done by tomorrow?"
    recent = asyncio.run(recent_passages(question, index, date(2026, 10, 27), []))
    assert [p.path for p in recent] == [
        "captures/2026-10-23 0840.md",
        "captures/2026-10-21 1200.md",
    ]
    assert index.calls[1][0] == "keyword" and "wed" in index.calls[1][1].split()


def test_passages_already_given_are_not_added_twice() -> None:
    capture = hit("captures/2026-10-24 0952.md", "parkrun 24:48 PB")
    given = [
        Passage(1, capture.path, capture.title, "", capture.text, "2026-10-24", capture.start_line)
    ]
    index = ByMode(hybrid=[], keyword=[capture])
    assert asyncio.run(recent_passages("parkrun PB 24:48?", index, MONDAY, given)) == []


@pytest.mark.parametrize(
    ("given", "recent", "limit", "paths"),
    [
        (["a", "b", "c", "d"], ["x", "y"], 4, ["a", "b", "x", "y"]),  # in place of the last
        (["a", "b"], ["x"], 4, ["a", "b", "x"]),  # room left: added
        (["a"], ["x", "y"], 2, ["a", "x", "y"]),  # the search's best is always kept
        (["a", "b"], [], 2, ["a", "b"]),
    ],
)
def test_with_recent(given: list[str], recent: list[str], limit: int, paths: list[str]) -> None:
    out = with_recent([passage(p, p) for p in given], [passage(p, p) for p in recent], limit)
    assert [p.path for p in out] == paths
    assert [p.n for p in out] == list(range(1, len(paths) + 1))
