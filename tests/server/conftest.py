"""Fixtures for the server tests: settings with a ts.net name and owner, and an app client."""

from __future__ import annotations

import dataclasses
from collections.abc import Awaitable, Callable
from typing import Any

import pytest
from aiohttp.test_utils import TestClient

from commonplace.config import Settings
from commonplace.llm import make_llm
from commonplace.server import create_app
from commonplace.server.context import Services
from tests.models import with_model

TS_NAME = "laptop.tail1234.ts.net"
OWNER = "owner@example.com"

ClientFactory = Callable[..., Awaitable[TestClient[Any, Any]]]


@pytest.fixture
def web_settings(settings: Settings, dead_ollama_url: str) -> Settings:
    """The sample vault's settings with the tailnet configured; Ollama is down unless a test
    replaces the host with the fake's."""
    return dataclasses.replace(
        with_model(settings, host=dead_ollama_url, retries=0),
        web=dataclasses.replace(settings.web, ts_name=TS_NAME, owner_login=OWNER),
    )


@pytest.fixture
def make_client(aiohttp_client: Any, web_settings: Settings) -> ClientFactory:
    async def make(
        settings: Settings | None = None, services: Services | None = None
    ) -> TestClient[Any, Any]:
        s = settings or web_settings
        client: TestClient[Any, Any] = await aiohttp_client(create_app(s, make_llm(s), services))
        return client

    return make


def local_host(client: TestClient[Any, Any]) -> str:
    return f"127.0.0.1:{client.port}"


def write_headers(client: TestClient[Any, Any], **extra: str) -> dict[str, str]:
    """What the page sends with a change on the computer itself."""
    return {
        "Origin": f"http://{local_host(client)}",
        "Content-Type": "application/json",
        **extra,
    }


def tailnet_headers(**extra: str) -> dict[str, str]:
    """What `tailscale serve` forwards for the owner's phone."""
    return {"Host": TS_NAME, "Tailscale-User-Login": OWNER, **extra}
