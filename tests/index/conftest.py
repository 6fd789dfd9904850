"""Index fixtures: settings pointed at the fake Ollama, and an opened Index closed after use."""

from __future__ import annotations

import dataclasses
from collections.abc import AsyncIterator, Callable
from pathlib import Path

import pytest
import pytest_asyncio

from commonplace.config import Settings
from commonplace.index import Index
from commonplace.llm import make_llm
from tests.fakes.ollama import FakeOllama
from tests.models import with_model

OpenIndex = Callable[..., Index]


def with_host(settings: Settings, url: str, **index: object) -> Settings:
    return dataclasses.replace(
        with_model(settings, host=url), index=dataclasses.replace(settings.index, **index)
    )


@pytest.fixture
def isettings(settings: Settings, fake_ollama: FakeOllama) -> Settings:
    return with_host(settings, fake_ollama.url)


@pytest_asyncio.fixture
async def open_index(isettings: Settings) -> AsyncIterator[OpenIndex]:
    """open_index(settings=None) -> Index; every index opened is closed at the end."""
    opened: list[Index] = []

    def make(settings: Settings | None = None) -> Index:
        s = settings or isettings
        index = Index.open(s, make_llm(s))
        opened.append(index)
        return index

    yield make
    for index in opened:
        index.close()


def write(vault: Path, rel: str, text: str) -> Path:
    path = vault / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path
