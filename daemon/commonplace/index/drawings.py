"""Excalidraw drawings: the words on the drawing are indexed, its scene data is not.

Obsidian's Excalidraw plugin keeps each drawing as a Markdown note (`Plan.excalidraw.md`,
front matter `excalidraw-plugin: parsed`): the drawing's text elements under `## Text
Elements`, then, inside `%%` comments, the whole scene as a `compressed-json` block (or plain
`json`) of several to hundreds of kilobytes. Indexed as it is, one drawing became a handful
of chunks of base64, each embedded, stored and offered to searches and to Ask as a passage.
The scene is never anything the owner reads; the text elements, and any notes written above
the drawing's data, are.
"""

from __future__ import annotations

import dataclasses
import re

from commonplace.vault import Note, markdown

_SCENE_FENCE = re.compile(r"^ {0,3}(?:`{3,}|~{3,})\s*(?:compressed-json|json)\b", re.IGNORECASE)
# The plugin's notice above the data ("==⚠  Switch to EXCALIDRAW VIEW ... ⚠== ...").
_NOTICE = re.compile(r"^==⚠")


def is_drawing(note: Note) -> bool:
    return "excalidraw-plugin" in note.frontmatter or note.path.lower().endswith(".excalidraw.md")


def searchable(note: Note) -> Note:
    """The note as the index should read it: a drawing's scene data, the plugin's notice and
    its `%%` comment markers are blanked (lines kept, so chunk line numbers still point at the
    file's own lines); any other note is returned as it is."""
    if not is_drawing(note):
        return note
    lines = note.body.split("\n")
    in_code = markdown.code_mask(lines)
    blank = False
    kept: list[str] = []
    for i, line in enumerate(lines):
        if in_code[i] and (i == 0 or not in_code[i - 1]):  # a fence opens here
            blank = bool(_SCENE_FENCE.match(line))
        elif not in_code[i]:
            blank = False
        hidden = (in_code[i] and blank) or (
            not in_code[i] and (_NOTICE.match(line) or line.strip() == "%%")
        )
        kept.append("" if hidden else line)
    return dataclasses.replace(note, body="\n".join(kept))
