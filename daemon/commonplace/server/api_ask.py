"""POST /api/ask: a question about the notes, answered with cited sources.

Plain: one JSON answer (`Answer.to_json()`: answer, refused, sources, findings). With
`?stream=1` the reply is NDJSON, one object per line: `{"type": "delta", "text": ...}` pieces
of a preview as the model writes, then `{"type": "answer", ...}` with the checked answer, which
replaces the preview; or `{"type": "error", "error": {...}}` if it fails half-way (the status
line has already gone out by then, so the error travels in the body).
"""

from __future__ import annotations

import json
import logging
from typing import Any

from aiohttp import web

from commonplace.ask.answer import AskError, answer_question, stream_answer
from commonplace.llm import LLMError
from commonplace.server.context import LLM_KEY, SERVICES, SETTINGS
from commonplace.server.errors import ApiError, llm_error, read_json, text_field

log = logging.getLogger(__name__)


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
    events = stream_answer(question, index=services.index, llm=llm, settings=settings)
    # Errors before the first piece still get a proper status: peek at the first event.
    try:
        first = await anext(events)
    except AskError as exc:
        raise ApiError(400, "bad_question", str(exc)) from None
    except StopAsyncIteration:
        raise ApiError(502, "model_failed", "the answer ended before it began") from None
    response = web.StreamResponse(headers={"Content-Type": "application/x-ndjson"})
    await response.prepare(request)
    try:
        event: Any = first
        while True:
            await response.write(_line(event))
            event = await anext(events)
    except StopAsyncIteration:
        pass
    except ConnectionResetError:
        log.info("ask stream: the page went away before the answer was complete")
        return response
    except LLMError as exc:
        api = llm_error(exc)
        log.warning("ask stream: %s", api.message)
        await response.write(_error_line(api.code, api.message))
    except Exception:
        log.exception("ask stream failed")
        await response.write(
            _error_line("internal", "The answer failed; the daemon's log has why.")
        )
    await response.write_eof()
    return response


def _line(event: Any) -> bytes:
    if isinstance(event, str):
        payload: dict[str, Any] = {"type": "delta", "text": event}
    else:
        payload = {"type": "answer", **event.to_json()}
    return (json.dumps(payload, ensure_ascii=False) + "\n").encode("utf-8")


def _error_line(code: str, message: str) -> bytes:
    payload = {"type": "error", "error": {"code": code, "message": message}}
    return (json.dumps(payload) + "\n").encode("utf-8")
