"""Which notes are the daemon's: one rule for every stage and both flavours.

The daemon's notes are those in its folders (inbox, filed, Ask, digests) and, in Logseq, the
namespace pages `Ask/...`, which Logseq keeps beside the owner's pages as `pages/Ask___Name.md`
(in the graph's pages directory: `pages/` unless `:pages-directory` says otherwise): they hold
questions and the answers the daemon wrote, so they are Ask notes wherever they sit.
Tidy's candidate links, Ask's passages and the assistant's tasks leave out the kinds they must
not use through this one function; a folder prefix alone would miss the namespace pages.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import PurePosixPath

from commonplace.config import Settings
from commonplace.vault import in_folder
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
