"""Supervised tasks: an unexpected exception is logged with its traceback, shown in attention
(without its message, which may quote a note) and the task restarted with growing waits."""

from __future__ import annotations

import asyncio
import logging

import pytest

from commonplace.attention import Attention
from commonplace.supervise import supervised


async def test_a_failing_task_is_logged_shown_and_restarted(
    caplog: pytest.LogCaptureFixture,
) -> None:
    runs: list[int] = []
    waits: list[float] = []

    async def flaky() -> None:
        runs.append(1)
        if len(runs) < 4:
            raise ValueError("secret words from a note")

    async def no_sleep(seconds: float) -> None:
        waits.append(seconds)

    attention = Attention()
    with caplog.at_level(logging.ERROR):
        await supervised("tidy worker", flaky, attention, sleep=no_sleep, max_wait_s=3)
    assert len(runs) == 4
    assert waits == [1.0, 2.0, 3.0]  # doubling, capped
    assert "Traceback" in caplog.text and "tidy worker stopped" in caplog.text
    (entry,) = attention.entries()
    assert (entry.source, entry.code, entry.count) == ("tidy worker", "task_restarted", 3)
    assert "ValueError in tests/test_supervise.py:" in entry.reason
    assert "secret" not in entry.reason


async def test_cancelling_stops_it() -> None:
    started = asyncio.Event()

    async def forever() -> None:
        started.set()
        await asyncio.sleep(3600)

    task = asyncio.create_task(supervised("loop", forever))
    await started.wait()
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
