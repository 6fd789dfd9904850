"""Tantivy: BM25 over the same chunks, with title and heading fields, English stemming.

Title and heading are fields of their own, so a query word found there counts even when the
chunk's text lacks it. Their weight is 0.1, not above 1: BM25 already scores a match in a short
field highly, and every chunk of a note carries its title, so "Mei Holm" in a question pulled all
of People/Mei Holm.md above the note holding the answer. Measured with MiniLM (see the README):
2,000 synthetic notes, keyword MRR@10 0.13 with title 2.0 / heading 1.5, 0.61 with 0.1; the
fixture's questions gain too (0.75 -> 0.78), and hybrid beats both of its parts on both sets.

User queries never reach Tantivy's query language as typed: `keyword_query` keeps words and
"quoted phrases" and drops everything else, so no input can raise a query-syntax error, and
words like AND/OR/NOT are searched for, not obeyed.
"""

from __future__ import annotations

import logging
import re
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import tantivy

from commonplace.foreground import pause
from commonplace.index.chunking import IndexedChunk
from commonplace.index.filters import SearchFilter
from commonplace.index.models import SearchResult

log = logging.getLogger(__name__)

FIELDS = ["title", "heading", "text"]
BOOSTS = {"title": 0.1, "heading": 0.1}  # measured: see the module docstring
_PHRASE = re.compile(r'"([^"]*)"')
_WORD = re.compile(r"\w+")


class KeywordIndexError(Exception):
    """The Tantivy index cannot be used; the caller rebuilds it."""


class IndexBusy(Exception):
    """Another process (the daemon, usually) is writing this index."""


def _schema() -> tantivy.Schema:
    sb = tantivy.SchemaBuilder()
    for name in FIELDS:
        sb.add_text_field(name, stored=True, tokenizer_name="en_stem")
    sb.add_text_field("path", stored=True, tokenizer_name="raw")
    sb.add_text_field("folders", stored=False, tokenizer_name="raw")
    sb.add_float_field("mtime", stored=True, indexed=True, fast=True)
    sb.add_integer_field("ordinal", stored=True)
    sb.add_integer_field("start_line", stored=True)
    sb.add_text_field("note_date", stored=True, tokenizer_name="raw")
    return sb.build()


def keyword_query(text: str) -> str:
    """The user's words and quoted phrases as a safe Tantivy query string ('' if none)."""
    parts: list[str] = []
    for phrase in _PHRASE.findall(text):
        words = _WORD.findall(phrase.lower())
        if len(words) > 1:
            parts.append('"' + " ".join(words) + '"')
        else:
            parts.extend(words)
    rest = _PHRASE.sub(" ", text).lower()
    parts.extend(_WORD.findall(rest))
    return " ".join(parts)


class KeywordIndex:
    def __init__(self, folder: Path, *, writable: bool = True) -> None:
        self.folder = folder
        folder.mkdir(parents=True, exist_ok=True)
        try:
            if tantivy.Index.exists(str(folder)):
                self._index = tantivy.Index.open(str(folder))
            else:
                self._index = tantivy.Index(_schema(), path=str(folder))
            self._schema = self._index.schema
        except ValueError as exc:
            raise KeywordIndexError(f"{folder}: {exc}") from exc
        self._writer: tantivy.IndexWriter | None = None
        # tantivy-py objects raise "Already borrowed" when two threads use one at once (a
        # search while a refresh reloads): every use of the Index object holds this lock.
        self._guard = threading.Lock()
        if writable:
            try:
                self._writer = self._index.writer(heap_size=32_000_000, num_threads=1)
            except ValueError as exc:
                if "LockBusy" in str(exc):
                    raise IndexBusy(str(folder)) from None
                raise KeywordIndexError(f"{folder}: {exc}") from exc

    @property
    def writable(self) -> bool:
        return self._writer is not None

    def close(self) -> None:
        if self._writer is not None:
            self._writer.wait_merging_threads()
            self._writer = None

    def replace(self, delete_paths: Sequence[str], chunks: Sequence[IndexedChunk]) -> None:
        """Drop every chunk of `delete_paths`, add `chunks`, commit, and make it searchable."""
        writer = self._writer
        if writer is None:
            raise IndexBusy(str(self.folder))
        for path in delete_paths:
            writer.delete_documents_by_term("path", path)
        for i, c in enumerate(chunks):
            if i % 64 == 0:
                pause()  # let a request being answered go first (foreground.py)
            writer.add_document(
                tantivy.Document(
                    title=c.title,
                    heading=c.heading,
                    text=c.text,
                    path=c.path,
                    folders=c.folders,
                    mtime=float(c.mtime),
                    ordinal=c.ordinal,
                    start_line=c.start_line,
                    note_date=c.note_date,
                )
            )
        writer.commit()
        with self._guard:
            self._index.reload()

    def clear(self) -> None:
        if self._writer is None:
            raise IndexBusy(str(self.folder))
        self._writer.delete_all_documents()
        self._writer.commit()
        with self._guard:
            self._index.reload()

    def count(self) -> int:
        with self._guard:
            n: int = self._index.searcher().num_docs
        return n

    def search(self, text: str, limit: int, flt: SearchFilter) -> list[SearchResult]:
        query_text = keyword_query(text)
        if not query_text or limit <= 0:
            return []
        with self._guard:
            query = self._index.parse_query(query_text, FIELDS, field_boosts=BOOSTS)
            searcher = self._index.searcher()
        query = self._filtered(query, flt)
        out: list[SearchResult] = []
        for score, address in searcher.search(query, limit).hits:
            doc: dict[str, list[Any]] = searcher.doc(address).to_dict()
            out.append(
                SearchResult(
                    path=str(doc["path"][0]),
                    title=str(_first(doc, "title", "")),
                    heading=str(_first(doc, "heading", "")),
                    text=str(_first(doc, "text", "")),
                    score=float(score),
                    note_date=str(_first(doc, "note_date", "")),
                    modified=float(_first(doc, "mtime", 0.0)),
                    start_line=int(_first(doc, "start_line", 0)),
                    ordinal=int(_first(doc, "ordinal", 0)),
                )
            )
        return out

    def _filtered(self, query: tantivy.Query, flt: SearchFilter) -> tantivy.Query:
        if flt.empty:
            return query
        clauses = [(tantivy.Occur.Must, query)]
        schema = self._schema
        if flt.include:
            terms = [
                (tantivy.Occur.Should, tantivy.Query.term_query(schema, "folders", f))
                for f in flt.include
            ]
            clauses.append((tantivy.Occur.Must, tantivy.Query.boolean_query(terms)))
        for folder in flt.exclude:
            clauses.append(
                (tantivy.Occur.MustNot, tantivy.Query.term_query(schema, "folders", folder))
            )
        if flt.modified_after is not None:
            clauses.append(
                (
                    tantivy.Occur.Must,
                    tantivy.Query.range_query(
                        schema,
                        "mtime",
                        tantivy.FieldType.Float,
                        lower_bound=float(flt.modified_after),
                        include_lower=False,
                    ),
                )
            )
        return tantivy.Query.boolean_query(clauses)


def _first(doc: dict[str, list[Any]], name: str, default: Any) -> Any:
    values = doc.get(name)
    return values[0] if values else default
