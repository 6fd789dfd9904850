"""Supervised tasks: an unexpected exception is logged with its traceback, shown in attention
(without its message, which may quote a note) and the task restarted with growing waits."""

from __future__ import annotations

import asyncio
import logging

import pytest

from commonplace.runtime.attention import Attention
from commonplace.runtime.supervise import supervised
from tests.faults import tantivy_panic


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


async def test_a_rust_panic_restarts_the_task_and_ctrl_c_does_not() -> None:
    runs: list[int] = []

    async def panics_once() -> None:
        runs.append(1)
        if len(runs) == 1:
            raise tantivy_panic()

    async def no_sleep(seconds: float) -> None:
        pass

    attention = Attention()
    await supervised("job queue", panics_once, attention, sleep=no_sleep)
    assert len(runs) == 2
    (entry,) = attention.entries()
    assert entry.reason.startswith("stopped after an unexpected error (PanicException")

    async def interrupted() -> None:
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        await supervised("job queue", interrupted, attention, sleep=no_sleep)


async def test_a_restarted_task_that_runs_well_again_leaves_attention() -> None:
    runs: list[int] = []
    failed_once, stop = asyncio.Event(), asyncio.Event()

    async def fails_once_then_runs() -> None:
        runs.append(1)
        if len(runs) == 1:
            raise ValueError("a passing fault")
        await stop.wait()

    shown: list[object] = []

    async def no_sleep(seconds: float) -> None:
        shown.append(attention.get("tidy worker"))  # reported before the wait
        failed_once.set()

    attention = Attention()
    task = asyncio.create_task(
        supervised(
            "tidy worker", fails_once_then_runs, attention, sleep=no_sleep, running_well_s=0.05
        )
    )
    try:
        await asyncio.wait_for(failed_once.wait(), 30)
        assert shown and shown[0] is not None  # shown while it was restarted
        async with asyncio.timeout(30):
            while attention.get("tidy worker") is not None:  # noqa: ASYNC110 - polling state
                await asyncio.sleep(0.01)
        assert len(runs) == 2 and not task.done()  # running again, and no longer shown
    finally:
        stop.set()
        await asyncio.wait_for(task, 30)


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
