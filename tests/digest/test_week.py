"""ISO weeks in the user's zone: labels, bounds, and which week a digest covers."""

from __future__ import annotations

from datetime import UTC, date, datetime
from zoneinfo import ZoneInfo

import pytest

from commonplace.digest.week import Week, digest_week, parse_week, week_of

LONDON = ZoneInfo("Europe/London")
BERLIN = ZoneInfo("Europe/Berlin")
AUCKLAND = ZoneInfo("Pacific/Auckland")


def test_fixture_week_bounds() -> None:
    week = parse_week("2026-W43")
    assert (week.monday, week.sunday) == (date(2026, 10, 19), date(2026, 10, 25))
    assert week.next_seven_days == (date(2026, 10, 26), date(2026, 11, 1))
    assert week.label == "2026-W43" and str(week.previous()) == "2026-W42"


def test_a_label_reads_back_as_its_week() -> None:
    for week in (Week(2026, 43), Week(1, 1), Week(999, 52)):
        assert parse_week(week.label) == week  # "0001-W01", not "1-W01"


def test_week_53_spans_the_new_year() -> None:
    week = parse_week("2026w53")
    assert (week.monday, week.sunday) == (date(2026, 12, 28), date(2027, 1, 3))
    assert week_of(date(2027, 1, 3)) == week
    assert week_of(date(2027, 1, 4)) == Week(2027, 1)


@pytest.mark.parametrize("text", ["43", "2026-43", "2025-W53", "2026-W00", "2026-W54", "W43"])
def test_bad_weeks_are_refused_with_the_format(text: str) -> None:
    with pytest.raises(ValueError, match=r"YYYY-Www|has no week"):
        parse_week(text)


def test_end_is_local_midnight_even_when_the_clocks_change() -> None:
    week = Week(2026, 43)  # British clocks go back at 02:00 on Sunday 25 Oct 2026
    assert week.start(LONDON).astimezone(UTC) == datetime(2026, 10, 18, 23, 0, tzinfo=UTC)
    assert week.end(LONDON).astimezone(UTC) == datetime(2026, 10, 26, 0, 0, tzinfo=UTC)


def test_midnight_edge_depends_on_the_users_zone() -> None:
    week = Week(2026, 43)
    late = datetime(2026, 10, 25, 23, 30, tzinfo=UTC)
    assert week.contains(late, LONDON)  # Sunday 23:30 in London
    assert not week.contains(late, BERLIN)  # already Monday 00:30 in Berlin
    # On 18 Oct London is on BST (UTC+1): 22:59 UTC is 23:59 Sunday, 23:00 UTC is Monday 00:00.
    assert not week.contains(datetime(2026, 10, 18, 22, 59, tzinfo=UTC), LONDON)
    assert week.contains(datetime(2026, 10, 18, 23, 0, tzinfo=UTC), LONDON)


def test_digest_week_is_this_week_on_sunday_and_last_week_otherwise() -> None:
    sunday_evening = datetime(2026, 10, 25, 18, 0, tzinfo=LONDON)
    monday_morning = datetime(2026, 10, 26, 9, 0, tzinfo=LONDON)
    wednesday = datetime(2026, 10, 28, 12, 0, tzinfo=LONDON)
    assert digest_week(sunday_evening, LONDON) == Week(2026, 43)
    assert digest_week(monday_morning, LONDON) == Week(2026, 43)
    assert digest_week(wednesday, LONDON) == Week(2026, 43)
    # 11:00 UTC on Sunday is already Monday in Auckland: the week that just ended.
    assert digest_week(datetime(2026, 10, 25, 11, 0, tzinfo=UTC), AUCKLAND) == Week(2026, 43)
    assert digest_week(datetime(2026, 10, 25, 10, 0, tzinfo=UTC), AUCKLAND) == Week(2026, 43)
    assert digest_week(datetime(2026, 10, 24, 10, 0, tzinfo=UTC), AUCKLAND) == Week(2026, 42)
