"""Snippets and marks: the query's words (stemmed, function words left out) in a passage."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from commonplace.index import SearchResult
from commonplace.index.highlight import marks, query_terms, result_json, snippet


def words_at(text: str, ranges: list[list[int]] | list[tuple[int, int]]) -> list[str]:
    return [text[a:b] for a, b in ranges]


def test_query_words_are_marked_by_their_stems() -> None:
    terms = query_terms("How do I keep running notes?")
    assert terms == {"keep", "run", "note"}
    text = "I keep a note of every run; running notes are kept in Running.md."
    assert words_at(text, marks(text, terms)) == [
        "keep",
        "note",
        "run",
        "running",
        "notes",
        "Running",
    ]


def test_phrases_and_function_word_only_queries_still_mark() -> None:
    assert words_at("Brooks Ghost 15", marks("Brooks Ghost 15", query_terms('"brooks ghost"'))) == [
        "Brooks",
        "Ghost",
    ]
    assert query_terms("how do I") == {"how", "do", "i"}
    assert query_terms("*** ???") == frozenset()


def test_a_long_passage_is_cut_around_the_most_marks() -> None:
    text = ("filler words here. " * 30) + "The passport expires on 3 May 2031. " + ("more. " * 40)
    shown, ranges = snippet(text, query_terms("passport expires"), width=80)
    assert len(shown) <= 82 and shown.startswith("…") and shown.endswith("…")
    assert words_at(shown, ranges) == ["passport", "expires"]


def test_a_short_passage_is_shown_whole_with_whitespace_folded() -> None:
    shown, ranges = snippet("Line one\n\n  line   two", query_terms("line"))
    assert shown == "Line one line two"
    assert words_at(shown, ranges) == ["Line", "line"]


def test_logseq_block_properties_it_never_shows_are_left_out_of_the_snippet() -> None:
    text = (
        "- Create a block embed by typing the command:\n  collapsed:: true\n"
        "  type:: [[Command]]\n- Hello, I'm a block!\n  id:: 6018cc98-67a8-4eb2-bfd7-2affe517a7c7\n"
        "\t- I'm a child block!"
    )
    shown, found = snippet(text, query_terms("block embed"))
    assert shown == (
        "- Create a block embed by typing the command: type:: [[Command]] - Hello, I'm a block! "
        "- I'm a child block!"
    )
    assert [shown[a:b] for a, b in found][:2] == ["block", "embed"]
    assert snippet("collapsed:: true", frozenset())[0] == "collapsed:: true"  # all
    # All of Logseq's hidden properties: the docs graph's journals/2021_02_26.md showed
    # "NOW Write changelog for v0.0.10 now:: 1614348097567" as a search result.
    journal = "- NOW Write changelog for v0.0.10\n  now:: 1614348097567\n  heading:: true\n"
    assert snippet(journal, query_terms("changelog"))[0] == "- NOW Write changelog for v0.0.10"


def test_logseq_org_style_block_lines_are_left_out_of_the_snippet() -> None:
    """Logseq draws a box for `#+BEGIN_NOTE` ... `#+END_NOTE`; the words inside stay."""
    text = (
        "- #+BEGIN_NOTE\n  This only works on the desktop app.\n  #+END_NOTE\n"
        "- #+begin_src clojure :results silent\n  (query-table)\n  #+end_src\n"
        "- The #+BEGIN_ words mid-line are text."
    )
    shown, found = snippet(text, query_terms("desktop app query table"))
    assert shown == (
        "This only works on the desktop app. (query-table) - The #+BEGIN_ words mid-line are text."
    )
    assert words_at(shown, found) == ["desktop", "app", "query", "table"]


def test_result_json_keeps_every_field_and_adds_the_snippet() -> None:
    hit = SearchResult("A.md", "A", "H", "<b>passport</b> here", 0.5, "2026-01-01", 1.0, 3, 2)
    out = result_json(hit, query_terms("passport"))
    assert out["text"] == "<b>passport</b> here" and out["ordinal"] == 2
    assert out["snippet"] == "<b>passport</b> here"  # text, never markup: the client escapes
    assert words_at(out["snippet"], out["marks"]) == ["passport"]


@given(st.text(max_size=300), st.text(max_size=40))
def test_marks_always_fall_on_words_inside_the_snippet(text: str, query: str) -> None:
    shown, ranges = snippet(text, query_terms(query), width=60)
    assert len(shown) <= 62
    for a, b in ranges:
        assert 0 <= a < b <= len(shown)
        assert shown[a:b].strip() == shown[a:b]
