"""The reference pages read in full in the repository, and are what the code says now.

docs/reference/cli.md, configuration.md and mcp-tools.md were stubs filled only when the site
was built: the README links straight to cli.md, and a reader on the code host saw nothing. Their
generated parts are now written by `make reference` and committed (docsgen/pages.py); these
tests fail when a page is out of date with the code, saying what to run.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from docsgen import pages, reference

REPO = Path(__file__).resolve().parents[1]
README = REPO / "README.md"


def test_the_reference_pages_hold_their_reference() -> None:
    """Each part the README and the site link to has its text in the file itself."""
    names = {p.relative_to(pages.DOCS).as_posix() for p in pages.marked_pages()}
    assert {
        "reference/cli.md",
        "reference/configuration.md",
        "reference/mcp-tools.md",
        "reference/api.md",
    } <= names
    cli = (pages.DOCS / "reference" / "cli.md").read_text(encoding="utf-8")
    for name, _ in reference.cli_commands():
        assert f"## `commonplace {name}`" in cli, f"cli.md lacks `commonplace {name}`"
    config = (pages.DOCS / "reference" / "configuration.md").read_text(encoding="utf-8")
    assert all(f"`{key.path[-1]}`" in config for key in reference.config_keys())
    tools = (pages.DOCS / "reference" / "mcp-tools.md").read_text(encoding="utf-8")
    assert all(f"### `{tool.name}`" in tools for tool in reference.mcp_tools())
    assert "](docs/reference/cli.md)" in README.read_text(encoding="utf-8")


def test_the_reference_pages_are_up_to_date_with_the_code() -> None:
    stale = [p.relative_to(REPO).as_posix() for p in pages.stale_pages()]
    assert stale == [], (
        f"{', '.join(stale)}: not what the code says now; run `make reference` and commit it"
    )


def test_a_change_in_the_code_makes_a_page_stale(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The check can fail: a command the page does not have yet is found, and the writer puts
    it in; a page with a first mark only (a new page) is filled, its end mark added."""
    docs = tmp_path / "docs"
    (docs / "reference").mkdir(parents=True)
    page = docs / "reference" / "cli.md"
    page.write_text((pages.DOCS / "reference" / "cli.md").read_text(encoding="utf-8"))
    new = docs / "reference" / "new.md"
    new.write_text("# New\n\n<!-- generated: api-routes -->\n\nAfter.\n")
    assert pages.stale_pages(docs) == [new]
    real = reference.cli_reference
    monkeypatch.setitem(reference.GENERATORS, "cli", lambda: real() + "\n## `commonplace new`\n")
    assert pages.stale_pages(docs) == [page, new]
    for stale in pages.stale_pages(docs):
        stale.write_text(pages.fill(stale.read_text()))
    assert pages.stale_pages(docs) == []
    assert "## `commonplace new`" in page.read_text()
    text = new.read_text()
    assert "| `POST` | `/api/share` |" in text and text.endswith(
        "<!-- end generated: api-routes -->\n\nAfter.\n"
    )


def test_make_reference_writes_them() -> None:
    """The one command: with nothing changed it changes nothing, and says so."""
    done = subprocess.run(
        [sys.executable, "-m", "docsgen.pages"],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    assert done.stdout == "the reference pages are up to date\n"
    shown = subprocess.run(
        ["make", "-n", "-C", str(REPO), "reference"], capture_output=True, text=True, timeout=60
    ).stdout
    assert "-m docsgen.pages" in shown
