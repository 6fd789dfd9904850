"""Excalidraw drawings: their words are found, their scene data never becomes a passage."""

from __future__ import annotations

import base64
import random
import zlib

from commonplace.config import Settings
from commonplace.index.drawings import searchable
from commonplace.vault import parse_note
from tests.index.conftest import OpenIndex, write

SCENE = base64.b64encode(zlib.compress(random.Random(7).randbytes(6000))).decode()
DRAWING = (
    "---\n\nexcalidraw-plugin: parsed\ntags: [excalidraw]\n\n---\n"
    "==⚠  Switch to EXCALIDRAW VIEW in the MORE OPTIONS menu of this document. ⚠== You can "
    "decompress Drawing data with the command palette.\n\n"
    "Soil test results go on the back of this sheet.\n\n"
    "# Excalidraw Data\n\n## Text Elements\n"
    "Raised beds along the south fence ^a1b2c3d4\n\nCompost bins by the shed ^e5f6a7b8\n\n"
    "%%\n## Drawing\n```compressed-json\n"
    + "\n".join(SCENE[i : i + 200] for i in range(0, len(SCENE), 200))
    + "\n```\n%%"
)


def test_a_drawing_keeps_its_words_and_loses_its_scene_line_for_line() -> None:
    note = parse_note("Drawings/Garden.excalidraw.md", DRAWING)
    seen = searchable(note)
    assert len(seen.body.split("\n")) == len(note.body.split("\n"))
    assert "Raised beds along the south fence" in seen.body
    assert "Soil test results go on the back" in seen.body  # the owner's words above the data
    assert SCENE[:200] not in seen.body and "EXCALIDRAW VIEW" not in seen.body
    assert "%%" not in seen.body


def test_other_notes_keep_their_json_blocks() -> None:
    text = '# API\n\n```json\n{"key": "value"}\n```\n\n%%\nA comment of mine.\n%%\n'
    note = parse_note("Notes/API.md", text)
    assert searchable(note) is note


async def test_an_indexed_drawing_is_found_by_its_words_and_never_by_its_data(
    open_index: OpenIndex, isettings: Settings
) -> None:
    write(isettings.vault, "Drawings/Garden.excalidraw.md", DRAWING)
    index = open_index()
    await index.refresh()
    hits = (await index.search("raised beds south fence", limit=5, mode="keyword")).results
    assert hits[0].path == "Drawings/Garden.excalidraw.md"
    mine = [r for r in (await index.search("compost shed", limit=50)).results]
    passages = [r.text for r in mine if r.path == "Drawings/Garden.excalidraw.md"]
    assert passages and not any(SCENE[:40] in p or "compressed-json" in p for p in passages)
    data_word = SCENE[200:400].split("+")[0].split("/")[0]
    assert (await index.search(data_word, limit=5, mode="keyword")).results == []
