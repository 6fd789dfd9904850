"""Reciprocal rank fusion: pure functions over ranked lists, so the order can be checked by hand.

RRF scores a chunk by sum(1 / (k + rank)) over the lists it appears in (rank from 1). It needs no
score calibration between cosine similarity and BM25, which live on different scales. Only the
best few keyword hits are fused into the full meaning ranking: BM25 is very good at its top
(names, codes, rare words) and noisy below it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from commonplace.index.models import SearchResult


def rrf(
    vector: Sequence[SearchResult],
    keyword: Sequence[SearchResult],
    *,
    k: int = 60,
    keyword_candidates: int = 5,
) -> list[SearchResult]:
    """Fuse a vector ranking with the top `keyword_candidates` keyword hits.

    Ties (equal RRF score) go to the chunk found by both, then to the better vector rank, so a
    keyword-only hit never displaces an equally scored meaning hit by accident of order.
    """
    scores: dict[tuple[str, int], float] = {}
    best: dict[tuple[str, int], SearchResult] = {}
    found_by: dict[tuple[str, int], int] = {}
    vector_rank: dict[tuple[str, int], int] = {}
    for rank, hit in enumerate(vector, start=1):
        key = hit.key
        if key in scores:
            continue
        scores[key] = 1.0 / (k + rank)
        best[key] = hit
        found_by[key] = 1
        vector_rank[key] = rank
    seen: set[tuple[str, int]] = set()
    for rank, hit in enumerate(keyword[:keyword_candidates], start=1):
        key = hit.key
        if key in seen:
            continue
        seen.add(key)
        scores[key] = scores.get(key, 0.0) + 1.0 / (k + rank)
        best.setdefault(key, hit)
        found_by[key] = found_by.get(key, 0) + 1
    order = sorted(
        scores,
        key=lambda key: (-scores[key], -found_by[key], vector_rank.get(key, len(vector) + 1)),
    )
    return [_with_score(best[key], scores[key]) for key in order]


def group_by_note(results: Sequence[SearchResult]) -> list[SearchResult]:
    """Keep each note's best chunk, in rank order."""
    seen: set[str] = set()
    out: list[SearchResult] = []
    for hit in results:
        if hit.path not in seen:
            seen.add(hit.path)
            out.append(hit)
    return out


def _with_score(hit: SearchResult, score: float) -> SearchResult:
    return replace(hit, score=score)
