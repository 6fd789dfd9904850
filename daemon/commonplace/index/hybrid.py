"""Reciprocal rank fusion over notes and chunks: pure functions, checkable by hand.

RRF scores an item by sum(w / (k + rank)) over the ranked lists it appears in (rank from 1). It
needs no calibration between cosine similarity and BM25, which live on different scales.

People look for notes, so the fusion ranks notes first: a note's score N sums its rank in the
meaning ranking (its best chunk's place among the notes the vector search found) and its rank in
the whole-note keyword ranking. A chunk's own score C sums its ranks in the chunk rankings
(vector, and chunk-level BM25). Results grouped by note come in N order, each note shown by its
chunk with the best C; the raw chunk list is ordered by N + C, so a strong second passage of the
best note can come before a weak note's best one (what the Ask stage wants).

Why notes, not chunks: on a real vault the fused chunk ranking lost to its own vector side (the
Logseq docs dev set, eval_suite/README.md): a long note's many chunks took several of the first
places, and chunk-level BM25 rewarded short fragments that shared a question's common words.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import TypeVar

from commonplace.index.models import SearchResult

Key = tuple[str, int]
T = TypeVar("T")


@dataclass(frozen=True)
class Fused:
    notes: list[SearchResult]  # one per note, best note first, each its best chunk
    chunks: list[SearchResult]  # every candidate chunk, by note score + chunk score


def fuse(
    *,
    vector: Sequence[SearchResult] = (),
    keyword: Sequence[SearchResult] = (),
    notes: Sequence[str] = (),
    note_chunks: Mapping[str, SearchResult] | None = None,
    k: int = 60,
    keyword_weight: float = 1.0,
) -> Fused:
    """Fuse the vector chunk ranking, the chunk-level keyword ranking and the note-level
    keyword ranking (paths). `note_chunks` gives a chunk to show for notes that only the note
    ranking found. Ties go to the better meaning rank, so a keyword-only hit never displaces
    an equally scored meaning hit by accident of order."""
    note_score: dict[str, float] = {}
    _add(note_score, _distinct(h.path for h in vector), 1.0, k)
    _add(note_score, _distinct(notes), keyword_weight, k)
    chunk_score: dict[Key, float] = {}
    _add(chunk_score, _distinct(h.key for h in vector), 1.0, k)
    _add(chunk_score, _distinct(h.key for h in keyword), keyword_weight, k)

    found: dict[Key, SearchResult] = {}
    for hit in [*vector, *keyword, *(note_chunks or {}).values()]:
        found.setdefault(hit.key, hit)
    vector_rank = {key: i for i, key in enumerate(_distinct(h.key for h in vector))}
    last = len(vector_rank)

    def order(key: Key) -> tuple[float, int]:
        return (
            -(note_score.get(key[0], 0.0) + chunk_score.get(key, 0.0)),
            vector_rank.get(key, last),
        )

    ranked = sorted(found, key=order)
    chunks = [
        _scored(found[key], note_score.get(key[0], 0.0) + chunk_score.get(key, 0.0))
        for key in ranked
    ]
    best: dict[str, Key] = {}
    for key in sorted(
        found, key=lambda key: (-chunk_score.get(key, 0.0), vector_rank.get(key, last))
    ):
        best.setdefault(key[0], key)
    paths = sorted(best, key=lambda p: (-note_score.get(p, 0.0), vector_rank.get(best[p], last)))
    return Fused(
        notes=[_scored(found[best[p]], note_score.get(p, 0.0)) for p in paths],
        chunks=chunks,
    )


def group_by_note(results: Sequence[SearchResult]) -> list[SearchResult]:
    """Keep each note's first (best) chunk, in rank order."""
    seen: set[str] = set()
    out: list[SearchResult] = []
    for hit in results:
        if hit.path not in seen:
            seen.add(hit.path)
            out.append(hit)
    return out


def _distinct(items: Iterable[T]) -> list[T]:
    return list(dict.fromkeys(items))


def _add(scores: dict[T, float], ranked: Sequence[T], weight: float, k: int) -> None:
    if weight <= 0:
        return
    for rank, item in enumerate(ranked, start=1):
        scores[item] = scores.get(item, 0.0) + weight / (k + rank)


def _scored(hit: SearchResult, score: float) -> SearchResult:
    return replace(hit, score=score)
