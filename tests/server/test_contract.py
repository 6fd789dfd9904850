"""The API as the Obsidian plugin sees it, recorded for the plugin's own tests.

Each test makes a real request with Obsidian's origin and token (real index, fake Ollama) and
compares the answer's shape (keys and value types) with the recording in
obsidian-bridge/tests/contract/, which the plugin's tests parse (contract.test.ts). An API change
fails here first; rewrite the recordings with

    COMMONPLACE_UPDATE_CONTRACT=1 .venv/bin/python -m pytest tests/server/test_contract.py

then `npm test` in obsidian-bridge/ shows whether the plugin still reads them.
"""

from __future__ import annotations

import json
import os
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
import pytest_asyncio
from aiohttp.test_utils import TestClient

from commonplace.config import Settings
from commonplace.index import Index
from commonplace.llm import make_llm
from commonplace.plugin.apitoken import get_or_create_token, token_path
from commonplace.server.context import Services
from commonplace.server.security import APP_ORIGIN
from tests.fakes.ollama import FakeOllama
from tests.models import with_model
from tests.server.conftest import ClientFactory

CONTRACT = Path(__file__).resolve().parents[2] / "obsidian-bridge" / "tests" / "contract"
QUESTION = "What must happen before the Lisbon trip?"
UPDATE = bool(os.environ.get("COMMONPLACE_UPDATE_CONTRACT"))  # read before fixtures clear env
VOLATILE = {
    "uptime_s": 0,
    "server_time": 0,
    "modified": 0,
    "host": "http://127.0.0.1:11434",
    "line": "Ollama at http://127.0.0.1:11434 · qwen3.5:9b",
    "last_refresh": "2026-10-26T09:00:00+00:00",
}


def shape(value: Any) -> Any:
    """Keys and value types, not values: what a client depends on."""
    if isinstance(value, dict):
        return {k: shape(v) for k, v in sorted(value.items())}
    if isinstance(value, list):
        return [shape(value[0])] if value else []
    if isinstance(value, bool) or value is None:
        return type(value).__name__
    if isinstance(value, int | float):
        return "number"
    return type(value).__name__


def steady(value: Any) -> Any:
    """Times replaced by fixed values, so a recording changes only when the API does."""
    if isinstance(value, dict):
        return {k: VOLATILE[k] if k in VOLATILE else steady(v) for k, v in value.items()}
    if isinstance(value, list):
        return [steady(v) for v in value]
    return value


def check(name: str, value: Any) -> None:
    path = CONTRACT / name
    value = steady(value)
    if UPDATE:
        path.parent.mkdir(parents=True, exist_ok=True)
        if name.endswith(".ndjson"):
            text = "".join(json.dumps(v, ensure_ascii=False) + "\n" for v in value)
        else:
            text = json.dumps(value, indent=1, ensure_ascii=False) + "\n"
        path.write_text(text, encoding="utf-8")
        return
    assert path.exists(), f"{path} is missing: see this module's docstring to record it"
    text = path.read_text(encoding="utf-8")
    recorded = (
        [json.loads(line) for line in text.splitlines() if line.strip()]
        if name.endswith(".ndjson")
        else json.loads(text)
    )
    assert shape(value) == shape(recorded), (
        f"the API's answer no longer has the shape recorded in {path}; if that is intended, "
        "record it again (see this module's docstring) and check the plugin with npm test"
    )


def _cite(request: dict[str, Any]) -> str:
    return "Renew the passport first [1]. The flights are booked [2]; pack light [9]."


@pytest.fixture
def live_settings(web_settings: Settings, fake_ollama: FakeOllama) -> Settings:
    return with_model(web_settings, host=fake_ollama.url)


@pytest_asyncio.fixture
async def index(live_settings: Settings) -> AsyncIterator[Index]:
    opened = Index.open(live_settings, make_llm(live_settings))
    await opened.refresh()
    yield opened
    opened.close()


@pytest_asyncio.fixture
async def plugin(
    make_client: ClientFactory, live_settings: Settings, index: Index, fake_ollama: FakeOllama
) -> AsyncIterator[tuple[TestClient[Any, Any], dict[str, str]]]:
    fake_ollama.chat_handler = _cite
    token, _ = get_or_create_token(token_path(live_settings.data_path))
    client = await make_client(live_settings, Services(index=index, stages={"index": index}))
    yield client, {"Origin": APP_ORIGIN, "Authorization": f"Bearer {token}"}


async def test_state(plugin: tuple[TestClient[Any, Any], dict[str, str]]) -> None:
    client, headers = plugin
    response = await client.get("/api/state", headers=headers)
    assert response.status == 200
    check("state.json", await response.json())


async def test_search(plugin: tuple[TestClient[Any, Any], dict[str, str]]) -> None:
    client, headers = plugin
    response = await client.get(
        "/api/search", params={"q": "passport", "limit": "3"}, headers=headers
    )
    assert response.status == 200
    check("search.json", await response.json())


async def test_related(plugin: tuple[TestClient[Any, Any], dict[str, str]]) -> None:
    client, headers = plugin
    params = {"path": "Travel/Lisbon Trip.md", "limit": "3"}
    response = await client.get("/api/related", params=params, headers=headers)
    assert response.status == 200
    check("related.json", await response.json())


async def test_ask_stream(plugin: tuple[TestClient[Any, Any], dict[str, str]]) -> None:
    client, headers = plugin
    response = await client.post("/api/ask?stream=1", json={"question": QUESTION}, headers=headers)
    assert response.status == 200
    events = [json.loads(line) for line in (await response.text()).splitlines()]
    assert events[-1]["type"] == "answer" and events[-1]["findings"]  # [9] matches nothing
    check("ask-stream.ndjson", events)


async def test_refusal_of_a_missing_token(
    plugin: tuple[TestClient[Any, Any], dict[str, str]],
) -> None:
    client, headers = plugin
    response = await client.get("/api/state", headers={"Origin": headers["Origin"]})
    assert response.status == 401
    check("no-token.json", await response.json())
