"""The assistant's grading rule on plain values: a request is right only if the right thing was
asked or called and the program did not have to correct the reply, for every kind of request.
Each case has its known-good twin, so every test can fail both ways."""

from __future__ import annotations

from typing import Any
from zoneinfo import ZoneInfo

import pytest

from commonplace.assistant import checks
from commonplace.evals import assistant_grading as grading

TZ = ZoneInfo("Europe/London")
JOKE = {"id": "none-01", "text": "Tell me a short joke.", "expect": {"tools": []}}
BROTHER = {"id": "memory-03", "expect": {"tools": [], "facts": [["Leeds"]]}}
THURSDAY = {
    "id": "cal-read-01",
    "expect": {"tools": ["list_events"], "facts": [["Dentist", "dentist"], ["16:00", "4 pm"]]},
}
MARCUS = {
    "id": "cal-change-01",
    "expect": {
        "proposal": {
            "kind": "move_event",
            "title": "1:1 with Marcus",
            "start": "2026-10-27T09:30",
            "new_start": "2026-10-27T16:00",
        }
    },
}
MARCUS_MOVED = {
    "kind": "move_event",
    "title": "1:1 with Marcus",
    "start": "2026-10-27T09:30:00+00:00",
    "new_start": "2026-10-27T16:00:00+00:00",
    "question": "Move 1:1 with Marcus to 16:00?",
}
CLAIM = "Done! I've added it and moved the event for you."
CLAIM_CORRECTED = f"{CLAIM}\n\n{checks.NOTHING_PROPOSED}"


def grade(item: dict[str, Any], **turn: Any) -> dict[str, Any]:
    base: dict[str, Any] = {"tools": [], "proposals": [], "corrections": [], "reply": "", "tz": TZ}
    return grading.grade(item, **{**base, **turn})


def test_the_reported_case_a_joke_request_answered_with_a_corrected_claim_is_wrong() -> None:
    bad = grade(JOKE, reply=CLAIM_CORRECTED, corrections=[checks.NOTHING_PROPOSED])
    assert bad == {"kind": "none", "right": False, "miss": "claimed a change"}
    good = grade(JOKE, reply="Why did the scarecrow win an award? He was outstanding.")
    assert good == {"kind": "none", "right": True, "miss": ""}


def test_a_corrected_reply_is_wrong_even_with_the_facts_in_it() -> None:
    reply = "Your brother lives in Leeds. I've noted that."
    bad = grade(BROTHER, reply=reply, corrections=[checks.NOTHING_PROPOSED])
    assert not bad["right"] and bad["miss"] == "claimed a change"
    assert grade(BROTHER, reply="Your brother lives in Leeds.")["right"]


def test_a_read_with_the_right_tool_and_facts_but_a_corrected_reply_is_wrong() -> None:
    reply = "Thursday: Dentist at 16:00. I've moved the 1:1 too."
    bad = grade(THURSDAY, tools=["list_events"], reply=reply, corrections=[checks.NOTHING_PROPOSED])
    assert bad["miss"] == "claimed a change"
    good = grade(THURSDAY, tools=["list_events"], reply="Thursday: Dentist at 16:00.")
    assert good["right"]


def test_the_right_question_followed_by_a_claim_the_program_corrected_is_wrong() -> None:
    note = "(Nothing has changed yet: answer the question waiting.)"
    bad = grade(
        MARCUS,
        tools=["move_event"],
        proposals=[MARCUS_MOVED],
        reply=f"Done, moved it.\n\n{note}",
        corrections=[note],
    )
    assert bad == {"kind": "change", "right": False, "miss": "claimed a change"}
    good = grade(
        MARCUS, tools=["move_event"], proposals=[MARCUS_MOVED], reply="Answer the question below."
    )
    assert good == {"kind": "change", "right": True, "miss": ""}


@pytest.mark.parametrize(
    ("correction", "miss"),
    [
        (checks.NO_QUESTION, "claimed a question"),
        (checks.CUT_SHORT, "reply cut short"),
        (checks.NOTHING_CHANGED, "claimed a change"),
        ("(While this reply was written, you answered Yes to: ...)", "reply corrected"),
    ],
)
def test_every_kind_of_correction_makes_every_kind_of_request_wrong(
    correction: str, miss: str
) -> None:
    for item, turn in (
        (JOKE, {}),
        (THURSDAY, {"tools": ["list_events"], "reply": "Dentist at 16:00"}),
        (MARCUS, {"tools": ["move_event"], "proposals": [MARCUS_MOVED]}),
    ):
        assert grade(item, **turn)["right"], item["id"]
        assert grade(item, **turn, corrections=[correction])["miss"] == miss, item["id"]


def test_a_reply_the_program_wrote_in_the_models_place_is_wrong() -> None:
    bad = grade(JOKE, reply="Sorry, I couldn't finish that.", gave_up=True)
    assert bad["miss"] == "no reply"
    proposed = grade(MARCUS, tools=["move_event"], proposals=[MARCUS_MOVED], gave_up=True)
    assert proposed["miss"] == "no reply"


def test_the_other_misses_still_apply_when_nothing_was_corrected() -> None:
    assert grade(JOKE, tools=["list_tasks"])["miss"] == "tool when none was needed"
    assert grade(THURSDAY, tools=["weather"], reply="Dentist 16:00")["miss"] == "wrong tool"
    assert grade(THURSDAY, reply="Dentist 16:00")["miss"] == "no tool called"
    assert grade(THURSDAY, tools=["list_events"], reply="Dentist")["miss"] == "facts missing"
    assert grade(MARCUS)["miss"] == "no proposal"
    wrong = {**MARCUS_MOVED, "new_start": "2026-10-27T15:00:00+00:00"}
    assert grade(MARCUS, proposals=[wrong])["miss"] == "wrong proposal"
    assert grade(MARCUS, proposals=[MARCUS_MOVED, wrong])["miss"] == "extra proposal"
