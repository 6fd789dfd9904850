"""The catalog validation checks links against: only the owner's own notes are link targets."""

from __future__ import annotations

import dataclasses

from commonplace.config import Settings
from commonplace.tidy.catalog import VaultCatalog


def test_logseq_ask_namespace_pages_are_not_link_targets(settings: Settings) -> None:
    """Logseq keeps the page Ask/Trip as pages/Ask___Trip.md: an Ask note, like the Ask
    folder's, so a proposed link to it is dropped like a link to an Inbox or Filed note."""
    logseq = dataclasses.replace(settings, flavor="logseq")
    pages = logseq.vault / "pages"
    pages.mkdir(exist_ok=True)
    (pages / "Ask___Trip.md").write_text("- ?? when do we leave\n")
    (pages / "Trip planning.md").write_text("- ferry at 9\n")
    facts = VaultCatalog(logseq).facts()
    assert "trip planning" in facts.titles
    assert not any(t.casefold().startswith("ask") for t in facts.titles.values())
    assert "ask/trip" in facts.daemon_titles
