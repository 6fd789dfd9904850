"""Which model filed each note: one line per filing in the data folder (`filed-by.jsonl`).

A filed note keeps only what DESIGN.md gives it (the capture's words, tags, links, to-dos), so
which model proposed them is kept beside the vault, not in it: when a model is changed, or one
filing looks wrong, this says which model and server made it. Lines carry paths and names,
never a capture's words.
"""

from __future__ import annotations

import json
import logging
import time
from pathlib import Path

log = logging.getLogger(__name__)

FILE_NAME = "filed-by.jsonl"


def record(data_path: Path, filed: str, capture: str, model: str, server: str) -> None:
    """Append one filing; a data folder that cannot be written loses only this line."""
    line = {
        "filed": filed,
        "capture": capture,
        "model": model,
        "server": server,
        "at": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
    }
    try:
        data_path.mkdir(parents=True, exist_ok=True)
        with (data_path / FILE_NAME).open("a", encoding="utf-8") as out:
            out.write(json.dumps(line, ensure_ascii=False) + "\n")
    except OSError as exc:
        log.info("which model filed %s could not be recorded: %s", filed, exc)


def read(data_path: Path) -> dict[str, dict[str, str]]:
    """filed note -> its last filing's line."""
    found: dict[str, dict[str, str]] = {}
    try:
        lines = (data_path / FILE_NAME).read_text(encoding="utf-8").splitlines()
    except OSError:
        return found
    for text in lines:
        try:
            line = json.loads(text)
        except ValueError:
            continue
        if isinstance(line, dict) and isinstance(line.get("filed"), str):
            found[line["filed"]] = line
    return found
