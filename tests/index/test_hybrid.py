"""RRF on hand-made rankings, grouping by note, and the keyword query sanitizer."""

from __future__ import annotations

import pytest
import tantivy
from hypothesis import given, settings
from hypothesis import strategies as st

from commonplace.index import SearchFilter, SearchResult, group_by_note, keyword_query, rrf
from commonplace.index.keywords import FIELDS, _schema


def hit(path: str, ordinal: int = 0, score: float = 0.0) -> SearchResult:
    return SearchResult(path, path, "", "text", score, "2026-01-01", 0.0, 0, ordinal)


def test_rrf_order_on_a_hand_made_example() -> None:
    vector = [hit("a"), hit("b"), hit("c"), hit("d")]
    keyword = [hit("d"), hit("x"), hit("b"), hit("y"), hit("z"), hit("beyond-candidates")]
    fused = rrf(vector, keyword, k=60, keyword_candidates=5)
    scores = {h.path: h.score for h in fused}
    # b: 1/62 + 1/63; d: 1/64 + 1/61; a: 1/61; x: 1/62 (keyword only); c: 1/63 ...
    assert [h.path for h in fused] == ["d", "b", "a", "x", "c", "y", "z"]
    assert scores["b"] == pytest.approx(1 / 62 + 1 / 63)
    assert scores["d"] == pytest.approx(1 / 64 + 1 / 61)
    assert "beyond-candidates" not in scores


def test_rrf_tie_goes_to_the_meaning_hit() -> None:
    fused = rrf([hit("v")], [hit("k")], k=60, keyword_candidates=5)
    assert [h.path for h in fused] == ["v", "k"]  # both 1/61: the vector hit keeps its place


def test_rrf_with_no_keyword_candidates_is_the_vector_ranking() -> None:
    vector = [hit("a"), hit("b")]
    assert [h.path for h in rrf(vector, [hit("b")], keyword_candidates=0)] == ["a", "b"]


def test_chunks_of_one_note_are_distinct_keys_and_group_by_note_keeps_the_best() -> None:
    fused = rrf([hit("n", 0), hit("n", 1), hit("m", 0)], [hit("n", 1)], k=60)
    assert [h.key for h in fused] == [("n", 1), ("n", 0), ("m", 0)]
    assert [h.key for h in group_by_note(fused)] == [("n", 1), ("m", 0)]


def test_keyword_query_keeps_words_and_phrases_only() -> None:
    assert (
        keyword_query('parkrun "Brooks  Ghost" AND (title:x^2')
        == '"brooks ghost" parkrun and title x 2'
    )
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
