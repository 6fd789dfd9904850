"""Which notes are the daemon's: one rule for every stage and both flavours.

The daemon's notes are those in its folders (inbox, filed, Ask, digests) and, in Logseq, the
namespace pages `Ask/...`, which Logseq keeps beside the owner's pages as `pages/Ask___Name.md`
(in the graph's pages directory: `pages/` unless `:pages-directory` says otherwise): they hold
questions and the answers the daemon wrote, so they are Ask notes wherever they sit.
Tidy's candidate links, Ask's passages and the assistant's tasks leave out the kinds they must
not use through this one function; a folder prefix alone would miss the namespace pages.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import PurePosixPath

from commonplace.config import Settings
from commonplace.vault import in_folder, iter_note_paths
from commonplace.vault.journals import DEFAULT_PAGES

KINDS = ("inbox", "filed", "ask", "digests")


def is_ask_note(path: str, folder: str, flavor: str, pages: str = DEFAULT_PAGES) -> bool:
    """True for notes in the Ask folder; in Logseq also the namespace pages 'Ask/...', which
    Logseq stores in its pages directory `pages` as Ask___Name.md (or Ask%2FName.md in its
    older format)."""
    if in_folder(path, folder):
        return True
    lowered = path.lower()
    return any(
        lowered.startswith(start) and "/" not in path[len(start) :]
        for start in ask_pages(folder, flavor, pages)
    )


def ask_pages(folder: str, flavor: str, pages: str = DEFAULT_PAGES) -> tuple[str, ...]:
    """How Logseq's Ask namespace pages begin, lower-cased ('pages/ask___', 'pages/ask%2f' for
    the Ask folder pages/Ask); none outside Logseq or for an Ask folder that is not directly
    in the pages directory `pages` (Settings.pages_folder). A search leaves them out inside
    the index with these (index.SearchFilter.exclude_pages), so they never take the places
    of the owner's notes before the results are cut."""
    if flavor != "logseq" or PurePosixPath(folder).parent.as_posix() != pages.strip("/"):
        return ()
    name = folder.lower()
    return (f"{name}___", f"{name}%2f")


def ask_root(folder: str, flavor: str, pages: str = DEFAULT_PAGES) -> str:
    """The folder to look in for Ask notes: the Ask folder, or in Logseq all of the pages
    directory (for the namespace pages, which sit beside the others); `is_ask_note` picks
    them out."""
    return pages.strip("/") if ask_pages(folder, flavor, pages) else folder


def ask_rule(settings: Settings) -> tuple[str, str, str]:
    """The arguments of `is_ask_note`, `ask_pages` and `ask_root` after the path, from the
    settings: the Ask folder, the flavour and (in Logseq) the graph's pages directory."""
    return settings.folder("ask"), settings.flavor, settings.pages_folder() or DEFAULT_PAGES


def daemon_folder_of(path: str, settings: Settings) -> str | None:
    """The daemon folder a note belongs to ('inbox', 'filed', 'ask' or 'digests'), or None for
    the owner's own notes. `path` is vault-relative with '/' separators."""
    return classifier(settings)(path)


def classifier(settings: Settings) -> Callable[[str], str | None]:
    """`daemon_folder_of` with the settings read once, for a loop over every note."""
    folders = tuple((kind, settings.folder(kind)) for kind in KINDS)
    rule = ask_rule(settings)

    def kind_of(path: str) -> str | None:
        for kind, folder in folders:
            if in_folder(path, folder):
                return kind
        return "ask" if is_ask_note(path, *rule) else None

    return kind_of


def is_daemon_note(path: str, settings: Settings) -> bool:
    """A note in one of the daemon's folders, or a Logseq Ask namespace page: never a link
    target, never a candidate."""
    return daemon_folder_of(path, settings) is not None


def left_in_earlier_pages(settings: Settings) -> str | None:
    """What the daemon made in pages/ before the graph's `:pages-directory` named another
    folder, in a sentence with what to do; None when there is nothing (or nothing moved).

    Logseq moves no file when the setting changes, and neither does the daemon (the owner's
    files move on a Yes only), but its folders follow the setting: captures and questions left
    in pages/ would never be filed or answered, and nothing would say so. So doctor and the
    start-up notes say where they are. (The tasks and memory notes are used where they are:
    assistant/vaultfiles.py `note_path`.)"""
    if settings.flavor != "logseq":
        return None
    pages = settings.pages_folder()
    if pages == DEFAULT_PAGES:
        return None
    vault = settings.vault
    found = []
    for kind in KINDS:
        name = getattr(settings.folders, kind).strip("/")
        if "/" in name:  # a path given as is: it does not follow the pages directory
            continue
        count = sum(1 for _ in iter_note_paths(vault, under=f"{DEFAULT_PAGES}/{name}"))
        if count:
            found.append(f"{DEFAULT_PAGES}/{name}/ ({count} note{'' if count == 1 else 's'})")
    asks = _ask_pages_in(vault / DEFAULT_PAGES, settings.folders.ask.strip("/"))
    if asks:
        found.append(f"{asks} Ask page{'' if asks == 1 else 's'} ({DEFAULT_PAGES}/Ask___...)")
    if not found:
        return None
    return (
        f"logseq/config.edn says :pages-directory {pages!r}, but Commonplace's folders from "
        f"before are still in {DEFAULT_PAGES}/: {', '.join(found)}. New captures, filed notes, "
        f"Ask pages and digests go under {pages}/, and captures and questions left in "
        f"{DEFAULT_PAGES}/ are no longer filed or answered. Nothing was moved: to go on with "
        f"them, close Logseq and move them to the same places under {pages}/ (the files in "
        f"{DEFAULT_PAGES}/Inbox/ into {pages}/Inbox/, and so on), or set :pages-directory "
        f'back to "{DEFAULT_PAGES}".'
    )


def _ask_pages_in(folder: os.PathLike[str], ask: str) -> int:
    """How many Logseq Ask namespace pages (`Ask___Trip.md`) are directly in `folder`."""
    if "/" in ask:
        return 0
    starts = (f"{ask.lower()}___", f"{ask.lower()}%2f")
    try:
        with os.scandir(folder) as entries:
            return sum(
                1
                for e in entries
                if e.name.lower().startswith(starts)
                and e.name.lower().endswith(".md")
                and e.is_file(follow_symlinks=False)
            )
    except OSError:
        return 0
