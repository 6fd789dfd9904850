"""Search: an incremental hybrid index (LanceDB vectors + Tantivy BM25, fused by RRF) that
follows the vault. Everything lives in the data folder, never in the vault.

May import: attachments, config, llm, runtime, vault.
"""

from commonplace.index.filters import SearchFilter
from commonplace.index.hybrid import Fused, fuse, group_by_note
from commonplace.index.indexer import Index
from commonplace.index.keywords import IndexBusy, keyword_query
from commonplace.index.models import SEARCH_MODES, RefreshStats, SearchResponse, SearchResult
from commonplace.index.service import IndexService
from commonplace.index.store import IndexUnavailable

__all__ = [
    "SEARCH_MODES",
    "Fused",
    "Index",
    "IndexBusy",
    "IndexService",
    "IndexUnavailable",
    "RefreshStats",
    "SearchFilter",
    "SearchResponse",
    "SearchResult",
    "fuse",
    "group_by_note",
    "keyword_query",
]
