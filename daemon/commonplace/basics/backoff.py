"""How long to wait before trying again: the one doubling backoff of the daemon.

Model calls, push deliveries, Ask notes, captures, marked captures and restarted tasks all wait
`first_s`, then twice that, and so on, up to `most_s`. The exponent is capped, so a count of
failures that keeps growing (a note that fails every 15 minutes for weeks) gives `most_s`, never
an OverflowError: 2**1100 is an int too large to turn into a float.
"""

from __future__ import annotations

import math

_MAX_DOUBLINGS = 64  # far past any sensible cap: 1 s doubled 64 times is 5.8e11 years


def backoff_s(first_s: float, failures: int, most_s: float = math.inf) -> float:
    """Seconds to wait after `failures` failures in a row (1: `first_s`), at most `most_s`."""
    doublings = min(max(failures - 1, 0), _MAX_DOUBLINGS)
    return float(min(first_s * 2.0**doublings, most_s))
