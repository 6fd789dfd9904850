"""Fusion on hand-made rankings, grouping by note, and the keyword query sanitizer."""

from __future__ import annotations

import math

import pytest
import tantivy
from hypothesis import example, given, settings
from hypothesis import strategies as st

from commonplace.index import SearchFilter, SearchResult, fuse, group_by_note, keyword_query
from commonplace.index.chunking import name_key
from commonplace.index.hybrid import known_share, named_first
from commonplace.index.keywords import (
    FIELDS,
    MAX_PAIRS,
    NOTE_BOOSTS,
    NOTE_FIELDS,
    _note_schema,
    _schema,
    note_query,
)


def hit(path: str, ordinal: int = 0, score: float = 0.0) -> SearchResult:
    return SearchResult(path, path, "", "text", score, "2026-01-01", 0.0, 0, ordinal)


def test_rrf_ranks_notes_by_both_rankings_on_a_hand_made_example() -> None:
    vector = [hit("a", 0), hit("a", 1), hit("b"), hit("c")]  # notes a, b, c
    notes = [("c", 3.0), ("d", 2.0), ("b", 1.0)]
    fused = fuse(vector=vector, notes=notes, note_chunks={"d": hit("d")}, method="rrf", k=60)
    # a: 1/61; b: 1/62 + 1/63; c: 1/63 + 1/61; d: 1/62 (keyword only)
    assert [h.path for h in fused.notes] == ["c", "b", "a", "d"]
    scores = {h.path: h.score for h in fused.notes}
    assert scores["c"] == pytest.approx(1 / 63 + 1 / 61)
    assert scores["d"] == pytest.approx(1 / 62)
    assert fused.notes[2].key == ("a", 0)  # a note is shown by its best chunk
    # chunks: note score + chunk score, so a's second chunk stays above the keyword-only d
    assert [h.key for h in fused.chunks] == [("c", 0), ("b", 0), ("a", 0), ("a", 1), ("d", 0)]
    assert fused.chunks[0].score == pytest.approx(1 / 63 + 1 / 61 + 1 / 64)


def test_convex_weighs_how_well_each_side_matched_on_a_hand_made_example() -> None:
    # cosine 0.9, 0.7, 0.5 -> 1, 0.5, 0; BM25 2, 10 (best), 1 -> 0.2, 1, 0.1
    vector = [hit("a", score=0.9), hit("b", score=0.7), hit("c", score=0.5)]
    notes = [("b", 10.0), ("a", 2.0), ("c", 1.0)]
    fused = fuse(vector=vector, notes=notes)
    scores = {h.path: h.score for h in fused.notes}
    assert scores == pytest.approx({"a": (1 + 0.2) / 2, "b": (0.5 + 1) / 2, "c": (0 + 0.1) / 2})
    assert [h.path for h in fused.notes] == ["b", "a", "c"]
    # RRF sees only the ranks: a (1st and 2nd) beats b (2nd and 1st) on the meaning tie-break
    assert [h.path for h in fuse(vector=vector, notes=notes, method="rrf").notes][:2] == ["a", "b"]
    # a barely matching keyword list weighs little: its best note is 1 but the rest near 0
    weak = fuse(vector=vector, notes=[("c", 1.0)], note_chunks={})
    assert [h.path for h in weak.notes] == ["a", "c", "b"]
    assert {h.path: h.score for h in weak.notes}["c"] == pytest.approx(0.5)


def test_a_lighter_keyword_weight_lets_meaning_lead() -> None:
    vector = [hit("a", score=0.9), hit("b", score=0.85), hit("c", score=0.5)]
    notes = [("b", 5.0)]
    for method in ("convex", "rrf"):
        equal = fuse(vector=vector, notes=notes, method=method)
        assert [h.path for h in equal.notes] == ["b", "a", "c"]
        light = fuse(vector=vector, notes=notes, method=method, keyword_weight=0.01)
        assert [h.path for h in light.notes] == ["a", "b", "c"]
        none = fuse(vector=vector, notes=notes, method=method, keyword_weight=0)
        assert [h.path for h in none.notes] == ["a", "b", "c"]


def test_ties_go_to_the_meaning_hit() -> None:
    for method in ("convex", "rrf"):
        fused = fuse(
            vector=[hit("v", score=0.5)],
            notes=[("k", 2.0)],
            note_chunks={"k": hit("k")},
            method=method,
        )
        assert [h.path for h in fused.notes] == ["v", "k"]
        assert [h.path for h in fused.chunks] == ["v", "k"]


def test_the_keyword_chunk_ranking_picks_a_notes_passage() -> None:
    # the note is found by meaning in chunk 0 only, but the words are in chunk 2
    vector = [hit("n", 0, 0.8), hit("m", 0, 0.4)]
    keyword = [hit("n", 2, 9.0)]
    fused = fuse(vector=vector, keyword=keyword, notes=[("n", 9.0)])
    assert fused.notes[0].key == ("n", 0)  # meaning 1 + 0 beats keywords 0 + 1: a tie, to meaning
    keyword = [hit("n", 2, 9.0), hit("n", 0, 1.0)]
    assert fuse(vector=vector, keyword=keyword, notes=[("n", 9.0)]).notes[0].key == ("n", 0)
    keyword_only = fuse(keyword=[hit("n", 2, 9.0), hit("n", 0, 3.0)], notes=[("n", 9.0)])
    assert [h.key for h in keyword_only.notes] == [("n", 2)]
    assert [h.key for h in keyword_only.chunks] == [("n", 2), ("n", 0)]


_scores = st.sampled_from([0.0, 0.25, 0.5, 0.75, 1.0, 2.0])  # few values: many ties
_hits = st.lists(st.builds(hit, st.sampled_from("abcdef"), st.integers(0, 3), _scores), max_size=14)


@settings(max_examples=300, deadline=None)
@given(
    vector=_hits,
    keyword=_hits,
    notes=st.lists(st.tuples(st.sampled_from("abcdefgh"), _scores), max_size=8),
    method=st.sampled_from(["convex", "rrf"]),
    limit=st.integers(0, 12),
)
def test_fusion_cut_at_a_limit_is_the_start_of_the_whole_fusion(
    vector: list[SearchResult],
    keyword: list[SearchResult],
    notes: list[tuple[str, float]],
    method: str,
    limit: int,
) -> None:
    """A search asks for its first ten only; they are the first ten of the whole fusion, whose
    order is the plain definition: notes by score, then by their shown chunk's meaning rank;
    each note shown by its best chunk; chunks by note score + chunk score, then meaning rank."""
    shown = {p: hit(p, 9) for p, _ in notes}
    kwargs = {"vector": vector, "keyword": keyword, "notes": notes, "note_chunks": shown}
    whole = fuse(**kwargs, method=method)  # type: ignore[arg-type]
    cut = fuse(**kwargs, method=method, limit=limit)  # type: ignore[arg-type]
    assert cut.notes == whole.notes[:limit] and cut.chunks == whole.chunks[:limit]

    meaning = list(dict.fromkeys(h.key for h in vector))
    keys = {h.key for h in [*vector, *keyword, *shown.values()]}
    rank = {key: meaning.index(key) if key in meaning else len(meaning) for key in keys}
    note = {h.path: h.score for h in whole.notes}
    assert [(-note[h.path], rank[h.key]) for h in whole.notes] == sorted(
        (-note[h.path], rank[h.key]) for h in whole.notes
    )
    assert {h.path for h in whole.notes} == {*(h.path for h in vector + keyword), *shown}
    assert {h.key for h in whole.chunks} == keys and len(whole.chunks) == len(keys)
    assert [(-h.score, rank[h.key]) for h in whole.chunks] == sorted(
        (-h.score, rank[h.key]) for h in whole.chunks
    )


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


def test_a_note_query_also_asks_for_neighbouring_words_together() -> None:
    assert note_query("How are my file names scrambled?") == (
        'file names scrambled "file names"^0.1176 "file names"~8^0.0588 '
        '"names scrambled"^0.1176 "names scrambled"~8^0.0588'
    )
    assert note_query('"to be" hamlet') == '"to be" hamlet'  # one word: no pair
    # "___" is no word to Tantivy (and two of them alone made a query it refused)
    assert note_query("tea tea ___ cup") == 'tea tea cup "tea cup"^0.1176 "tea cup"~8^0.0588'


def test_a_long_query_asks_for_its_first_pairs_only() -> None:
    """Tidy searches with a whole capture: each pair costs two phrase queries."""
    words = [f"w{i}" for i in range(500)]
    query = note_query(" ".join(words))
    assert query.count("~8") == MAX_PAIRS
    assert '"w0 w1"' in query and f'"w{MAX_PAIRS} w{MAX_PAIRS + 1}"' not in query
    assert all(w in query.split() for w in words)  # every word is still asked for
    assert note_query("*** ???") == ""


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=80))
@example("_:_")  # hypothesis found it: two words of underscores alone
def test_no_user_text_raises_a_query_syntax_error(text: str) -> None:
    query = keyword_query(text)
    if query:
        _index().parse_query(query, FIELDS, field_boosts={"title": 2.0})
    query = note_query(text)
    if query:
        _index(notes=True).parse_query(query, NOTE_FIELDS, field_boosts=NOTE_BOOSTS)


_INDEX: dict[bool, tantivy.Index] = {}


def _index(*, notes: bool = False) -> tantivy.Index:
    if notes not in _INDEX:
        _INDEX[notes] = tantivy.Index(_note_schema() if notes else _schema())
    return _INDEX[notes]


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


def test_the_keyword_side_counts_by_the_share_of_the_query_the_vault_holds() -> None:
    def idf(n: int, notes: int = 10) -> float:
        return math.log(1 + (notes - n + 0.5) / (n + 0.5))

    assert known_share(10, [1, 5, 10]) == 1.0  # every word is in some note
    assert known_share(10, [0, 0]) == 0.0  # none is: the meaning ranking alone
    assert known_share(10, []) == 1.0 and known_share(0, [0]) == 1.0  # nothing to weigh
    # An unknown word weighs as much as the rarest word can, so it counts more than a common one.
    assert known_share(10, [5, 0]) == pytest.approx(idf(5) / (idf(5) + idf(0)))
    assert known_share(10, [1, 0]) > known_share(10, [9, 0]) > 0.0


def test_the_named_note_goes_first_and_nothing_else_moves() -> None:
    ranked = [hit("b.md", score=0.9), hit("a.md", score=0.7), hit("c.md", score=0.5)]
    out = named_first(ranked, ["a.md"], {}, limit=3)
    assert [(h.path, h.score) for h in out] == [("a.md", 0.9), ("b.md", 0.9), ("c.md", 0.5)]
    assert named_first(ranked, [], {}, limit=2) == ranked[:2]


def test_a_named_note_the_ranking_left_out_comes_in_first_at_the_first_score() -> None:
    ranked = [hit("b.md", score=0.9), hit("c.md", score=0.5)]
    found = {"a.md": hit("a.md", ordinal=2, score=8.1)}  # a BM25 score: another scale
    out = named_first(ranked, ["a.md", "gone.md"], found, limit=2)
    assert [(h.path, h.ordinal, h.score) for h in out] == [("a.md", 2, 0.9), ("b.md", 0, 0.9)]


def test_two_notes_of_one_name_keep_their_order_and_chunks_stay_in_place() -> None:
    ranked = [hit("x.md"), hit("b/t.md", 1), hit("a/t.md"), hit("b/t.md", 0)]
    out = named_first(ranked, ["a/t.md", "b/t.md"], {}, limit=4)
    assert [(h.path, h.ordinal) for h in out] == [
        ("b/t.md", 1),
        ("a/t.md", 0),
        ("x.md", 0),
        ("b/t.md", 0),
    ]


@pytest.mark.parametrize(
    ("typed", "title"),
    [
        ("feb 26th 2021", "Feb 26th, 2021"),
        ("Whiteboard/Quick Add", "whiteboard quick add"),
        ("  Zoë   Martín ", "zoë martín"),
    ],
)
def test_a_name_is_its_words(typed: str, title: str) -> None:
    assert name_key(typed) == name_key(title) != ""
