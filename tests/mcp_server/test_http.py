"""`commonplace mcp --http`: streamable HTTP on loopback, the SDK's DNS-rebinding protection
on, the vault's token required. A real uvicorn server on a free port; the SDK's own HTTP client
for the good case, plain requests for the refused ones."""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import aiohttp
import httpx2
import pytest
from mcp import Client
from mcp.client.streamable_http import streamable_http_client

from commonplace.config import Settings
from commonplace.mcp.backend import Backend
from commonplace.mcp.http import http_auth, port_is_free, serve
from commonplace.mcp.local import LocalBackend
from commonplace.mcp.server import build_server
from tests.assistant.conftest import NOW
from tests.daemon_process import free_port
from tests.mcp_server.conftest import structured, vault_hashes

TOKEN = "a-test-token-that-is-long-enough-to-look-real"
INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-06-18",
        "capabilities": {},
        "clientInfo": {"name": "curl", "version": "1"},
    },
}
MCP_HEADERS = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}


@contextlib.asynccontextmanager
async def http_server(settings: Settings, backend: Backend) -> AsyncIterator[int]:
    """The --http server on a free loopback port, stopped at the end; yields the port."""
    port = free_port()

    async def way_in() -> Backend:
        return backend

    server = build_server(settings, way_in, clock=lambda: NOW, auth=http_auth(port, lambda: TOKEN))
    task = asyncio.create_task(serve(server, port))
    try:
        for _ in range(1200):  # until it answers (60 s at most)
            try:
                _, writer = await asyncio.open_connection("127.0.0.1", port)
            except OSError:
                assert not task.done(), task.exception()
                await asyncio.sleep(0.05)
                continue
            writer.close()
            await writer.wait_closed()
            break
        yield port
    finally:
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task


async def post(port: int, headers: dict[str, str], body: dict[str, Any] = INITIALIZE) -> Any:
    async with (
        aiohttp.ClientSession() as session,
        session.post(
            f"http://127.0.0.1:{port}/mcp", data=json.dumps(body), headers=headers
        ) as response,
    ):
        return response.status, await response.text()


async def test_a_client_with_the_token_lists_tools_and_captures(
    mcp_settings: Settings, bare_backend: LocalBackend
) -> None:
    before = vault_hashes(mcp_settings.vault)
    async with http_server(mcp_settings, bare_backend) as port:
        headers = {"Authorization": f"Bearer {TOKEN}"}
        async with httpx2.AsyncClient(headers=headers) as http:
            transport = streamable_http_client(f"http://127.0.0.1:{port}/mcp", http_client=http)
            async with Client(transport) as client:
                names = {t.name for t in (await client.list_tools()).tools}
                saved = structured(await client.call_tool("capture", {"text": "over HTTP"}))
            async with Client(
                streamable_http_client(f"http://127.0.0.1:{port}/mcp", http_client=http),
                mode="legacy",  # a client of the initialize-handshake era
            ) as legacy:
                assert {t.name for t in (await legacy.list_tools()).tools} == names
    assert {"search_notes", "read_note", "capture", "propose_complete_task"} <= names
    after = vault_hashes(mcp_settings.vault)
    assert set(after) - set(before) == {saved["path"]}


@pytest.mark.parametrize(
    "auth",
    [
        {},  # no token
        {"Authorization": "Bearer wrong-token"},
        {"Authorization": f"Basic {TOKEN}"},
        {"Authorization": f"Bearer {TOKEN}x"},
    ],
)
async def test_a_request_without_the_token_is_refused_before_anything_runs(
    mcp_settings: Settings, bare_backend: LocalBackend, auth: dict[str, str]
) -> None:
    async with http_server(mcp_settings, bare_backend) as port:
        status, body = await post(port, {**MCP_HEADERS, **auth})
        ok, _ = await post(port, {**MCP_HEADERS, "Authorization": f"Bearer {TOKEN}"})
    assert status == 401 and "invalid_token" in body
    assert ok == 200  # the same request with the token is served


@pytest.mark.parametrize(
    "extra",
    [
        {"Host": "evil.example"},  # DNS rebinding: a site pointed its name at 127.0.0.1
        {"Host": "evil.example:{port}"},
        {"Host": "127.0.0.1:1"},  # another port's name
        {"Origin": "https://evil.example"},  # a page elsewhere, through the right Host
    ],
)
async def test_a_foreign_host_or_origin_is_refused_even_with_the_token(
    mcp_settings: Settings, bare_backend: LocalBackend, extra: dict[str, str]
) -> None:
    async with http_server(mcp_settings, bare_backend) as port:
        headers = {k: v.format(port=port) for k, v in extra.items()}
        status, body = await post(
            port, {**MCP_HEADERS, "Authorization": f"Bearer {TOKEN}", **headers}
        )
    assert status in (421, 403), body
    assert "Invalid Host" in body or "Invalid Origin" in body


def listening(port: int) -> set[str]:
    """The addresses a socket listens on at `port`, from the kernel's table (Linux)."""
    found = set()
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        for row in Path(table).read_text().splitlines()[1:]:
            local, state = row.split()[1], row.split()[3]
            address, at = local.split(":")
            if state == "0A" and int(at, 16) == port:  # 0A: LISTEN
                found.add(address)
    return found


@pytest.mark.skipif(not Path("/proc/net/tcp").exists(), reason="reads Linux's socket table")
async def test_it_listens_on_loopback_only(
    mcp_settings: Settings, bare_backend: LocalBackend
) -> None:
    async with http_server(mcp_settings, bare_backend) as port:
        assert listening(port) == {"0100007F"}  # 127.0.0.1, and nothing else
        assert not port_is_free(port)


async def test_serving_without_the_token_check_is_refused(mcp_settings: Settings) -> None:
    async def way_in() -> Backend:
        raise AssertionError

    with pytest.raises(ValueError, match="token"):
        await serve(build_server(mcp_settings, way_in), free_port())
