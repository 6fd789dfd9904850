"""Fusing the meaning and keyword rankings over notes and chunks: pure functions, checkable by hand.

People look for notes, so the fusion ranks notes first. A note's score N combines its meaning
score (its best chunk's cosine similarity) and its whole-note BM25 score; a chunk's own score C
combines its cosine similarity and its chunk-level BM25. Results grouped by note come in N
order, each note shown by its chunk with the best C; the raw chunk list is ordered by N + C, so
a strong second passage of the best note can come before a weak note's best one (what the Ask
stage wants).

Two ways to combine, both with `keyword_weight` as the keyword side's weight (meaning: 1):
- "convex" (the default): each side's scores scaled to 0..1 over the candidates (the best is 1,
  the worst meaning candidate and a zero BM25 are 0), then averaged with the weights.
- "rrf": reciprocal rank fusion, sum(w / (k + rank)); needs no score scale at all.
The search multiplies `keyword_weight` by the share of the query the vault holds at all
(`known_share`): a keyword list can only speak for the words it matched.

Why notes, and why convex: on a real vault (the Logseq docs dev set, eval_suite/README.md) the
old fused chunk ranking lost to its own vector side (a long note's many chunks took several of
the first places, and chunk-level BM25 rewarded short fragments sharing a question's common
words). Over notes, the equal-weight convex combination beat equal-weight RRF on both the dev
set and the fixture (MRR@10 0.855 against 0.849, and 0.869 against 0.856): a keyword list whose
first note barely beats the rest weighs little, where RRF gives any first place the same weight
as the meaning ranking's first place.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Literal, TypeVar

from commonplace.index.models import SearchResult

Key = tuple[str, int]
T = TypeVar("T")
Fusion = Literal["convex", "rrf"]
FUSIONS: tuple[Fusion, ...] = ("convex", "rrf")


@dataclass(frozen=True)
class Fused:
    notes: list[SearchResult]  # one per note, best note first, each its best chunk
    chunks: list[SearchResult]  # every candidate chunk, by note score + chunk score


def fuse(
    *,
    vector: Sequence[SearchResult] = (),
    keyword: Sequence[SearchResult] = (),
    notes: Sequence[tuple[str, float]] = (),
    note_chunks: Mapping[str, SearchResult] | None = None,
    method: Fusion = "convex",
    k: int = 60,
    keyword_weight: float = 1.0,
    limit: int | None = None,
) -> Fused:
    """Fuse the vector chunk ranking, the chunk-level keyword ranking and the note-level
    keyword ranking ((path, BM25) pairs). Each list is best first and carries its scores.
    `note_chunks` gives a chunk to show for notes that only the note ranking found. Ties go to
    the better meaning rank, so a keyword-only hit never displaces an equally scored meaning hit
    by accident of order. With `limit`, only the first `limit` notes and chunks are returned
    (the same as the first of the full lists: a search shows ten of some two hundred)."""
    best_vector: dict[str, float] = {}
    for hit in vector:
        best_vector.setdefault(hit.path, hit.score)
    note_lists = (list(best_vector.items()), list(notes))
    chunk_lists = ([(h.key, h.score) for h in vector], [(h.key, h.score) for h in keyword])
    if method == "rrf":
        note_score = _rrf(note_lists, keyword_weight, k)
        chunk_score = _rrf(chunk_lists, keyword_weight, k)
    else:
        note_score = _convex(note_lists, keyword_weight)
        chunk_score = _convex(chunk_lists, keyword_weight)

    found: dict[Key, SearchResult] = {}
    for hit in [*vector, *keyword, *(note_chunks or {}).values()]:
        found.setdefault(hit.key, hit)
    vector_rank = {key: i for i, key in enumerate(_distinct(h.key for h in vector))}
    last = len(vector_rank)
    rank = {key: vector_rank.get(key, last) for key in found}
    own = {key: chunk_score.get(key, 0.0) for key in found}
    total = {key: note_score.get(key[0], 0.0) + own[key] for key in found}

    ranked = sorted(found, key=lambda key: (-total[key], rank[key]))
    best: dict[str, Key] = {}
    for key in sorted(found, key=lambda key: (-own[key], rank[key])):
        best.setdefault(key[0], key)
    paths = sorted(best, key=lambda p: (-note_score.get(p, 0.0), rank[best[p]]))
    return Fused(
        notes=[found[best[p]].rescored(note_score.get(p, 0.0)) for p in paths[:limit]],
        chunks=[found[key].rescored(total[key]) for key in ranked[:limit]],
    )


def known_share(notes: int, frequencies: Sequence[int]) -> float:
    """The share of a query's BM25 weight that falls on words the vault holds at all: each
    query term weighs its idf, ln(1 + (N − n + 0.5) / (n + 0.5)) for a term in n of N notes
    (BM25's and Tantivy's), and a term no note holds weighs the most. The keyword side's weight
    in the fusion is multiplied by it.

    A keyword ranking is evidence about the words it can match. When a question's telling
    words are not in the vault at all ("show my notes to an audience like a PowerPoint deck"
    in a vault that says "slides"), its keyword list is ordered by the few common words left
    ("show", "notes"), yet scaled to 0..1 it counted as much as the meaning ranking, and could
    push the note the meaning side found 4th out of the ten. A question whose words are all in
    the vault keeps the full weight, and a question of only unknown words leaves the meaning
    ranking alone. No constant is chosen; measured on three real vaults and the fixture with
    two models (eval_suite/README.md, Q1). A query with no terms keeps the full weight."""
    if not frequencies or notes <= 0:
        return 1.0
    weights = [
        math.log(1.0 + (notes - min(n, notes) + 0.5) / (min(n, notes) + 0.5)) for n in frequencies
    ]
    total = sum(weights)
    if total <= 0:
        return 1.0
    return sum(w for w, n in zip(weights, frequencies, strict=True) if n > 0) / total


def named_first(
    results: Sequence[SearchResult],
    named: Sequence[str],
    found: Mapping[str, SearchResult],
    limit: int,
) -> list[SearchResult]:
    """The notes named by the query first (KeywordView.named: its title or an alias is the
    query), each at its best result in the list, or at `found`'s when the ranking left it out,
    given the first result's score (a keyword hit's own BM25 is on another scale); then the
    rest in their order, cut at `limit`. Nothing else moves."""
    if not named:
        return list(results[:limit])
    best = {h.path: h for h in reversed(results)} | {
        p: h for p, h in found.items() if p not in {r.path for r in results}
    }
    top = max((h.score for h in results[:1]), default=0.0)
    place = {h.path: i for i, h in reversed(list(enumerate(results)))}
    first = sorted((best[p] for p in named if p in best), key=lambda h: place.get(h.path, limit))
    moved = {id(h) for h in first}
    lifted = [h if h.score == top else h.rescored(top) for h in first]
    return [*lifted, *(h for h in results if id(h) not in moved)][:limit]


def group_by_note(results: Sequence[SearchResult]) -> list[SearchResult]:
    """Keep each note's first (best) chunk, in rank order."""
    seen: set[str] = set()
    out: list[SearchResult] = []
    for hit in results:
        if hit.path not in seen:
            seen.add(hit.path)
            out.append(hit)
    return out


def _rrf(
    lists: tuple[Sequence[tuple[T, float]], Sequence[tuple[T, float]]], weight: float, k: int
) -> dict[T, float]:
    """sum(w / (k + rank)) over the two ranked lists (meaning weight 1, keywords `weight`)."""
    scores: dict[T, float] = {}
    for w, ranked in zip((1.0, weight), lists, strict=True):
        if w <= 0:
            continue
        for rank, item in enumerate(_distinct(item for item, _ in ranked), start=1):
            scores[item] = scores.get(item, 0.0) + w / (k + rank)
    return scores


def _convex(
    lists: tuple[Sequence[tuple[T, float]], Sequence[tuple[T, float]]], weight: float
) -> dict[T, float]:
    """(meaning + weight * keywords) / (1 + weight), each side scaled to 0..1: cosine
    similarity between the worst and the best candidate, BM25 from 0 to the best."""
    meaning, words = lists
    scores: dict[T, float] = {}
    for w, scaled in ((1.0, _scaled(meaning, floor=None)), (weight, _scaled(words, floor=0.0))):
        if w <= 0:
            continue
        for item, value in scaled.items():
            scores[item] = scores.get(item, 0.0) + w * value / (1.0 + max(weight, 0.0))
    return scores


def _scaled(ranked: Sequence[tuple[T, float]], *, floor: float | None) -> dict[T, float]:
    """Each item's best score mapped to 0..1 (the lowest to 0, or `floor`; the best to 1)."""
    best: dict[T, float] = {}
    for item, score in ranked:
        if item not in best or score > best[item]:
            best[item] = score
    if not best:
        return {}
    top = max(best.values())
    low = min(best.values()) if floor is None else floor
    span = top - low
    if span <= 0:
        return dict.fromkeys(best, 1.0)
    return {item: max(0.0, (score - low) / span) for item, score in best.items()}


def _distinct(items: Iterable[T]) -> list[T]:
    return list(dict.fromkeys(items))
