"""Search over both indexes: vector, keyword, or both fused (hybrid.py).

Only the query embedding talks to the model; the rest is local and takes milliseconds. A failed
query embedding never fails the search: hybrid (and vector) fall back to keywords and say so.
"""

from __future__ import annotations

import asyncio
import dataclasses
import datetime as dt
import logging
import sqlite3
from collections import OrderedDict
from typing import Any, Protocol

from commonplace.config import Settings
from commonplace.index.batch import BATCH_FILES
from commonplace.index.filters import SearchFilter
from commonplace.index.highlight import query_terms
from commonplace.index.hubness import Neighbourhoods
from commonplace.index.hybrid import fuse, known_share, named_first
from commonplace.index.hybrid import group_by_note as group_hits
from commonplace.index.keywords import KeywordView
from commonplace.index.models import SEARCH_MODES, SearchResponse, SearchResult, Unread
from commonplace.index.store import Stores
from commonplace.index.vector_api import VectorsBusy
from commonplace.llm import LLM, LLMError
from commonplace.llm.profiles import EmbedProfile
from commonplace.vault.blockrefs import refs_in, shown_refs

log = logging.getLogger(__name__)

VECTOR_POOL = 60  # meaning hits (chunks) fetched and rescored (hubness.py), and fused
CHUNKS_PER_NOTE = 4  # chunks fetched per note asked for, so enough distinct notes come back
QUERY_CACHE = 256


class Searched(Protocol):
    """What a search reads of the index that owns it (indexer.py's Index), said here so that
    the two need not import each other."""

    settings: Settings
    llm: LLM
    stores: Stores
    model: str  # the embedding model
    down_error: str  # the last embedding failure, for the search notice
    neighbourhoods: Neighbourhoods

    @property
    def embeddings_down(self) -> bool: ...

    async def embed_profile(self) -> EmbedProfile: ...

    def embedding_failed(self, error: LLMError) -> None: ...

    def status(self) -> dict[str, Any]: ...


class Searcher:
    def __init__(self, index: Searched) -> None:
        self.index = index
        self._llm: LLM | None = None  # made on first use: a client costs ~0.1 s to set up
        self._cache: OrderedDict[str, list[float]] = OrderedDict()

    async def query_vector(self, text: str) -> list[float]:
        """The query's embedding (cached: people repeat searches, and the Ask stage re-asks)."""
        cached = self._cache.get(text)
        if cached is not None:
            self._cache.move_to_end(text)
            return cached
        if self.index.embeddings_down:
            raise LLMError(self.index.down_error or "the embedding model did not answer")
        if self._llm is None:
            # A search must not wait through retries and backoff when the model server is
            # down: one try.
            self._llm = self.index.llm.with_retries(0)
        profile = await self.index.embed_profile()
        try:
            [vector] = await self._llm.embed([profile.query(text)], model=self.index.model)
        except LLMError as exc:
            self.index.embedding_failed(exc)
            raise
        self._cache[text] = vector
        if len(self._cache) > QUERY_CACHE:
            self._cache.popitem(last=False)
        return vector

    async def search(
        self,
        query: str,
        *,
        limit: int,
        mode: str,
        include_folders: tuple[str, ...],
        exclude_folders: tuple[str, ...],
        modified_after: float | dt.datetime | dt.date | None,
        group_by_note: bool,
        exclude_pages: tuple[str, ...] = (),
    ) -> SearchResponse:
        if mode not in SEARCH_MODES:
            raise ValueError(f"unknown search mode {mode!r}; use one of {', '.join(SEARCH_MODES)}")
        flt = SearchFilter.make(include_folders, exclude_folders, modified_after, exclude_pages)
        used, notice = mode, None
        vector: list[float] | None = None
        if mode != "keyword" and query.strip():
            try:
                vector = await self.query_vector(query)
            except LLMError as exc:
                used = "keyword"
                notice = f"Showing keyword matches only: {exc}"
        # In a thread: while LanceDB and Tantivy search, the event loop answers other requests.
        try:
            results = await asyncio.to_thread(
                self.run, query, vector, used, limit, flt, group_by_note=group_by_note
            )
        except VectorsBusy as exc:
            used, notice = "keyword", f"Showing keyword matches only for a moment: {exc}."
            results = await asyncio.to_thread(
                self.run, query, None, used, limit, flt, group_by_note=group_by_note
            )
        status = self.index.status()
        pending = status["vectors_pending"]
        if used != "keyword" and pending and notice is None:
            notice = (
                f"{pending} note(s) are not yet searchable by meaning (waiting for the model's "
                "embeddings); keyword search finds them."
            )
        if notice is None and used != "keyword":
            notice = _building(status, self.index.stores.vectors.skipped_rows)
        return SearchResponse(results=results, mode=used, notice=notice)

    def run(
        self,
        query: str,
        vector: list[float] | None,
        mode: str,
        limit: int,
        flt: SearchFilter,
        *,
        group_by_note: bool = False,
    ) -> list[SearchResult]:
        """The local part of a search (no model): what the benchmark times."""
        st = self.index.stores
        cfg = self.index.settings.index
        hubs = self.index.neighbourhoods  # hubness.py: cos − r / 2, for every meaning hit
        pool = max(limit * CHUNKS_PER_NOTE, VECTOR_POOL)  # the same candidates in both modes
        if mode == "vector" and vector is not None:
            hits = hubs.rescore(st.vectors.search(vector, pool, flt, texts=False))
            top = (group_hits(hits) if group_by_note else hits)[:limit]
            return self.shown(self._read(top, st.keywords.view()))
        meaning: list[SearchResult] = []
        later = None
        if mode == "hybrid" and vector is not None:
            # Sent first: the daemon's vector store answers from its own process while the
            # keywords are searched here (vector_process.py).
            later = st.vectors.search_later(vector, pool, flt, texts=False)
            depth = cfg.keyword_candidates  # 0: meaning alone
        else:  # keyword search (also hybrid without a query vector: the model is down)
            depth = max(limit, cfg.keyword_candidates)
        keywords = st.keywords.view()  # both keyword indexes as of one moment
        notes = keywords.search_notes(query, depth, flt)
        words = keywords.search(query, depth * CHUNKS_PER_NOTE, flt)
        if later is not None:
            meaning = hubs.rescore(later())
        if meaning and 0 < depth == len(notes):
            notes += _beyond_the_list(keywords, query, meaning, notes)
        shown = {h.path for h in [*meaning, *words]}
        extra = keywords.best_chunks(query, [p for p, _ in notes if p not in shown])
        fused = fuse(
            vector=meaning,
            keyword=words,
            notes=notes,
            note_chunks=extra,
            method="rrf" if cfg.fusion == "rrf" else "convex",
            k=cfg.rrf_k,
            keyword_weight=cfg.keyword_weight * _known_share(keywords, query) if meaning else 1.0,
            limit=limit,
        )
        ranked = fused.notes if group_by_note else fused.chunks
        named = keywords.named(query, flt)
        if named:
            listed = {h.path for h in ranked}
            found = keywords.best_chunks(query, [p for p in named if p not in listed])
            ranked = named_first(ranked, named, found, limit)
        return self.shown(self._read(ranked, keywords))

    def shown(self, results: list[SearchResult]) -> list[SearchResult]:
        """The results' text as the reader sees it: in a Logseq graph, each block ref replaced
        by its block's text (vault/blockrefs.py), looked up in the manifest, which the indexer
        keeps current as pages change, so a search never reads the vault. Every client shows
        or hands on this text (snippets, Ask's passages and sources, MCP); the index itself
        keeps the refs as written. A lookup that fails shows the refs as unknown, never fails
        the search."""
        if self.index.settings.flavor != "logseq":
            return results
        wanted = set().union(*(refs_in(h.text) for h in results))
        if not wanted:
            return results
        try:
            blocks = self.index.stores.manifest.block_texts(wanted)
        except sqlite3.Error as exc:
            log.warning("block refs shown without their text: %s", exc)
            blocks = {}
        return [
            dataclasses.replace(h, text=shown_refs(h.text, blocks)) if "((" in h.text else h
            for h in results
        ]

    def _read(self, results: list[SearchResult], keywords: KeywordView) -> list[SearchResult]:
        """The results with the text, title, heading and date of the meaning hits that came
        without them (`Unread`: the vector store past its memory budget reads keys only, a
        quarter of its query saved at 50,000 notes). Read from the keyword index, which holds
        the same chunks from the same writes; a chunk it holds in another version (a write
        between the two indexes, or keywords written while the vectors waited for the model:
        its first line or its file's mtime differ) is read from the vector store. A hit gone
        from both since the search is left out."""
        unread = [h.key for h in results if isinstance(h, Unread)]
        if not unread:
            return results
        meaning = {h.key: h for h in results if isinstance(h, Unread)}
        whole = {
            key: hit
            for key, hit in keywords.chunks_at(unread).items()
            if (hit.start_line, hit.modified) == (meaning[key].start_line, meaning[key].modified)
        }
        if len(whole) < len(meaning):
            stored = self.index.stores.vectors.rows_at([k for k in unread if k not in whole])
            whole.update({hit.key: hit for hit in stored})
        return [
            whole[h.key].rescored(h.score) if isinstance(h, Unread) else h
            for h in results
            if not isinstance(h, Unread) or h.key in whole
        ]


def _known_share(keywords: KeywordView, query: str) -> float:
    """How much of the query the keyword index can match at all (hybrid.known_share)."""
    return known_share(*keywords.note_frequencies(query_terms(query)))


def _beyond_the_list(
    keywords: KeywordView,
    query: str,
    meaning: list[SearchResult],
    notes: list[tuple[str, float]],
) -> list[tuple[str, float]]:
    """The whole-note BM25 of the meaning side's notes that the keyword list (cut at its
    depth) left out, best first. Without it a note just past the cut counts as no keyword
    match at all, while the note just before it, on a list where no note matches much better
    than the others, counts nearly as much as the best: on the Logseq docs dev set that cliff
    pushed notes the meaning side ranked 1st, 5th and 10th out of hybrid's first ten
    (eval_suite/README.md, F12)."""
    listed = {path for path, _ in notes}
    beyond = [path for path in dict.fromkeys(h.path for h in meaning) if path not in listed]
    scores = keywords.note_scores(query, beyond)
    return sorted(scores.items(), key=lambda item: -item[1])


def _building(status: dict[str, object], unindexed: int) -> str | None:
    """While the index is being built, results come from the part indexed so far: say so,
    for a run of more than one round (each round is searchable once embedded; with a slow
    embedder a round takes minutes: a 173-note vault's first index took 10 minutes, silent
    under a threshold of 200 notes). A few notes re-read after an edit say nothing."""
    progress = status.get("progress")
    if status.get("running") and isinstance(progress, dict) and progress["total"] > BATCH_FILES:
        done, total = progress["done"], progress["total"]
        return f"The index is being built ({done} of {total} notes so far); results may be missing."
    if unindexed:
        return (
            f"{unindexed} passages are not yet searchable by meaning (the vector index is "
            "catching up); keyword search finds them."
        )
    return None
