"""The sample vault: a fresh copy of vault_fixture/ for `make run` and for trying things out."""

from __future__ import annotations

import shlex
import shutil
import tempfile
from pathlib import Path

from commonplace.resources import resource_dir

# vault_fixture/captures/ holds the test week's captures and calendar/ its calendar (an .ics
# file for a CalDAV server); they are not part of the vault itself.
_NOT_VAULT = ("captures", "calendar")


def sample_scratch() -> Path:
    """Where `make run` keeps the sample vault (`vault/`) and its data folder (`data/`)."""
    return Path(tempfile.gettempdir()) / "commonplace-sample"


def sample_env() -> str:
    """The shell line that points the other commands at the sample vault `make run` uses: with
    no vault configured they would otherwise look for ~/Notes and stop."""
    scratch = sample_scratch()
    vault, data = shlex.quote(str(scratch / "vault")), shlex.quote(str(scratch / "data"))
    return f"export COMMONPLACE_VAULT={vault} COMMONPLACE_DATA={data}"


def make_sample_vault(dest: Path) -> Path:
    """Replace `dest` with a fresh copy of the sample vault and return it."""
    if dest.exists():
        shutil.rmtree(dest)
    shutil.copytree(resource_dir("vault_fixture"), dest, ignore=shutil.ignore_patterns(*_NOT_VAULT))
    return dest


def make_sample_data(dest: Path) -> Path:
    """Empty the sample's data folder: the vault is a fresh copy each time, so its index, the
    answers it kept count of, the assistant's day and the scheduler's record start afresh too
    (kept, they described a vault that no longer exists: the same Ask question, answered in
    three runs, counted as an answer removed three times and was not answered in the fourth)."""
    if dest.exists():
        shutil.rmtree(dest)
    dest.mkdir(parents=True)
    return dest


def sample_captures() -> list[Path]:
    """The fixture week's captures, in the order they arrived."""
    folder = resource_dir("vault_fixture") / "captures"
    return sorted(folder.glob("*.md"))
