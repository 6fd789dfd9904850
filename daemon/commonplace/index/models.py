"""What the index hands out: search results, responses and refresh counts (plain data)."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any, Literal

from commonplace.attachments.kinds import is_attachment, is_pdf, page_label

SearchMode = Literal["hybrid", "vector", "keyword"]
SEARCH_MODES: tuple[SearchMode, ...] = ("hybrid", "vector", "keyword")


@dataclass(frozen=True)
class SearchResult:
    """One chunk that matched, with enough context to show it and cite it."""

    path: str  # vault-relative
    title: str
    heading: str  # " > "-joined heading path; "" for the part above the first heading
    text: str  # the chunk's text
    score: float  # fused score (hybrid), cosine less half its neighbourhood (vector), BM25
    note_date: str  # ISO date: frontmatter captured/date/created, else the file's mtime date
    modified: float  # the file's mtime when it was indexed
    start_line: int  # 0-based line in the note's full text
    ordinal: int  # the chunk's position in the note

    @property
    def key(self) -> tuple[str, int]:
        return (self.path, self.ordinal)

    def rescored(self, score: float) -> SearchResult:
        """This result with another score: dataclasses.replace, without its look at every
        field (1.1 µs against 1.7; a search rescored some 300 results)."""
        return type(self)(
            path=self.path,
            title=self.title,
            heading=self.heading,
            text=self.text,
            score=score,
            note_date=self.note_date,
            modified=self.modified,
            start_line=self.start_line,
            ordinal=self.ordinal,
        )

    @property
    def page(self) -> int | None:
        """The page of a PDF passage (1-based; its start_line holds it: index/attachment_chunks.py);
        None for a note or an image."""
        return self.start_line if is_pdf(self.path) else None

    @property
    def label(self) -> str:
        """How a client names the source: the note's title, or `Manual.pdf, page 4`."""
        return page_label(self.path, self.page) if is_attachment(self.path) else self.title

    def to_json(self) -> dict[str, Any]:
        out = asdict(self)
        out["page"] = self.page
        out["label"] = self.label
        out["attachment"] = is_attachment(self.path)
        return out


@dataclass(frozen=True)
class Unread(SearchResult):
    """A meaning hit whose title, heading, text and date were not read: what the vector store
    answers past its memory budget when asked for keys only (`VectorStore.search`,
    texts=False). Searcher.run reads those of the results it returns (searching.py); none
    leaves it."""


@dataclass(frozen=True)
class SearchResponse:
    results: list[SearchResult]
    mode: str  # the mode actually used (hybrid falls back to keyword when the model is down)
    notice: str | None = None  # a sentence for the user when the answer is partial

    def to_json(self) -> dict[str, Any]:
        return {
            "results": [r.to_json() for r in self.results],
            "mode": self.mode,
            "notice": self.notice,
        }


@dataclass
class RefreshStats:
    """What one refresh did; the CLI prints it and the benchmark reads it."""

    notes: int = 0  # notes in the index after the run
    chunks: int = 0  # chunks in the index after the run
    checked: int = 0  # files compared with the manifest
    indexed: int = 0  # files (re)read and (re)indexed
    unchanged: int = 0  # files whose mtime moved but whose content did not
    deleted: int = 0  # files dropped from the index
    skipped: int = 0  # files that are not usable notes (too big, not UTF-8, ...)
    embedded: int = 0  # chunks embedded now
    reused: int = 0  # chunks whose vector was reused (fingerprint unchanged)
    vectors_pending: int = 0  # files waiting for embeddings (the model was down)
    seconds: float = 0.0
    embed_seconds: float = 0.0  # time spent waiting for the model's embeddings
    errors: list[str] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        return asdict(self)
