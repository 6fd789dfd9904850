"""Logseq's time tracking: the open clock a NOW or DOING task carries is stopped when it is done.

With time tracking on (`:feature/enable-timetracking?`, Logseq's default), Logseq writes
`CLOCK: [2026-12-01 Tue 09:00:00]` into a block's `:LOGBOOK:` drawer when the task becomes NOW
or DOING, and when it becomes DONE closes that line as
`CLOCK: [2026-12-01 Tue 09:00:00]--[2026-12-01 Tue 09:30:00] =>  00:30:00`
(frontend/util/clock.cljs clock-out, called from editor.cljs with-marker-time). A task ticked
off elsewhere with its clock left open shows no sensible time in Logseq, so the assistant
closes it the same way: the last line of the block's logbook only, and only when it is an open
clock in the format Logseq wrote it in.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

from commonplace.vault.exclusions import LOGSEQ_SETTINGS, read_settings, without_edn_comments

CLOCKED = ("NOW", "DOING")  # the markers whose clock runs
_OPEN_CLOCK = re.compile(r"^(\s*)CLOCK: \[([^\[\]]+)\]\s*$")
_WITH_SECONDS = "%Y-%m-%d %a %H:%M:%S"  # cljs-time "yyyy-MM-dd E HH:mm:ss" (English names)
_MINUTES = "%Y-%m-%d %a %H:%M"


@dataclass(frozen=True)
class Tracking:
    """The graph's time tracking settings in logseq/config.edn."""

    enabled: bool = True  # :feature/enable-timetracking?
    seconds: bool = True  # :logbook/settings {:with-second-support? ...}


def tracking(vault: Path) -> Tracking:
    """The settings now (Logseq's defaults when there is no config.edn)."""
    text, _ = read_settings(vault, LOGSEQ_SETTINGS)
    if text is None:
        return Tracking()
    clean = without_edn_comments(text)
    off = re.search(r":feature/enable-timetracking\?[\s,]+false\b", clean) is not None
    no_seconds = re.search(r":with-second-support\?[\s,]+false\b", clean) is not None
    return Tracking(enabled=not off, seconds=not no_seconds)


def clock_out(block: list[str], now: datetime, seconds: bool = True) -> tuple[int, str] | None:
    """The task's open clock closed at `now` as Logseq closes it: (its index in `block`, the
    closed line), or None when there is none. `block` is the task's own lines, first line
    first, endings kept."""
    last = _logbook_last_line(block)
    if last is None:
        return None
    closed = closed_line(block[last], now, seconds)
    return None if closed is None else (last, closed)


def closed_line(line: str, now: datetime, seconds: bool = True) -> str | None:
    """`line` (an open `CLOCK: [start]`) closed at `now`, or None if it is no open clock in
    the format Logseq writes (then Logseq, too, leaves it)."""
    ending = line[len(line.rstrip("\r\n")) :]
    match = _OPEN_CLOCK.match(line.rstrip("\r\n"))
    if match is None:
        return None
    pattern = _WITH_SECONDS if seconds else _MINUTES
    try:
        start = datetime.strptime(match.group(2), pattern)
    except ValueError:
        return None
    end = now.replace(tzinfo=None, microsecond=0)
    if not seconds:
        end = end.replace(second=0)
    if end < start:
        return None
    total = int((end - start).total_seconds())
    if seconds:
        span = f"{total // 3600:02d}:{total % 3600 // 60:02d}:{total % 60:02d}"
    else:
        span = f"{total // 3600:02d}:{total % 3600 // 60:02d}"
    closed = f"CLOCK: [{match.group(2)}]--[{end.strftime(pattern)}] =>  {span}"
    return f"{match.group(1)}{closed}{ending}"


def _logbook_last_line(block: list[str]) -> int | None:
    """The index of the last line inside the block's `:LOGBOOK:` drawer, if it has one."""
    start = next((i for i, ln in enumerate(block) if ln.strip() == ":LOGBOOK:"), None)
    if start is None:
        return None
    end = next((i for i in range(start + 1, len(block)) if block[i].strip() == ":END:"), None)
    if end is None or end == start + 1:
        return None
    return end - 1
