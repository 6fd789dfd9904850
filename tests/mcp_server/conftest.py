"""The MCP server's test bench: the sample vault with a tasks and a memory note, its index built
with the fake Ollama, and the SDK's in-memory client connected to the server.

`connected(settings, backend)` gives a client of a server whose way in is `backend`: the local
one (no daemon: the index read only, the capture and gate code run here), or in
test_through_daemon.py the daemon's real JSON API.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
import pytest_asyncio
from mcp import Client
from mcp.types import CallToolResult, Implementation, TextContent

from commonplace.config import Settings
from commonplace.index import Index
from commonplace.llm import make_llm
from commonplace.mcp.backend import Backend
from commonplace.mcp.local import LocalBackend
from commonplace.mcp.server import build_server
from tests.assistant.conftest import MEMORY, NOW, TASKS, write
from tests.fakes.ollama import FakeOllama
from tests.models import with_model


def vault_hashes(vault: Path) -> dict[str, str]:
    """Every file in the vault (hidden ones too) and the hash of its bytes."""
    return {
        p.relative_to(vault).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(vault.rglob("*"))
        if p.is_file() and not p.is_symlink()
    }


@pytest.fixture
def mcp_settings(settings: Settings, fake_ollama: FakeOllama) -> Settings:
    write(settings.vault, "Tasks.md", TASKS)
    write(settings.vault, "Memory.md", MEMORY)
    return with_model(settings, host=fake_ollama.url)


@pytest_asyncio.fixture
async def indexed(mcp_settings: Settings) -> Settings:
    """The index of the vault, built once as the daemon would, then closed."""
    index = Index.open(mcp_settings, make_llm(mcp_settings))
    try:
        await index.refresh()
    finally:
        index.close()
    return mcp_settings


@pytest_asyncio.fixture
async def local_backend(indexed: Settings) -> AsyncIterator[LocalBackend]:
    backend = LocalBackend(indexed, clock=lambda: NOW)
    yield backend
    await backend.close()


@pytest_asyncio.fixture
async def bare_backend(mcp_settings: Settings) -> AsyncIterator[LocalBackend]:
    """The local way in before any index exists: enough for reads, captures and questions."""
    backend = LocalBackend(mcp_settings, clock=lambda: NOW)
    yield backend
    await backend.close()


@contextlib.asynccontextmanager
async def connected(
    settings: Settings,
    backend: Backend,
    *,
    client_name: str = "",
    mode: str = "auto",
    **options: Any,
) -> AsyncIterator[Client]:
    """The SDK's in-memory client on a server whose way in is `backend`; `mode="legacy"`
    connects as a client of the handshake era (Claude Desktop today) does.

    A context manager, not a fixture: the client's task group must be entered and left in the
    same task, which an async fixture's setup and teardown are not."""

    async def way_in() -> Backend:
        return backend

    server = build_server(settings, way_in, clock=lambda: NOW, **options)
    info = Implementation(name=client_name, version="1.0") if client_name else None
    async with Client(server, raise_exceptions=True, client_info=info, mode=mode) as client:
        yield client


def structured(result: CallToolResult) -> dict[str, Any]:
    """A tool's answer as data, after checking the call worked and the text says the same."""
    assert not result.is_error, result.content
    assert result.structured_content is not None
    text = result.content[0]
    assert isinstance(text, TextContent)
    assert json.loads(text.text) == result.structured_content  # what the model reads
    return result.structured_content


def error_text(result: CallToolResult) -> str:
    assert result.is_error
    text = result.content[0]
    assert isinstance(text, TextContent)
    return text.text
