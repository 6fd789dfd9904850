"""The assistant's API: a message, the owner's Yes or No, and the day so far.

POST /api/assistant/message `{"text", "client"?}` -> `{"reply", "pending": [{"id", "question"}],
"day"}`. `client` is "page" from the phone page, which shows each question as a card with Yes and
No under the reply that asked it; left out (or "api"), the program's sentences name no buttons
and no place ("answer the question waiting").
With `?stream=1` the reply is NDJSON: `{"type": "delta", "text"}` pieces of a preview, `reset`
when a preview turned out not to be the answer (the model went to call a tool), `status` while a
tool runs, then `{"type": "reply", ...}` with the checked reply that replaces the preview, or
`{"type": "error", "error": {...}}`.

POST /api/assistant/answer `{"id", "answer": "yes" | "no"}` -> `{"ran", "message"}`; 409 when
the question is unknown, expired, already answered, or no longer reads the same.

GET /api/assistant/today -> `{"day", "messages", "pending", "briefing"}`.

POST /api/assistant/propose `{"tool", "arguments", "source": "mcp", "client"?}` -> `{"id",
"question", "new", "asked_by"}`: a change an outside client (the MCP server) asks for
becomes a question on the owner's page, through the same tool and gate as the chat. Nothing
changes until the owner answers it; there is no way to answer it here.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from typing import Any

from aiohttp import web

from commonplace.assistant import Assistant, Refused, ToolError, Turn
from commonplace.assistant.checks import Client
from commonplace.assistant.gate import Proposal
from commonplace.briefing import kept_briefing
from commonplace.llm import LLMError, for_a_person
from commonplace.server import ndjson
from commonplace.server.context import SERVICES, SETTINGS
from commonplace.server.errors import ApiError, llm_error, read_json, text_field
from commonplace.server.limits import limited

log = logging.getLogger(__name__)

MAX_MESSAGE_CHARS = 4000
MESSAGE_CLIENTS: tuple[Client, ...] = ("page", "api")  # the terminal chat runs the engine itself


def add_assistant_routes(app: web.Application) -> None:
    app.router.add_post("/api/assistant/message", message)
    app.router.add_post("/api/assistant/answer", answer)
    app.router.add_get("/api/assistant/today", today)
    app.router.add_post("/api/assistant/propose", propose)


def _assistant(request: web.Request) -> Assistant:
    assistant = request.app[SERVICES].assistant
    if assistant is None:
        raise ApiError(503, "assistant_unavailable", "the assistant is not running in this daemon")
    return assistant


def pending_json(pending: list[Proposal]) -> list[dict[str, str]]:
    return [{"id": p.id, "question": p.question, "asked_by": p.asked_by} for p in pending]


def turn_json(turn: Turn) -> dict[str, Any]:
    return {
        "reply": turn.reply,
        "pending": pending_json(turn.pending),
        "day": turn.day.isoformat(),
        "notes": turn.corrections,
    }


@limited("asks")
async def message(request: web.Request) -> web.StreamResponse:
    assistant = _assistant(request)
    body = await read_json(request, request.app[SETTINGS].web.max_json_kb * 1024)
    text = text_field(body, "text").strip()
    if not text:
        raise ApiError(400, "empty_message", "the message is empty")
    if len(text) > MAX_MESSAGE_CHARS:
        raise ApiError(
            400, "too_long", f"the message is over {MAX_MESSAGE_CHARS} characters; shorten it"
        )
    client = _message_client(body)
    if request.query.get("stream") in ("1", "true"):
        return await _stream(request, assistant, text, client)
    try:
        turn = await assistant.respond(text, client=client)
    except ToolError as exc:
        raise ApiError(400, "bad_message", str(exc)) from None
    return web.json_response(turn_json(turn))


def _message_client(body: dict[str, Any]) -> Client:
    """Who will read the reply: said by the caller, never guessed from its headers."""
    said = text_field(body, "client", required=False).strip() or "api"
    for client in MESSAGE_CLIENTS:
        if said == client:
            return client
    raise ApiError(400, "bad_field", f"'client' must be one of {', '.join(MESSAGE_CLIENTS)}")


async def _stream(
    request: web.Request, assistant: Assistant, text: str, client: Client
) -> web.StreamResponse:
    events: asyncio.Queue[dict[str, Any] | None] = asyncio.Queue()

    async def emit(event: dict[str, Any]) -> None:
        await events.put(event)

    async def run() -> Turn:
        try:
            return await assistant.respond(text, emit=emit, client=client)
        finally:
            await events.put(None)

    async def waiting(holder: str) -> None:
        """The model is busy with other work: the page says so at once, not after a silence."""
        await emit({"type": "status", "text": f"Waiting for the model: it is busy with {holder}."})

    # The turn runs to its end even if the phone goes away: its questions are kept for later.
    with for_a_person(waiting):
        task = asyncio.create_task(run())
    response = web.StreamResponse(headers={"Content-Type": "application/x-ndjson"})
    await response.prepare(request)
    try:
        while (event := await events.get()) is not None:
            await response.write(ndjson.line(event))
        turn = await task
        await response.write(ndjson.line({"type": "reply", **turn_json(turn)}))
    except ConnectionResetError:
        log.info("assistant stream: the page went away before the reply was complete")
        return response
    except LLMError as exc:
        api = llm_error(exc)
        log.warning("assistant stream: %s", api.message)
        await ndjson.write_error(response, api.code, api.message)
    except ToolError as exc:
        await ndjson.write_error(response, "bad_message", str(exc))
    except Exception:
        log.exception("assistant stream failed")
        await ndjson.write_error(
            response, "internal", "The reply failed; the daemon's log has why."
        )
    finally:
        if not task.done():
            await asyncio.wait([task])
    with contextlib.suppress(ConnectionResetError):
        await response.write_eof()
    return response


async def answer(request: web.Request) -> web.Response:
    assistant = _assistant(request)
    body = await read_json(request, request.app[SETTINGS].web.max_json_kb * 1024)
    proposal_id = text_field(body, "id")
    said = text_field(body, "answer").strip().lower()
    if said not in ("yes", "no"):
        raise ApiError(400, "bad_field", '\'answer\' must be "yes" or "no"')
    try:
        outcome = await assistant.answer(proposal_id, said == "yes")
    except Refused as exc:
        raise ApiError(409, exc.code, exc.message) from None
    return web.json_response({"ran": outcome.ran, "message": outcome.message})


async def today(request: web.Request) -> web.Response:
    assistant = _assistant(request)
    day, state = assistant.today()
    return web.json_response(
        {
            "day": day.isoformat(),
            "messages": state.messages,
            "pending": pending_json(state.pending),
            "briefing": kept_briefing(request.app[SETTINGS], day),
        }
    )


PROPOSE_SOURCES = ("mcp",)


async def propose(request: web.Request) -> web.Response:
    assistant = _assistant(request)
    body = await read_json(request, request.app[SETTINGS].web.max_json_kb * 1024)
    tool = text_field(body, "tool").strip()
    source = text_field(body, "source").strip()
    client = text_field(body, "client", required=False)
    arguments = body.get("arguments", {})
    if source not in PROPOSE_SOURCES:
        raise ApiError(400, "bad_field", f"'source' must be one of {', '.join(PROPOSE_SOURCES)}")
    if not isinstance(arguments, dict):
        raise ApiError(400, "bad_field", "'arguments' must be a JSON object")
    try:
        done = await assistant.propose(tool, arguments, source=source, client=client)
    except ToolError as exc:
        raise ApiError(400, "bad_request", str(exc)) from None
    return web.json_response(done.to_json(), status=201 if done.new else 200)
