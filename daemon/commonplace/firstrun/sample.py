"""The sample vault: a copy of vault_fixture/ for `make run` and for trying things out.

`make run` makes the copy once and keeps it, with whatever was captured in it, across restarts
(a newcomer's first capture was deleted, without a word, by the next `make run`); `make run
FRESH=1` starts over from a fresh copy and says so. The copy is complete once its data folder
holds the sample's record (SAMPLE_RECORD), which is written last: a copy cut short is made again.
The folder is called "Sample vault", the name the phone page and Obsidian show for it.

The sample is set in one week: its notes were written up to it, and vault_fixture/captures/
holds the captures of that week (Monday 19 to Sunday 25 October 2026). `make run` puts them in
the copy's inbox as they arrived, dates and all, so the daemon files them as it would the
owner's, and the sample's data folder records that week, so that `commonplace digest` on the
sample shows that week's digest (20 captures) rather than the one just past, in which the
sample captured nothing ("0 notes captured"). Their dates are not moved to this week: the
captures' own words name their days ("wed 21st", "delivery thurs 29th"), as the notes do.
"""

from __future__ import annotations

import json
import shlex
import shutil
import tempfile
from datetime import date
from pathlib import Path

from commonplace.basics.resources import resource_dir

# vault_fixture/captures/ holds the test week's captures and calendar/ its calendar (an .ics
# file for a CalDAV server); they are not part of the vault itself.
_NOT_VAULT = ("captures", "calendar")
# In the sample's data folder: the week the sample is set in.
SAMPLE_RECORD = "sample.json"


VAULT_NAME = "Sample vault"  # the folder's name: what the phone page and Obsidian call it


def sample_scratch() -> Path:
    """Where `make run` keeps the sample vault (`Sample vault/`) and its data folder (`data/`)."""
    return Path(tempfile.gettempdir()) / "commonplace-sample"


def sample_paths(scratch: Path | None = None) -> tuple[Path, Path]:
    """The sample's vault and data folder in `scratch` (by default sample_scratch())."""
    scratch = sample_scratch() if scratch is None else scratch
    return scratch / VAULT_NAME, scratch / "data"


def sample_env() -> str:
    """The shell line that points the other commands at the sample vault `make run` uses: with
    no vault configured they would otherwise look for ~/Notes and stop."""
    vault, data = (shlex.quote(str(p)) for p in sample_paths())
    return f"export COMMONPLACE_VAULT={vault} COMMONPLACE_DATA={data}"


def sample_kept(vault: Path, data: Path) -> bool:
    """Whether a whole copy of the sample from an earlier `make run` is there to go on with."""
    return vault.is_dir() and recorded_sample_week(data) is not None


def start_sample(vault: Path, data: Path, inbox: str) -> None:
    """A fresh copy of the sample in `vault`, its week's captures waiting in `inbox`, and an
    empty data folder; whatever was there is deleted. The record that marks the copy whole is
    removed first and written last, so a copy cut short is never taken for a kept one."""
    (data / SAMPLE_RECORD).unlink(missing_ok=True)
    make_sample_vault(vault, inbox=inbox)
    make_sample_data(data)


def make_sample_vault(dest: Path, inbox: str | None = None) -> Path:
    """Replace `dest` with a fresh copy of the sample vault and return it. With `inbox` (the
    inbox folder, vault-relative), the sample week's captures wait there, as `make run` has it."""
    if dest.exists():
        shutil.rmtree(dest)
    shutil.copytree(resource_dir("vault_fixture"), dest, ignore=shutil.ignore_patterns(*_NOT_VAULT))
    if inbox is not None:
        folder = dest / inbox
        folder.mkdir(parents=True, exist_ok=True)
        for capture in sample_captures():
            shutil.copyfile(capture, folder / capture.name)
    return dest


def make_sample_data(dest: Path) -> Path:
    """Empty the sample's data folder: with a fresh copy of the vault, its index, the answers it
    kept count of, the assistant's day and the scheduler's record start afresh too (kept, they
    described a vault that no longer exists: the same Ask question, answered in three runs,
    counted as an answer removed three times and was not answered in the fourth). It records
    the week the sample is set in, for `commonplace digest`."""
    if dest.exists():
        shutil.rmtree(dest)
    dest.mkdir(parents=True)
    record = {"week": sample_week()}
    (dest / SAMPLE_RECORD).write_text(json.dumps(record) + "\n", encoding="utf-8")
    return dest


def sample_captures() -> list[Path]:
    """The fixture week's captures, in the order they arrived."""
    folder = resource_dir("vault_fixture") / "captures"
    return sorted(folder.glob("*.md"))


def sample_week() -> str:
    """The ISO week ('2026-W43') the sample's captures were written in (their names start
    with the day). A label, not a digest Week: the CLI's common path imports this module."""
    iso = date.fromisoformat(sample_captures()[0].name[:10]).isocalendar()
    return f"{iso.year:04d}-W{iso.week:02d}"


def recorded_sample_week(data_dir: Path) -> str | None:
    """The sample's week when `data_dir` is the data folder `make run` made for the sample;
    None for any other (a real vault's digest covers the week just past)."""
    try:
        record = json.loads((data_dir / SAMPLE_RECORD).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    week = record.get("week") if isinstance(record, dict) else None
    return week if isinstance(week, str) else None
