"""Which files a refresh must look at: a comparison of the vault with the manifest.

A reconciliation lists the vault (os.scandir + one stat per file) and reads only files whose
size or mtime differ from what was indexed; a targeted refresh (paths from the watcher) looks at
just those paths, and a path that is now a folder, or a folder that is gone, covers every note
under it.
"""

from __future__ import annotations

import itertools
import logging
import os
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

from commonplace.attachments.kinds import (
    attachment_ignored,
    is_attachment,
    iter_attachment_paths,
)
from commonplace.index.manifest import FileEntry, Manifest
from commonplace.runtime.foreground import pause
from commonplace.vault import entry_problem, is_ignored, is_regular_file, iter_note_paths

log = logging.getLogger(__name__)


@dataclass
class Plan:
    read: list[str] = field(default_factory=list)  # read, hash, re-index if the hash differs
    delete: list[str] = field(default_factory=list)  # gone from the vault
    checked: int = 0
    entries: dict[str, FileEntry] = field(default_factory=dict)  # the manifest's rows for them
    again: set[str] = field(default_factory=set)  # indexed again even if their bytes are the same

    @property
    def empty(self) -> bool:
        return not self.read and not self.delete


def normalize(path: str) -> str:
    """'/Projects//X.md' -> 'Projects/X.md' (vault-relative, '/'-separated)."""
    rel = PurePosixPath(path.replace("\\", "/").strip("/")).as_posix()
    return "" if rel == "." else rel


Excludes = Callable[[str], bool]  # a note the owner keeps out of search (vault/exclusions.py)


def _never(rel: str) -> bool:
    return False


def plan_reconcile(
    vault: Path,
    entries: dict[str, FileEntry],
    stale: set[str],
    *,
    retry_vectors: bool,
    excludes: Excludes = _never,
    attachments: bool = False,
) -> Plan:
    """Everything that differs between the vault and the manifest. An excluded note counts as
    absent: indexed before, it is deleted from the index. With `attachments`, the vault's PDFs
    and images are compared too, and come after every note in `read` (they are indexed after
    notes: attachments/)."""
    plan = Plan()
    on_disk: set[str] = set()
    root = str(vault)
    listing = iter_note_paths(vault)
    if attachments:
        listing = itertools.chain(listing, iter_attachment_paths(vault))
    for listed, rel in enumerate(listing):
        if listed % 256 == 0:
            pause()  # let a request being answered go first (runtime/foreground.py)
        if excludes(rel):
            continue
        on_disk.add(rel)
        try:
            st = os.stat(f"{root}/{rel}")  # noqa: PTH116 - no Path object per file on big vaults
        except OSError:
            continue
        entry = entries.get(rel)
        if (
            entry is None
            or entry.size != st.st_size
            or entry.mtime != st.st_mtime
            or (retry_vectors and not entry.vectors_ok and not entry.skipped)
        ):
            plan.read.append(rel)
    plan.checked = len(on_disk)
    plan.entries = entries
    if not on_disk and len(entries) > 1 and not _readable_folder(vault):
        # An unmounted drive or a missing folder is not "every note was deleted": dropping
        # the index would cost a full re-embedding when the vault comes back.
        log.warning("the vault %s is missing or unreadable; the index is left as it is", vault)
        return Plan(entries=entries)
    plan.delete = [p for p in entries if p not in on_disk]
    plan.delete += sorted(p for p in stale if p not in on_disk and p not in entries)
    return plan


def _readable_folder(vault: Path) -> bool:
    try:
        return vault.is_dir() and any(True for _ in os.scandir(vault))
    except OSError:
        return False


def plan_paths(
    vault: Path,
    paths: list[str],
    manifest: Manifest,
    stale: set[str],
    excludes: Excludes = _never,
    attachments: bool = False,
) -> Plan:
    """Just these paths, as they are on disk now (a folder stands for every note under it).
    Like the full scan, only ordinary files reached without a link are read (vault/files.py),
    and an excluded note counts as absent. With `attachments`, PDFs and images count too,
    after the notes."""

    def wanted(rel: str) -> bool:
        return not is_ignored(rel) or (attachments and not attachment_ignored(rel))

    read: dict[str, None] = {}
    delete: dict[str, None] = {}
    for raw in paths:
        rel = normalize(raw)
        if not rel:
            continue
        full = vault / rel
        if full.is_dir():
            if is_ignored(f"{rel}/x.md"):
                continue
            listing = iter_note_paths(vault, under=rel)
            if attachments:
                listing = itertools.chain(listing, iter_attachment_paths(vault, under=rel))
            present = {p for p in listing if not excludes(p)}
            read.update(dict.fromkeys(sorted(present)))
            gone = [p for p in manifest.under(rel) if p not in present]
            delete.update(dict.fromkeys(gone))
            continue
        known = rel in stale or manifest.get(rel) is not None
        if (
            is_regular_file(full)
            and entry_problem(vault, rel) is None
            and wanted(rel)
            and not excludes(rel)
        ):
            read[rel] = None
        elif known:
            delete[rel] = None
        if not full.exists():
            delete.update(dict.fromkeys(manifest.under(rel)))  # a folder that is gone
    entries = {p: e for p in [*read, *delete] if (e := manifest.get(p)) is not None}
    ordered = sorted(read, key=is_attachment)  # notes first, in their order
    return Plan(ordered, list(delete), len(read) + len(delete), entries)
