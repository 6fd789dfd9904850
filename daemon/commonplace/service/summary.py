"""The daemon's own summary for `commonplace service status`: read from its data folder (the
lock, the attention list, the scheduler's record), so it needs no token and works while the
daemon is stopped too."""

from __future__ import annotations

from datetime import datetime

from commonplace.briefing.service import last_made
from commonplace.config import Settings
from commonplace.digest.service import last_written
from commonplace.llm.report import status_path
from commonplace.llm.report import summary as model_summary
from commonplace.runtime.attention import read_running, summary
from commonplace.runtime.lock import running_daemon
from commonplace.runtime.logfile import log_path
from commonplace.runtime.statefile import read_json
from commonplace.vault import iter_note_paths


def daemon_summary(settings: Settings) -> list[str]:
    lines = [f"vault: {settings.vault} ({settings.flavor})"]
    lock = running_daemon(settings.data_path)
    if lock is None:
        lines.append("daemon: not running on this vault")
    else:
        page = f"; phone page http://127.0.0.1:{lock.port}/" if lock.port else ""
        lines.append(f"daemon: running, {lock.describe()}{page}")
    if settings.vault.is_dir():
        waiting = sum(1 for _ in iter_note_paths(settings.vault, under=settings.folder("inbox")))
        lines.append(f"inbox: {waiting} capture(s) waiting to be filed")
    entries = read_running(settings.data_path)
    if entries:
        lines.append(f"attention: {len(entries)} thing(s) need you:")
        lines += [f"  {e.source}: {e.line()}" for e in summary(entries)]
    elif entries is not None:
        lines.append("attention: nothing needs you")
    lines.append(f"model: {model_summary(settings, read_json(status_path(settings)))}")
    # From the digest's and the briefing's own records, not the scheduler's: at its first start
    # the scheduler records the latest scheduled times as a baseline (so that installing on a
    # Wednesday writes no digest), and a baseline is not a run.
    last: dict[str, datetime | None] = {"digest": last_written(settings)}
    last["briefing"] = last_made(settings)
    for name, when in last.items():
        shown = when.astimezone(settings.tz).strftime("%Y-%m-%d %H:%M") if when else "never yet"
        lines.append(f"last {name}: {shown}")
    lines.append(f"log: {log_path(settings)}")
    return lines
