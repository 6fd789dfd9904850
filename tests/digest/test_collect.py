"""The digest's lists on the fixture week: grouping, and to-dos split by date in code."""

from __future__ import annotations

import dataclasses
from datetime import date

import pytest

from commonplace.config import Settings
from commonplace.digest import Week, collect
from commonplace.digest.collect import kept_todo_lines, split_todos
from commonplace.digest.models import OpenTodo
from commonplace.vault import parse_note
from tests.digest.week_fixture import Filed, file_week, filed_text, write_note

W43 = Week(2026, 43)


def texts(todos: tuple[OpenTodo, ...]) -> list[str]:
    return [t.text for t in todos]


def test_captures_are_grouped_under_the_notes_they_link_to(
    settings: Settings, week: list[Filed]
) -> None:
    data = collect(settings, W43)
    assert data.captured_count == 20 and not data.inbox
    groups = {title: [c.title for c in items] for title, items in data.groups}
    assert groups["Switchboard Redesign"] == [
        "Forecast strip idea",
        "Lunch with Zoë",
        "Launch slips again",
        "Slides for Maya",
        "Launch date fixed",
    ]
    assert groups["Running Log"] == ["Easy run on the downs", "Parkrun PB", "Long run"]
    # A capture with two links is under both; the busiest note comes first.
    assert "Slides for Maya" in groups["Maya Collins"]
    assert [title for title, _ in data.groups][:2] == ["Switchboard Redesign", "Running Log"]
    assert [c.title for c in data.unlinked] == ["Pigeon quote"]


def test_open_todos_split_from_the_end_of_the_week(settings: Settings, week: list[Filed]) -> None:
    todos = collect(settings, W43).todos
    assert texts(todos.overdue) == [
        "Send Maya the 5 research slides for the exec presentation",  # due Thu 22 Oct
        "Send Zoë the annotated checkout flows (all 3 variants, B in full detail)",
        "Order the shed roof timber from Jewson",  # Fri 23 Oct
    ]
    soon = {(t.text, t.due) for t in todos.next_seven_days}
    assert len(todos.next_seven_days) == 7
    # Across the month boundary: Sunday 1 November is the seventh day after the week.
    assert ("Plant the tulip bulbs", date(2026, 11, 1)) in soon
    assert ("Apply for passport renewal online", date(2026, 10, 31)) in soon  # a user's note
    assert all(t.due and t.due >= date(2026, 11, 2) for t in todos.later)
    assert "Book MOT and service at Gloucester Road Garage" in texts(todos.later)
    assert "Ring Mum about Christmas" in texts(todos.undated)


def test_a_ticked_todo_is_no_longer_open(settings: Settings, week: list[Filed]) -> None:
    tulips = next(f for f in week if f.title == "Garlic planted")
    path = settings.vault / tulips.path
    path.write_text(path.read_text().replace("- [ ] Plant the tulip", "- [x] Plant the tulip"))
    passport = settings.vault / "Travel/Passport.md"
    passport.write_text(passport.read_text().replace("- [ ] Apply for", "- [x] Apply for"))
    todos = collect(settings, W43).todos
    assert len(todos.next_seven_days) == 5
    assert "Plant the tulip bulbs" not in texts(todos.next_seven_days)
    assert "Apply for passport renewal online" not in texts(todos.next_seven_days)


def test_a_past_week_is_counted_from_its_own_end(settings: Settings, week: list[Filed]) -> None:
    data = collect(settings, Week(2026, 42))  # the week before the captures
    assert data.captured_count == 0
    # From Sunday 18 Oct, the 22 and 23 Oct to-dos are due in the next seven days.
    assert texts(data.todos.overdue) == []
    assert len(data.todos.next_seven_days) == 3


def test_year_boundary_split() -> None:
    def todo(day: date) -> OpenTodo:
        return OpenTodo(day.isoformat(), day, "x.md", "x", "x")

    days = [date(2026, 12, 27), date(2026, 12, 28), date(2027, 1, 3), date(2027, 1, 4), None]
    items = [todo(d) if d else OpenTodo("none", None, "x.md", "x", "x") for d in days]
    w52 = split_todos(items, Week(2026, 52))  # 21-27 Dec 2026
    assert texts(w52.overdue) == ["2026-12-27"]
    assert texts(w52.next_seven_days) == ["2026-12-28", "2027-01-03"]
    assert texts(w52.later) == ["2027-01-04"]
    assert texts(w52.undated) == ["none"]
    w53 = split_todos(items, Week(2026, 53))  # 28 Dec 2026 - 3 Jan 2027
    assert texts(w53.overdue) == ["2026-12-27", "2026-12-28", "2027-01-03"]
    assert texts(w53.next_seven_days) == ["2027-01-04"]


@pytest.mark.parametrize(
    ("zone", "captured", "in_week"),
    [
        ("Europe/London", "2026-10-25T23:59", True),  # Sunday 23:59 local
        ("Europe/London", "2026-10-26T00:00", False),  # Monday 00:00 local: next week
        ("Europe/London", "2026-10-19T00:00", True),
        ("Europe/London", "2026-10-18T23:59", False),
        ("Europe/London", "2026-10-25T23:30+00:00", True),  # 23:30 GMT is Sunday in London
        ("Europe/Berlin", "2026-10-25T23:30+00:00", False),  # ... and Monday in Berlin
        ("Pacific/Auckland", "2026-10-18T11:30+00:00", True),  # Monday 00:30 in Auckland
    ],
)
def test_timezone_edge_at_midnight(
    settings: Settings, zone: str, captured: str, in_week: bool
) -> None:
    zoned = dataclasses.replace(settings, timezone=zone)
    fields = {"captured": captured, "via": "phone"}
    text = filed_text(fields, "late night thought", ("Chess",), (), "obsidian")
    write_note(settings.vault, "Filed/2026-10-25 2359 Late thought.md", text)
    data = collect(zoned, W43)
    assert [c.title for c in data.captures] == (["Late thought"] if in_week else [])


def test_kept_todos_are_only_the_ones_after_the_words(settings: Settings) -> None:
    fields = {"captured": "2026-10-21T10:00", "via": "phone"}
    words = "shopping list\n- [ ] secret thing typed in the capture\nthat was it"
    text = filed_text(fields, words, ("Chess",), (("Kept one", date(2026, 10, 30)),), "obsidian")
    note = parse_note("Filed/2026-10-21 1000 List.md", text)
    kept = kept_todo_lines(note)
    assert [t.text for t in note.todos if t.line in kept] == ["Kept one"]
    write_note(settings.vault, note.path, text)
    data = collect(settings, W43)
    assert [t.text for t in data.captures[0].kept_todos] == ["Kept one"]
    # Both are open to-dos in the vault, so both are in the lists.
    assert "secret thing typed in the capture" in texts(data.todos.undated)


def test_digests_are_not_read_and_unfiled_captures_are_counted(
    settings: Settings, week: list[Filed]
) -> None:
    write_note(settings.vault, "Digests/2026-W42.md", "- [ ] Old digest line (due 2026-10-20)\n")
    write_note(
        settings.vault, "Inbox/2026-10-25 2200.md", "---\ncaptured: 2026-10-25T22:00\n---\nx"
    )
    data = collect(settings, W43)
    assert "Old digest line" not in texts(data.todos.overdue)
    assert data.inbox == ("Inbox/2026-10-25 2200.md",)
    assert data.captured_count == 21


def test_logseq_flavour_gives_the_same_lists(logseq_settings: Settings) -> None:
    file_week(logseq_settings)
    data = collect(logseq_settings, W43)
    assert data.captured_count == 20
    assert len(data.todos.overdue) == 3 and len(data.todos.next_seven_days) == 7
    switchboard = dict(data.groups)["Switchboard Redesign"]
    assert switchboard[0].link == "2026-10-19 1315 Forecast strip idea"  # a Logseq page name
    kept = [t.text for c in data.captures for t in c.kept_todos]
    assert "Plant the tulip bulbs" in kept and len(kept) == 11


def test_a_checkbox_ending_the_words_is_not_kept() -> None:
    fields = {"captured": "2026-10-21T10:00", "via": "phone"}
    for links, todos in [((), ()), (("Chess",), ())]:
        text = filed_text(fields, "list\n- [ ] typed by me", links, todos, "obsidian")
        note = parse_note("Filed/2026-10-21 1000 List.md", text)
        assert len(note.todos) == 1 and kept_todo_lines(note) == set()
    text = filed_text(fields, "words", (), (("Added by tidy", None),), "obsidian")
    note = parse_note("Filed/2026-10-21 1000 List.md", text)
    assert [t.text for t in note.todos if t.line in kept_todo_lines(note)] == ["Added by tidy"]


@pytest.mark.parametrize(
    ("flavor", "link"),
    [
        ("obsidian", "[[Inbox/later/2026-10-25 2200|2026-10-25 2200]]"),
        ("logseq", "[[2026-10-25 2200]]"),  # Logseq names a page by its file name alone
    ],
)
def test_captures_still_in_the_inbox_are_listed_with_working_links(
    settings: Settings, flavor: str, link: str
) -> None:
    from datetime import datetime

    from commonplace.digest.render import render_digest
    from commonplace.digest.summary import Summary

    settings = dataclasses.replace(settings, flavor=flavor)
    inbox = settings.folder("inbox")
    capture = "---\ncaptured: 2026-10-25T22:00\n---\nx"
    write_note(settings.vault, f"{inbox}/later/2026-10-25 2200.md", capture)  # a sub-folder too
    data = collect(settings, W43)
    assert data.inbox == (f"{inbox}/later/2026-10-25 2200.md",)
    text = render_digest(data, Summary("Short."), flavor, datetime(2026, 10, 25, 18, 0))
    assert link.replace("Inbox/", f"{inbox}/") in text
