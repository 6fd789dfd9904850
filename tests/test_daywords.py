"""Days named in words, resolved in code: a table per rule (basics/daywords.py)."""

from __future__ import annotations

from datetime import date, datetime

import pytest

from commonplace.basics.daywords import find_days, resolve

TUE = date(2026, 10, 20)  # Tuesday 20 October 2026
THU = date(2026, 10, 22)
FRI = date(2026, 10, 23)
SAT = date(2026, 10, 24)
SUN = date(2026, 10, 25)


@pytest.mark.parametrize(
    ("words", "written", "expected"),
    [
        # the fixture week (fixture_guide.md: "Relative dates are resolved against ...")
        ("by friday", TUE, date(2026, 10, 23)),
        ("by next wednesday", THU, date(2026, 10, 28)),
        ("tomorrow by 10am", date(2026, 10, 21), date(2026, 10, 22)),
        ("by wed", FRI, date(2026, 10, 28)),
        ("by friday", SAT, date(2026, 10, 30)),
        ("by next sunday", SUN, date(2026, 11, 1)),
        ("by the end of the month", FRI, date(2026, 10, 31)),
        # weekdays
        ("friday", FRI, FRI),  # the weekday of the day written is that day
        ("on Monday", TUE, date(2026, 10, 26)),
        ("this thursday", TUE, THU),
        ("next tuesday", TUE, date(2026, 10, 27)),
        ("next friday", TUE, date(2026, 10, 30)),
        ("next monday", SUN, date(2026, 10, 26)),
        ("last friday", TUE, date(2026, 10, 16)),
        ("by thurs", TUE, THU),
        ("before Sat", TUE, SAT),
        # days of the month
        ("the 30th", TUE, date(2026, 10, 30)),
        ("the 20th", TUE, TUE),
        ("the 5th", TUE, date(2026, 11, 5)),
        ("by the 31st", date(2026, 11, 3), date(2026, 12, 31)),  # November has no 31st
        ("friday the thirtieth", date(2026, 10, 21), date(2026, 10, 30)),
        ("thurs 29th", SAT, date(2026, 10, 29)),
        ("the twenty-first", TUE, date(2026, 10, 21)),
        ("friday the 29th", TUE, None),  # the 29th is a Thursday: the words contradict
        # dates
        ("26 NOV", FRI, date(2026, 11, 26)),
        ("the 18th of November", FRI, date(2026, 11, 18)),
        ("Nov 26", FRI, date(2026, 11, 26)),
        ("9 February 2027", FRI, date(2027, 2, 9)),
        ("2026-11-26", FRI, date(2026, 11, 26)),
        ("5 jan", date(2026, 12, 20), date(2027, 1, 5)),
        ("14 Sep", FRI, date(2026, 9, 14)),  # a few weeks back: the past, not next year
        ("29 feb", FRI, None),
        ("Fri 23 Oct", TUE, FRI),
        ("Sat 23 Oct", TUE, None),
        # spans that end on a day
        ("end of next month", TUE, date(2026, 11, 30)),
        ("end of November", TUE, date(2026, 11, 30)),
        ("end of January", date(2026, 12, 2), date(2027, 1, 31)),
        ("mid-November", TUE, date(2026, 11, 15)),
        ("end of the week", TUE, FRI),
        ("end of the week", SAT, SUN),
        ("in 3 days", TUE, FRI),
        ("in two weeks", TUE, date(2026, 11, 3)),
        ("in a fortnight", TUE, date(2026, 11, 3)),
        ("in a couple of days", TUE, THU),
        ("the day after tomorrow", TUE, THU),
        ("today", TUE, TUE),
        ("tonight", TUE, TUE),
        # no day named
        ("next week", TUE, None),
        ("at some point, no rush", TUE, None),
        ("sun = cheap, storm cloud = peak", TUE, None),  # 'sun' alone is a word
        ("thursdays the back room is quiz night", TUE, None),  # a habit
        ("fri 8.30s are easiest", TUE, None),
        ("the first one", TUE, None),
        ("for his 40th birthday", TUE, None),
        # two different days: not one day
        ("friday or monday", TUE, None),
    ],
)
def test_resolve(words: str, written: date, expected: date | None) -> None:
    assert resolve(words, written) == expected


@pytest.mark.parametrize(
    ("hour", "expected"),
    [
        (1, date(2026, 10, 21)),
        (3, date(2026, 10, 21)),
        (4, date(2026, 10, 22)),
        (23, date(2026, 10, 22)),
    ],
)
def test_tomorrow_before_sleep_is_the_day_begun(hour: int, expected: date) -> None:
    assert resolve("tomorrow", datetime(2026, 10, 21, hour, 30)) == expected


def test_find_days_gives_the_words_where_they_are() -> None:
    text = (
        "jewson confirmed roof timber + EPDM delivery thurs 29th. dave doing the roof sat 31st, "
        "8am start. clear the rest of the junk out of the shed by friday. and take the old mower "
        "to the tip sometime"
    )
    found = find_days(text, SAT)
    assert [(d.words, d.day) for d in found] == [
        ("thurs 29th", date(2026, 10, 29)),
        ("sat 31st", date(2026, 10, 31)),
        ("by friday", date(2026, 10, 30)),
    ]
    assert all(text[d.start : d.end] == d.words for d in found)


def test_the_longer_reading_wins() -> None:
    found = find_days("moved to friday the thirtieth at nine", date(2026, 10, 21))
    assert [(d.words, d.day) for d in found] == [("friday the thirtieth", date(2026, 10, 30))]
