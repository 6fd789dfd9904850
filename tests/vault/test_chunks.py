"""Chunks follow headings, exclude frontmatter (unless it is all a note has), stay under the
size limit and cover the text."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from commonplace.vault import estimate_tokens, parse_note, split_into_chunks


def test_chunks_follow_headings_with_their_path() -> None:
    text = (
        "---\ntags: [x]\n---\nIntro line.\n\n# Trip\nOverview.\n\n## Flights\nBA123 at 09:40.\n\n"
        "### Return\nBA124.\n\n## Hotel\nHotel Sol.\n\n# Packing\n```\n# not a heading\n```\n"
    )
    chunks = split_into_chunks(parse_note("Travel/Lisbon.md", text))
    assert [(c.heading_path, c.text) for c in chunks] == [
        ((), "Intro line."),
        (("Trip",), "Overview."),
        (("Trip", "Flights"), "BA123 at 09:40."),
        (("Trip", "Flights", "Return"), "BA124."),
        (("Trip", "Hotel"), "Hotel Sol."),
        (("Packing",), "```\n# not a heading\n```"),
    ]
    assert chunks[2].heading == "Trip > Flights"
    assert all("tags" not in c.text for c in chunks)  # frontmatter is not a chunk
    assert [c.ordinal for c in chunks] == list(range(len(chunks)))
    lines = text.splitlines()
    assert lines[chunks[2].start_line] == "BA123 at 09:40."


def test_empty_sections_make_no_chunks() -> None:
    chunks = split_into_chunks(parse_note("n.md", "# A\n\n## B\ntext\n# C\n"))
    assert [(c.heading_path, c.text) for c in chunks] == [(("A", "B"), "text")]


def test_a_note_of_only_headings_or_only_frontmatter_is_one_chunk_as_written() -> None:
    """What its owner wrote is all it has: its headings, else its frontmatter lines. An empty
    note (Obsidian makes one when a link to a missing note is clicked) has nothing to show."""
    heads = "# Project Kestrel\n\n## Status\n\n## Links\n"
    (chunk,) = split_into_chunks(parse_note("Kestrel.md", heads))
    assert (chunk.heading_path, chunk.text) == ((), heads.strip())
    assert (chunk.start_line, chunk.end_line) == (0, 5)
    text = "---\r\ntags: [gardening]\r\nsource: Monty Don\r\n---\r\n"
    (chunk,) = split_into_chunks(parse_note("Compost.md", text))
    assert chunk.text == "tags: [gardening]\nsource: Monty Don"
    assert text.splitlines()[chunk.start_line : chunk.end_line] == chunk.text.splitlines()
    assert split_into_chunks(parse_note("Empty.md", "")) == []
    assert split_into_chunks(parse_note("Blank.md", "---\n---\n\n")) == []


def test_long_section_is_split_at_paragraphs_under_the_limit() -> None:
    paragraphs = [f"Paragraph {i} " + "word " * 60 for i in range(20)]
    note = parse_note("long.md", "# Long\n" + "\n\n".join(paragraphs) + "\n")
    chunks = split_into_chunks(note, max_tokens=200)
    assert len(chunks) > 3
    assert all(estimate_tokens(c.text) <= 200 for c in chunks)
    assert all(c.heading_path == ("Long",) for c in chunks)
    joined = " ".join(c.text for c in chunks)
    for i in range(20):
        assert f"Paragraph {i} " in joined  # nothing is dropped


def test_one_enormous_line_is_still_covered() -> None:
    words = [f"w{i}" for i in range(3000)]
    chunks = split_into_chunks(parse_note("x.md", " ".join(words)), max_tokens=100)
    assert all(estimate_tokens(c.text) <= 100 for c in chunks)
    assert " ".join(c.text for c in chunks).split() == words


def test_unicode_text_and_headings() -> None:
    note = parse_note("Recipes/Crème brûlée.md", "# Préparation\nFaire chauffer la crème 🍮\n")
    (chunk,) = split_into_chunks(note)
    assert chunk.title == "Crème brûlée"
    assert chunk.heading_path == ("Préparation",)
    assert "🍮" in chunk.text


@settings(max_examples=150, deadline=None)
@given(st.text(alphabet=st.characters(blacklist_categories=("Cs",)), max_size=2000))
def test_every_word_of_the_body_is_in_some_chunk(text: str) -> None:
    note = parse_note("p.md", text)
    chunks = split_into_chunks(note, max_tokens=64)
    chunk_words = " ".join(c.text for c in chunks).split()
    heading_words = " ".join(" ".join(c.heading_path) for c in chunks).split()
    body_words = note.body.split()
    # Every word survives, either in a chunk's text or as (part of) a heading.
    pool = chunk_words + heading_words
    for word in body_words:
        stripped = word.strip("#")
        assert not stripped or any(stripped in w for w in pool) or word in pool


def test_an_outline_is_cut_between_items_and_keeps_its_lines() -> None:
    items = [f"- item {i} " + "word " * 30 + f"\n\t- child {i}" for i in range(12)]
    text = "title:: Outline\n- ## Usage\n" + "\n".join(items) + "\n"
    chunks = split_into_chunks(parse_note("pages/Outline.md", text), max_tokens=120)
    assert all(c.heading_path == ("Usage",) for c in chunks[1:])  # `- ## Usage` is a heading
    assert len(chunks) > 3 and all(estimate_tokens(c.text) <= 120 for c in chunks)
    for c in chunks[1:]:
        assert c.text.startswith("- item")  # cut before a top-level item, never inside one
        assert "\n\n" not in c.text  # the lines as written: a list stays a list
        lines = text.splitlines()
        assert lines[c.start_line] == c.text.splitlines()[0]
