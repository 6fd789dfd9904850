"""A file a crash left moved aside by a delete comes back while the daemon runs, also when the
daemon started again within seconds of the crash (then it was too young to put back at start)."""

from __future__ import annotations

import asyncio
import dataclasses
import time
from pathlib import Path

import pytest

from commonplace.config import Settings
from commonplace.daemon.leftovers import keep_putting_back, put_back_left_aside
from commonplace.daemon.run import clean_up_after_a_crash, run_daemon
from commonplace.vault import atomic, layout
from commonplace.vault.atomic import REMOVING_SUFFIX
from commonplace.vault.layout import TEMP_SUFFIX
from tests.fakes.ollama import FakeOllama
from tests.models import with_model
from tests.test_daemon_flow import WAIT_S, eventually


class Stop(Exception):
    pass


def left_aside(folder: Path, name: str, text: str) -> Path:
    """What a crash in the middle of `remove_file` leaves: the file under its hidden name."""
    folder.mkdir(exist_ok=True)
    aside = folder / f".{name}.0badc0de{REMOVING_SUFFIX}"
    aside.write_text(text)
    return aside


async def test_a_restart_just_after_a_crash_puts_the_file_back_once_it_is_old_enough(
    settings: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    now = [time.time()]
    monkeypatch.setattr(atomic, "_clock", lambda: now[0])
    inbox = settings.vault / "Inbox"
    aside = left_aside(inbox, "2026-10-19 0800.md", "buy flour")  # the crash: a moment ago
    clean_up_after_a_crash(settings)
    assert aside.exists()  # too young at start: it might be a removal still being checked

    slept: list[float] = []

    async def sleep(seconds: float) -> None:
        slept.append(seconds)
        now[0] += seconds
        if len(slept) == 3:
            raise Stop

    with pytest.raises(Stop):
        await keep_putting_back(settings, 600.0, sleep=sleep)
    assert (inbox / "2026-10-19 0800.md").read_text() == "buy flour"
    assert not aside.exists()
    assert 10.0 <= slept[0] <= 11.0  # woken when it was old enough, not at the next scan
    assert slept[1:] == [600.0, 600.0]  # then at every periodic scan


async def test_the_running_daemon_puts_back_a_file_left_aside_at_its_periodic_scan(
    fake_ollama: FakeOllama, settings: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    later = [-30.0]  # the daemon's clock half a minute behind: young, however slow the start
    monkeypatch.setattr(atomic, "_clock", lambda: time.time() + later[0])
    settings = dataclasses.replace(
        with_model(settings, host=fake_ollama.url),
        web=dataclasses.replace(settings.web, port=0),
        index=dataclasses.replace(settings.index, reconcile_minutes=0.1),
    )
    filed = settings.vault / "Filed"
    aside = left_aside(filed, "2026-10-19 0800 Flour.md", "---\n---\nbuy flour")
    ready, stop = asyncio.Event(), asyncio.Event()
    daemon = asyncio.create_task(run_daemon(settings, ready=ready, stop=stop))
    try:
        await asyncio.wait_for(ready.wait(), WAIT_S)
        assert aside.exists()  # too young when the daemon started
        later[0] = 60.0  # a minute on: old enough; the next periodic scan (6 s) puts it back
        await eventually(lambda: (filed / "2026-10-19 0800 Flour.md").exists(), "put back")
        assert (filed / "2026-10-19 0800 Flour.md").read_text() == "---\n---\nbuy flour"
        assert not aside.exists()
    finally:
        stop.set()
        await asyncio.wait_for(daemon, WAIT_S)


def crash_temp(folder: Path, name: str, text: str) -> Path:
    """What a crash between writing a note's temp file and renaming it leaves (atomic.py)."""
    folder.mkdir(parents=True, exist_ok=True)
    tmp = folder / f".{name}.0badc0de{TEMP_SUFFIX}"
    tmp.write_text(text)
    return tmp


async def test_a_crash_temp_file_is_removed_once_old_enough_while_the_daemon_runs(
    settings: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Restarted at once by the service manager: at start the crash's temp file was too young
    (it might be a write in progress); it goes the moment it is old enough, not at the next
    start. The note it was meant to replace is not touched."""
    now = [time.time()]
    monkeypatch.setattr(layout, "_clock", lambda: now[0])
    filed = settings.vault / "Filed"
    note = filed / "2026-10-19 0800 Flour.md"
    note.parent.mkdir(exist_ok=True)
    note.write_text("---\n---\nbuy flour\n")
    tmp = crash_temp(filed, note.name, "---\n---\nbuy flour and eggs\n")
    data_tmp = crash_temp(settings.data_path, "tidy.json", "{}")
    clean_up_after_a_crash(settings)
    assert tmp.exists() and data_tmp.exists()  # too young at start

    slept: list[float] = []

    async def sleep(seconds: float) -> None:
        slept.append(seconds)
        now[0] += seconds
        if len(slept) == 2:
            raise Stop

    with pytest.raises(Stop):
        await keep_putting_back(settings, 600.0, sleep=sleep)
    assert not tmp.exists() and not data_tmp.exists()
    assert note.read_text() == "---\n---\nbuy flour\n"
    assert 10.0 <= slept[0] <= 11.0  # woken when it was old enough, not at the next scan
    assert slept[1] == 600.0


def test_a_young_temp_file_is_left_for_a_write_in_progress(
    settings: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    now = [time.time()]
    monkeypatch.setattr(layout, "_clock", lambda: now[0])
    tmp = crash_temp(settings.vault / "Ask", "Band.md", "being written")
    other = settings.vault / "Ask" / ".Band.md.notours.cptmp"  # not a name atomic.py makes
    other.write_text("someone else's")
    wait = put_back_left_aside(settings)
    assert tmp.exists() and wait is not None and 9.0 <= wait <= 10.5
    now[0] += 11.0
    assert put_back_left_aside(settings) is None
    assert not tmp.exists() and other.exists()


async def test_the_running_daemon_removes_a_crash_temp_file_at_its_periodic_scan(
    fake_ollama: FakeOllama, settings: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Seen from outside: SIGKILL before the rename, restarted at once by the service
    manager: the temp file was still there 40 s later. Now the periodic scan (6 s here)
    removes it once it is old enough."""
    later = [-30.0]  # the daemon's clock half a minute behind: young, however slow the start
    monkeypatch.setattr(layout, "_clock", lambda: time.time() + later[0])
    settings = dataclasses.replace(
        with_model(settings, host=fake_ollama.url),
        web=dataclasses.replace(settings.web, port=0),
        index=dataclasses.replace(settings.index, reconcile_minutes=0.1),
    )
    tmp = crash_temp(settings.vault / "Filed", "2026-10-19 0800 Flour.md", "buy flour")
    ready, stop = asyncio.Event(), asyncio.Event()
    daemon = asyncio.create_task(run_daemon(settings, ready=ready, stop=stop))
    try:
        await asyncio.wait_for(ready.wait(), WAIT_S)
        assert tmp.exists()  # too young when the daemon started
        later[0] = 60.0  # a minute on: old enough
        await eventually(lambda: not tmp.exists(), "the crash's temp file removed")
    finally:
        stop.set()
        await asyncio.wait_for(daemon, WAIT_S)
