"""Push fixtures: a push service on loopback and settings that may send to it."""

from __future__ import annotations

import dataclasses
from collections.abc import AsyncIterator, Iterator

import pytest
import pytest_asyncio
from aiohttp.test_utils import TestServer

from commonplace.config import PushSettings, Settings
from tests.fakes.ollama import run_in_thread
from tests.push.receiver import PushReceiver


@pytest_asyncio.fixture
async def receiver() -> AsyncIterator[PushReceiver]:
    rec = PushReceiver()
    server = TestServer(rec.app(), host="127.0.0.1")
    await server.start_server()
    rec.url = f"http://127.0.0.1:{server.port}"
    try:
        yield rec
    finally:
        await server.close()


@pytest.fixture
def receiver_thread() -> Iterator[PushReceiver]:
    """The receiver on its own thread, for commands that run their own event loop."""
    rec = PushReceiver()
    with run_in_thread(rec):  # type: ignore[arg-type]
        yield rec


@pytest.fixture
def push_settings(settings: Settings) -> Settings:
    push = PushSettings(
        contact="mailto:owner@example.org", retries=2, backoff_s=0.01, allow_http_loopback=True
    )
    return dataclasses.replace(settings, push=push)
