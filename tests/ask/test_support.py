"""Which passages back each sentence, and which facts none holds: a table of answers a small
model gives (issue 43's among them) and what the program makes of each. Pure, no model."""

from __future__ import annotations

import pytest

from commonplace.ask.models import Passage
from commonplace.ask.support import Checker, FactGate, segments

PASSAGES = [
    Passage(
        1,
        "Travel/Passport.md",
        "Passport",
        "Passport > Key dates",
        "- Issued: 9 November 2016\n- Expires: **9 February 2027**",
        "2026-09-14",
    ),
    Passage(
        2,
        "captures/2026-10-24 1430.md",
        "2026-10-24 1430",
        "",
        "jewson confirmed roof timber + EPDM delivery thurs 29th. dave doing the roof sat "
        "31st, 8am start. clear the junk out of the shed by friday",
        "2026-10-24",
    ),
    Passage(
        3,
        "Travel/Lisbon Trip.md",
        "Lisbon Trip",
        "Lisbon Trip > Flights",
        "- **Me: easyJet EZY6041**, Bristol (BRS) 06:40 → Lisbon (LIS) 09:55.",
        "2026-08-16",
    ),
    Passage(
        4,
        "People/Tobi Okafor.md",
        "Tobi Okafor",
        "Tobi Okafor",
        "My brother. Born 2 December 1986 (turns 40 this year). Wife Amara, daughter Ife.",
        "2026-05-03",
    ),
]
TODAY = "Today is Monday 26 October 2026 (2026-10-26)."


def check(answer: str, question: str = "q?") -> tuple[str, tuple[int, ...], tuple[str, ...]]:
    got = Checker(PASSAGES, question, TODAY).check(answer)
    return got.text, got.added, got.unsupported


@pytest.mark.parametrize(
    ("answer", "question", "text", "added"),
    [
        # issue 43's answers: right facts, no [n]
        (
            "The passport expires on 9 February 2027.",
            "When does my passport expire?",
            "The passport expires on 9 February 2027 [1].",
            (1,),
        ),
        (
            "Your flight is EZY6041 and it leaves at 06:40.",
            "Flight?",
            "Your flight is EZY6041 and it leaves at 06:40 [3].",
            (3,),
        ),
        # each sentence its own passage; a list item is a sentence
        (
            "Tobi turns 40. His wife is Amara.\n- Flight EZY6041",
            "q?",
            "Tobi turns 40 [4]. His wife is Amara [4].\n- Flight EZY6041 [3]",
            (4, 3),
        ),
        # facts of two passages in one sentence: both cited
        (
            "Tobi turns 40 and you fly at 06:40.",
            "q?",
            "Tobi turns 40 and you fly at 06:40 [4][3].",
            (4, 3),
        ),
        # the model's own citation is kept when it holds the facts
        (
            "The passport expires on 9 February 2027 [1].",
            "q?",
            "The passport expires on 9 February 2027 [1].",
            (),
        ),
        ("It expires in February 2027. [1]", "q?", "It expires in February 2027. [1]", ()),
        # a day of the month computed from a capture's day words ("by friday" on a Saturday)
        (
            "Clear out the shed by Friday 30 October.",
            "What's due?",
            "Clear out the shed by Friday 30 October [2].",
            (2,),
        ),
        # no facts: the passage sharing its words
        ("The roof timber is confirmed.", "q?", "The roof timber is confirmed [2].", (2,)),
        # no facts and too few shared words: nothing to cite
        ("I hope that helps!", "q?", "I hope that helps!", ()),
        # bold and a closing bracket stay where they were
        ("He turns **40** (this year).", "q?", "He turns **40** (this year) [4].", (4,)),
    ],
)
def test_citations_carried(answer: str, question: str, text: str, added: tuple[int, ...]) -> None:
    got_text, got_added, unsupported = check(answer, question)
    assert (got_text, got_added, unsupported) == (text, added, ())


@pytest.mark.parametrize(
    ("answer", "question", "unsupported", "nothing"),
    [
        # issue 43's invention: the question's own day is no support, the time is in no note,
        # and the capture's stamp (1430) is no time of day
        (
            "The Jewson delivery is arriving on Thursday the 29th at 14:30.",
            "What time is the Jewson delivery arriving on Thursday the 29th?",
            ("14:30",),
            True,
        ),
        # one invented fact beside supported ones: shown, and flagged
        ("The flight EZY6041 leaves at 06:40 and lands at 11:20.", "q?", ("11:20",), False),
        # today and the days the program named are support too
        ("Today is 26 October.", "q?", (), False),
        ("Tobi turns 41.", "How old is Tobi turning?", ("41",), True),
        ("It costs £94.50.", "q?", ("94.50",), True),
    ],
)
def test_facts_in_no_passage(
    answer: str, question: str, unsupported: tuple[str, ...], nothing: bool
) -> None:
    got = Checker(PASSAGES, question, TODAY).check(answer)
    assert got.unsupported == unsupported
    assert got.nothing_supported is nothing


def test_a_citation_that_holds_none_of_the_facts_is_flagged_and_the_right_one_added() -> None:
    got = Checker(PASSAGES, "q?").check("The flight leaves at 06:40 [1].")
    assert got.text == "The flight leaves at 06:40 [1] [3]."
    assert got.misattributed == ("[1] does not hold 06:40; [3] does",)
    assert got.added == (3,)


def test_a_citation_holding_some_facts_is_kept_as_it_is() -> None:
    got = Checker(PASSAGES, "q?").check("Tobi turns 40 on 2 December [4], flight at 06:40.")
    assert got.misattributed == ()
    assert got.text == "Tobi turns 40 on 2 December [4], flight at 06:40."


def test_a_citation_of_a_passage_never_given_gets_the_right_one_beside_it() -> None:
    got = Checker(PASSAGES, "q?").check("The flight leaves at 06:40 [9].")
    assert got.text == "The flight leaves at 06:40 [9] [3]."


@pytest.mark.parametrize(
    "text",
    [
        "One. Two! Three?",
        "Rate 4.19% fixed. E.g. this one.\n- a\n- b",
        "Launch moved. [2] Then it moved again [3].",
        "",
        "No end",
    ],
)
def test_segments_join_back_exactly(text: str) -> None:
    assert "".join(s.body + s.end for s in segments(text)) == text


def test_fact_gate_previews_supported_sentences_and_holds_the_rest() -> None:
    gate = FactGate(Checker(PASSAGES, "When is the delivery?", TODAY))
    pieces = [
        "The delivery is on ",
        "Thursday the 29th. ",
        "It comes at 14",
        ":30. Dave ",
        "comes.",
    ]
    out = [gate.feed(p) for p in pieces] + [gate.flush()]
    assert "".join(out) == "The delivery is on Thursday the 29th."
    assert gate.closed


def test_fact_gate_waits_for_a_whole_sentence() -> None:
    rate = Passage(1, "Areas/Finances.md", "Finances", "", "Fixed at 4.19% to 31 May 2027.")
    gate = FactGate(Checker([rate], "q?"))
    assert gate.feed("The rate is 4.") == ""  # "4." may be "4.19"
    assert gate.feed("19% fixed. And") == "The rate is 4.19% fixed."
    assert gate.flush() == " And"


def test_a_fact_in_a_passage_s_text_wins_over_one_in_another_s_date() -> None:
    """Issue 43's run: "due in October 2026" was cited to a capture of 23 October 2026 about
    the launch (its date holds October 2026), not to the dentist note that says it."""
    passages = [
        Passage(
            1,
            "captures/2026-10-23 0840.md",
            "2026-10-23 0840",
            "",
            "launch now 26 NOV",
            "2026-10-23",
        ),
        Passage(
            2,
            "Areas/Health/Dentist.md",
            "Dentist",
            "Dentist > Appointments",
            "- Check-ups every 6 months, so the next one was due in **October 2026**.",
            "",
        ),
    ]
    support = Checker(passages, "When was my last dental check-up?").check(
        "The last dental check-up was due in October 2026."
    )
    assert support.text == "The last dental check-up was due in October 2026 [2]."
