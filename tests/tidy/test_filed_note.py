"""The filed note: the capture's words byte for byte, then what the program kept, readable by
the vault parser in both flavours."""

from __future__ import annotations

from datetime import date
from zoneinfo import ZoneInfo

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from commonplace.capture.inbox import parse_capture
from commonplace.tidy.filed_note import filed_name, render, words_of
from commonplace.tidy.models import Decision, Todo
from commonplace.vault import parse_note

LONDON = ZoneInfo("Europe/London")
DECISION = Decision(
    title="Shed timber",
    tags=("shed", "garden"),
    links=("Shed Rebuild", "Zoë Martín"),
    todos=(Todo("Order the timber from Jewson", date(2026, 10, 23)), Todo("Ring Mum")),
)


def cap(body: str, path: str = "Inbox/2026-10-20 0805.md"):  # type: ignore[no-untyped-def]
    data = f"---\ncaptured: 2026-10-20T08:05\nvia: dictation\n---\n{body}".encode()
    return parse_capture(path, data, LONDON)


def test_obsidian_layout() -> None:
    c = cap("um so I need to order the timber\n")
    text = render(c, DECISION, "obsidian")
    assert text == (
        "---\n"
        "captured: 2026-10-20T08:05\n"
        "via: dictation\n"
        "tags:\n- shed\n- garden\n"
        "related:\n- '[[Shed Rebuild]]'\n- '[[Zoë Martín]]'\n"
        f"capture_id: {c.capture_id}\n"
        "---\n"
        "um so I need to order the timber\n"
        "\n"
        "Related: [[Shed Rebuild]], [[Zoë Martín]]\n"
        "\n"
        "- [ ] Order the timber from Jewson (due 2026-10-23)\n"
        "- [ ] Ring Mum\n"
    )
    note = parse_note("Filed/x.md", text)
    assert note.frontmatter["capture_id"] == c.capture_id
    assert note.frontmatter["captured"] == "2026-10-20T08:05"
    assert note.tags == ("shed", "garden")
    assert note.links == ("Shed Rebuild", "Zoë Martín")
    assert [(t.text, t.due) for t in note.todos] == [
        ("Order the timber from Jewson", date(2026, 10, 23)),
        ("Ring Mum", None),
    ]


def test_logseq_layout_uses_properties_and_todo_deadline() -> None:
    c = cap("book the dentist")
    text = render(c, DECISION, "logseq")
    assert text.startswith("captured:: 2026-10-20T08:05\nvia:: dictation\ntags:: shed, garden\n")
    assert f"capture-id:: {c.capture_id}\n\nbook the dentist\n" in text
    assert "- TODO Order the timber from Jewson\n  DEADLINE: <2026-10-23 Fri>\n" in text
    note = parse_note("pages/Filed/x.md", text, flavor="logseq")
    assert note.frontmatter["capture-id"] == c.capture_id
    assert [(t.text, t.due) for t in note.todos] == [
        ("Order the timber from Jewson", date(2026, 10, 23)),
        ("Ring Mum", None),
    ]
    assert "Shed Rebuild" in note.links


def test_nothing_kept_means_just_the_words() -> None:
    c = cap("overheard on the 75")
    text = render(c, Decision(title="Pigeons"), "obsidian")
    assert text.endswith("---\noverheard on the 75\n")
    assert "Related" not in text and "- [ ]" not in text


def test_filed_name() -> None:
    c = cap("x")
    assert filed_name(c, "Shed timber") == "2026-10-20 0805 Shed timber.md"
    assert filed_name(c, "Shed timber", 3) == "2026-10-20 0805 Shed timber 3.md"


@settings(max_examples=150)
@given(
    body=st.text(min_size=1).filter(lambda t: "\x00" not in t),
    flavor=st.sampled_from(["obsidian", "logseq"]),
)
def test_the_captures_words_are_in_the_filed_note_exactly(body: str, flavor: str) -> None:
    c = cap(body)
    text = render(c, DECISION, flavor)
    assert c.body in text
    assert words_of(text, c)
    # The words sit right after the properties, byte for byte.
    start = text.index("\n---\n", 3) + 5 if flavor == "obsidian" else text.index("\n\n") + 2
    assert text.encode()[len(text[:start].encode()) :].startswith(c.body.encode())


def test_words_of_notices_other_words() -> None:
    c = cap("the original words")
    other = cap("edited words")
    for flavor in ("obsidian", "logseq"):
        assert not words_of(render(other, DECISION, flavor), c)


def test_words_that_are_only_the_start_of_a_notes_words_are_another_capture() -> None:
    filed = cap("ring Dave\nabout the shed roof\n")
    for flavor in ("obsidian", "logseq"):
        text = render(filed, DECISION, flavor)
        assert words_of(text, filed)
        assert not words_of(text, cap("ring Dave\n"))
        assert not words_of(text, cap("ring Dave"))


def test_the_captures_own_frontmatter_is_carried_over() -> None:
    data = (
        b"---\ncaptured: 2026-10-21T22:37\nvia: share\nsource: https://example.org/garlic\n"
        b"author: The Bristol Grower\ntags: [clipping, garden]\ncapture_id: forged\n---\nGarlic!\n"
    )
    c = parse_capture("Inbox/2026-10-21 2237.md", data, LONDON)
    decision = Decision(title="Garlic", tags=("garden", "garlic"))
    note = parse_note("Filed/x.md", render(c, decision, "obsidian"))
    assert note.frontmatter["source"] == "https://example.org/garlic"
    assert note.frontmatter["author"] == "The Bristol Grower"
    assert note.frontmatter["tags"] == ["clipping", "garden", "garlic"]
    assert note.frontmatter["capture_id"] == c.capture_id  # ours, never the capture's
    logseq = render(c, decision, "logseq")
    assert "source:: https://example.org/garlic\n" in logseq
    assert "tags:: clipping, garden, garlic\n" in logseq
    assert words_of(logseq, c)


@pytest.mark.parametrize(
    ("todo_format", "line"),
    [
        ("plain", "- [ ] Order the timber from Jewson (due 2026-10-23)"),
        ("tasks", "- [ ] Order the timber from Jewson 📅 2026-10-23"),
        ("dataview", "- [ ] Order the timber from Jewson [due:: 2026-10-23]"),
    ],
)
def test_todo_formats_are_read_back_by_the_vault_reader(todo_format: str, line: str) -> None:
    c = cap("order the timber\n")
    text = render(c, DECISION, "obsidian", todo_format)
    assert line in text.splitlines()
    assert "- [ ] Ring Mum" in text.splitlines()
    note = parse_note("Filed/x.md", text)
    assert [(t.text, t.due) for t in note.todos] == [
        ("Order the timber from Jewson", date(2026, 10, 23)),
        ("Ring Mum", None),
    ]
