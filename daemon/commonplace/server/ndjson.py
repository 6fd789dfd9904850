"""NDJSON for the streamed answers (Ask, the assistant): one JSON object a line, UTF-8.

Once the status line of a stream has gone out, a failure can only travel in the body: as a
last line `{"type": "error", "error": {"code", "message"}}`, the shape of every other API error.
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Mapping
from typing import Any

from aiohttp import web


def line(payload: Mapping[str, Any]) -> bytes:
    return (json.dumps(payload, ensure_ascii=False) + "\n").encode("utf-8")


def error_line(code: str, message: str) -> bytes:
    return line({"type": "error", "error": {"code": code, "message": message}})


async def write_error(response: web.StreamResponse, code: str, message: str) -> None:
    """The error line, if the page is still there to read it."""
    with contextlib.suppress(ConnectionResetError):
        await response.write(error_line(code, message))
