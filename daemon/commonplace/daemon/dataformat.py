"""The data folder's format: which layout of the daemon's files it holds, and who wrote it.

A data folder outlives the program that made it: the user upgrades (`pipx upgrade`), or goes
back to an older version after a bad one. The folder records its format in `format.json`
(`{"format": 2, "version": "0.1.0"}`), written by the daemon as it starts:

- a newer program on an older folder brings it forward, one step per format (STEPS), and says
  so once in the log; what a step cannot carry over it rebuilds from the vault, and it never
  touches the user's own state (the push subscriptions, the plugin's token, the assistant's
  day logs, the digest and briefing records): those files are read by every format;
- an older program on a newer folder stops, in one line that names the version that wrote it,
  before it reads or writes anything there: an older layout written over a newer one could
  lose what only the newer program understands.

The search index keeps its own layout numbers (index/manifest.py INDEX_SCHEMA, the keyword
layout) and rebuilds itself from the vault when they differ; a change there needs no new format
here. Format 1 is every data folder written before this record existed.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from commonplace import __version__
from commonplace.firstrun.sample import SAMPLE_RECORD
from commonplace.plugin.apitoken import TOKEN_FILE
from commonplace.runtime.lock import LOCK_NAME
from commonplace.runtime.statefile import write_json

log = logging.getLogger(__name__)

FORMAT = 2
RECORD = "format.json"
UNRECORDED = 1  # a data folder from before format.json: its layout is format 1's

# Files made before the daemon's first start (its lock, `make run`'s sample record, the token
# `commonplace token` makes): alone, they are a new folder, not one of an older format.
_NOT_DATA = frozenset({RECORD, LOCK_NAME, SAMPLE_RECORD, TOKEN_FILE})


class NewerDataFolder(Exception):
    """The data folder was written by a newer program; the message is one line for the user."""


@dataclass(frozen=True)
class Found:
    """What a data folder holds: its format (None: a new, empty folder) and its writer."""

    format: int | None
    version: str = ""


def read_format(data_path: Path) -> Found:
    """The folder's recorded format; an unreadable record is read as the newest this program
    knows, never as older (a step run twice on a current folder could undo it)."""
    try:
        raw = json.loads((data_path / RECORD).read_text(encoding="utf-8"))
    except FileNotFoundError:
        try:
            entries = {p.name for p in data_path.iterdir()}
        except (FileNotFoundError, NotADirectoryError):
            return Found(None)
        return Found(UNRECORDED) if entries - _NOT_DATA else Found(None)
    except (OSError, ValueError):
        log.warning("%s is unreadable; taking the data folder as format %d", RECORD, FORMAT)
        return Found(FORMAT)
    if not isinstance(raw, dict) or not isinstance(raw.get("format"), int):
        log.warning("%s holds no format number; taking format %d", RECORD, FORMAT)
        return Found(FORMAT)
    version = raw.get("version")
    return Found(raw["format"], version if isinstance(version, str) else "")


def refuse_newer(data_path: Path) -> Found:
    """Raise NewerDataFolder when a newer program wrote `data_path`; else what it holds."""
    found = read_format(data_path)
    if found.format is not None and found.format > FORMAT:
        by = f"commonplace {found.version}" if found.version else "a newer commonplace"
        raise NewerDataFolder(
            f"the data folder {data_path} was written by {by} (data format {found.format}); "
            f"this is commonplace {__version__}, which reads format {FORMAT} at most: upgrade "
            "commonplace (pipx upgrade commonplace-vault, or uv tool upgrade commonplace-vault)"
        )
    return found


def _format_1_to_2(data_path: Path) -> str:
    """Format 2 adds only this record: every file of format 1 is read as it is."""
    return "nothing to move"


# STEPS[n] brings a folder of format n to format n + 1 and says what it did (one phrase).
STEPS: dict[int, Callable[[Path], str]] = {1: _format_1_to_2}


def bring_forward(data_path: Path, found: Found) -> str:
    """Make `data_path` (as `found` before the daemon locked it) this program's format, and
    record it. Returns what was done, for the one log line ("" for a new or current folder)."""
    done: list[str] = []
    if found.format is not None and found.format < FORMAT:
        for step in range(found.format, FORMAT):
            done.append(f"{step} to {step + 1}: {STEPS[step](data_path)}")
    data_path.mkdir(parents=True, exist_ok=True)
    if found.format != FORMAT or found.version != __version__:
        write_json(data_path / RECORD, {"format": FORMAT, "version": __version__})
    if not done:
        return ""
    by = f"commonplace {found.version}" if found.version else "an earlier commonplace"
    message = (
        f"data folder {data_path}: written by {by} in format {found.format}, brought forward "
        f"to format {FORMAT} ({'; '.join(done)}); push subscriptions, the token, the "
        "assistant's day logs and the digest and briefing records are kept as they were"
    )
    log.warning("%s", message)
    return message
