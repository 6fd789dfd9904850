"""A note's lines as its app shows them to a reader, which is what search indexes and shows.

Both apps keep bookkeeping in the file that a reader never sees. Logseq writes a block's id
(`id:: 6502...`) under every block another block refers to, and its folded state
(`collapsed:: true`); Obsidian ends a block someone links to with `^block-id`. Indexed as
written, these are words no one searches for: a uuid's hex fragments in the keyword index,
noise in the text the embedding model reads, and lines of hex in a snippet or an Ask passage.
They are left out of the indexed text; line numbers still count them (chunks keep the file's
own line ranges). Code blocks are shown as written.
"""

from __future__ import annotations

import re

from commonplace.vault import markdown

# Block properties Logseq keeps in the file but never shows (graph-parser property.cljs,
# hidden-built-in-properties: a block's id, its folded state, the time it became NOW...).
LOGSEQ_HIDDEN = [
    "id",
    "custom-id",
    "background-color",
    "background_color",
    "heading",
    "collapsed",
    "created-at",
    "updated-at",
    "last-modified-at",
    "created_at",
    "last_modified_at",
    "query-table",
    "query-properties",
    "query-sort-by",
    "query-sort-desc",
    "ls-type",
    "hl-type",
    "hl-page",
    "hl-stamp",
    "hl-color",
    "logseq.macro-name",
    "logseq.macro-arguments",
    "logseq.order-list-type",
    "logseq.tldraw.page",
    "logseq.tldraw.shape",
    "todo",
    "doing",
    "now",
    "later",
    "done",
]
LOGSEQ_HIDDEN_LINE = re.compile(
    rf"^[ \t]*(?:{'|'.join(map(re.escape, LOGSEQ_HIDDEN))})::[ \t].*$", re.IGNORECASE
)
# Logseq's org-style block lines (`#+BEGIN_NOTE`, `#+END_QUERY`, `- #+BEGIN_SRC clojure`): the
# app draws a box or a code block there; in a one-line quote they were words nobody wrote.
LOGSEQ_BLOCK_MARKER = re.compile(
    r"^[ \t]*(?:-[ \t]+)?#\+(?:BEGIN|END)_[A-Za-z]+\b.*$", re.IGNORECASE
)
# Obsidian's block identifier: Latin letters, digits and dashes after a caret, at the end of a
# block, or on a line of its own after a list, table or quote (help.obsidian.md, "Link to a
# block in a note").
_OBSIDIAN_BLOCK_ID = re.compile(r"(?:^|[ \t]+)\^[A-Za-z0-9-]+[ \t]*$")


def shown_lines(lines: list[str], flavor: str) -> list[str | None]:
    """Each line as the reader sees it, or None for a line the app does not show."""
    code = markdown.code_mask(lines)
    return [line if code[i] else _shown(line, flavor) for i, line in enumerate(lines)]


def shown_text(text: str, flavor: str) -> str:
    """The text without what the app hides (its hidden lines left out)."""
    return "\n".join(s for s in shown_lines(text.split("\n"), flavor) if s is not None)


def quoted_text(text: str) -> str:
    """The text for a one-line quote (a search snippet, a source under an answer): without
    Logseq's hidden block properties and its `#+BEGIN_...`/`#+END_...` lines, which a reader
    sees as a box, not as words. A text of nothing else is kept as it is."""
    kept = "\n".join(
        line
        for line in text.split("\n")
        if not LOGSEQ_HIDDEN_LINE.match(line) and not LOGSEQ_BLOCK_MARKER.match(line)
    )
    return kept if kept.strip() else text


def _shown(line: str, flavor: str) -> str | None:
    if flavor == "logseq":
        return None if LOGSEQ_HIDDEN_LINE.match(line) else line
    if "^" not in line:
        return line
    cut = _OBSIDIAN_BLOCK_ID.sub("", line)
    return None if line.strip() and not cut.strip() else cut
