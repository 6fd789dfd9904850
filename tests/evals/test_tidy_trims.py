"""What the tidy eval counts as the program trimming a proposal, through tidy's real checks:
a filing the program had to trim is graded wrong, one it kept as proposed is not."""

from __future__ import annotations

from collections import Counter
from typing import Any
from zoneinfo import ZoneInfo

from commonplace.capture.inbox import parse_capture
from commonplace.evals import grading
from commonplace.evals.suites.tidy import trims
from commonplace.tidy.catalog import VaultFacts
from commonplace.tidy.models import Proposal
from commonplace.tidy.validate import decide

FACTS = VaultFacts(
    titles={"shed rebuild": "Shed Rebuild", "garden plan": "Garden Plan"},
    tags=Counter({"project": 4, "garden": 2}),
    note_tags={"shed rebuild": ("project",)},  # the linked note's tag fits the capture
)
CAPTURE = parse_capture(
    "Inbox/2026-10-20 0805.md",
    b"---\ncaptured: 2026-10-20T08:05\nvia: phone\n---\n"
    b"order the timber for the shed roof from jewson by friday",
    ZoneInfo("Europe/London"),
)
ROW = {
    "capture": "2026-10-20 0805.md",
    "links": ["Shed Rebuild"],
    "todos": [{"text": "Order the shed roof timber from Jewson", "due": "2026-10-23"}],
}
GOOD = {
    "title": "Shed roof timber",
    "tags": ["projects"],  # written as the vault's own tag: the model named it
    "links": ["shed rebuild"],  # the real title's case: the model named it
    "todos": [{"text": "Order the timber for the shed roof from Jewson", "due": "2026-10-23"}],
}


def graded(proposal: dict[str, Any]) -> tuple[list[str], dict[str, Any]]:
    parsed = Proposal.model_validate(proposal)
    decision = decide(parsed, CAPTURE, FACTS)
    found = trims(parsed, decision)
    grade = grading.grade_filing(
        ROW,
        links=decision.links,
        tags=decision.tags,
        todos=[
            {"text": t.text, "due": t.due.isoformat() if t.due else None} for t in decision.todos
        ],
        proposed_tags=parsed.tags,
        proposed_todos=[{"text": t.text, "due": t.due} for t in parsed.todos],
        trims=found,
    )
    return found, grade


def test_a_proposal_kept_as_made_is_right() -> None:
    found, grade = graded(GOOD)
    assert found == [] and grade["right"] and grade["right_after_checks"]


def test_a_to_do_whose_words_the_program_cleaned_is_a_trim() -> None:
    todo = {"text": "- [ ] Order the timber for the shed roof from Jewson (due 2026-10-23)"}
    found, grade = graded(GOOD | {"todos": [todo | {"due": "2026-10-23"}]})
    assert found == [
        f"todo {todo['text']!r}: written as 'Order the timber for the shed roof from Jewson'"
    ]
    assert grade["right_after_checks"] and not grade["right"]


def test_every_value_the_program_dropped_is_a_trim() -> None:
    for change, dropped in (
        ({"title": "Shed: timber?"}, "title 'Shed: timber?'"),
        ({"links": ["shed rebuild", "Nowhere"]}, "link 'Nowhere'"),
        ({"tags": ["projects", "two words"]}, "tag 'two words'"),
    ):
        found, grade = graded(GOOD | change)
        assert len(found) == 1 and found[0].startswith(dropped), found
        assert grade["right_after_checks"] and not grade["right"], change
    late = [{"text": GOOD["todos"][0]["text"], "due": "2026-10-19"}]  # before the capture's day
    found, grade = graded(GOOD | {"todos": late})
    assert found[0].startswith("due '2026-10-19'") and not grade["right"]
