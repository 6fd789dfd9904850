"""Notes related to a note: the plugin's side view asks for these as the user moves around.

A note is more than one query, so each of its chunks (up to MAX_CHUNKS) searches by meaning
with the vector already stored for it: no call to the model, so this is fast and works while the
model is busy. Each chunk's ranking is by cos − r / 2 as search's meaning side (hubness.py): a
passage near everything counts less than its cosine (on the Logseq docs dev set, with the
vault's links standing in for relevance, as good as raw cosine or a hair better:
eval_suite/README.md, L1). Each ranking is cut to one entry per note, and the rankings, plus a
keyword search for the note's title (notes that name it), are fused by reciprocal rank fusion at the
note level. The note itself never counts. A note without vectors yet (the model down) falls back
to keywords from its title and first words, and says so.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence

from commonplace.index.filters import SearchFilter
from commonplace.index.hubness import Neighbourhoods
from commonplace.index.hybrid import group_by_note
from commonplace.index.models import SearchResponse, SearchResult
from commonplace.index.store import Stores
from commonplace.index.vector_api import VectorsBusy

MAX_CHUNKS = 8  # rankings fused per note: a long note's first sections say what it is about
FALLBACK_WORDS = 60  # words of the note used as a keyword query when it has no vectors


def related_notes(
    stores: Stores,
    path: str,
    title: str,
    text: str,
    *,
    limit: int,
    flt: SearchFilter,
    rrf_k: int = 60,
    keyword_candidates: int = 5,
    hubs: Neighbourhoods | None = None,
) -> SearchResponse:
    """The `limit` notes closest to `path`, one result (its best chunk) per note. `hubs`: each
    chunk ranking by cos − r / 2 (hubness.py), as search's meaning side; None: raw cosine."""
    pool = limit * 4 + MAX_CHUNKS  # enough after dropping the note's own chunks
    rescore = hubs.rescore if hubs is not None else list
    try:
        vectors = list(stores.vectors.vectors_for([path]).values())[:MAX_CHUNKS]
        rankings: list[list[SearchResult]] = [
            _others(rescore(stores.vectors.search(vector.tolist(), pool, flt)), path)
            for vector in vectors
        ]
    except VectorsBusy as exc:  # the table is being compacted: words now, not a long wait
        return _by_words(stores, path, title, text, pool, flt, limit, f"Shared words only ({exc}).")
    if vectors:
        if title.strip():
            rankings.append(_others(stores.keywords.search(title, keyword_candidates, flt), path))
        return SearchResponse(results=fuse(rankings, k=rrf_k)[:limit], mode="vector")
    notice = (
        "This note has no vectors yet (waiting for the model's embeddings): "
        "these notes share its words."
    )
    return _by_words(stores, path, title, text, pool, flt, limit, notice)


def _by_words(
    stores: Stores,
    path: str,
    title: str,
    text: str,
    pool: int,
    flt: SearchFilter,
    limit: int,
    notice: str,
) -> SearchResponse:
    words = " ".join([title, *text.split()[:FALLBACK_WORDS]])
    hits = _others(stores.keywords.search(words, pool, flt), path)
    return SearchResponse(results=hits[:limit], mode="keyword", notice=notice)


def fuse(rankings: Sequence[Sequence[SearchResult]], *, k: int = 60) -> list[SearchResult]:
    """RRF over note-level rankings: a note close to several of the chunks ranks first.

    Each note keeps the chunk that scored best in any ranking (its snippet and heading)."""
    scores: dict[str, float] = {}
    best: dict[str, tuple[int, SearchResult]] = {}  # the ranking where the note ranked highest
    for ranking in rankings:
        for rank, hit in enumerate(ranking, start=1):
            scores[hit.path] = scores.get(hit.path, 0.0) + 1.0 / (k + rank)
            if hit.path not in best or rank < best[hit.path][0]:
                best[hit.path] = (rank, hit)
    order = sorted(scores, key=lambda p: -scores[p])
    return [dataclasses.replace(best[p][1], score=scores[p]) for p in order]


def _others(hits: Sequence[SearchResult], path: str) -> list[SearchResult]:
    return group_by_note([h for h in hits if h.path != path])
