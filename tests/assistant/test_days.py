"""The fourteen-day list and date words: computed in code, right across every edge."""

from __future__ import annotations

from datetime import date, datetime, time, timedelta
from zoneinfo import ZoneInfo

import pytest

from commonplace.assistant.days import (
    DateWordsError,
    day_for_model,
    day_list,
    parse_day,
    parse_time,
)

UTC = ZoneInfo("UTC")
LONDON = ZoneInfo("Europe/London")
NEW_YORK = ZoneInfo("America/New_York")


def entries(text: str) -> list[tuple[str, str]]:
    """(words, ISO date) per line of the day list."""
    return [tuple(line.rstrip(";").split(" = ")) for line in text.splitlines()]  # type: ignore[misc]


# (instant in UTC, zone, the user's day then, first two lines expected)
CASES = [
    # 31 December -> 1 January, late evening in New York is already the 1st in UTC
    (datetime(2027, 1, 1, 3, 30, tzinfo=UTC), NEW_YORK, date(2026, 12, 31)),
    (datetime(2026, 12, 31, 23, 59, tzinfo=UTC), LONDON, date(2026, 12, 31)),
    (datetime(2027, 1, 1, 0, 0, tzinfo=UTC), LONDON, date(2027, 1, 1)),
    # 28/29 February: 2028 is a leap year, 2027 is not
    (datetime(2028, 2, 28, 12, 0, tzinfo=UTC), LONDON, date(2028, 2, 28)),
    (datetime(2027, 2, 28, 12, 0, tzinfo=UTC), LONDON, date(2027, 2, 28)),
    # Europe/London: clocks go forward 29 March 2026 01:00 UTC, back 25 October 2026 01:00 UTC
    (datetime(2026, 3, 28, 23, 30, tzinfo=UTC), LONDON, date(2026, 3, 28)),
    (datetime(2026, 3, 29, 0, 30, tzinfo=UTC), LONDON, date(2026, 3, 29)),
    (datetime(2026, 10, 24, 23, 30, tzinfo=UTC), LONDON, date(2026, 10, 25)),  # BST: 00:30
    (datetime(2026, 10, 25, 23, 30, tzinfo=UTC), LONDON, date(2026, 10, 25)),  # GMT: 23:30
    # America/New_York: forward 8 March 2026 07:00 UTC, back 1 November 2026 06:00 UTC
    (datetime(2026, 3, 8, 4, 30, tzinfo=UTC), NEW_YORK, date(2026, 3, 7)),  # 23:30 EST
    (datetime(2026, 3, 9, 3, 30, tzinfo=UTC), NEW_YORK, date(2026, 3, 8)),  # 23:30 EDT
    (datetime(2026, 11, 1, 3, 59, tzinfo=UTC), NEW_YORK, date(2026, 10, 31)),  # 23:59 EDT
    (datetime(2026, 11, 2, 4, 30, tzinfo=UTC), NEW_YORK, date(2026, 11, 1)),  # 23:30 EST
]


@pytest.mark.parametrize(("instant", "zone", "today"), CASES)
def test_day_list_is_right_across_month_year_leap_and_dst_edges(
    instant: datetime, zone: ZoneInfo, today: date
) -> None:
    rows = entries(day_list(instant.astimezone(zone)))
    assert len(rows) == 14
    for offset, (words, iso) in enumerate(rows):
        day = today + timedelta(days=offset)
        assert iso == day.isoformat()
        weekday, number, month = words.split(" (")[0].split(" ")
        assert weekday == day.strftime("%A")
        assert int(number) == day.day
        assert month == day.strftime("%B")
    assert rows[0][0].endswith("(today)") and rows[1][0].endswith("(tomorrow)")
    assert not any("(today)" in w or "(tomorrow)" in w for w, _ in rows[2:])


def test_the_list_reads_as_the_issue_shows() -> None:
    text = day_list(datetime(2026, 10, 26, 9, 0, tzinfo=LONDON))
    assert text.startswith(
        "Monday 26 October (today) = 2026-10-26;\nTuesday 27 October (tomorrow) = 2026-10-27;"
    )
    assert text.endswith("Sunday 8 November = 2026-11-08")


def test_leap_day_appears_only_in_leap_years() -> None:
    assert "Tuesday 29 February = 2028-02-29" in day_list(datetime(2028, 2, 27, tzinfo=LONDON))
    assert "February = 2027-02-29" not in day_list(datetime(2027, 2, 27, tzinfo=LONDON))
    assert "Monday 1 March = 2027-03-01" in day_list(datetime(2027, 2, 27, tzinfo=LONDON))


def test_a_naive_now_is_refused() -> None:
    with pytest.raises(ValueError, match="timezone-aware"):
        day_list(datetime(2026, 10, 26, 9, 0))


def test_dates_for_the_model_carry_weekday_iso_and_distance() -> None:
    today = date(2026, 10, 26)
    assert (
        day_for_model(date(2026, 10, 29), today)
        == "Thursday 29 October 2026 (2026-10-29, in 3 days)"
    )
    assert (
        day_for_model(date(2026, 10, 23), today)
        == "Friday 23 October 2026 (2026-10-23, 3 days ago)"
    )
    assert day_for_model(today, today).endswith("(2026-10-26, today)")


@pytest.mark.parametrize(
    ("words", "expected"),
    [
        ("2026-10-29", date(2026, 10, 29)),
        (" 2026-10-29T16:00 ", date(2026, 10, 29)),
        ("today", date(2026, 10, 26)),
        ("Tomorrow", date(2026, 10, 27)),
        ("Thursday", date(2026, 10, 29)),
        ("thu", date(2026, 10, 29)),
        ("this Friday", date(2026, 10, 30)),
        ("Monday", date(2026, 10, 26)),  # today is Monday: the next Monday is today
        ("this coming Sunday", date(2026, 11, 1)),
    ],
)
def test_date_words_a_model_sends(words: str, expected: date) -> None:
    assert parse_day(words, date(2026, 10, 26)) == expected


@pytest.mark.parametrize(
    "words", ["next week", "next Thursday", "next mon", "2026-02-30", "soon", "29/10", ""]
)
def test_date_words_that_would_need_a_guess_are_refused(words: str) -> None:
    with pytest.raises(DateWordsError):
        parse_day(words, date(2026, 10, 26))


@pytest.mark.parametrize(
    ("words", "expected"),
    [
        ("16:00", time(16, 0)),
        ("4 pm", time(16, 0)),
        ("4pm", time(16, 0)),
        ("4:30 p.m.", time(16, 30)),
        ("12am", time(0, 0)),
        ("12 pm", time(12, 0)),
        ("9.30", time(9, 30)),
        ("16", time(16, 0)),
        ("noon", time(12, 0)),
    ],
)
def test_times(words: str, expected: time) -> None:
    assert parse_time(words) == expected


@pytest.mark.parametrize("words", ["25:00", "13pm", "4:75", "half four", ""])
def test_bad_times_are_refused(words: str) -> None:
    with pytest.raises(DateWordsError):
        parse_time(words)
