"""MCP over stdio: the SDK's transport, with an answer for a request it cannot read.

JSON may spell half of a UTF-16 pair on its own (`"\\ud800"`, the end of a cut emoji, as
JavaScript's JSON.stringify writes it). The SDK's reader refuses such a line and drops it
without a word, so the client waited for an answer that never came (a desktop client sits on
its spinner until its own timeout) and was never told why. Here each line holding such an
escape is read with Python's JSON reader first; when it is a request whose text cannot be
text, the client gets an error for that request's id saying what to change, and the SDK never
sees the line. Every other line goes to the SDK as it came.
"""

from __future__ import annotations

import asyncio
import json
import re
import sys
from collections.abc import AsyncIterator
from io import TextIOWrapper
from typing import Any, Protocol, cast

from mcp import types
from mcp.server.mcpserver import MCPServer
from mcp.server.stdio import stdio_server
from mcp.shared.message import SessionMessage

from commonplace.basics.utf8 import encodable

_LONE_SURROGATE = re.compile(r"\\u[dD][89a-fA-F][0-9a-fA-F]{2}")

HALF_A_CHARACTER = (
    "the request's text holds half a character (a lone UTF-16 surrogate such as \\ud800, "
    "often the end of a cut emoji), which no note can hold; nothing was done: remove that "
    "character and send the request again"
)


def unreadable_request(line: str) -> types.JSONRPCError | None:
    """The error to answer for a request holding a lone surrogate, or None for any other line
    (those the SDK reads, or refuses, itself)."""
    if not _LONE_SURROGATE.search(line):
        return None
    try:
        value = json.loads(line)
    except ValueError:
        return None
    if not isinstance(value, dict) or not isinstance(value.get("id"), str | int):
        return None  # a notification or a reply: there is no one to answer
    if encodable(value):
        return None  # a pair written as two escapes (\ud83d\ude00) is one whole character
    error = types.ErrorData(code=types.INVALID_PARAMS, message=HALF_A_CHARACTER)
    return types.JSONRPCError(jsonrpc="2.0", id=value["id"], error=error)


class Replies(Protocol):
    """The transport's write stream, as far as this module uses it."""

    async def send(self, item: SessionMessage, /) -> None: ...


class GuardedLines:
    """The lines of `source` (a text file) for the SDK's reader, less the requests answered
    here. Each line is read in a worker thread, as the SDK reads stdin itself."""

    def __init__(self, source: TextIOWrapper) -> None:
        self.source = source
        self.replies: Replies | None = None
        self.ready = asyncio.Event()  # set once `replies` is the transport's write stream

    def __aiter__(self) -> AsyncIterator[str]:
        return self._lines()

    async def _lines(self) -> AsyncIterator[str]:
        while line := await asyncio.to_thread(self.source.readline):
            refusal = unreadable_request(line)
            if refusal is None:
                yield line
                continue
            await self.ready.wait()
            assert self.replies is not None
            await self.replies.send(SessionMessage(refusal))


async def run_stdio(server: MCPServer) -> None:
    """`server.run_stdio_async()`, with stdin read through GuardedLines. stdin is given as
    the SDK would make it itself (UTF-8, undecodable bytes replaced)."""
    lines = GuardedLines(TextIOWrapper(sys.stdin.buffer, encoding="utf-8", errors="replace"))
    # The SDK iterates `stdin` with `async for` only, which GuardedLines provides.
    async with stdio_server(stdin=cast(Any, lines)) as (read, write):
        lines.replies = cast(Replies, write)
        lines.ready.set()
        # MCPServer.run_stdio_async does exactly this with the stdio_server() it makes.
        lowlevel = server._lowlevel_server
        await lowlevel.run(read, write, lowlevel.create_initialization_options())
