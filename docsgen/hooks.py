"""MkDocs hook: fills each `<!-- generated: NAME -->` line of a page with the reference that
docsgen/reference.py writes from the code, at every build (`make docs`, and the docs test)."""

from __future__ import annotations

import re
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
for folder in (ROOT / "daemon", ROOT):
    if str(folder) not in sys.path:
        sys.path.insert(0, str(folder))

from docsgen.reference import GENERATORS  # noqa: E402

MARK = re.compile(r"^<!-- generated: ([\w-]+) -->$", re.MULTILINE)


def fill(markdown: str) -> str:
    """The page with each mark replaced by its generated text; an unknown name is an error, so a
    typo never leaves a reference page empty."""

    def generate(match: re.Match[str]) -> str:
        name = match.group(1)
        if name not in GENERATORS:
            raise ValueError(f"unknown generated section {name!r}; known: {sorted(GENERATORS)}")
        return GENERATORS[name]()

    return MARK.sub(generate, markdown)


def on_page_markdown(markdown: str, **_: Any) -> str:
    return fill(markdown)
