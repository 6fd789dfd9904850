"""Fixtures for tidy: fast settings pointed at the fake Ollama, and captures in the inbox."""

from __future__ import annotations

import dataclasses
import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from commonplace.config import Settings, TidySettings
from tests.conftest import FIXTURE
from tests.fakes.ollama import FakeOllama

CAPTURES = FIXTURE / "captures"


def fast(settings: Settings, url: str = "", **tidy: Any) -> Settings:
    """Settings with quick debounce and retries, and the fake Ollama's address."""
    values: dict[str, Any] = {"stable_s": 0.05, "retry_s": 0.01, "retry_max_s": 0.05}
    values.update(tidy)
    ollama = dataclasses.replace(settings.ollama, host=url) if url else settings.ollama
    return dataclasses.replace(settings, ollama=ollama, tidy=TidySettings(**values))


@pytest.fixture
def tidy_settings(settings: Settings, fake_ollama: FakeOllama) -> Settings:
    return fast(settings, fake_ollama.url)


def answer(
    title: str = "A title",
    tags: list[str] | None = None,
    links: list[str] | None = None,
    todos: list[dict[str, Any]] | None = None,
    **extra: Any,
) -> str:
    """A model answer as JSON text."""
    body = {"title": title, "tags": tags or [], "links": links or [], "todos": todos or []}
    return json.dumps(body | extra)


def put_capture(settings: Settings, name: str, text: str | None = None) -> str:
    """Put a capture in the inbox: a fixture capture by name, or `text` under that name."""
    rel = f"{settings.folder('inbox')}/{name}"
    dest = settings.vault / rel
    dest.parent.mkdir(parents=True, exist_ok=True)
    if text is None:
        shutil.copyfile(CAPTURES / name, dest)
    else:
        dest.write_bytes(text.encode("utf-8"))
    return rel


def filed_notes(settings: Settings) -> list[Path]:
    folder = settings.vault / settings.folder("filed")
    return sorted(folder.glob("*.md")) if folder.exists() else []


def body_of(name: str) -> str:
    """A fixture capture's words: the text after its frontmatter."""
    text = (CAPTURES / name).read_text(encoding="utf-8")
    return text.split("---\n", 2)[2]
