"""Page names from file names as Logseq reads them, under both of its `:file/name-format`s.

The expected names are Logseq's own (graph-parser util.cljs title-parsing and its tests in
extract_test.cljs, Logseq 0.10.9), and the docs graph's "Filename format" page.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from commonplace.vault.journals import journal_names, journal_names_from
from commonplace.vault.logseq_names import (
    LEGACY,
    TRIPLE_LOWBAR,
    decode_uri_component,
    page_name_of_file,
)
from commonplace.vault.notes import page_name, parse_note, read_note


@pytest.mark.parametrize(
    ("stem", "name"),
    [
        ("Whiteboard___Tool___Portal", "Whiteboard/Tool/Portal"),
        ("abc.def.ghi.jkl", "abc.def.ghi.jkl"),  # a dot is a dot
        ("abc%2Fdef%2Fghi%2Fjkl", "abc/def/ghi/jkl"),
        ("abc%25%2Fdef%2Fghi%2Fjkl", "abc%/def/ghi/jkl"),
        ("New to Logseq%3F", "New to Logseq?"),
        ("100% sure", "100% sure"),  # a % that starts no escape stays
        ("caf%C3%A9", "caf%C3%A9"),  # a non-ASCII byte alone is not decoded
        ("a______b", "a/b"),  # empty namespaces are dropped
        ("v2.1 plan", "v2.1 plan"),
        ("a%00b%0Ac%7F", "a%00b%0Ac%7F"),  # no NUL, line break or DEL in a page name
    ],
)
def test_triple_lowbar_names(stem: str, name: str) -> None:
    assert page_name_of_file(stem, TRIPLE_LOWBAR) == name


@pytest.mark.parametrize(
    ("stem", "name"),
    [
        ("Logseq.Features", "Logseq/Features"),  # the docs' own example
        ("v2.1 plan", "v2/1 plan"),
        ("custom.css", "custom/css"),
        ("Logseq%2FFeatures", "Logseq/Features"),
        ("caf%C3%A9", "café"),  # decodeURIComponent decodes the whole name
        ("100% sure", "100% sure"),  # and leaves it as it is when it would throw
        ("Ask___Trip", "Ask___Trip"),  # `___` means nothing in the legacy format
        ("a%00b", "a%00b"),  # kept as written rather than a NUL in the name
    ],
)
def test_legacy_names(stem: str, name: str) -> None:
    assert page_name_of_file(stem, LEGACY) == name


def test_decode_uri_component_fails_where_javascript_throws() -> None:
    assert decode_uri_component("a%20b") == "a b"
    assert decode_uri_component("a%2") is None
    assert decode_uri_component("%E4") is None  # half a character
    assert decode_uri_component("%zz") is None


def test_the_format_comes_from_config_edn() -> None:
    assert journal_names_from(":file/name-format :triple-lowbar}").name_format == TRIPLE_LOWBAR
    assert journal_names_from("{:file/name-format :legacy}").name_format == LEGACY
    # A config.edn without the key is from before Logseq 0.8.9: legacy, as Logseq reads it.
    assert journal_names_from("{:hidden []}").name_format == LEGACY
    commented = '{;; :file/name-format :triple-lowbar\n :preferred-format "Markdown"}'
    assert journal_names_from(commented).name_format == LEGACY


def _graph(tmp_path: Path, config: str | None) -> Path:
    (tmp_path / "pages").mkdir()
    for name in ("Logseq.Features.md", "Ask___Trip.md", "a%2Fb.md", "2026.11.30.md"):
        (tmp_path / "pages" / name).write_text("- x\n")
    if config is not None:
        (tmp_path / "logseq").mkdir()
        (tmp_path / "logseq/config.edn").write_text(config)
    return tmp_path


def test_a_legacy_graph_names_its_pages_as_logseq_does(tmp_path: Path) -> None:
    """An older graph (no :file/name-format): Logseq shows `Logseq.Features.md` as the page
    Logseq/Features, so a link the daemon writes, a source or a search result must say that."""
    vault = _graph(tmp_path, '{:meta/version 1 :preferred-format "Markdown"}\n')
    titles = {p: read_note(vault, f"pages/{p}", "logseq").title for p in _names(vault)}
    assert titles == {
        "Logseq.Features.md": "Logseq/Features",
        "Ask___Trip.md": "Ask___Trip",
        "a%2Fb.md": "a/b",
        "2026.11.30.md": "2026/11/30",
    }
    assert page_name(vault, "pages/Logseq.Features.md", "logseq") == "Logseq/Features"


def test_a_triple_lowbar_graph_and_a_graph_without_config(tmp_path: Path) -> None:
    vault = _graph(tmp_path, "{:file/name-format :triple-lowbar}\n")
    titles = {p: read_note(vault, f"pages/{p}", "logseq").title for p in _names(vault)}
    assert titles == {
        "Logseq.Features.md": "Logseq.Features",
        "Ask___Trip.md": "Ask/Trip",
        "a%2Fb.md": "a/b",
        "2026.11.30.md": "2026.11.30",
    }
    (vault / "logseq/config.edn").unlink()  # Logseq would write its template: triple-lowbar
    assert journal_names(vault).name_format == TRIPLE_LOWBAR


def _names(vault: Path) -> list[str]:
    return sorted(p.name for p in (vault / "pages").iterdir())


def test_aliases_and_tags_written_as_page_references() -> None:
    """Logseq writes `alias:: [[Devon Zuegel]]` (the docs graph's pages/devon.md): the alias
    was kept with its brackets, so a link to "Devon Zuegel" matched no note; a tag
    `[[Some page]]` was split into "[[Some" and "page]]"."""
    text = "alias:: [[Devon Zuegel]], DZ\ntags:: [[Some page]], #Academic, [[a, b]]\n\n- x\n"
    note = parse_note("pages/devon.md", text, "logseq")
    assert note.aliases == ("Devon Zuegel", "DZ")
    assert note.tags == ("Some page", "Academic", "a, b")
    # YAML front matter in a Logseq graph is read as YAML, as before.
    yaml_note = parse_note("pages/x.md", "---\ntags: [garden]\n---\n- x\n", "logseq")
    assert yaml_note.tags == ("garden",)


def test_a_task_priority_is_no_tag() -> None:
    """`[#A]` is the priority Logseq draws on a task (the docs graph's Tasks page), not a tag:
    read as one, "a" and "c" were among the person's most used tags in tidy's prompt, and a
    filed note could be tagged "a". A tag after it is a tag; Obsidian's reading is unchanged."""
    text = "- TODO [#A] big important thing #errands\n- LATER [#c] the lower one\n- [#B] plain\n"
    assert parse_note("pages/Tasks.md", text, "logseq").tags == ("errands",)
    assert parse_note("Tasks.md", text, "obsidian").tags == ("A", "errands", "c", "B")
