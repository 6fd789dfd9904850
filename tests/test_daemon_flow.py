"""The whole daemon in one process, as a user meets it: a capture sent from the phone page is
filed by the (scripted) model and the program, the filed note is found by search, and a `?? `
question in an Ask note is answered in place. This checks the wiring between the stages: the
watcher, the job queue and each service, which the stage tests exercise one at a time."""

from __future__ import annotations

import asyncio
import dataclasses
import json
import logging
import time
from collections.abc import Awaitable, Callable
from datetime import datetime, timedelta
from typing import Any

import aiohttp
import pytest

from commonplace.config import Settings
from commonplace.daemon.run import run_daemon
from commonplace.runtime.lock import LOCK_NAME, read_lock
from tests.fakes.ollama import FakeOllama
from tests.models import with_model

WAIT_S = 20.0
CAPTURE = "lunch with sam. he wants the chess clock back by friday"


def listening_port(settings: Settings) -> int:
    """The port a daemon started with `[web] port = 0` got (its lock says, once it listens)."""
    lock = read_lock(settings.data_path / LOCK_NAME)
    assert lock is not None and lock.port, lock
    return lock.port


async def eventually(check: Callable[[], Awaitable[bool] | bool], what: str) -> None:
    deadline = time.monotonic() + WAIT_S
    while time.monotonic() < deadline:
        result = check()
        if result if isinstance(result, bool) else await result:
            return
        await asyncio.sleep(0.1)
    raise AssertionError(f"not within {WAIT_S} s: {what}")


def scripted_model(due: str) -> Callable[[dict[str, Any]], str]:
    """Tidy asks with a JSON schema; Ask asks in plain text with numbered passages."""
    return lambda body: model(body, due)


def model(body: dict[str, Any], due: str) -> str:
    if body.get("format"):
        return json.dumps(
            {
                "title": "Chess clock for Sam",
                "tags": ["chess"],
                "links": ["Sam Pritchard"],
                "todos": [{"text": "give Sam the chess clock back", "due": due}],
            }
        )
    return "You play chess with Sam [1]."


async def test_capture_is_filed_found_and_a_question_answered(
    fake_ollama: FakeOllama, settings: Settings
) -> None:
    captured = datetime.now(settings.tz).replace(second=0, microsecond=0) - timedelta(hours=1)
    due = (captured + timedelta(days=3)).date().isoformat()
    fake_ollama.chat_handler = scripted_model(due)
    settings = dataclasses.replace(
        with_model(settings, host=fake_ollama.url),
        web=dataclasses.replace(settings.web, port=0),  # any free port
        tidy=dataclasses.replace(settings.tidy, stable_s=0.1, retry_s=0.1),
        ask=dataclasses.replace(settings.ask, quiet_s=0.2),
    )
    vault = settings.vault
    ready, stop = asyncio.Event(), asyncio.Event()
    daemon = asyncio.create_task(run_daemon(settings, ready=ready, stop=stop))
    try:
        await asyncio.wait_for(ready.wait(), WAIT_S)
        base = f"http://127.0.0.1:{listening_port(settings)}"
        headers = {"Origin": base, "Content-Type": "application/json"}
        async with aiohttp.ClientSession() as http:
            async with http.post(
                f"{base}/api/capture",
                json={"text": CAPTURE, "captured": captured.isoformat()},
                headers=headers,
            ) as response:
                assert response.status == 201, await response.text()
                saved = (await response.json())["path"]
            assert saved.startswith("Inbox/")

            filed_dir = vault / "Filed"
            await eventually(
                lambda: filed_dir.is_dir() and any(filed_dir.glob("*.md")), "a filed note"
            )
            await eventually(lambda: not (vault / saved).exists(), "the capture leaves Inbox/")
            (filed,) = filed_dir.glob("*.md")
            assert filed.name == f"{captured:%Y-%m-%d %H%M} Chess clock for Sam.md"
            text = filed.read_text(encoding="utf-8")
            assert f"\n{CAPTURE}\n" in text  # the capture's words, exactly
            assert "Related: [[Sam Pritchard]]" in text
            assert f"- [ ] give Sam the chess clock back (due {due})" in text

            async def found() -> bool:
                async with http.get(
                    f"{base}/api/search", params={"q": "chess clock", "limit": "5"}
                ) as response:
                    results = (await response.json())["results"]
                return any(r["path"] == f"Filed/{filed.name}" for r in results)

            await eventually(found, "the filed note in search results")

            ask_note = vault / "Ask" / "Questions.md"
            ask_note.parent.mkdir()
            ask_note.write_text("My questions\n\n?? Who do I play chess with?\n\nmore text\n")

            def answered() -> bool:
                return "[!answer]" in ask_note.read_text(encoding="utf-8")

            await eventually(answered, "the question answered in its note")
            after = ask_note.read_text(encoding="utf-8")
            assert after.startswith("My questions\n\n?? Who do I play chess with?\n> [!answer]")
            assert after.endswith("\nmore text\n")  # nothing the user wrote moved or changed
            assert "You play chess with Sam [1]." in after
    finally:
        stop.set()
        await asyncio.wait_for(daemon, WAIT_S)
    assert not (settings.data_path / "daemon.lock").exists()


async def test_the_task_list_is_read_ahead_once_the_index_is_ready(
    fake_ollama: FakeOllama, settings: Settings, caplog: pytest.LogCaptureFixture
) -> None:
    """On a big vault the first list_tasks read every note (15-25 s at 50,000 notes, the tool's
    timeout is 30 s): the daemon reads it ahead, after the start-up index run."""
    caplog.set_level(logging.INFO)
    settings = dataclasses.replace(
        with_model(settings, host=fake_ollama.url), web=dataclasses.replace(settings.web, port=0)
    )
    ready, stop = asyncio.Event(), asyncio.Event()
    daemon = asyncio.create_task(run_daemon(settings, ready=ready, stop=stop))
    try:
        await asyncio.wait_for(ready.wait(), WAIT_S)
        messages = lambda: [r.getMessage() for r in caplog.records]  # noqa: E731
        await eventually(
            lambda: any(m.startswith("task list read ahead") for m in messages()), "read ahead"
        )
        ready_at = next(i for i, m in enumerate(messages()) if "search index ready" in m)
        read_at = next(i for i, m in enumerate(messages()) if m.startswith("task list read"))
        assert ready_at < read_at
    finally:
        stop.set()
        await asyncio.wait_for(daemon, WAIT_S)
