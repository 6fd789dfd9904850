"""Pytest fixtures for the fake Ollama, enabled by `pytest_plugins = ["tests.fakes.pytest_plugin"]`.

Both server fixtures point OLLAMA_HOST at the fake, so code that builds its own client with no
explicit host still talks to the fake and never to a real Ollama on the machine.
"""

from __future__ import annotations

import socket
from collections.abc import AsyncIterator, Iterator

import pytest
import pytest_asyncio
from aiohttp.test_utils import TestServer

from tests.fakes.ollama import FakeOllama, run_in_thread


@pytest_asyncio.fixture
async def fake_ollama(monkeypatch: pytest.MonkeyPatch) -> AsyncIterator[FakeOllama]:
    """A fake Ollama on the test's own event loop, for async tests."""
    fake = FakeOllama()
    server = TestServer(fake.app(), host="127.0.0.1")
    # A short shutdown_timeout so a still-stalled handler cannot hold up teardown.
    await server.start_server(shutdown_timeout=1.0)
    fake.url = f"http://127.0.0.1:{server.port}"
    monkeypatch.setenv("OLLAMA_HOST", fake.url)
    try:
        yield fake
    finally:
        await server.close()


@pytest.fixture
def fake_ollama_thread(monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeOllama]:
    """A fake Ollama on a background thread, for sync tests (e.g. CliRunner) using asyncio.run."""
    fake = FakeOllama()
    with run_in_thread(fake) as url:
        monkeypatch.setenv("OLLAMA_HOST", url)
        yield fake


@pytest.fixture
def dead_ollama_url() -> Iterator[str]:
    """A loopback URL that refuses connections: the port is bound (so nobody else takes it)
    but never listened on."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        yield f"http://127.0.0.1:{sock.getsockname()[1]}"
