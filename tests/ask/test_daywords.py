"""Day words computed in code: a table of what each relative expression means seen from a day
(the fixture guide's own readings among them), and how they reach the model."""

from __future__ import annotations

from datetime import date

import pytest

from commonplace.ask.daywords import day_of_note, mark_days, nth_after, question_days

MON_26 = date(2026, 10, 26)


@pytest.mark.parametrize(
    ("text", "seen_from", "expected"),
    [
        # the fixture guide's readings of the week's captures
        (
            "order timber by friday",
            date(2026, 10, 20),
            "order timber by friday [Friday 23 October 2026]",
        ),
        (
            "book it by next wednesday!!",
            date(2026, 10, 22),
            "book it by next wednesday [Wednesday 28 October 2026]!!",
        ),
        (
            "payment screen by wed.",
            date(2026, 10, 23),
            "payment screen by wed [Wednesday 28 October 2026].",
        ),
        ("shed by friday", date(2026, 10, 24), "shed by friday [Friday 30 October 2026]"),
        ("slides tomorrow", date(2026, 10, 21), "slides tomorrow [Thursday 22 October 2026]"),
        (
            "by the end of the month",
            date(2026, 10, 23),
            "by the end of the month [Saturday 31 October 2026]",
        ),
        (
            "delivery thurs 29th. roof sat 31st",
            date(2026, 10, 24),
            "delivery thurs 29th [Thursday 29 October 2026]. "
            "roof sat 31st [Saturday 31 October 2026]",
        ),
        ("on the 2nd", date(2026, 10, 24), "on the 2nd [Monday 2 November 2026]"),
        # "this" includes today; a bare "by" or "next" means the next one to come
        ("this Monday", MON_26, "this Monday [Monday 26 October 2026]"),
        ("by Monday", MON_26, "by Monday [Monday 2 November 2026]"),
        ("this Thursday", MON_26, "this Thursday [Thursday 29 October 2026]"),
        ("yesterday", MON_26, "yesterday [Sunday 25 October 2026]"),
        # across a month's and a year's end
        ("tomorrow", date(2026, 12, 31), "tomorrow [Friday 1 January 2027]"),
        ("by friday", date(2026, 12, 30), "by friday [Friday 1 January 2027]"),
        ("end of the month", date(2028, 2, 3), "end of the month [Tuesday 29 February 2028]"),
        # left alone: habits, whole dates, a weekday that does not fit the day of the month
        ("chess on Wednesdays 8pm", MON_26, "chess on Wednesdays 8pm"),
        ("next appt Wed 28 Oct 08:15", MON_26, "next appt Wed 28 Oct 08:15"),
        ("thurs 30th", date(2026, 10, 24), "thurs 30th"),
        ("Friday the 13th of November", MON_26, "Friday the 13th of November"),
    ],
)
def test_mark_days(text: str, seen_from: date, expected: str) -> None:
    assert mark_days(text, seen_from) == expected


@pytest.mark.parametrize(
    ("question", "today", "expected"),
    [
        (
            "Is chess with Sam on this Thursday?",
            MON_26,
            'In the question, "this Thursday" is Thursday 29 October 2026.',
        ),
        (
            "How far did I run last week?",
            date(2026, 10, 19),
            'In the question, "last week" is Monday 12 – Sunday 18 October 2026.',
        ),
        (
            "How far did I run last week?",
            MON_26,
            'In the question, "last week" is Monday 19 – Sunday 25 October 2026.',
        ),
        (
            "What's due next week?",
            date(2026, 12, 30),
            'In the question, "next week" is Monday 4 – Sunday 10 January 2027.',
        ),
        (
            "What's on this weekend?",
            MON_26,
            'In the question, "this weekend" is Saturday 31 October 2026 – Sunday 1 November 2026.',
        ),
        (
            "What's due this month?",
            MON_26,
            'In the question, "this month" is Thursday 1 – Saturday 31 October 2026.',
        ),
        (
            "What do I need done by tomorrow?",
            date(2026, 10, 27),
            'In the question, "tomorrow" is Wednesday 28 October 2026.',
        ),
        ("When is my next physio appointment?", MON_26, ""),
    ],
)
def test_question_days(question: str, today: date, expected: str) -> None:
    assert question_days(question, today) == expected


@pytest.mark.parametrize(
    ("day", "nth", "weekday", "expected"),
    [
        (date(2026, 10, 24), 29, 3, date(2026, 10, 29)),
        (date(2026, 10, 24), 2, None, date(2026, 11, 2)),
        (date(2026, 1, 31), 30, None, date(2026, 3, 30)),  # no 30 February
        (date(2026, 10, 24), 29, 4, None),  # the 29th is a Thursday, not a Friday
        (date(2026, 10, 24), 24, None, date(2026, 10, 24)),
    ],
)
def test_nth_after(day: date, nth: int, weekday: int | None, expected: date | None) -> None:
    assert nth_after(day, nth, weekday) == expected


@pytest.mark.parametrize(
    ("path", "expected"),
    [
        ("Inbox/2026-10-24 1430.md", date(2026, 10, 24)),
        ("Filed/2026-10-24 1430 Shed timber.md", date(2026, 10, 24)),
        ("journals/2026_10_24.md", date(2026, 10, 24)),
        ("Areas/Car.md", None),
        ("Meetings/2026-13-06 Typo.md", None),
        ("Notes/20261024.md", None),
    ],
)
def test_day_of_note(path: str, expected: date | None) -> None:
    assert day_of_note(path) == expected
