"""The checks on a capture that need no model: still there, readable, within the size limit,
with words in it.

The worker runs them on the captures waiting while the model is down (when nothing can be tidied),
so that what the owner has to fix (a capture too large, empty or unreadable) is shown at once,
not only once the model is back. A capture that passes is tidied as usual later; the same checks
then run again as part of tidying.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Literal
from zoneinfo import ZoneInfo

from commonplace.capture.inbox import CaptureNotText, CaptureTooLarge, read_capture
from commonplace.vault import FileRefused

Problem = Literal["", "gone", "too_large", "unreadable", "empty", "not_a_file", "not_text", "nul"]


@dataclass(frozen=True)
class Verdict:
    path: str
    problem: Problem  # "": nothing found that needs the owner
    error: OSError | CaptureTooLarge | FileRefused | None = None


def vet(vault: Path, path: str, tz: ZoneInfo, max_bytes: int) -> Verdict:
    """Read the capture (never more than `max_bytes`) and say what, if anything, is wrong."""
    try:
        capture = read_capture(vault, path, tz, max_bytes=max_bytes)
    except FileNotFoundError:
        return Verdict(path, "gone")
    except CaptureTooLarge as exc:
        return Verdict(path, "too_large", exc)
    except FileRefused as exc:  # a link, FIFO, socket or device: never read (vault/files.py)
        return Verdict(path, "not_a_file", exc)
    except OSError as exc:
        return Verdict(path, "unreadable", exc)
    except UnicodeDecodeError:
        return Verdict(path, "not_text")
    except CaptureNotText:
        return Verdict(path, "nul")
    return Verdict(path, "" if capture.body.strip() else "empty")


def vet_all(vault: Path, paths: Sequence[str], tz: ZoneInfo, max_bytes: int) -> list[Verdict]:
    return [vet(vault, p, tz, max_bytes) for p in paths]
