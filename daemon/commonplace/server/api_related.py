"""GET /api/related: the notes closest to one note, for the Obsidian plugin's side view.

`?path=` names the note (checked like /api/note), `limit` (1-50, default 10) and any number of
`exclude=Folder` leave folders out inside the index. The answer has the shape of /api/search:
`{"results": [...], "mode", "notice"}`, one result per note, the note itself never among them.
"""

from __future__ import annotations

import asyncio
import dataclasses

from aiohttp import web

from commonplace.index import SearchFilter, SearchResponse
from commonplace.index.related import related_notes
from commonplace.server.api_search import MAX_LIMIT, _int_param, safe_note_path
from commonplace.server.context import SERVICES, SETTINGS
from commonplace.server.errors import ApiError
from commonplace.server.limits import limited
from commonplace.vault import NoteSkipped, read_note


@limited("searches")
async def related(request: web.Request) -> web.StreamResponse:
    settings, index = request.app[SETTINGS], request.app[SERVICES].index
    rel = safe_note_path(settings.vault, request.query.get("path", ""))
    limit = _int_param(request.query.get("limit", "10"), "limit", 1, MAX_LIMIT)
    exclude = tuple(request.query.getall("exclude", []))
    if index is None:
        raise ApiError(503, "index_unavailable", "the index is not open yet; try again shortly")
    try:
        note = await asyncio.to_thread(
            read_note, settings.vault, rel, settings.flavor, settings.index.max_note_kb * 1024
        )
    except NoteSkipped as exc:
        raise ApiError(404 if exc.missing else 422, "note_unavailable", str(exc)) from None
    await index.apply_pending(neighbours=False)  # a note saved a moment ago, as it is now

    def found() -> SearchResponse:
        response = related_notes(
            index.stores,
            rel,
            note.title,
            note.body,
            limit=limit,
            flt=SearchFilter.make(exclude=exclude),
            rrf_k=settings.index.rrf_k,
            keyword_candidates=settings.index.keyword_candidates,
            hubs=index.neighbourhoods,  # as search ranks by meaning (eval_suite/README.md, L1)
        )
        # Logseq block refs read as their blocks, as in search results
        return dataclasses.replace(response, results=index.searcher.shown(response.results))

    response = await asyncio.to_thread(found)
    return web.json_response({"path": rel, **response.to_json()})
