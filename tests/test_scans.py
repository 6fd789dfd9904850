"""Scans: with no file event at all, a periodic scan indexes a new note, files a capture and
answers a question; and scans asked for while one waits in the queue are one scan."""

from __future__ import annotations

import asyncio
import dataclasses
import json
import logging
from typing import Any

import pytest

from commonplace.ask.service import AskService
from commonplace.config import Settings
from commonplace.daemon.jobs import JobQueue, Stage
from commonplace.daemon.scans import Scans
from commonplace.index import Index, IndexService
from commonplace.llm import make_llm
from commonplace.tidy.service import TidyService
from tests.fakes.ollama import FakeOllama
from tests.models import with_model

CAPTURE = "---\ncaptured: 2026-10-20T08:05\nvia: phone\n---\nring the axolotl keeper\n"


def model(body: dict[str, Any]) -> str:
    if body.get("format"):  # tidy asks with a JSON schema
        return json.dumps({"title": "Axolotl keeper", "tags": [], "links": [], "todos": []})
    return "You ring the keeper [1]."


async def test_a_periodic_scan_repairs_what_file_events_missed(
    settings: Settings, fake_ollama: FakeOllama
) -> None:
    fake_ollama.chat_handler = model
    settings = dataclasses.replace(
        with_model(settings, host=fake_ollama.url),
        tidy=dataclasses.replace(settings.tidy, stable_s=0.05),
    )
    llm = make_llm(settings)
    index = Index.open(settings, llm)
    tidy = TidyService(settings, llm, index)
    ask = AskService(settings, llm, index, quiet_s=0.0)
    stages: dict[str, Stage] = {"index": IndexService(index, settings), "tidy": tidy, "ask": ask}
    jobs = JobQueue()
    vault = settings.vault
    waits: list[float] = []

    async def fake_sleep(seconds: float) -> None:
        waits.append(seconds)
        if len(waits) == 1:  # while "asleep": changes whose file events never came
            (vault / "Missed.md").write_text("a missed axolotl\n")
            (vault / "Inbox").mkdir(exist_ok=True)
            (vault / "Inbox/2026-10-20 0805.md").write_text(CAPTURE)
            (vault / "Ask").mkdir(exist_ok=True)
            (vault / "Ask/Questions.md").write_text("?? Who keeps the axolotl?\n")
        else:
            raise asyncio.CancelledError

    scans = Scans(jobs, stages, 600.0, sleep=fake_sleep)
    jobs.start()
    try:
        scans.queue("start-up", first=True)
        await asyncio.wait_for(jobs.join(), 30)
        with pytest.raises(asyncio.CancelledError):
            await scans.run_forever()
        await asyncio.wait_for(jobs.join(), 30)
        await asyncio.wait_for(tidy.wait_idle(), 30)
        await asyncio.wait_for(ask.idle(), 30)
        assert waits == [600.0, 600.0]
        found = await index.search("axolotl", limit=5, mode="keyword")
        assert "Missed.md" in [r.path for r in found.results]
        assert not (vault / "Inbox/2026-10-20 0805.md").exists()
        assert [p.name for p in (vault / "Filed").glob("*.md")] == [
            "2026-10-20 0805 Axolotl keeper.md"
        ]
        assert "You ring the keeper [1]." in (vault / "Ask/Questions.md").read_text()
    finally:
        await jobs.stop()
        await tidy.close()
        await ask.close()
        index.close()


class CountingStage:
    def __init__(self) -> None:
        self.scans = 0

    async def startup(self) -> None:
        self.scans += 1

    async def scan(self) -> None:
        self.scans += 1

    async def on_changes(self, changes: object) -> None:
        return None


async def test_scans_asked_for_while_one_waits_are_one_scan() -> None:
    jobs = JobQueue()  # not started: the first scan waits in the queue
    stage = CountingStage()
    scans = Scans(jobs, {"index": stage}, 600.0)
    assert scans.queue("file events were lost")
    assert not scans.queue("file events were lost")
    jobs.start()
    await asyncio.wait_for(jobs.join(), 60)
    assert stage.scans == 1
    assert scans.queue("file events were lost")  # the last one started: a new one is needed
    await asyncio.wait_for(jobs.join(), 60)
    assert stage.scans == 2
    await jobs.stop()


class FailingStage(CountingStage):
    async def scan(self) -> None:
        raise OSError("disk gone")


async def test_a_periodic_scan_that_went_well_logs_nothing_at_info(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """Every 10 minutes for as long as the daemon runs: an INFO line per stage saying nothing
    happened would be 430 lines a day. A start-up scan and a failed periodic one are logged."""
    jobs = JobQueue()
    quiet, failing = CountingStage(), FailingStage()
    sleeps = 0

    async def fake_sleep(seconds: float) -> None:
        nonlocal sleeps
        await asyncio.wait_for(jobs.join(), 60)  # the last scan has run
        sleeps += 1
        if sleeps > 2:
            raise asyncio.CancelledError

    scans = Scans(jobs, {"index": quiet, "ask": failing}, 600.0, sleep=fake_sleep)
    jobs.start()
    with caplog.at_level(logging.DEBUG, logger="commonplace.daemon.jobs"):
        scans.queue("start-up", first=True)
        await asyncio.wait_for(jobs.join(), 60)
        with pytest.raises(asyncio.CancelledError):
            await scans.run_forever()
        await asyncio.wait_for(jobs.join(), 60)
    await jobs.stop()
    assert quiet.scans == 3  # start-up, then two periodic scans
    lines = [
        (r.levelno, r.getMessage()) for r in caplog.records if r.name == "commonplace.daemon.jobs"
    ]
    loud = [text for level, text in lines if level >= logging.INFO]
    assert loud[:2] == [
        "job index: scan (start-up), ok in 0.0 s",
        "job ask: scan (start-up), ok in 0.0 s",
    ]
    assert len(loud) == 4  # and each failed periodic scan, as loudly as any job
    assert all(t.startswith("job ask: scan (periodic), FAILED: OSError") for t in loud[2:])
    quiet_lines = [text for level, text in lines if level == logging.DEBUG]
    assert quiet_lines.count("job index: scan (periodic), ok in 0.0 s") == 2
