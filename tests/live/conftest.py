"""The live suite: the same code paths against a real Ollama (`make test-live`).

Settings come from the user's own config and environment, read by a session fixture, which runs
before the root conftest's isolation fixture clears OLLAMA_HOST for each test. When no Ollama
answers there, or a model is not pulled, the run stops at once with one line saying so (and
exit status 0: there was nothing to test against); nothing is downloaded. `make test`
deselects these tests (`-m "not live"` in pyproject.toml).
"""

from __future__ import annotations

import asyncio
import dataclasses
import shutil
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest
import pytest_asyncio

from commonplace.config import ConfigError, OllamaSettings, Settings, load_settings
from commonplace.index import Index
from commonplace.llm import LLM, make_llm
from tests.conftest import FIXTURE

LIVE_TIMEOUT_S = 300.0  # at least: a model may have to load first


@pytest.fixture(scope="session", autouse=True)
def live_ollama() -> OllamaSettings:
    """The user's Ollama settings; one line for the whole suite when there is nothing to test
    against."""
    try:
        ollama = load_settings().ollama
    except ConfigError as exc:
        pytest.exit(f"live tests skipped: the config cannot be read: {exc}", returncode=0)
    ollama = dataclasses.replace(
        ollama,
        timeout_s=max(ollama.timeout_s, LIVE_TIMEOUT_S),
        embed_timeout_s=max(ollama.embed_timeout_s, LIVE_TIMEOUT_S),
    )
    status = asyncio.run(LLM(ollama).status())
    if not status.reachable:
        pytest.exit(
            f"live tests skipped: no Ollama answers at {ollama.host} (start it, or set "
            "OLLAMA_HOST)",
            returncode=0,
        )
    missing = [m for m in (ollama.chat_model, ollama.embed_model) if not status.has_model(m)]
    if missing:
        pulls = "; ".join(f"ollama pull {m}" for m in missing)
        pytest.exit(f"live tests skipped: Ollama at {ollama.host} lacks them: {pulls}", 0)
    return ollama


@pytest.fixture
def live_settings(tmp_path: Path, live_ollama: OllamaSettings) -> Iterator[Settings]:
    """The sample vault (captures in the inbox) with the user's Ollama settings."""
    vault = tmp_path / "vault"
    shutil.copytree(FIXTURE, vault, ignore=shutil.ignore_patterns("captures"))
    shutil.copytree(FIXTURE / "captures", vault / "Inbox")
    base = load_settings(
        env={
            "COMMONPLACE_VAULT": str(vault),
            "COMMONPLACE_DATA": str(tmp_path / "data"),
            "COMMONPLACE_TIMEZONE": "Europe/London",
        }
    )
    yield dataclasses.replace(base, ollama=live_ollama)


@pytest_asyncio.fixture
async def live_index(live_settings: Settings) -> AsyncIterator[Index]:
    """The sample vault indexed with the configured embedding model."""
    index = Index.open(live_settings, make_llm(live_settings))
    try:
        stats = await index.refresh()
        assert not stats.errors and not stats.vectors_pending, stats.errors
        yield index
    finally:
        index.close()
