"""A client that opens a connection and then sends its request slowly, or never finishes it,
is cut off: with real sockets against the server as the daemon starts it (daemon.start_server).

Each held a socket for an hour before (aiohttp's default); 800 of them were still open after a
minute. The bounds are shortened here so the test takes seconds; a request sent at a steady
pace, however slow within them, is still answered."""

from __future__ import annotations

import asyncio
import dataclasses
import json
import time
from collections.abc import AsyncIterator

import pytest

from commonplace.config import Settings
from commonplace.daemon.run import listening_port, start_server
from commonplace.llm import make_llm
from commonplace.server import create_app, errors

IDLE_S = 1.0


@pytest.fixture
async def port(web_settings: Settings, monkeypatch: pytest.MonkeyPatch) -> AsyncIterator[int]:
    monkeypatch.setattr(errors, "BODY_IDLE_S", IDLE_S)
    monkeypatch.setattr(errors, "BODY_MIN_RATE", 10)  # bytes a second, after the first second
    settings = dataclasses.replace(web_settings, web=dataclasses.replace(web_settings.web, port=0))
    app = create_app(settings, make_llm(settings))
    runner = await start_server(settings, app, idle_timeout_s=IDLE_S)
    try:
        yield listening_port(runner)
    finally:
        await runner.cleanup()


def capture_head(port: int, length: int) -> bytes:
    return (
        f"POST /api/capture HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n"
        f"Origin: http://127.0.0.1:{port}\r\nContent-Type: application/json\r\n"
        f"Content-Length: {length}\r\n\r\n"
    ).encode()


async def closed_after(reader: asyncio.StreamReader, within: float) -> tuple[float, bytes]:
    """Seconds until the server closed the connection, and everything it sent before.

    A reset counts as closed: a server that closes a socket holding bytes it never read (a
    header cut off halfway) makes the kernel answer with RST instead of FIN, and which of the
    two the client sees depends on how far the bytes had got when the server closed."""
    started = time.monotonic()
    got = b""
    async with asyncio.timeout(within):
        try:
            while chunk := await reader.read(65536):
                got += chunk
        except ConnectionResetError:
            pass
    return time.monotonic() - started, got


async def test_connections_that_never_finish_their_headers_are_closed(port: int) -> None:
    silent = await asyncio.open_connection("127.0.0.1", port)  # sends nothing at all
    partial = await asyncio.open_connection("127.0.0.1", port)
    partial[1].write(f"GET /api/state HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n".encode())
    trickle = await asyncio.open_connection("127.0.0.1", port)

    async def drip() -> None:  # a header a byte at a time, never ending: still cut off
        for byte in b"GET /api/state HTTP/1.1\r\nX-Slow: " + b"a" * 100:
            if trickle[1].is_closing():
                return
            trickle[1].write(bytes([byte]))
            await asyncio.sleep(0.1)

    dripping = asyncio.create_task(drip())
    try:
        results = await asyncio.gather(
            *(closed_after(r, within=IDLE_S + 8) for r, _ in (silent, partial, trickle))
        )
    finally:
        dripping.cancel()
        for _, writer in (silent, partial, trickle):
            writer.close()
    for seconds, got in results:
        assert got == b"" and seconds < IDLE_S + 6, (seconds, got)


async def test_an_idle_kept_alive_connection_is_closed_after_its_answer(port: int) -> None:
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    try:
        writer.write(f"GET /api/state HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n\r\n".encode())
        seconds, got = await closed_after(reader, within=IDLE_S + 8)
    finally:
        writer.close()
    assert got.startswith(b"HTTP/1.1 200 ") and seconds < IDLE_S + 6, (seconds, got[:80])


async def test_a_body_that_stops_coming_gets_408_and_the_connection_closes(port: int) -> None:
    body = json.dumps({"text": "a thought sent from a phone that lost its signal"}).encode()
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    try:
        writer.write(capture_head(port, len(body)) + body[:10])  # then nothing more
        _, got = await closed_after(reader, within=IDLE_S + 20)  # aiohttp lingers 10 s
    finally:
        writer.close()
    assert got.startswith(b"HTTP/1.1 408 "), got[:200]
    error = json.loads(got.split(b"\r\n\r\n", 1)[1])["error"]
    assert error["code"] == "too_slow" and "send it again" in error["message"]


async def test_a_body_sent_a_byte_at_a_time_gets_408_though_it_never_pauses_long(
    port: int,
) -> None:
    body = json.dumps({"text": "x" * 200}).encode()
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    started = time.monotonic()

    async def drip() -> None:
        for byte in body:
            if writer.is_closing():
                return
            writer.write(bytes([byte]))
            await asyncio.sleep(0.2)  # 5 bytes a second: under the 10 allowed here

    writer.write(capture_head(port, len(body)))
    dripping = asyncio.create_task(drip())
    try:
        async with asyncio.timeout(15):
            status = await reader.readline()
    finally:
        dripping.cancel()
        writer.close()
    assert status.startswith(b"HTTP/1.1 408 "), status
    assert time.monotonic() - started < 6


async def test_a_slow_but_steady_body_is_answered(
    port: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """What a phone on a slow link does: the body in pieces, each pause within the bound. The
    bound is 5 s here, so a busy machine stretching a 0.6 s pause cannot make it one too long."""
    monkeypatch.setattr(errors, "BODY_IDLE_S", 5.0)
    body = b'{"text": ""' + b" " * 60 + b"}"  # refused by the handler, so nothing is saved
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    try:
        writer.write(capture_head(port, len(body)))
        for piece in (body[:24], body[24:48], body[48:]):
            await asyncio.sleep(IDLE_S * 0.6)
            writer.write(piece)
        async with asyncio.timeout(10):
            status = await reader.readline()
    finally:
        writer.close()
    assert status.startswith(b"HTTP/1.1 400 "), status  # the handler read it all: an empty capture
