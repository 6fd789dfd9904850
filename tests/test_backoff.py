"""The one doubling backoff: its values, and no overflow however long something keeps failing."""

from __future__ import annotations

import pytest

from commonplace.basics.backoff import backoff_s


@pytest.mark.parametrize(
    ("first", "failures", "most", "wait"),
    [
        (1.0, 1, 900.0, 1.0),
        (1.0, 2, 900.0, 2.0),
        (2.0, 5, 900.0, 32.0),
        (1.0, 11, 900.0, 900.0),
        (0.01, 3, float("inf"), 0.04),
        (3600.0, 0, 604_800.0, 3600.0),  # before the first failure: the first wait
    ],
)
def test_waits_double_up_to_the_most(first: float, failures: int, most: float, wait: float) -> None:
    assert backoff_s(first, failures, most) == pytest.approx(wait)


def test_weeks_of_failures_wait_the_most_instead_of_overflowing() -> None:
    """A note failing every 15 minutes for two weeks is 1,344 failures: 2**1343 is an int too
    large for a float, which the formula once written in each caller raised on."""
    with pytest.raises(OverflowError):
        _ = 900.0 * 2 ** (1344 - 1)  # what `min(first * 2 ** (n - 1), most)` did
    assert backoff_s(900.0, 1344, 900.0) == 900.0
    assert backoff_s(1.0, 10**9) == 2.0**64
