"""The checkable facts of a text, each in one spelling: a table of how people and small models
write dates, times, numbers, codes and names, and what the program reads in each."""

from __future__ import annotations

import pytest

from commonplace.ask.facts import facts, held, keys_of


def read(text: str) -> list[tuple[str, str, list[str]]]:
    return [(f.kind, f.text, sorted(f.keys)) for f in facts(text)]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            "It expires on 9 February 2027.",
            [("date", "9 February 2027", ["date:02-09"]), ("num", "2027", ["num:2027"])],
        ),
        ("due 2026-10-23", [("date", "2026-10-23", ["date:10-23"]), ("num", "2026", ["num:2026"])]),
        ("on Feb 9th", [("date", "Feb 9th", ["date:02-09"])]),
        ("the 30th of October", [("date", "30th of October", ["date:10-30"])]),
        ("Fri 30 Oct", [("date", "30 Oct", ["date:10-30"])]),
        ("thurs 29th", [("day", "29th", ["day:29"])]),
        ("in October 2026", [("date", "October 2026", ["month:10", "num:2026"])]),
        ("at 06:40", [("time", "06:40", ["time:06:40"])]),
        ("at 9am", [("time", "9am", ["time:09:00"])]),
        ("at 8 p.m.", [("time", "8 p.m.", ["time:20:00"])]),
        ("7:30pm", [("time", "7:30pm", ["time:19:30"])]),
        ("9.30am", [("time", "9.30am", ["time:09:30"])]),
        ("PB 24:48", [("name", "pb", ["name:pb"]), ("num", "24:48", ["dur:24:48"])]),
        ("1:08:30", [("num", "1:08:30", ["dur:1:08:30"])]),
        ("£1,860 and £220/day", [("num", "1,860", ["num:1860"]), ("num", "220", ["num:220"])]),
        ("4.19%", [("num", "4.19", ["num:4.19"])]),
        ("12.4km, 80g", [("num", "12.4", ["num:12.4"]), ("num", "80", ["num:80"])]),
        ("40–45 min", [("num", "40", ["num:40"]), ("num", "45", ["num:45"])]),
        (
            "3 sets of 15, twice a day",
            [("num", "3", ["num:3"]), ("num", "15", ["num:15"]), ("num", "twice", ["num:2"])],
        ),
        ("three examples", [("num", "three", ["num:3"])]),
        ("one small filling", []),  # "one" is too common a word to be a fact
        ("EZY6041", [("code", "EZY6041", ["code:ezy6041"])]),
        ("ref CP-20931", [("code", "CP-20931", ["code:cp20931"])]),
        (
            "Rachel Dunne at Gloucester Road Physio",
            [
                ("name", "rachel", ["name:rachel"]),
                ("name", "dunne", ["name:dunne"]),
                ("name", "gloucester", ["name:gloucester"]),
                ("name", "road", ["name:road"]),
                ("name", "physio", ["name:physio"]),
            ],
        ),
        ("Casa do Pátio", [("name", "casa", ["name:casa"]), ("name", "patio", ["name:patio"])]),
        ("Tobi's birthday", [("name", "tobi", ["name:tobi"])]),
        ("The flight leaves on Thursday. Yes, I'm sure.", []),
    ],
)
def test_facts(text: str, expected: list[tuple[str, str, list[str]]]) -> None:
    assert read(text) == expected


@pytest.mark.parametrize(
    ("fact_text", "source", "is_held"),
    [
        ("9 February 2027", "Expires: 2027-02-09.", True),
        ("Feb 9", "expires 9 Feb 2027", True),
        ("9 February", "expires 9 March 2027", False),
        ("the 29th", "delivery on 2026-10-29", True),
        ("09:00", "physio moved to 9am", True),
        ("8pm", "chess moves to Wednesdays 20:00", True),
        ("14:30", "jewson delivery thurs 29th", False),
        ("14:30", "note 2026-10-24 1430", False),  # a capture's stamp is no time of day
        ("forty", "turns 40 on 2 December", True),
        ("40", "Bristol 06:40", False),  # a time's minutes are no number
        ("£1860", "Total budget: £1,860", True),
        ("EZY-6041", "easyJet EZY6041", True),
        ("Rachel", "seeing rachel dunne", True),
        ("Amara", "his wife Amara's family", True),
        ("Germidour", "garlic 'Germidour' in bed 3", True),
        ("Nettle", "the certification is late", False),
    ],
)
def test_held(fact_text: str, source: str, is_held: bool) -> None:
    (fact, *_) = [f for f in facts(fact_text) if f.kind != "num" or not rest_is_year(f.text)]
    assert held(fact, keys_of(source)) is is_held


def rest_is_year(text: str) -> bool:
    return len(text) == 4 and text.startswith("20")
