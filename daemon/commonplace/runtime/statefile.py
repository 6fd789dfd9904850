"""The daemon's own state files in the data folder: JSON, read forgivingly, replaced atomically.

State is a record of what the daemon did, never the truth (that is the vault), so a missing or
unreadable file is read as "nothing recorded yet" (logged, once per read) instead of stopping the
daemon. Every module that keeps state uses these two functions, so every state file is written
the same safe way: temp file, fsync, rename.
"""

from __future__ import annotations

import json
import logging
from pathlib import Path
from typing import Any

from commonplace.vault import replace_file

log = logging.getLogger(__name__)


def read_json(path: Path) -> Any:
    """The file's JSON value, or None when it does not exist or cannot be read."""
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return None
    except (OSError, ValueError) as exc:
        log.warning("%s cannot be read (%s); starting afresh", path, exc)
        return None


def write_json(path: Path, value: Any, *, private: bool = False) -> None:
    """Replace the file with `value`; `private` files (secrets) are readable by the owner only."""
    text = json.dumps(value, indent=1, ensure_ascii=False) + "\n"  # keeps insertion order
    replace_file(path, text, mode=0o600 if private else 0o666)
