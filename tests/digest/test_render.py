"""The note and the notification, as written by code."""

from __future__ import annotations

from datetime import date, datetime

import pytest

from commonplace.config import Settings
from commonplace.digest import Summary, Week, collect, notification_text, render_digest
from commonplace.digest.models import DigestData, OpenTodo, TodoLists
from commonplace.digest.render import DISCLAIMER, span
from commonplace.vault import parse_note
from tests.digest.week_fixture import Filed

WRITTEN = datetime(2026, 10, 25, 18, 0)


def todo(text: str, due: date | None = None) -> OpenTodo:
    return OpenTodo(text, due, "a.md", "a", "a")


def data_with(captured: int, overdue: int, soon: int) -> DigestData:
    lists = TodoLists(
        overdue=tuple(todo(f"o{i}", date(2026, 10, 20)) for i in range(overdue)),
        next_seven_days=tuple(todo(f"s{i}", date(2026, 10, 28)) for i in range(soon)),
    )
    inbox = tuple(f"Inbox/{i}.md" for i in range(captured))
    return DigestData(Week(2026, 43), (), (), (), lists, inbox)


@pytest.mark.parametrize(
    ("counts", "text"),
    [
        (
            (20, 2, 3),
            "20 notes captured this week. To do: 2 overdue, 3 due in the next seven days.",
        ),
        ((1, 1, 1), "1 note captured this week. To do: 1 overdue, 1 due in the next seven days."),
        ((0, 0, 4), "0 notes captured this week. To do: 0 overdue, 4 due in the next seven days."),
        (
            (3, 0, 0),
            "3 notes captured this week. To do: nothing overdue or due in the next seven days.",
        ),
    ],
)
def test_notification_text(counts: tuple[int, int, int], text: str) -> None:
    assert notification_text(data_with(*counts)) == text


def test_fixture_week_notification(settings: Settings, week: list[Filed]) -> None:
    assert notification_text(collect(settings, Week(2026, 43))) == (
        "20 notes captured this week. To do: 3 overdue, 7 due in the next seven days."
    )


def test_spans() -> None:
    assert span(date(2026, 10, 19), date(2026, 10, 25)) == "19–25 October 2026"
    assert span(date(2026, 10, 26), date(2026, 11, 1)) == "26 October – 1 November 2026"
    assert span(date(2026, 12, 28), date(2027, 1, 3)) == "28 December 2026 – 3 January 2027"


def test_obsidian_note(settings: Settings, week: list[Filed]) -> None:
    data = collect(settings, Week(2026, 43))
    text = render_digest(data, Summary("A busy week for Switchboard."), "obsidian", WRITTEN)
    note = parse_note("Digests/2026-W43.md", text)
    assert note.frontmatter["digest"] == "2026-W43"
    assert note.frontmatter["overdue"] == 3 and note.frontmatter["captures"] == 20
    assert "# Week 43: 19–25 October 2026" in text
    assert text.index("A busy week for Switchboard.") < text.index(DISCLAIMER) < text.index("## ")
    assert "### [[Switchboard Redesign]] (5)" in text
    assert "- Sun 25 Oct · [[Filed/2026-10-25 0815 Long run|Long run]]" in text
    assert "### Due in the next seven days, Mon 26 Oct – Sun 1 Nov (7)" in text
    assert "- Sun 1 Nov · Plant the tulip bulbs · [[Filed/2026-10-25 1105 Garlic planted|" in text
    # The lists repeat to-dos from other notes; they must not become to-dos themselves.
    assert note.todos == ()
    for capture in data.captures:  # no captured words in the note, only titles
        assert capture.title in text


def test_no_summary_says_why_and_that_the_lists_are_the_record(
    settings: Settings, week: list[Filed]
) -> None:
    data = collect(settings, Week(2026, 43))
    text = render_digest(
        data, Summary(None, "The summary could not be written (down)."), "obsidian", WRITTEN
    )
    assert "The summary could not be written (down). The lists below are the record." in text
    assert DISCLAIMER not in text


def test_logseq_note(logseq_settings: Settings) -> None:
    from tests.digest.week_fixture import file_week

    file_week(logseq_settings)
    data = collect(logseq_settings, Week(2026, 43))
    text = render_digest(data, Summary("Short."), "logseq", WRITTEN)
    assert text.startswith("digest:: 2026-W43\nweek:: 2026-10-19 to 2026-10-25\n")
    assert "- ## Captured this week (20)\n\t- ### [[Switchboard Redesign]] (5)\n" in text
    assert "\t\t- Mon 19 Oct · [[2026-10-19 1315 Forecast strip idea]]\n" in text
    note = parse_note("pages/Digests/2026-W43.md", text, "logseq")
    assert note.frontmatter["digest"] == "2026-W43"
    assert note.todos == ()


def test_task_words_at_the_start_of_a_todo_are_made_inert() -> None:
    lists = TodoLists(undated=(todo("TODO call the bank"), todo("[ ] odd")))
    data = DigestData(Week(2026, 43), (), (), (), lists)
    for flavor in ("obsidian", "logseq"):
        text = render_digest(data, Summary(None, "x."), flavor, WRITTEN)
        assert parse_note("Digests/x.md", text, flavor).todos == ()
        assert "`TODO` call the bank" in text


def test_long_lists_are_cut_but_counted() -> None:
    lists = TodoLists(
        overdue=tuple(todo(f"late {i}", date(2026, 10, 1)) for i in range(70)),
        undated=tuple(todo(f"someday {i:02d}") for i in range(60)),
    )
    data = DigestData(Week(2026, 43), (), (), (), lists)
    text = render_digest(data, Summary(None, "x."), "obsidian", WRITTEN)
    assert "### No due date (60)" in text and "someday 49" in text and "someday 50" not in text
    assert "- … and 10 more, not listed here" in text
    assert "### Overdue (70)" in text and "late 69" in text  # overdue is never cut


def test_this_weeks_undated_todos_come_first(settings: Settings, week: list[Filed]) -> None:
    undated = collect(settings, Week(2026, 43)).todos.undated
    assert {t.text for t in undated[:3]} == {
        "Ring Mum about Christmas",
        "Learn the Caro-Kann Advance Variation properly",
        "Take the old mower to the tip",
    }
    assert not undated[3].source.startswith("Filed/")
