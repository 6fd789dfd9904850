"""Reading notes: frontmatter edge cases, headings, links, tags and to-dos."""

from __future__ import annotations

import logging
from datetime import date
from pathlib import Path

import pytest

from commonplace.vault import NoteSkipped, parse_note, read_note


def test_frontmatter_and_body() -> None:
    note = parse_note("People/Sam.md", "---\ntags: [friend, chess]\ncreated: 2026-01-02\n---\nHi\n")
    assert note.frontmatter["created"] == date(2026, 1, 2)
    assert note.tags == ("friend", "chess")
    assert note.body == "Hi\n"
    assert note.body_line == 4
    assert note.title == "Sam"
    assert note.folder == "People"


@pytest.mark.parametrize(
    ("text", "body"),
    [
        ("no frontmatter\n", "no frontmatter\n"),
        ("---\n---\nempty block\n", "empty block\n"),
        ("---\r\ntitle: x\r\n---\r\ncrlf\r\n", "crlf\r\n"),
        ("\ufeff---\na: 1\n---\nbom\n", "bom\n"),
        ("---\na: 1\n...\ndots close\n", "dots close\n"),
        ("text\n---\na: 1\n---\n", "text\n---\na: 1\n---\n"),  # not on the first line
        ("---\nnever closed\n", "---\nnever closed\n"),
    ],
)
def test_frontmatter_edge_cases(text: str, body: str) -> None:
    assert parse_note("n.md", text).body == body


@pytest.mark.parametrize(
    "text", ["---\na: [unclosed\n---\nbody\n", "---\n- a list\n---\nbody\n", "---\n: :\n---\nb\n"]
)
def test_broken_frontmatter_is_kept_as_text_and_reported(text: str) -> None:
    note = parse_note("n.md", text)
    assert note.frontmatter_error
    assert note.frontmatter == {}
    assert note.body == text  # nothing is lost: the block is read as plain text


def test_broken_frontmatter_is_logged_once_per_note_and_per_block(
    vault: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """It was logged again at every read: every reconciliation, every question reading it."""
    (vault / "Broken.md").write_text("---\ntitle: [never closed\n---\nwords\n")
    with caplog.at_level(logging.WARNING, logger="commonplace.vault.notes"):
        for _ in range(3):
            assert read_note(vault, "Broken.md").frontmatter_error  # still reported each time
        assert parse_note("Other.md", "---\ntitle: [never closed\n---\nx\n").frontmatter_error
        (vault / "Broken.md").write_text("---\ntitle: [still: never closed\n---\nwords\n")
        read_note(vault, "Broken.md")
        (vault / "Broken.md").write_text("---\ntitle: [still: never closed\n---\nmore words\n")
        read_note(vault, "Broken.md")  # the same broken block: not again
    warned = [r.getMessage() for r in caplog.records]
    warned = [w for w in warned if "reading it as plain text" in w]
    assert [w.split(":")[0] for w in warned] == ["Broken.md", "Other.md", "Broken.md"], warned


def test_tags_from_frontmatter_string_and_inline() -> None:
    note = parse_note(
        "n.md",
        "---\ntags: 'a, #b c'\n---\n# Heading\ntext #inline and #nested/tag, not#this, "
        "#2026 is a number, `#code` no\n```\n#fenced\n```\n",
    )
    assert note.tags == ("a", "b", "c", "inline", "nested/tag")


def test_wikilinks_forms() -> None:
    note = parse_note(
        "n.md",
        "See [[Sam]] and [[Harbour Redesign|the redesign]], [[Trip#Flights]], ![[photo.png]], "
        "[[Sam]] again, `[[code]]`\n```\n[[fenced]]\n```\n",
    )
    assert note.links == ("Sam", "Harbour Redesign", "Trip", "photo.png")


def test_todos_with_due_dates() -> None:
    text = (
        "---\na: 1\n---\n"
        "- [ ] Send slides (due 2026-10-23)\n"
        "- [x] Book dentist 📅 2026-10-01\n"
        "  * [ ] nested [due:: 2026-11-02]\n"
        "- [ ] no date\n"
        "- [ ] bad date (due 2026-02-30)\n"
        "```\n- [ ] in code\n```\n"
    )
    todos = parse_note("n.md", text).todos
    assert [(t.text, t.due, t.done) for t in todos] == [
        ("Send slides", date(2026, 10, 23), False),
        ("Book dentist", date(2026, 10, 1), True),
        ("nested", date(2026, 11, 2), False),
        ("no date", None, False),
        ("bad date", None, False),
    ]
    assert todos[0].line == 3  # line numbers count from the top of the file


def test_logseq_todos_and_properties() -> None:
    text = (
        "title:: Garden/Plan\ntags:: garden, home\n\n"
        "- TODO Sow beans\n  DEADLINE: <2026-11-03 Tue>\n- DONE Prune\n- LATER Mulch\n"
    )
    note = parse_note("pages/Garden___Plan.md", text, flavor="logseq")
    assert note.title == "Garden/Plan"
    assert note.tags == ("garden", "home")
    assert [(t.text, t.due, t.done) for t in note.todos] == [
        ("Sow beans", date(2026, 11, 3), False),
        ("Prune", None, True),
        ("Mulch", None, False),
    ]


def test_logseq_title_from_file_name() -> None:
    assert parse_note("pages/a___b.md", "x", flavor="logseq").title == "a/b"
    assert parse_note("pages/a%2Fb.md", "x", flavor="logseq").title == "a/b"


def test_read_note_unicode_name_and_hash(tmp_path: Path) -> None:
    (tmp_path / "People").mkdir()
    path = tmp_path / "People" / "Zoë Martín.md"
    path.write_text("Olá [[Crème brûlée]]\n", encoding="utf-8")
    note = read_note(tmp_path, "People/Zoë Martín.md")
    assert note.title == "Zoë Martín"
    assert note.links == ("Crème brûlée",)
    assert note.size == len("Olá [[Crème brûlée]]\n".encode())
    assert len(note.content_hash) == 64


@pytest.mark.parametrize(
    ("name", "data", "reason"),
    [
        ("latin1.md", "caf\xe9".encode("latin-1"), "not UTF-8"),
        ("binary.md", b"\x00\x01\x02", "NUL"),
        ("huge.md", b"x" * 3000, "over the 2 KB limit"),
        ("photo.png", b"\x89PNG", "not a Markdown file"),
    ],
)
def test_unusable_files_are_skipped_with_a_reason(
    tmp_path: Path, name: str, data: bytes, reason: str
) -> None:
    (tmp_path / name).write_bytes(data)
    with pytest.raises(NoteSkipped) as err:
        read_note(tmp_path, name, max_bytes=2048)
    assert reason in err.value.reason


def test_missing_file_is_skipped(tmp_path: Path) -> None:
    with pytest.raises(NoteSkipped, match="no longer exists"):
        read_note(tmp_path, "gone.md")


@pytest.mark.parametrize(
    ("front", "aliases"),
    [
        ("aliases: [Sam, Sammy]", ("Sam", "Sammy")),
        ("aliases: 'Sam, Sammy'", ("Sam", "Sammy")),
        ("alias: Sam", ("Sam",)),
        ("aliases:", ()),
    ],
)
def test_aliases(front: str, aliases: tuple[str, ...]) -> None:
    assert parse_note("People/Sam Pritchard.md", f"---\n{front}\n---\nx\n").aliases == aliases
