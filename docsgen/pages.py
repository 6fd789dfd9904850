"""The reference as it is kept in the pages: generated text between two marks, committed.

A page asks for a part of the reference with a pair of marks; what lies between them is written
from the code by `make reference` (`python -m docsgen.pages`) and committed, so the page reads
in full in the repository (a reader on the code host saw an empty page before: the text was made
only when the site was built). tests/test_reference_pages.py fails when the committed text is
not what the code writes now, and says to run `make reference`. The site's build (hooks.py)
fills the marks afresh too, so `make docs` shows a change to the code at once.

    <!-- generated: cli -->
    ...written by make reference...
    <!-- end generated: cli -->

A page may hold a first mark alone (a new page): `make reference` adds the text and the end mark.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
for folder in (ROOT / "daemon", ROOT):
    if str(folder) not in sys.path:
        sys.path.insert(0, str(folder))

from docsgen.reference import GENERATORS  # noqa: E402

DOCS = ROOT / "docs"
NOTE = "<!-- Written from the code by `make reference`: edit the code, not this part. -->"
# A first mark, then (optionally) the text and the end mark that an earlier run wrote.
PART = re.compile(
    r"^<!-- generated: ([\w-]+) -->\n"
    r"(?:(?:(?!^<!-- generated: ).)*?^<!-- end generated: \1 -->\n?)?",
    re.MULTILINE | re.DOTALL,
)


def fill(markdown: str) -> str:
    """The page with each marked part written afresh from the code; an unknown name is an
    error, so a typo never leaves a reference page empty."""

    def generate(match: re.Match[str]) -> str:
        name = match.group(1)
        if name not in GENERATORS:
            raise ValueError(f"unknown generated section {name!r}; known: {sorted(GENERATORS)}")
        text = GENERATORS[name]().rstrip("\n")
        return f"<!-- generated: {name} -->\n{NOTE}\n\n{text}\n\n<!-- end generated: {name} -->\n"

    return PART.sub(generate, markdown)


def marked_pages(docs: Path = DOCS) -> list[Path]:
    """Every page with a marked part."""
    return [p for p in sorted(docs.rglob("*.md")) if PART.search(p.read_text(encoding="utf-8"))]


def stale_pages(docs: Path = DOCS) -> list[Path]:
    """The pages whose committed text is not what the code writes now."""
    return [
        p
        for p in marked_pages(docs)
        if fill(p.read_text(encoding="utf-8")) != p.read_text(encoding="utf-8")
    ]


def main() -> None:
    """Write every marked part of every page afresh; say which pages changed."""
    changed = stale_pages()
    for page in changed:
        page.write_text(fill(page.read_text(encoding="utf-8")), encoding="utf-8")
    for page in changed:
        print(f"wrote {page.relative_to(ROOT)}")  # noqa: T201
    if not changed:
        print("the reference pages are up to date")  # noqa: T201


if __name__ == "__main__":
    main()
