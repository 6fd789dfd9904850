"""The assistant's test bench: a vault with a tasks and a memory note, a fixed "now", the fake
Ollama scripted turn by turn."""

from __future__ import annotations

from datetime import datetime
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

import pytest

from commonplace.assistant import Assistant, build_assistant
from commonplace.config import Settings
from commonplace.llm import make_llm
from tests.fakes.ollama import FakeOllama
from tests.models import with_model

LONDON = ZoneInfo("Europe/London")
NOW = datetime(2026, 10, 26, 9, 0, tzinfo=LONDON)  # Monday 26 October 2026, 09:00

TASKS = """# Tasks

- [ ] Order timber for the shed roof (due 2026-10-23)
- [ ] Buy birthday card for Sam (due 2026-10-28)
- [x] Renew the car tax
- [ ] Book the chimney sweep
"""

MEMORY = """---
tags: [assistant]
---
# Memory

- Sam is my brother.
- I prefer meetings after 10:00.
"""


def call(name: str, **arguments: Any) -> dict[str, Any]:
    """A scripted model reply that calls one tool."""
    return {"content": "", "tool_calls": [{"function": {"name": name, "arguments": arguments}}]}


def write(vault: Path, rel: str, text: str) -> Path:
    path = vault / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


@pytest.fixture
def task_vault(vault: Path) -> Path:
    write(vault, "Tasks.md", TASKS)
    write(vault, "Memory.md", MEMORY)
    return vault


@pytest.fixture
def assistant_settings(settings: Settings, task_vault: Path, fake_ollama: FakeOllama) -> Settings:
    return with_model(settings, host=fake_ollama.url)


@pytest.fixture
def clock() -> list[datetime]:
    """The assistant's "now"; a test moves it by replacing clock[0]."""
    return [NOW]


@pytest.fixture
def assistant(assistant_settings: Settings, clock: list[datetime]) -> Assistant:
    return build_assistant(assistant_settings, make_llm(assistant_settings), clock=lambda: clock[0])


def tool_results(fake: FakeOllama) -> list[str]:
    """What the model was told by each tool, in order (from the requests it received)."""
    last = fake.chat_requests()[-1]["messages"]
    return [m["content"] for m in last if m["role"] == "tool"]
