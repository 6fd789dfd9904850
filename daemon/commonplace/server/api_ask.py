"""POST /api/ask: a question about the notes, answered with cited sources.

Plain: one JSON answer (`Answer.to_json()`: answer, refused, sources, findings). With
`?stream=1` the reply is NDJSON, one object per line: `{"type": "waiting", "text": ...}` when the
model is busy with other work (the question waits its turn, ahead of background work), then
`{"type": "delta", "text": ...}` pieces of a preview as the model writes, then
`{"type": "answer", ...}` with the checked answer, which replaces the preview; or
`{"type": "error", "error": {...}}` if it fails half-way (the status line has already gone out
by then, so the error travels in the body).
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import AsyncIterator
from typing import Any

from aiohttp import web

from commonplace.ask.answer import AskError, answer_question, stream_answer
from commonplace.llm import LLMError, for_a_person
from commonplace.server import ndjson
from commonplace.server.context import LLM_KEY, SERVICES, SETTINGS
from commonplace.server.errors import ApiError, llm_error, read_json, text_field
from commonplace.server.limits import limited

log = logging.getLogger(__name__)


@limited("asks")
async def ask(request: web.Request) -> web.StreamResponse:
    settings, llm, services = request.app[SETTINGS], request.app[LLM_KEY], request.app[SERVICES]
    body = await read_json(request, settings.web.max_json_kb * 1024)
    question = text_field(body, "question")
    index = services.index
    if index is None:
        raise ApiError(503, "index_unavailable", "the index is not open yet; try again shortly")
    if request.query.get("stream") in ("1", "true"):
        return await _stream(request, question)
    try:
        answer = await answer_question(question, index=index, llm=llm, settings=settings)
    except AskError as exc:
        raise ApiError(400, "bad_question", str(exc)) from None
    return web.json_response(answer.to_json())


async def _stream(request: web.Request, question: str) -> web.StreamResponse:
    settings, llm, services = request.app[SETTINGS], request.app[LLM_KEY], request.app[SERVICES]
    assert services.index is not None
    response = web.StreamResponse(headers={"Content-Type": "application/x-ndjson"})

    async def waiting(holder: str) -> None:
        """The model is busy: say so at once rather than leave the page silent."""
        if not response.prepared:
            await response.prepare(request)
        text = f"Waiting for the model: it is busy with {holder}."
        await response.write(ndjson.line({"type": "waiting", "text": text}))

    with for_a_person(waiting):
        stream = stream_answer(question, index=services.index, llm=llm, settings=settings)
        async with contextlib.aclosing(stream) as events:
            # Errors before the first piece get a proper status, unless a 'waiting' line has
            # already gone out: peek at the first event.
            try:
                first = await anext(events)
            except AskError as exc:
                return await _early_error(request, response, 400, "bad_question", str(exc))
            except StopAsyncIteration:
                message = "the answer ended before it began"
                return await _early_error(request, response, 502, "model_failed", message)
            except LLMError as exc:
                api = llm_error(exc)
                return await _early_error(request, response, api.status, api.code, api.message)
            if not response.prepared:
                await response.prepare(request)
            await _write_all(response, first, events)
    return response


async def _early_error(
    request: web.Request, response: web.StreamResponse, status: int, code: str, message: str
) -> web.StreamResponse:
    if not response.prepared:
        raise ApiError(status, code, message)
    log.warning("ask stream: %s", message)
    await response.write(ndjson.error_line(code, message))
    await response.write_eof()
    return response


async def _write_all(response: web.StreamResponse, first: Any, events: AsyncIterator[Any]) -> None:
    try:
        event: Any = first
        while True:
            await response.write(_line(event))
            event = await anext(events)
    except StopAsyncIteration:
        pass
    except ConnectionResetError:
        log.info("ask stream: the page went away before the answer was complete")
        return
    except LLMError as exc:
        api = llm_error(exc)
        log.warning("ask stream: %s", api.message)
        await response.write(ndjson.error_line(api.code, api.message))
    except Exception:
        log.exception("ask stream failed")
        await response.write(
            ndjson.error_line("internal", "The answer failed; the daemon's log has why.")
        )
    await response.write_eof()


def _line(event: Any) -> bytes:
    if isinstance(event, str):
        return ndjson.line({"type": "delta", "text": event})
    return ndjson.line({"type": "answer", **event.to_json()})
