"""Sync conflict copies in the inbox and the Ask folder: listed with what to do, never filed."""

from __future__ import annotations

import dataclasses

import pytest

from commonplace.config import Settings
from commonplace.daemon.conflicts import find_conflict_copies, original_of


@pytest.mark.parametrize(
    ("copy", "original"),
    [
        (
            "Inbox/2026-10-19 0800.sync-conflict-20261020-081500-ABCDEFG.md",
            "Inbox/2026-10-19 0800.md",
        ),
        ("Ask/Trip.sync-conflict-20261020-081500-ABCDEFG.md", "Ask/Trip.md"),
        ("Ask/Trip (conflicted copy 2026-10-20).md", "Ask/Trip.md"),
        ("Ask/Trip (Sam's conflicted copy 2026-10-20).md", "Ask/Trip.md"),
        ("Inbox/Note (conflict 2026-10-20 081500).md", "Inbox/Note.md"),
    ],
)
def test_the_original_is_the_name_without_the_marker(copy: str, original: str) -> None:
    assert original_of(copy) == original


def test_copies_in_the_inbox_and_ask_folders_are_listed(settings: Settings) -> None:
    vault = settings.vault
    for rel in [
        "Inbox/2026-10-19 0800.md",
        "Inbox/2026-10-19 0800.sync-conflict-20261020-081500-ABCDEFG.md",
        "Inbox/2026-10-18 0700.sync-conflict-20261020-081500-ABCDEFG.md",  # original filed
        "Ask/Trip (conflicted copy 2026-10-20).md",
        "Areas/Car.sync-conflict-20261020-081500-ABCDEFG.md",  # not a capture or Ask note
    ]:
        (vault / rel).parent.mkdir(exist_ok=True)
        (vault / rel).write_text("words")
    entries = {e.path: e for e in find_conflict_copies(settings)}
    assert sorted(entries) == [
        "Ask/Trip (conflicted copy 2026-10-20).md",
        "Inbox/2026-10-18 0700.sync-conflict-20261020-081500-ABCDEFG.md",
        "Inbox/2026-10-19 0800.sync-conflict-20261020-081500-ABCDEFG.md",
    ]
    both = entries["Inbox/2026-10-19 0800.sync-conflict-20261020-081500-ABCDEFG.md"]
    assert (both.source, both.code) == ("sync", "conflict_copy")
    assert "of the capture Inbox/2026-10-19 0800.md" in both.reason and "not filed" in both.reason
    assert both.action.startswith("compare it with Inbox/2026-10-19 0800.md")
    alone = entries["Inbox/2026-10-18 0700.sync-conflict-20261020-081500-ABCDEFG.md"]
    assert alone.action.startswith("rename it to 2026-10-18 0700.md to have it filed")
    ask = entries["Ask/Trip (conflicted copy 2026-10-20).md"]
    assert "questions are not answered" in ask.reason


def test_copies_of_logseq_ask_namespace_pages_are_listed(settings: Settings) -> None:
    logseq = dataclasses.replace(settings, flavor="logseq")
    pages = logseq.vault / "pages"
    pages.mkdir(exist_ok=True)
    for name in [
        "Ask___Trip.md",
        "Ask___Trip.sync-conflict-20261020-081500-ABCDEFG.md",
        "Asking around.sync-conflict-20261020-081500-ABCDEFG.md",  # not an Ask page
    ]:
        (pages / name).write_text("- ?? when do we leave\n")
    entries = {e.path: e for e in find_conflict_copies(logseq)}
    assert sorted(entries) == ["pages/Ask___Trip.sync-conflict-20261020-081500-ABCDEFG.md"]
    entry = entries["pages/Ask___Trip.sync-conflict-20261020-081500-ABCDEFG.md"]
    assert "of the Ask note pages/Ask___Trip.md" in entry.reason
    assert "questions are not answered" in entry.reason
