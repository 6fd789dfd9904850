"""Logseq block references, read as Logseq shows them: a `((uuid))` becomes the block's text.

A Logseq page refers to a block of another page with `((6502e1a4-...))`, or shows it in place
with `{{embed ((6502e1a4-...))}}`; the block carries the uuid on a hidden line (`id:: 6502...`)
under its first line. Logseq shows the block's text where the ref stands, so a reader of a
search snippet or an Ask passage expects that text, not 36 characters of hex.

Two pure functions: `note_blocks` reads a page's blocks that have an id (the indexer keeps them
in the manifest as it reads each note), `shown_refs` puts their text in a passage where it is
shown or given to the model. The indexed text keeps the refs as written: replacing them at
index time made retrieval worse (eval_suite/README.md, seventh round, S2).
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from commonplace.vault import markdown
from commonplace.vault.shown import LOGSEQ_HIDDEN_LINE

# What a block is shown as when its text is not: the editor's mark for words left out of a
# quotation. A ref whose block is unknown (deleted, or in a page excluded from the index, whose
# words must not appear anywhere) or nested deeper than one level reads as "something was
# quoted here"; the uuid itself is noise to a reader, and leaving the ref out without a trace
# would make "mentioned in ((…))" read as "mentioned in" with nothing after it.
NOT_SHOWN = "[…]"
BLOCK_CHARS = 120  # a block's first line is cut here (at a word), as Logseq's refs are one line

UUID = r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}"
_ID_LINE = re.compile(rf"^[ \t]*(?:-[ \t]+)?id::[ \t]*({UUID})[ \t]*$", re.IGNORECASE)
_BULLET = re.compile(r"^[ \t]*-(?:[ \t]+|$)")
_PROPERTY = re.compile(r"^[ \t]*[\w.-]+::(?:[ \t]|$)")
# What Logseq draws instead of writing out at the start of a block: heading hashes, a task
# marker (rendered as a checkbox), a priority.
_MARKERS = re.compile(
    r"^(?:#{1,6}[ \t]+)?"
    rf"(?:(?:{'|'.join(map(re.escape, markdown.LOGSEQ_OPEN + markdown.LOGSEQ_CLOSED))})[ \t]+)?"
    rf"(?:{markdown.LOGSEQ_PRIORITY}[ \t]*)?"
)
# Code is shown as written (Logseq does not read refs in it, and the docs quote example uuids in
# backticks); a link whose target is a block ref shows its label, as Logseq does.
_SHOWN = re.compile(
    r"(?P<code>```.*?```|`[^`\n]*`)"
    rf"|\[(?P<label>[^\]\n]*)\]\(\(\((?P<link>{UUID})\)\)\)"
    rf"|\{{\{{embed[ \t]+\(\((?P<embed>{UUID})\)\)[ \t]*\}}\}}"
    rf"|\(\((?P<ref>{UUID})\)\)",
    re.DOTALL,
)
_REF = re.compile(rf"\(\(({UUID})\)\)")


def note_blocks(text: str) -> dict[str, str]:
    """uuid (lower case) -> the text Logseq shows for that block, for every block of the page
    that carries an `id::` line: its first line that is not a property, without its bullet,
    heading hashes, task marker or priority, folded to one line and cut at BLOCK_CHARS. The
    text before the first bullet is a block too (a page's first block may have none); an id
    among the page's properties, above its first words, is the page's own, not a block's."""
    if "id::" not in text:  # most pages: nothing refers to any of their blocks
        return {}
    lines = text.split("\n")
    code = markdown.code_mask(lines)
    blocks: dict[str, str] = {}
    first = ""  # the current block's first shown line, "" until one is seen
    ids: list[str] = []

    def close() -> None:
        if first:
            blocks.update(dict.fromkeys(ids, _shortened(first)))

    pre = True  # before the first bullet: the page's properties, then maybe a first block
    for i, line in enumerate(lines):
        bullet = _BULLET.match(line) is not None and not code[i]
        if bullet:
            close()
            first, ids, pre = "", [], False
        if not code[i] and (found := _ID_LINE.match(line)):
            if first or not pre:  # before any words of the page: the page's own id
                ids.append(found.group(1).lower())
            continue
        content = _BULLET.sub("", line, count=1) if bullet else line
        if first or code[i] or not content.strip():  # a fence line is not what Logseq shows
            continue
        if not code[i] and (_PROPERTY.match(content) or LOGSEQ_HIDDEN_LINE.match(content)):
            continue
        first = _MARKERS.sub("", content.strip(), count=1)
    close()
    return blocks


def refs_in(text: str) -> set[str]:
    """The uuids (lower case) of the block refs and embeds in `text`."""
    if "((" not in text:
        return set()
    return {uuid.lower() for uuid in _REF.findall(text)}


def shown_refs(text: str, blocks: Mapping[str, str]) -> str:
    """`text` with each `((uuid))` and `{{embed ((uuid))}}` replaced by its block's text from
    `blocks` (uuid in lower case -> text, as note_blocks gives), or by NOT_SHOWN when the block
    is unknown; `[label](((uuid)))` shows its label. One level only: refs inside a block's text
    are shown as NOT_SHOWN, so two blocks that refer to each other cannot loop, and a passage
    never grows by more than one line a ref."""
    if "((" not in text:
        return text

    def one(match: re.Match[str], level: Mapping[str, str]) -> str:
        if match.group("code") is not None:
            return match.group(0)
        if match.group("link") is not None:
            return match.group("label")
        uuid = (match.group("embed") or match.group("ref")).lower()
        shown = level.get(uuid)
        if shown is None:
            return NOT_SHOWN
        return _SHOWN.sub(lambda inner: one(inner, {}), shown) if "((" in shown else shown

    return _SHOWN.sub(lambda match: one(match, blocks), text)


def _shortened(line: str) -> str:
    flat = " ".join(line.split())
    if len(flat) <= BLOCK_CHARS:
        return flat
    cut = flat.rfind(" ", 0, BLOCK_CHARS)
    return flat[: cut if cut > BLOCK_CHARS // 2 else BLOCK_CHARS].rstrip() + "…"
