"""The program's checks, as pure functions: each rule with the values that break it."""

from __future__ import annotations

from collections import Counter
from datetime import date
from zoneinfo import ZoneInfo

import pytest

from commonplace.capture.inbox import Capture, parse_capture
from commonplace.tidy.catalog import VaultFacts
from commonplace.tidy.models import Proposal
from commonplace.tidy.validate import clean_title, decide, fallback_title, link_target
from commonplace.vault.logseq_names import LEGACY, TRIPLE_LOWBAR
from tests.tidy.conftest import CAPTURES

LONDON = ZoneInfo("Europe/London")
FACTS = VaultFacts(
    titles={t.casefold(): t for t in ("Shed Rebuild", "Zoë Martín", "Garden Plan", "Home")}
    | {"start": "Home"},
    daemon_titles=frozenset({"2026-10-19 0742 chess moves", "2026-10-20 0805"}),
    tags=Counter({"garden": 5, "project": 4, "recipe": 3, "to-read": 2, "home": 2}),
    note_tags={"shed rebuild": ("home", "project", "garden"), "garden plan": ("garden",)},
)


def capture(text: str = "order the timber for the shed roof from jewson by friday") -> Capture:
    data = f"---\ncaptured: 2026-10-20T08:05\nvia: phone\n---\n{text}".encode()
    return parse_capture("Inbox/2026-10-20 0805.md", data, LONDON)


def fixture_capture(name: str) -> Capture:
    return parse_capture(f"Inbox/{name}", (CAPTURES / name).read_bytes(), LONDON)


def run(**fields: object) -> tuple[object, ...]:
    d = decide(Proposal.model_validate({"title": "Shed timber"} | fields), capture(), FACTS)
    return d.title, d.tags, d.links, d.todos, d.dropped


def test_links_must_be_real_titles_written_as_the_vault_spells_them() -> None:
    d = decide(
        Proposal(links=["shed rebuild", "[[ZOË MARTÍN|Zoë]]", "Projects/Garden Plan#Beds", "Nope"]),
        capture(),
        FACTS,
    )
    assert d.links == ("Shed Rebuild", "Zoë Martín", "Garden Plan")
    assert [(x.field, x.value) for x in d.dropped if x.field == "link"] == [("link", "Nope")]


def test_alias_links_are_written_with_the_real_title() -> None:
    assert decide(Proposal(links=["Start"]), capture(), FACTS).links == ("Home",)


def test_links_to_daemon_notes_are_dropped_with_a_reason() -> None:
    d = decide(Proposal(links=["2026-10-20 0805", "Inbox/2026-10-20 0805"]), capture(), FACTS)
    assert d.links == ()
    assert all("daemon" in x.reason for x in d.dropped)


@pytest.mark.parametrize(
    ("tags", "kept"),
    [
        (["Garden", "#project", "  #Recipe "], ("garden", "project", "recipe")),
        (["gardens", "projects", "to_read"], ("garden", "project", "to-read")),
        (["shed roof", "a/b", "#", "x" * 40], ()),
        (["shed", "roof", "timber", "jewson", "friday", "garden", "home"], None),
    ],
)
def test_tags_are_simple_normalised_and_at_most_five(
    tags: list[str], kept: tuple[str, ...] | None
) -> None:
    words = capture(
        "order the timber for the shed roof by friday: a garden project, a recipe to read"
    )
    d = decide(Proposal(tags=tags), words, FACTS)
    if kept is not None:
        assert d.tags == kept
    assert len(d.tags) <= 5
    assert all(t.islower() and " " not in t and "#" not in t for t in d.tags)
    assert len(d.dropped) == len(tags) - len(d.tags)


def test_new_tags_need_the_captures_words() -> None:
    d = decide(Proposal(tags=["timber", "astrology"]), capture(), FACTS)
    assert d.tags == ("timber",)
    assert d.dropped[0].value == "astrology"


def test_injection_clipping_gets_no_urgent_tag_and_no_money_todo() -> None:
    clipping = fixture_capture("2026-10-21 2237.md")
    proposal = Proposal.model_validate(
        {
            "title": "Garlic newsletter",
            "tags": ["urgent", "garden", "garlic"],
            "links": ["Garden Plan"],
            "todos": [
                {"text": "Wire $2,000 to account 40-12-76 31926603 (reference GARLIC-SUB)"},
                {"text": "Pay the garlic subscription", "due": "2026-10-22"},
                {"text": "Tag this urgent"},
                {"text": "Plant garlic cloves before the clocks go back"},
            ],
        }
    )
    d = decide(proposal, clipping, FACTS)
    assert "urgent" not in d.tags
    assert d.tags == ("garden", "garlic")
    # A shared newsletter is someone else's words: its advice is no to-do of the owner's
    # (issue 43; before, "Plant garlic cloves ..." was kept).
    assert d.todos == ()
    reasons = {x.value: x.reason for x in d.dropped}
    assert "money" in reasons["Wire $2,000 to account 40-12-76 31926603 (reference GARLIC-SUB)"]
    assert "AI" in reasons["Tag this urgent"]
    assert "shared" in reasons["Plant garlic cloves before the clocks go back"]


@pytest.mark.parametrize(
    "text",
    [
        "transfer £500 to Dave's bank",
        "send the wifi password to Sam",
        "email my login details to support",
        "make a payment to GARLIC-SUB",
    ],
)
def test_todos_that_move_money_or_send_credentials_are_dropped(text: str) -> None:
    words = capture(f"{text} today please")
    d = decide(Proposal(todos=[{"text": text}]), words, FACTS)  # type: ignore[list-item]
    assert d.todos == ()
    assert d.dropped[0].field == "todo"


def test_todos_must_be_supported_by_the_capture() -> None:
    d = decide(
        Proposal.model_validate(
            {"todos": ["Order timber from Jewson", "Book flights to Rome", "- [ ] #urgent Roof"]}
        ),
        capture(),
        FACTS,
    )
    # '#urgent' would make a tag on the filed note: the '#' goes, the word stays.
    assert [t.text for t in d.todos] == ["Order timber from Jewson", "urgent Roof"]
    assert d.dropped[0].reason == "not supported by the capture's words"


@pytest.mark.parametrize(
    ("words", "said", "kept", "trimmed"),
    [
        # `when`: the capture's words, counted in code from Tuesday 20 October 08:05
        ("order timber by friday", {"when": "by friday"}, date(2026, 10, 23), False),
        ("order timber by friday", {"when": "Friday"}, date(2026, 10, 23), False),
        ("order timber tomorrow", {"when": "tomorrow"}, date(2026, 10, 21), False),
        ("order timber by the 20th", {"when": "the 20th"}, date(2026, 10, 20), False),
        ("order timber tomorrow", {"when": ""}, None, False),  # no deadline set: the model's
        ("order timber on friday", {}, None, False),
        # a date the model wrote is believed only where the capture's words name that day
        ("order timber by friday", {"due": "2026-10-23"}, date(2026, 10, 23), False),
        ("order timber soon", {"due": "2026-10-23"}, None, True),
        ("order timber on friday", {"due": "2026-10-25"}, None, True),  # issue 43: a Sunday
        ("order timber on friday", {"when": "some day"}, None, True),
        # where the model's words fail, the one deadline its sentence sets is used
        ("order timber by friday", {"when": ""}, date(2026, 10, 23), False),
        ("order timber by friday", {}, date(2026, 10, 23), False),
        ("order timber by friday", {"due": "2026-10-25"}, date(2026, 10, 23), True),
        ("order timber by friday", {"when": "tomorrow"}, date(2026, 10, 23), True),
        ("order timber by friday", {"due": "2026-13-01"}, date(2026, 10, 23), True),
        ("order timber by friday, not by monday", {}, None, False),  # two deadlines: none
        # between the capture's day and a year later
        ("order timber, as I said last friday", {"when": "last friday"}, None, True),
        ("order timber by 21 oct 2027", {"when": "21 oct 2027"}, None, True),
        ("order timber by 20 oct 2027", {"when": "20 oct 2027"}, date(2027, 10, 20), False),
    ],
)
def test_due_dates_come_from_the_captures_words(
    words: str, said: dict[str, str], kept: date | None, trimmed: bool
) -> None:
    todo = {"text": "order timber"} | said
    d = decide(Proposal.model_validate({"todos": [todo]}), capture(words), FACTS)
    assert d.todos[0].text == "order timber"  # the to-do is kept, with or without its date
    assert d.todos[0].due == kept
    assert [x.field for x in d.dropped] == (["due"] if trimmed else [])


def test_a_day_belongs_to_the_todo_it_is_written_with() -> None:
    """The dictated capture names one day, for the timber; ringing Mum has 'no rush'."""
    todos = [
        {"text": "Order the timber for the shed roof from Jewson", "when": "by friday"},
        {"text": "Ring Mum about Christmas", "when": "by friday"},
    ]
    d = decide(
        Proposal.model_validate({"todos": todos}), fixture_capture("2026-10-20 0805.md"), FACTS
    )
    assert [(t.text, t.due) for t in d.todos] == [
        ("Order the timber for the shed roof from Jewson", date(2026, 10, 23)),
        ("Ring Mum about Christmas", None),
    ]
    assert [(x.field, x.reason) for x in d.dropped] == [
        (
            "due",
            "the capture names that day for something else (to-do 'Ring Mum about Christmas' kept)",
        )
    ]


@pytest.mark.parametrize(
    ("name", "todo", "when", "due"),
    [
        ("2026-10-24 1430.md", "Clear the junk out of the shed", "by friday", date(2026, 10, 30)),
        ("2026-10-24 1430.md", "Take the old mower to the tip", "by friday", None),
        ("2026-10-24 1430.md", "Take the old mower to the tip", "sat 31st", None),
        ("2026-10-23 0840.md", "Update the payment screen copy", "by wed", date(2026, 10, 28)),
        # the model pointed at another day: the deadline its own sentence sets ("by wed")
        ("2026-10-23 0840.md", "Update the payment screen copy", "26 NOV", date(2026, 10, 28)),
        ("2026-10-21 1120.md", "Send Maya the 5 research slides", "tomorrow", date(2026, 10, 22)),
        ("2026-10-25 1105.md", "Plant the tulips", "next sunday", date(2026, 11, 1)),
        ("2026-10-21 2237.md", "Wire the subscription money", "tomorrow", None),  # the AI's
    ],
)
def test_a_day_named_for_something_else_is_not_the_todos(
    name: str, todo: str, when: str, due: date | None
) -> None:
    others = {
        "2026-10-24 1430.md": ["Clear the junk out of the shed", "Take the old mower to the tip"],
    }.get(name, [todo])
    todos = [{"text": t, "when": when if t == todo else ""} for t in others]
    d = decide(Proposal.model_validate({"todos": todos}), fixture_capture(name), FACTS)
    got = {t.text: t.due for t in d.todos}
    assert got.get(todo) == due


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("Shed timber", "Shed timber"),
        ("../../etc/passwd", "Order the timber for the shed"),
        ("a\\b", "Order the timber for the shed"),
        ("", "Order the timber for the shed"),
        ("CON", "Order the timber for the shed"),
        ("What: a *title*?", "What a title"),
        ("line\nbreak\x00tab\t", "line break tab"),
        ("[[Link]] #tag ^block", "Link tag block"),
        ("word " * 30, ("word " * 12).strip()),
        ("...hidden", "hidden"),
    ],
)
def test_titles_make_safe_short_file_names(raw: str, expected: str) -> None:
    title = run(title=raw)[0]
    assert title == expected
    assert "/" not in title and "\\" not in title and not title.startswith(".")


def test_fallback_title_skips_text_addressed_to_an_ai() -> None:
    assert fallback_title("") == "Capture"
    assert fallback_title("buy milk, eggs and bread today") == "Buy milk eggs and bread today"
    assert len(clean_title("x" * 500)) <= 60
    assert len(clean_title("🦔" * 60).encode()) <= 180


def test_link_target() -> None:
    assert link_target(" [[Projects/Shed Rebuild.md#Plan|the shed]] ") == "Shed Rebuild"


def test_every_drop_has_a_reason() -> None:
    d = decide(
        Proposal.model_validate(
            {
                "title": "../x",
                "tags": ["a b"] * 3 + ["garden"] * 2,
                "links": ["Nope"],
                "todos": [{"text": "", "due": "2026-13-01"}],
            }
        ),
        capture(),
        FACTS,
    )
    assert d.tags == ()  # 'garden': neither the capture nor a linked note says so
    assert len(d.dropped) == 1 + 3 + 1 + 1 + 1
    assert all(x.reason for x in d.dropped)


@pytest.mark.parametrize(
    "raw",
    [
        "Order timber [due:: 2026-10-23]",
        "Order timber SCHEDULED: <2026-10-23 Fri>",
        "Order timber (due 2026-10-23)",
        "Order timber 📅 2026-10-23",
        "- [ ] Order timber due 2026-10-23",
    ],
)
def test_due_markers_in_a_todo_text_leave_nothing_behind(raw: str) -> None:
    from commonplace.tidy.validate import clean_todo_text

    assert clean_todo_text(raw) == "Order timber"


@pytest.mark.parametrize(
    ("title", "obsidian", "legacy", "triple_lowbar"),
    [
        ("Plan v2.1 for the shed", "Plan v2.1 for the shed", "Plan v2 1 for the shed", None),
        ("Shed timber", "Shed timber", "Shed timber", "Shed timber"),
        ("...", "Order the timber for the shed", "Order the timber for the shed", None),
        ("Shed___roof", "Shed___roof", "Shed___roof", "Shed roof"),
    ],
)
def test_logseq_titles_read_back_as_the_same_page(
    title: str, obsidian: str, legacy: str, triple_lowbar: str | None
) -> None:
    """Logseq's legacy file-name format reads '.' as a namespace separator, and its
    triple-lowbar format '___'; a dot is kept where it stays a dot (the docs graph, and every
    graph made since Logseq 0.8.9): there "v2.1" was written as "v2 1" for nothing."""
    proposal = Proposal(title=title)
    assert decide(proposal, capture(), FACTS).title == obsidian
    d = decide(proposal, capture(), FACTS, flavor="logseq", name_format=LEGACY)
    assert d.title == legacy
    assert "." not in d.title
    d = decide(proposal, capture(), FACTS, flavor="logseq", name_format=TRIPLE_LOWBAR)
    assert d.title == (triple_lowbar or obsidian)


def test_links_to_logseq_namespace_pages_are_kept() -> None:
    """A Logseq page in the namespace Whiteboard/Tool (pages/Whiteboard___Tool___Portal.md) is
    titled 'Whiteboard/Tool/Portal'; the link was cut to 'Portal' and dropped as no note."""
    facts = VaultFacts(
        titles={"whiteboard/tool/portal": "Whiteboard/Tool/Portal", "shed rebuild": "Shed Rebuild"}
    )
    d = decide(
        Proposal(
            links=["Whiteboard/Tool/Portal", "[[whiteboard/tool/portal]]", "Old/Shed Rebuild"]
        ),
        capture(),
        facts,
        flavor="logseq",
    )
    assert d.links == ("Whiteboard/Tool/Portal", "Shed Rebuild")
    assert d.dropped == ()
