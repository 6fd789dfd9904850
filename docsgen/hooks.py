"""MkDocs hook: writes each marked part of a page (`<!-- generated: NAME -->` ...) afresh from the
code at every build (`make docs`, and the docs test), so the site shows the code as it is; the
pages keep the same text committed (`make reference`, docsgen/pages.py)."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
for folder in (ROOT / "daemon", ROOT):
    if str(folder) not in sys.path:
        sys.path.insert(0, str(folder))

from docsgen.pages import fill  # noqa: E402

__all__ = ["fill", "on_page_markdown"]


def on_page_markdown(markdown: str, **_: Any) -> str:
    return fill(markdown)
