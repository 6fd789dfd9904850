"""GET /api/search and GET /api/note: what the index finds, and a note's text for a source.

`/api/search` returns, as `results`, exactly the list `commonplace search --json` prints: one
result per note by default (its best passage, a snippet of it and where the query's words are in
the snippet), every matching chunk with `chunks=1`; plus the mode used and a `notice` when the
model is down and search fell back to keywords. `/api/note` opens a cited note, as its app shows it;
its path comes from the client, so it is checked to name a note inside the vault before anything
is read, and the read itself follows the vault's rule (an ordinary file, never through a link,
never a FIFO: vault/files.py).
"""

from __future__ import annotations

import asyncio
from pathlib import Path

from aiohttp import web

from commonplace.index import SEARCH_MODES
from commonplace.index.highlight import query_terms, result_json
from commonplace.server.context import SERVICES, SETTINGS
from commonplace.server.errors import ApiError
from commonplace.server.limits import limited
from commonplace.vault import NoteSkipped, read_note
from commonplace.vault.paths import PathRefused, folder_in_vault, note_in_vault
from commonplace.vault.shown import shown_text

MAX_QUERY_CHARS = 1000
MAX_LIMIT = 50


@limited("searches")
async def search(request: web.Request) -> web.StreamResponse:
    index = request.app[SERVICES].index
    query = request.query.get("q", "").strip()
    mode = request.query.get("mode", "hybrid")
    if not query:
        raise ApiError(400, "bad_query", "the search is empty: give some words to search for")
    if len(query) > MAX_QUERY_CHARS:
        raise ApiError(400, "bad_query", f"a search is limited to {MAX_QUERY_CHARS} characters")
    if mode not in SEARCH_MODES:
        raise ApiError(400, "bad_mode", f"mode must be one of {', '.join(SEARCH_MODES)}")
    limit = _int_param(request.query.get("limit", "10"), "limit", 1, MAX_LIMIT)
    chunks = _flag(request.query.get("chunks", "0"), "chunks")
    folders: list[str] = []
    if request.query.get("folder"):
        try:
            folders.append(folder_in_vault(request.app[SETTINGS].vault, request.query["folder"]))
        except PathRefused as exc:
            raise ApiError(400, "bad_path", exc.message) from None
    if index is None:
        raise ApiError(503, "index_unavailable", "the index is not open yet; try again shortly")
    response = await index.search(
        query, limit=limit, mode=mode, include_folders=folders, group_by_note=not chunks
    )
    terms = query_terms(query)
    return web.json_response(
        {
            "results": [result_json(hit, terms) for hit in response.results],
            "mode": response.mode,
            "notice": response.notice,
            "grouped": not chunks,
        }
    )


async def note(request: web.Request) -> web.Response:
    settings = request.app[SETTINGS]
    rel = safe_note_path(settings.vault, request.query.get("path", ""))
    try:
        found = await asyncio.to_thread(
            read_note, settings.vault, rel, settings.flavor, settings.index.max_note_kb * 1024
        )
    except NoteSkipped as exc:
        if exc.missing:  # "skipped: no longer exists" is untrue of a path that never was a note
            raise ApiError(
                404,
                "note_unavailable",
                f"there is no note at {rel} (the path must match exactly, capitals too; "
                "the note may have been moved or deleted)",
            ) from None
        raise ApiError(422, "note_unavailable", str(exc)) from None
    # As the app shows it, as the snippet above it was: what Logseq or Obsidian keeps in the file
    # but never shows left out (vault/shown.py), and Logseq's block refs as their blocks' text.
    text = shown_text(found.text, settings.flavor)
    index = request.app[SERVICES].index
    if index is not None:
        text = await asyncio.to_thread(index.shown_refs, text)
    return web.json_response({"path": found.path, "title": found.title, "text": text})


def safe_note_path(vault: Path, raw: str) -> str:
    """A vault-relative note path, or ApiError (see vault/paths.py for the rules)."""
    try:
        return note_in_vault(vault, raw)
    except PathRefused as exc:
        if exc.code == "not_a_note":
            raise ApiError(404, "not_found", "no such note") from None
        raise ApiError(400, "bad_path", exc.message) from None


def _flag(value: str, name: str) -> bool:
    if value not in ("0", "1", "true", "false"):
        raise ApiError(400, "bad_param", f"{name} must be 1 or 0")
    return value in ("1", "true")


def _int_param(value: str, name: str, lo: int, hi: int) -> int:
    try:
        number = int(value)
    except ValueError:
        raise ApiError(400, "bad_param", f"{name} must be a whole number") from None
    if not lo <= number <= hi:
        raise ApiError(400, "bad_param", f"{name} must be between {lo} and {hi}")
    return number
