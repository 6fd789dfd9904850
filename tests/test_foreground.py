"""Background loops pause while a request is answered, never for long, never on the loop."""

from __future__ import annotations

import asyncio
import threading
import time

import pytest

from commonplace.config import Settings
from commonplace.index.batch import read_files
from commonplace.index.manifest import Manifest
from commonplace.index.models import RefreshStats
from commonplace.index.plan import Plan
from commonplace.llm.profiles import EmbedProfile
from commonplace.runtime import foreground


def test_pause_waits_while_a_request_runs_and_not_after() -> None:
    assert foreground.pause() == 0.0
    started = threading.Event()
    release = threading.Event()

    def request() -> None:
        with foreground.foreground():
            started.set()
            release.wait(5)

    worker = threading.Thread(target=request)
    worker.start()
    started.wait(5)
    threading.Timer(0.2, release.set).start()
    waited = foreground.pause()
    worker.join(5)
    assert 0.15 <= waited < foreground.MAX_PAUSE_S
    assert foreground.pause() == 0.0


def test_a_long_request_stops_counting(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(foreground, "FOREGROUND_S", 0.1)
    with foreground.foreground():
        time.sleep(0.15)
        assert not foreground.busy()
        assert foreground.pause() == 0.0


async def test_never_on_the_event_loop() -> None:
    with foreground.foreground():
        assert foreground.pause() == 0.0  # would stall the loop that answers the request


def test_reading_notes_for_the_index_pauses_for_a_request(settings: Settings) -> None:
    """While a request is being answered the index's reader waits between notes (it would
    otherwise hold Python's interpreter lock and slow the request down many times over)."""
    paths = [p.relative_to(settings.vault).as_posix() for p in settings.vault.rglob("*.md")]
    settings.data_path.mkdir(parents=True, exist_ok=True)
    manifest = Manifest(settings.data_path / "m.sqlite")
    done: list[float] = []

    def read() -> None:
        read_files(
            settings,
            EmbedProfile("m"),
            paths,
            Plan(),
            RefreshStats(),
            stale=set(),
            manifest=manifest,
            unchanged_ok=False,
        )
        done.append(time.monotonic())

    with foreground.foreground():
        start = time.monotonic()
        reader = threading.Thread(target=read)
        reader.start()
        time.sleep(0.3)
        assert not done  # still waiting for the request
    reader.join(10)
    assert done and done[0] - start >= 0.3
    manifest.close()


def test_pause_is_cheap_when_idle() -> None:
    start = time.perf_counter()
    for _ in range(10_000):
        foreground.pause()
    assert time.perf_counter() - start < 0.5


def test_the_server_marks_requests() -> None:
    seen: list[bool] = []

    async def main() -> None:
        from aiohttp.test_utils import make_mocked_request

        from commonplace.server.app import foreground_middleware

        async def handler(request: object) -> object:
            seen.append(foreground.busy())
            return object()

        await foreground_middleware(make_mocked_request("GET", "/api/search"), handler)  # type: ignore[arg-type]

    asyncio.run(main())
    assert seen == [True] and not foreground.busy()
