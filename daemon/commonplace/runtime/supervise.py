"""Long-lived tasks that cannot die silently.

An asyncio task that raises ends, and the only trace is "Task exception was never retrieved"
when it is garbage-collected; meanwhile /api/state looks healthy and nothing gets done. Every
loop the daemon keeps running (the job queue, the tidy worker, the watcher, the periodic scan,
the scheduler) therefore runs under `supervised`: an unexpected exception is logged with its
traceback, shown in attention (which part, the exception's type and where it was raised, never
its message, which may quote a note), and the loop is started again after a backoff that grows
while it keeps failing and starts over once it has run well for a while. Once a restarted loop
has run for a minute without failing, its entry leaves attention.
"""

from __future__ import annotations

import asyncio
import logging
import time
import traceback
from collections.abc import Awaitable, Callable
from pathlib import Path

from commonplace.basics.backoff import backoff_s
from commonplace.runtime.attention import Attention

log = logging.getLogger(__name__)

FIRST_WAIT_S = 1.0
MAX_WAIT_S = 300.0
HEALTHY_AFTER_S = 600.0  # a run this long without failing resets the backoff
RUNNING_WELL_S = 60.0  # a restarted run this long without failing clears its attention entry


async def supervised(
    name: str,
    run: Callable[[], Awaitable[object]],
    attention: Attention | None = None,
    *,
    first_wait_s: float | None = None,
    max_wait_s: float | None = None,
    sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
    clock: Callable[[], float] = time.monotonic,
    running_well_s: float | None = None,
) -> None:
    """Run `run()` until it returns; restart it with backoff whenever it raises. Its entry in
    attention goes once a restarted run has gone on for `running_well_s` without failing."""
    first = FIRST_WAIT_S if first_wait_s is None else first_wait_s
    most = MAX_WAIT_S if max_wait_s is None else max_wait_s
    failures = 0
    well = RUNNING_WELL_S if running_well_s is None else running_well_s
    while True:
        started = clock()
        cleared = None
        if failures and attention is not None:  # restarted: once it runs well, it is well again
            cleared = asyncio.get_running_loop().call_later(well, attention.clear, name, "")
        try:
            await run()
        except asyncio.CancelledError:
            raise
        except BaseException as exc:
            if not survivable(exc):
                raise
            failed = exc
        else:
            return
        finally:
            if cleared is not None:
                cleared.cancel()
        if clock() - started >= HEALTHY_AFTER_S:
            failures = 0
        failures += 1
        wait = backoff_s(first, failures, most)
        log.error(
            "%s stopped after an unexpected error; restart in %.0f s", name, wait, exc_info=failed
        )
        if attention is not None:
            attention.report(
                name,
                "",
                "task_restarted",
                f"stopped after an unexpected error ({where(failed)}) and was restarted",
                action="the daemon's log has the details; report it if it keeps happening",
                retry_at=time.time() + wait,
            )
        await sleep(wait)


def survivable(exc: BaseException) -> bool:
    """Any Exception, and a panic in a Rust library (Tantivy, LanceDB): pyo3 raises those as a
    PanicException, which derives from BaseException so that `except Exception` misses it; one
    killed the job queue's worker for good (a Tantivy writer whose folder was deleted panics
    on rollback). Never a cancellation, Ctrl-C or an exit."""
    if isinstance(exc, Exception):
        return True
    return type(exc).__name__ == "PanicException"


def where(exc: BaseException) -> str:
    """`KeyError in tidy/service.py:181`: the exception's type and the line that raised it."""
    frames = traceback.extract_tb(exc.__traceback__)
    if not frames:
        return type(exc).__name__
    last = frames[-1]
    parts = Path(last.filename).parts
    short = "/".join(parts[-2:]) if len(parts) >= 2 else last.filename
    return f"{type(exc).__name__} in {short}:{last.lineno}"


def start_supervised(
    name: str, run: Callable[[], Awaitable[object]], attention: Attention | None = None
) -> asyncio.Task[None]:
    return asyncio.create_task(supervised(name, run, attention), name=name)
