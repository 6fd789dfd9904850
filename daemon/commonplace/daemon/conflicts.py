"""Sync-conflict copies of captures and Ask notes: never filed or answered, but never hidden.

When two computers change the same file before they sync, sync tools keep both versions:
Syncthing as `name.sync-conflict-20261020-081500-ABCDEFG.md`, Dropbox as `name (conflicted copy
2026-10-20).md`, others as `name (conflict ...).md`. The vault's one rule for what is a note
(`is_ignored`) keeps such copies out of the index, tidy and Ask, rightly: filing or answering
both versions would double them. But the owner must hear about the copies in the inbox and the
Ask folder, or a capture or a question is silently lost; so they are listed in attention
(/api/state, `doctor`) with what to do.
"""

from __future__ import annotations

import asyncio
import logging
import os
import re
from pathlib import PurePosixPath

from commonplace.ask.asknote import ask_root, ask_rule, is_ask_note
from commonplace.config import Settings
from commonplace.runtime.attention import Attention, Entry
from commonplace.vault.layout import is_conflict_copy

log = logging.getLogger(__name__)

SOURCE = "sync"
SCAN_S = 10.0  # how often the inbox and Ask folders are looked at for new conflict copies
_MARKERS = re.compile(
    r"\.sync-conflict-[^.]*|\s*\((?:[^()]*\s)?conflict(?:ed)?(?: copy)?[^()]*\)", re.IGNORECASE
)


def original_of(path: str) -> str:
    """The file a conflict copy was made from: the copy's name without the sync tool's marker."""
    p = PurePosixPath(path)
    name = _MARKERS.sub("", p.stem) + p.suffix
    return (p.parent / name).as_posix() if p.parent.as_posix() != "." else name


def find_conflict_copies(settings: Settings) -> list[Entry]:
    """The conflict copies in the inbox and of Ask notes (in Logseq also of the namespace pages
    Ask/..., which sit in the pages directory as Ask___...), each with what to do about it."""
    inbox, rule = settings.folder("inbox"), ask_rule(settings)
    ask = rule[0]
    entries = [_entry(settings, rel, "inbox") for rel in _copies_under(settings, inbox)]
    asked = set(_copies_under(settings, ask))
    root = ask_root(*rule)
    if root != ask:  # the namespace pages are at the top of the pages directory
        asked.update(_copies_under(settings, root, recursive=False))
    for rel in sorted(asked):
        if is_ask_note(original_of(rel), *rule):
            entries.append(_entry(settings, rel, "ask"))
    return entries


def _copies_under(settings: Settings, folder: str, *, recursive: bool = True) -> list[str]:
    found: list[str] = []
    for root, dirs, files in os.walk(settings.vault / folder):
        dirs[:] = [d for d in dirs if not d.startswith(".")] if recursive else []
        rel_root = os.path.relpath(root, settings.vault).replace(os.sep, "/")
        found.extend(f"{rel_root}/{name}" for name in files if is_conflict_copy(name))
    return sorted(found)


def _entry(settings: Settings, rel: str, key: str) -> Entry:
    original = original_of(rel)
    what = "capture" if key == "inbox" else "Ask note"
    undone = "it is not filed" if key == "inbox" else "its questions are not answered"
    reason = f"a sync conflict copy of the {what} {original} (changed on two computers); {undone}"
    if (settings.vault / original).exists():
        action = f"compare it with {original}, keep what you want there, then delete the copy"
    else:
        goal = "filed" if key == "inbox" else "answered"
        action = f"rename it to {PurePosixPath(original).name} to have it {goal}, or delete it"
    return Entry(SOURCE, rel, "conflict_copy", reason, action)


async def watch_conflicts(settings: Settings, attention: Attention) -> None:
    """Keep the conflict copies in attention up to date (run supervised, cancel to stop)."""
    while True:
        try:
            entries = await asyncio.to_thread(find_conflict_copies, settings)
        except OSError as exc:
            log.warning("could not look for sync conflict copies: %s", exc)
        else:
            attention.replace(SOURCE, entries)
        await asyncio.sleep(SCAN_S)
