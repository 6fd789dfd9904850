"""What the note's app hides is not indexed text: Logseq block ids and folded states, Obsidian
`^block-id`s. Chunks keep the file's line ranges; code blocks stay as written."""

from __future__ import annotations

from commonplace.index.chunking import index_note
from commonplace.vault import parse_note, split_into_chunks
from commonplace.vault.shown import shown_lines, shown_text

UUID = "64a3f1c2-9b1e-4c2d-8e5f-1a2b3c4d5e6f"
LOGSEQ_PAGE = (
    "tags:: garden\n"
    "\n"
    "- Sow the broad beans in November\n"
    f"  id:: {UUID}\n"
    "  collapsed:: true\n"
    "\t- under a cloche if it freezes\n"
    "\t  COLLAPSED:: false\n"
    "- Harvest in June\n"
    "  source:: Monty Don\n"
)


def test_logseq_hides_its_built_in_block_properties_only() -> None:
    lines = LOGSEQ_PAGE.split("\n")
    assert [
        line for line, seen in zip(lines, shown_lines(lines, "logseq"), strict=True) if seen is None
    ] == [f"  id:: {UUID}", "  collapsed:: true", "\t  COLLAPSED:: false"]
    # page properties and the owner's own block properties are shown, so they are searched
    assert "tags:: garden" in shown_text(LOGSEQ_PAGE, "logseq")
    assert "source:: Monty Don" in shown_text(LOGSEQ_PAGE, "logseq")
    # an Obsidian note's Dataview field named id is the owner's text
    assert shown_text("id:: 42\n", "obsidian") == "id:: 42\n"


def test_a_logseq_chunk_is_its_block_as_shown_with_the_files_line_range() -> None:
    note = parse_note("pages/Beans.md", LOGSEQ_PAGE, "logseq")
    chunks = split_into_chunks(note, flavor="logseq")
    assert all(UUID not in c.text and "collapsed" not in c.text.lower() for c in chunks)
    (chunk,) = chunks
    assert chunk.text == (
        "tags:: garden\n\n- Sow the broad beans in November\n\t- under a cloche if it freezes\n"
        "- Harvest in June\n  source:: Monty Don"
    )
    assert (chunk.start_line, chunk.end_line) == (0, 9)  # the file's lines, hidden ones too
    small = split_into_chunks(note, max_tokens=25, flavor="logseq")
    assert [c.text for c in small] == [
        "tags:: garden",
        "- Sow the broad beans in November\n\t- under a cloche if it freezes",
        "- Harvest in June\n  source:: Monty Don",
    ]
    file_lines = LOGSEQ_PAGE.split("\n")
    assert file_lines[small[1].start_line] == "- Sow the broad beans in November"
    assert file_lines[small[1].end_line - 1] == "\t  COLLAPSED:: false"  # the block's own lines
    # the same page read as written (Obsidian rules) keeps the lines
    assert any(UUID in c.text for c in split_into_chunks(note))
    whole = index_note(note, "logseq")
    assert UUID not in whole.text and "Sow the broad beans" in whole.text


def test_a_block_of_nothing_but_hidden_lines_makes_no_chunk() -> None:
    text = "- Intro\n\n  id:: 64a3f1c2-0000-4c2d-8e5f-1a2b3c4d5e6f\n\n# Later\n  collapsed:: true\n"
    chunks = split_into_chunks(parse_note("pages/p.md", text, "logseq"), flavor="logseq")
    assert [(c.heading_path, c.text) for c in chunks] == [((), "- Intro")]


def test_obsidian_block_ids_are_hidden_but_carets_elsewhere_are_text() -> None:
    text = (
        "The quote of the day. ^quote-of-the-day\n"
        "\n"
        "- a list\n"
        "- of two\n"
        "\n"
        "^list-id\n"
        "\n"
        "x^2 grows, see [^1] and 2 ^ 3\n"
        "```\n"
        "a line ^kept-in-code\n"
        "```\n"
    )
    shown = shown_text(text, "obsidian")
    assert "quote-of-the-day" not in shown and "list-id" not in shown
    assert "The quote of the day.\n" in shown
    assert "x^2 grows, see [^1] and 2 ^ 3" in shown
    assert "a line ^kept-in-code" in shown
    chunks = split_into_chunks(parse_note("Quotes.md", text))
    assert all("^quote" not in c.text and "^list-id" not in c.text for c in chunks)
    assert text.split("\n")[chunks[0].start_line] == "The quote of the day. ^quote-of-the-day"
