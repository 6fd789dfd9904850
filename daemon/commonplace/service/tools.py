"""The one seam between Commonplace and the service managers: a program run by name from PATH.

Tests put fake `systemctl`, `loginctl` and `launchctl` on PATH, which record their arguments;
nothing here knows it is being tested.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

TIMEOUT_S = 60.0  # `systemctl --user restart` waits for the old daemon's clean stop


@dataclass(frozen=True)
class Called:
    args: tuple[str, ...]
    returncode: int
    out: str
    err: str

    @property
    def ok(self) -> bool:
        return self.returncode == 0

    def why(self) -> str:
        """The tool's own words for a failure, in one line."""
        text = (self.err or self.out).strip().splitlines()
        return text[-1] if text else f"exit status {self.returncode}"

    def line(self) -> str:
        return " ".join(self.args)


def call(*args: str, timeout_s: float = TIMEOUT_S) -> Called:
    """Run `args` (the first found on PATH); a missing program is returncode 127, not an
    exception, so each caller says in its own words what that means."""
    program = shutil.which(args[0])
    if program is None:
        return Called(args, 127, "", f"{args[0]}: not found on PATH")
    try:
        done = subprocess.run(
            [program, *args[1:]], capture_output=True, text=True, timeout=timeout_s, check=False
        )
    except subprocess.TimeoutExpired:
        return Called(args, 124, "", f"{args[0]} did not answer within {timeout_s:g} s")
    except OSError as exc:
        return Called(args, 126, "", f"{args[0]}: {exc}")
    return Called(args, done.returncode, done.stdout, done.stderr)


def installed(name: str) -> bool:
    return shutil.which(name) is not None


def platform() -> str:
    """sys.platform, asked through here so a test can be on macOS for a moment."""
    return sys.platform


def drop_empty_folders(folder: Path, levels: int) -> None:
    """Remove `folder` and up to `levels - 1` of its parents while they are empty: the folders
    an install made for its file (one that holds anything else stays)."""
    for _ in range(levels):
        try:
            folder.rmdir()
        except OSError:
            return
        folder = folder.parent
