"""Evidence from the capture's words: the notes it names, the links and tags it may keep."""

from __future__ import annotations

from collections import Counter

import pytest

from commonplace.tidy import evidence
from commonplace.tidy.catalog import VaultFacts
from commonplace.tidy.models import Candidate

TITLES = (
    "Zoë Martín",
    "Maya Collins",
    "Shed Rebuild",
    "Switchboard Redesign",
    "Gift Ideas",
    "Running Log",
    "2026-10-06 Steering Group",
    "Home",
    "Car",
    "Chess",
)
ALIASES = {"zoë": "Zoë Martín", "zoe": "Zoë Martín", "maya": "Maya Collins", "start": "Home"}
FACTS = VaultFacts(
    titles={t.casefold(): t for t in TITLES} | ALIASES,
    title_paths={"maya collins": ("People/Maya Collins.md",)},
    tags=Counter({"people": 4, "work": 3, "project": 2, "garden": 2, "running": 1}),
    note_tags={
        "maya collins": ("people", "work"),
        "shed rebuild": ("home", "project", "garden"),
        "running log": ("running", "log"),
    },
)


@pytest.mark.parametrize(
    ("title", "text", "named"),
    [
        ("Zoë Martín", "lunch w zoe at the falafel place", "zoe"),  # an alias, accents folded
        ("Zoë Martín", "ZOË said so", "zoe"),
        ("Maya Collins", "maya says this is the last move", "maya"),
        ("Shed Rebuild", "clear the junk out of the shed by friday", "shed"),  # the first word
        ("Switchboard Redesign", "idea for switchboard v2", "switchboard"),
        ("Chess", "chess last night", "Chess"),
        ("Car", "the car needs its MOT", "Car"),
        # not named
        ("Gift Ideas", "idea for switchboard v2", None),  # not its first word
        ("Running Log", "long run on the railway path", None),
        ("2026-10-06 Steering Group", "emergency steering call at 8", None),  # a dated title
        ("Maya Collins", "mayan temples", None),
        ("Home", "the timber goes in the shed", None),
    ],
)
def test_named_in(title: str, text: str, named: str | None) -> None:
    assert evidence.named_in(title, text, FACTS) == named


def test_named_notes_are_whole_titles_or_aliases_longest_first() -> None:
    assert evidence.named_notes("maya says zoe and the shed rebuild", FACTS) == [
        "Shed Rebuild",
        "Maya Collins",
        "Zoë Martín",
    ]
    assert evidence.named_notes("nothing here", FACTS) == []


def test_named_notes_the_search_missed_become_candidates() -> None:
    found = [Candidate("Switchboard Redesign", "Projects/Switchboard Redesign.md", 1.0)]
    cands = evidence.with_named(found, "launch now 26 nov. maya says no more", FACTS)
    assert [(c.title, c.path, c.score) for c in cands] == [
        ("Switchboard Redesign", "Projects/Switchboard Redesign.md", 1.0),
        ("Maya Collins", "People/Maya Collins.md", None),
    ]


CANDS = [
    Candidate("Shed Rebuild", "Projects/Shed Rebuild.md", 1.0),
    Candidate("Running Log", "Log/Running Log.md", 0.62),
    Candidate("Gift Ideas", "Lists/Gift Ideas.md", 0.45),
    Candidate("Car", "Areas/Car.md", 0.4),
]


@pytest.mark.parametrize(
    ("words", "proposed", "kept", "dropped"),
    [
        # the model's choice, where the search found the note close
        (
            "timber for the roof",
            ["Shed Rebuild", "Running Log"],
            ["Shed Rebuild", "Running Log"],
            [],
        ),
        ("timber for the roof", ["Gift Ideas"], [], ["Gift Ideas"]),  # found far: 0.45
        ("timber for the roof", [], [], []),
        # a note the capture names and the search finds close is linked, chosen or not
        ("the shed roof", [], ["Shed Rebuild"], []),
        ("the car and the shed", ["Car"], ["Car", "Shed Rebuild"], []),
        # named but found far (0.4): kept when chosen, not added when left out (a name said
        # in passing, as "Sam took the photo", is no subject)
        ("the car needs a wash", [], [], []),
        ("the car needs a wash", ["Car"], ["Car"], []),
        # every candidate: no choice at all; the named ones stay
        ("the shed roof", [c.title for c in CANDS], ["Shed Rebuild"], [c.title for c in CANDS[1:]]),
        ("a pigeon quote", [c.title for c in reversed(CANDS)], [], [c.title for c in CANDS][::-1]),
        # a link that is no candidate is not judged here (check_links decides)
        ("timber", ["Nope"], ["Nope"], []),
    ],
)
def test_kept_links(words: str, proposed: list[str], kept: list[str], dropped: list[str]) -> None:
    got, out = evidence.kept_links(proposed, CANDS, words, FACTS)
    assert got == kept
    assert [title for title, _ in out] == dropped
    assert all(reason for _, reason in out)


def test_a_named_note_the_search_ranks_near_nothing_is_a_common_word() -> None:
    """'8am start' names Home by its alias 'Start'; the search put Home last (0.23)."""
    cands = [Candidate("Shed Rebuild", "s.md", 1.0), Candidate("Home", "Home.md", 0.23)]
    assert evidence.kept_links([], cands, "dave doing the roof sat 31st, 8am start", FACTS)[0] == []


def test_without_candidates_every_link_passes_to_the_vault_check() -> None:
    assert evidence.kept_links(["Car", "Nope"], [], "x", FACTS) == (["Car", "Nope"], [])


@pytest.mark.parametrize(
    ("tag", "words", "links", "fits"),
    [
        ("running", "6.2k easy, running fine", [], True),  # the owner's word
        ("running", "parkrun 24:48", ["Running Log"], True),  # the linked note's tag
        ("work", "parkrun 24:48", ["Running Log"], False),
        ("people", "lunch w zoe", [], False),
        ("people", "maya says so", ["Maya Collins"], True),
        ("design-crit", "the design crit went well", [], True),
    ],
)
def test_tag_fits(tag: str, words: str, links: list[str], fits: bool) -> None:
    assert evidence.tag_fits(tag, words, links, FACTS) is fits
