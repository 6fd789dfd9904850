"""Which notes are the daemon's: one rule for every stage and both flavours.

The daemon's notes are those in its folders (inbox, filed, Ask, digests) and, in Logseq, the
namespace pages `Ask/...`, which Logseq keeps beside the owner's pages as `pages/Ask___Name.md`:
they hold questions and the answers the daemon wrote, so they are Ask notes wherever they sit.
Tidy's candidate links, Ask's passages and the assistant's tasks leave out the kinds they must
not use through this one function; a folder prefix alone would miss the namespace pages.
"""

from __future__ import annotations

from collections.abc import Callable

from commonplace.config import Settings
from commonplace.vault import in_folder

KINDS = ("inbox", "filed", "ask", "digests")


def is_ask_note(path: str, folder: str, flavor: str) -> bool:
    """True for notes in the Ask folder; in Logseq also the namespace pages 'Ask/...', which
    Logseq stores as pages/Ask___Name.md (or pages/Ask%2FName.md in its older format)."""
    if in_folder(path, folder):
        return True
    lowered = path.lower()
    return any(
        lowered.startswith(start) and "/" not in path[len(start) :]
        for start in ask_pages(folder, flavor)
    )


def ask_pages(folder: str, flavor: str) -> tuple[str, ...]:
    """How Logseq's Ask namespace pages begin, lower-cased ('pages/ask___', 'pages/ask%2f' for
    the Ask folder pages/Ask); none outside Logseq or for an Ask folder deeper than pages/X.
    A search leaves them out inside the index with these (index.SearchFilter.exclude_pages),
    so they never take the places of the owner's notes before the results are cut."""
    if flavor != "logseq" or not folder.startswith("pages/") or folder.count("/") != 1:
        return ()
    name = folder.lower()
    return (f"{name}___", f"{name}%2f")


def ask_root(folder: str, flavor: str) -> str:
    """The folder to look in for Ask notes: the Ask folder, or in Logseq all of pages/ (for the
    namespace pages, which sit beside the others); `is_ask_note` picks them out."""
    return folder.split("/", 1)[0] if flavor == "logseq" else folder


def daemon_folder_of(path: str, settings: Settings) -> str | None:
    """The daemon folder a note belongs to ('inbox', 'filed', 'ask' or 'digests'), or None for
    the owner's own notes. `path` is vault-relative with '/' separators."""
    return classifier(settings)(path)


def classifier(settings: Settings) -> Callable[[str], str | None]:
    """`daemon_folder_of` with the settings read once, for a loop over every note."""
    folders = tuple((kind, settings.folder(kind)) for kind in KINDS)
    ask, flavor = settings.folder("ask"), settings.flavor

    def kind_of(path: str) -> str | None:
        for kind, folder in folders:
            if in_folder(path, folder):
                return kind
        return "ask" if is_ask_note(path, ask, flavor) else None

    return kind_of


def is_daemon_note(path: str, settings: Settings) -> bool:
    """A note in one of the daemon's folders, or a Logseq Ask namespace page: never a link
    target, never a candidate."""
    return daemon_folder_of(path, settings) is not None
