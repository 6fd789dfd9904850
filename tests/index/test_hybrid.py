"""Fusion on hand-made rankings, grouping by note, and the keyword query sanitizer."""

from __future__ import annotations

import pytest
import tantivy
from hypothesis import given, settings
from hypothesis import strategies as st

from commonplace.index import SearchFilter, SearchResult, fuse, group_by_note, keyword_query
from commonplace.index.keywords import FIELDS, _schema


def hit(path: str, ordinal: int = 0, score: float = 0.0) -> SearchResult:
    return SearchResult(path, path, "", "text", score, "2026-01-01", 0.0, 0, ordinal)


def test_fuse_ranks_notes_by_both_rankings_on_a_hand_made_example() -> None:
    vector = [hit("a", 0), hit("a", 1), hit("b"), hit("c")]  # notes a, b, c
    fused = fuse(vector=vector, notes=["c", "d", "b"], note_chunks={"d": hit("d")}, k=60)
    # a: 1/61; b: 1/62 + 1/63; c: 1/63 + 1/61; d: 1/62 (keyword only)
    assert [h.path for h in fused.notes] == ["c", "b", "a", "d"]
    scores = {h.path: h.score for h in fused.notes}
    assert scores["c"] == pytest.approx(1 / 63 + 1 / 61)
    assert scores["d"] == pytest.approx(1 / 62)
    assert fused.notes[2].key == ("a", 0)  # a note is shown by its best chunk
    # chunks: note score + chunk score, so a's second chunk stays above the keyword-only d
    assert [h.key for h in fused.chunks] == [("c", 0), ("b", 0), ("a", 0), ("a", 1), ("d", 0)]
    assert fused.chunks[0].score == pytest.approx(1 / 63 + 1 / 61 + 1 / 64)


def test_a_lighter_keyword_weight_lets_meaning_lead() -> None:
    vector = [hit("a"), hit("b")]
    assert [h.path for h in fuse(vector=vector, notes=["b"], k=60).notes] == ["b", "a"]
    light = fuse(vector=vector, notes=["b"], k=60, keyword_weight=0.01)
    assert [h.path for h in light.notes] == ["a", "b"]
    assert [h.path for h in fuse(vector=vector, notes=["b"], keyword_weight=0).notes] == ["a", "b"]


def test_ties_go_to_the_meaning_hit() -> None:
    fused = fuse(vector=[hit("v")], notes=["k"], note_chunks={"k": hit("k")}, k=60)
    assert [h.path for h in fused.notes] == ["v", "k"]  # both 1/61: the vector hit keeps its place
    assert [h.path for h in fused.chunks] == ["v", "k"]


def test_the_keyword_chunk_ranking_picks_a_notes_passage() -> None:
    # the note is found by meaning at chunk 0, but the words are in chunk 2
    fused = fuse(vector=[hit("n", 0)], keyword=[hit("n", 2), hit("n", 0)], notes=["n"], k=60)
    assert [h.key for h in fused.notes] == [("n", 0)]  # chunk 0: 1/61 + 1/62 beats 1/61
    fused = fuse(vector=[hit("n", 0), hit("m", 0)], keyword=[hit("n", 2)], notes=["n"], k=60)
    assert fused.notes[0].key == ("n", 0)  # ties between chunks also go to meaning
    keyword_only = fuse(keyword=[hit("n", 2), hit("n", 0)], notes=["n"])
    assert [h.key for h in keyword_only.notes] == [("n", 2)]
    assert [h.key for h in keyword_only.chunks] == [("n", 2), ("n", 0)]


def test_group_by_note_keeps_each_notes_first_chunk() -> None:
    hits = [hit("n", 1), hit("n", 0), hit("m", 0)]
    assert [h.key for h in group_by_note(hits)] == [("n", 1), ("m", 0)]


def test_keyword_query_keeps_words_and_phrases_only() -> None:
    assert (
        keyword_query('parkrun "Brooks  Ghost" AND (title:x^2')
        == '"brooks ghost" parkrun title x 2'
    )
    # Function words go unless nothing else is left; phrases keep them.
    assert keyword_query("How do I undo my edits?") == "undo edits"
    assert keyword_query("How do I") == "how do i"
    assert keyword_query('"to be or not to be" hamlet') == '"to be or not to be" hamlet'

    assert keyword_query('"unclosed phrase') == "unclosed phrase"
    assert keyword_query("*** ???") == ""
    assert keyword_query('"one"') == "one"


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=80))
def test_no_user_text_raises_a_query_syntax_error(text: str) -> None:
    index = _index()
    query = keyword_query(text)
    if query:
        index.parse_query(query, FIELDS, field_boosts={"title": 2.0})


_INDEX: list[tantivy.Index] = []


def _index() -> tantivy.Index:
    if not _INDEX:
        _INDEX.append(tantivy.Index(_schema()))
    return _INDEX[0]


def test_filter_sql_and_python_rule_agree() -> None:
    flt = SearchFilter.make(
        include=["Projects/", "Areas"], exclude=["Areas/Health"], modified_after=5
    )
    assert flt.to_sql() == (
        "(starts_with(path, 'Projects/') OR starts_with(path, 'Areas/')) "
        "AND NOT starts_with(path, 'Areas/Health/') AND mtime > 5.0"
    )
    assert flt.matches("Areas/Car.md", 6)
    assert not flt.matches("Areas/Health/Dentist.md", 6)
    assert not flt.matches("Inbox/x.md", 6)
    assert not flt.matches("Areas/Car.md", 5)
    assert SearchFilter.make(exclude=["O'Brien"]).to_sql() == "NOT starts_with(path, 'O''Brien/')"
    assert SearchFilter.make().to_sql() is None
