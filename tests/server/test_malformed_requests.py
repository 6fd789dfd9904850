"""A malformed HTTP request is one WARNING line in the log, not a traceback at ERROR: with real
sockets against the server as the daemon starts it (daemon.start_server)."""

from __future__ import annotations

import asyncio
import dataclasses
import logging

import pytest

from commonplace.config import Settings
from commonplace.daemon.run import listening_port, start_server
from commonplace.llm import make_llm
from commonplace.server import create_app


async def answer_to(port: int, request: bytes) -> bytes:
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    writer.write(request)
    await writer.drain()
    async with asyncio.timeout(10):
        got = await reader.read(65536)
    writer.close()
    return got


async def test_malformed_requests_are_one_warning_line_each(
    web_settings: Settings, caplog: pytest.LogCaptureFixture
) -> None:
    """A duplicate Host header, a 100 KB header line, Content-Length with Transfer-Encoding:
    each was logged by aiohttp as "Error handling request" with a traceback at ERROR, a dozen
    lines for every request anyone who reaches the port sends."""
    caplog.set_level(logging.INFO)
    settings = dataclasses.replace(web_settings, web=dataclasses.replace(web_settings.web, port=0))
    runner = await start_server(settings, create_app(settings, make_llm(settings)))
    try:
        port = listening_port(runner)
        host = f"Host: 127.0.0.1:{port}\r\n".encode()
        bad = [
            b"GET /api/state HTTP/1.1\r\n" + host + b"Host: evil.example\r\n\r\n",
            b"GET /api/state HTTP/1.1\r\n" + host + b"X-A: " + b"a" * 100_000 + b"\r\n\r\n",
            b"POST /api/capture HTTP/1.1\r\n" + host + b"Content-Length: 4\r\n"
            b"Transfer-Encoding: chunked\r\n\r\n0\r\n\r\n",
        ]
        for request in bad:
            assert (await answer_to(port, request)).startswith(b"HTTP/1.0 400")
        ok = await answer_to(port, b"GET /api/state HTTP/1.1\r\n" + host + b"\r\n")
        assert ok.startswith(b"HTTP/1.1 200")  # and the server goes on answering
    finally:
        await runner.cleanup()
    server = [r for r in caplog.records if r.name == "aiohttp.server"]
    assert [r.levelname for r in server] == ["WARNING"] * 3
    assert all(r.exc_info is None for r in server)
    said = [r.getMessage() for r in server]
    assert "Duplicate 'Host' header found" in said[0]
    assert all(
        m.startswith("refused a malformed HTTP request from 127.0.0.1 (HTTP 400)") for m in said
    )
    assert all(len(m) < 220 for m in said)  # the 100 KB line is not copied into the log
