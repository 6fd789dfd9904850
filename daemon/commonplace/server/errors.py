"""One error shape for the whole API, and bounded request bodies.

Every error is `{"error": {"code": ..., "message": ...}}` with the right status, so the page and
the Obsidian plugin show `message` and branch on `code`. An unexpected exception is logged with
its traceback here, on the computer, and the client gets a plain sentence: a stack trace tells
an attacker more than it tells the user.
"""

from __future__ import annotations

import asyncio
import json
import logging
import re
import time
from collections.abc import Awaitable, Callable, Mapping
from typing import Any, TypeVar

from aiohttp import web

from commonplace.basics.utf8 import encodable
from commonplace.llm import (
    LLMError,
    LLMTimeout,
    ModelBusy,
    ModelMissing,
    ModelUnavailable,
    NoModelServer,
)

log = logging.getLogger(__name__)

Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]
T = TypeVar("T")

# A request body that stops coming, or comes a byte at a time, held its connection (and a
# handler) for ever. A body may pause up to BODY_IDLE_S without a byte, and must arrive at an
# average of BODY_MIN_RATE bytes a second after its first BODY_IDLE_S: a phone on a slow link
# (a 20 MB recording at 2G's 20 KB/s) stays far inside both. Past either: 408 `too_slow`.
BODY_IDLE_S = 30.0
BODY_MIN_RATE = 1024


class ApiError(Exception):
    """Raised by handlers; becomes the JSON error response."""

    def __init__(
        self, status: int, code: str, message: str, *, headers: Mapping[str, str] | None = None
    ) -> None:
        super().__init__(message)
        self.status = status
        self.code = code
        self.message = message
        self.headers = dict(headers or {})  # e.g. Retry-After on a 429


def error_response(
    status: int, code: str, message: str, headers: Mapping[str, str] | None = None
) -> web.Response:
    return web.json_response(
        {"error": {"code": code, "message": message}}, status=status, headers=headers
    )


def llm_error(exc: LLMError) -> ApiError:
    """Model failures, with their own sentence (which says what to do) and a fitting status;
    the sentence is the one for a person waiting for the answer (nothing retries a request)."""
    message = exc.to_person()
    if isinstance(exc, ModelUnavailable | NoModelServer):
        return ApiError(503, "model_unavailable", message)
    if isinstance(exc, ModelMissing):
        return ApiError(503, "model_missing", message)
    if isinstance(exc, LLMTimeout):
        return ApiError(504, "model_timeout", message)
    if isinstance(exc, ModelBusy):
        return ApiError(503, "model_busy", message, headers={"Retry-After": "30"})
    return ApiError(502, "model_failed", message)


_HTTP_CODES = {
    400: "bad_request",
    404: "not_found",
    405: "method_not_allowed",
    413: "too_large",
    415: "unsupported_media_type",
}


@web.middleware
async def error_middleware(request: web.Request, handler: Handler) -> web.StreamResponse:
    try:
        return await handler(request)
    except ApiError as exc:
        if exc.status >= 500:
            log.warning("%s %s: %s", request.method, request.path[:100], exc.message)
        return error_response(exc.status, exc.code, exc.message, exc.headers)
    except LLMError as exc:
        api = llm_error(exc)
        log.warning("%s %s: %s", request.method, request.path[:100], api.message)
        return error_response(api.status, api.code, api.message, api.headers)
    except web.HTTPException as exc:
        if exc.status < 400:
            raise
        code = _HTTP_CODES.get(exc.status, "http_error")
        return error_response(exc.status, code, exc.reason)
    except Exception:
        log.exception("unexpected error in %s %s", request.method, request.path[:100])
        return error_response(
            500, "internal", "Something went wrong in the daemon; its log has the details."
        )


class BodyPace:
    """The time a request body is given: each read waits at most BODY_IDLE_S, and no longer
    than the body's own pace allows (BODY_IDLE_S, plus a second for every BODY_MIN_RATE bytes
    received). A body too slow for it gets 408: nothing was done with it."""

    def __init__(self) -> None:
        self.started = time.monotonic()
        self.received = 0

    async def step(self, awaitable: Awaitable[T]) -> T:
        budget = self.started + BODY_IDLE_S + self.received / BODY_MIN_RATE - time.monotonic()
        try:
            async with asyncio.timeout(max(0.0, min(BODY_IDLE_S, budget))):
                return await awaitable
        except TimeoutError:
            raise ApiError(
                408,
                "too_slow",
                f"the request's body came too slowly (nothing for {BODY_IDLE_S:.0f} s, or under "
                f"{BODY_MIN_RATE // 1024} KB a second); nothing was done with it: send it again",
            ) from None


async def read_body(request: web.Request, max_bytes: int) -> bytes:
    """The body, refused with 413 as soon as it passes `max_bytes` (declared or actually sent),
    and with 408 when it comes too slowly (BodyPace)."""
    declared = request.content_length
    if declared is not None and declared > max_bytes:
        raise ApiError(413, "too_large", _too_large(declared, max_bytes))
    chunks: list[bytes] = []
    size = 0
    pace = BodyPace()
    while True:
        chunk = await pace.step(request.content.read(64 * 1024))
        if not chunk:
            break
        pace.received += len(chunk)
        size += len(chunk)
        if size > max_bytes:
            raise ApiError(413, "too_large", _too_large(size, max_bytes))
        chunks.append(chunk)
    return b"".join(chunks)


async def read_json(request: web.Request, max_bytes: int) -> dict[str, Any]:
    data = await read_body(request, max_bytes)
    try:
        value = json.loads(data.decode("utf-8"), parse_constant=_not_json)
    except (UnicodeDecodeError, json.JSONDecodeError):
        raise ApiError(400, "bad_json", "the request body is not valid JSON") from None
    except RecursionError:  # arrays nested thousands deep fit in the size limit
        raise ApiError(400, "bad_json", "the request body is nested too deeply to read") from None
    if not isinstance(value, dict):
        raise ApiError(400, "bad_json", "the request body must be a JSON object")
    if _LONE_SURROGATE.search(data) and not encodable(value):
        raise ApiError(
            400,
            "bad_json",
            "the text holds half a character (a lone UTF-16 surrogate such as \\ud800, "
            "often the end of a cut emoji), which no file can hold; nothing was done with it: "
            "remove that character and send it again",
        )
    return value


def _not_json(name: str) -> Any:
    """NaN and Infinity: Python's reader takes them, JSON (and every other reader) does not."""
    raise json.JSONDecodeError(f"{name} is not JSON", name, 0)


# JSON may spell half a UTF-16 pair (\ud800) on its own: Python decodes it to a string that can
# be neither written to a file nor sent to the model. Only bodies with such an escape are checked.
_LONE_SURROGATE = re.compile(rb"\\u[dD][89a-fA-F][0-9a-fA-F]{2}")


def text_field(body: dict[str, Any], name: str, *, required: bool = True) -> str:
    value = body.get(name)
    if value is None and not required:
        return ""
    if not isinstance(value, str):
        raise ApiError(400, "bad_field", f"'{name}' must be a string")
    return value


def _too_large(size: int, limit: int) -> str:
    return f"the request is {_kb(size)}; the limit here is {_kb(limit)}"


def _kb(n: int) -> str:
    return f"{n / (1024 * 1024):.1f} MB" if n >= 1024 * 1024 else f"{max(1, n // 1024)} KB"
