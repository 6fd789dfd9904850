"""TidyService: catch-up at start-up, debounce, one at a time in capture order, retries and
marks, clean shutdown."""

from __future__ import annotations

import asyncio
import dataclasses
import errno
import json
import logging
import os
from typing import Any

import pytest

from commonplace.config import Settings
from commonplace.llm import make_llm
from commonplace.runtime.attention import Entry
from commonplace.runtime.changes import Change
from commonplace.tidy.service import StabilityTracker, TidyService
from commonplace.vault.notes import read_note
from tests.fakes.ollama import FakeError, FakeOllama, Stall
from tests.faults import disk_full
from tests.models import with_model
from tests.tidy.conftest import answer, body_of, fast, filed_notes, put_capture

WEEK = ["2026-10-22 1405.md", "2026-10-19 0742.md", "2026-10-20 1830.md"]


def capture_in(request: dict[str, Any]) -> str:
    return str(request["messages"][1]["content"]).split("<capture>\n", 1)[1]


async def run_until_idle(svc: TidyService, seconds: float = 10) -> None:
    async with asyncio.timeout(seconds):
        await svc.wait_idle()


def test_stability_tracker_waits_for_quiet() -> None:
    now = [0.0]
    sizes = {"a": (1, 10)}
    tracker = StabilityTracker(2.0, clock=lambda: now[0])
    tracker.add("a")
    assert tracker.check(sizes.get) == ([], 2.0)
    now[0] = 1.5
    sizes["a"] = (2, 20)  # still being written: the quiet period starts again
    assert tracker.check(sizes.get) == ([], 3.5)
    now[0] = 3.5
    assert tracker.check(sizes.get) == (["a"], None)
    del sizes["a"]
    assert tracker.check(sizes.get) == ([], None) and not tracker.waiting


async def test_startup_catches_up_in_capture_order(
    tidy_settings: Settings, fake_ollama: FakeOllama
) -> None:
    for name in WEEK:
        put_capture(tidy_settings, name)
    fake_ollama.chat_handler = lambda body: answer("Note")
    svc = TidyService(tidy_settings, make_llm(tidy_settings))
    try:
        await svc.startup()
        await run_until_idle(svc)
    finally:
        await svc.close()
    seen = [capture_in(r) for r in fake_ollama.chat_requests()]
    expected = [body_of(n).strip("\n") for n in sorted(WEEK)]
    assert [s.split("\n</capture>")[0] for s in seen] == expected
    assert [n.name for n in filed_notes(tidy_settings)] == [
        "2026-10-19 0742 Note.md",
        "2026-10-20 1830 Note.md",
        "2026-10-22 1405 Note.md",
    ]
    assert list((tidy_settings.vault / "Inbox").iterdir()) == []
    assert svc.status()["filed"] == 3


async def test_a_file_still_being_written_is_not_read_half_way(
    tidy_settings: Settings, fake_ollama: FakeOllama
) -> None:
    settings = dataclasses.replace(
        tidy_settings, tidy=dataclasses.replace(tidy_settings.tidy, stable_s=1.0)
    )
    fake_ollama.chat_handler = lambda body: answer("Dictation")
    svc = TidyService(settings, make_llm(settings))
    await svc.startup()
    rel = put_capture(settings, "2026-10-25 0815.md", "---\ncaptured: 2026-10-25T08:15\n---\n")
    full = settings.vault / rel
    try:
        for i in range(8):  # a write every 0.1 s: never quiet for the 1 s it needs
            with full.open("a") as handle:
                handle.write(f"part {i} ")
            await svc.on_changes([Change(rel, "modified")])
            await asyncio.sleep(0.1)
        assert fake_ollama.chat_requests() == []
        await run_until_idle(svc)
    finally:
        await svc.close()
    (request,) = fake_ollama.chat_requests()
    assert "part 7" in capture_in(request)
    (note,) = filed_notes(settings)
    assert "part 0 part 1 part 2 part 3 part 4 part 5 part 6 part 7 " in note.read_text()


async def test_ollama_errors_are_retried_with_backoff(
    tidy_settings: Settings, fake_ollama: FakeOllama
) -> None:
    rel = put_capture(tidy_settings, WEEK[0])
    # The client retries once itself, so four errors are two failed tidy attempts.
    fake_ollama.enqueue_chat(*[FakeError(500, "out of memory")] * 4, answer("Dentist"))
    svc = TidyService(tidy_settings, make_llm(tidy_settings))
    try:
        await svc.startup()
        await run_until_idle(svc)
    finally:
        await svc.close()
    assert len(fake_ollama.chat_requests()) == 5
    assert len(filed_notes(tidy_settings)) == 1
    assert not (tidy_settings.vault / rel).exists()
    assert svc.status()["failing"] == []


async def test_repeated_garbage_marks_the_capture_until_it_changes(
    tidy_settings: Settings, fake_ollama: FakeOllama
) -> None:
    rel = put_capture(tidy_settings, WEEK[0])
    fake_ollama.chat_handler = lambda body: "this is not json"
    svc = TidyService(tidy_settings, make_llm(tidy_settings))
    try:
        await svc.startup()
        await run_until_idle(svc)
        assert len(fake_ollama.chat_requests()) == tidy_settings.tidy.max_attempts
        status = svc.status()
        assert status["failing"] == [{"path": rel, "reason": "it was not JSON", "attempts": 3}]
        assert (tidy_settings.vault / rel).exists() and filed_notes(tidy_settings) == []
        # The mark lives in the data folder, not in the note, and survives a restart.
        marks = json.loads((tidy_settings.data_path / "tidy" / "state.json").read_text())
        assert marks["marks"][0]["failing"] is True
        assert "not JSON" not in (tidy_settings.vault / rel).read_text()
        again = TidyService(tidy_settings, make_llm(tidy_settings))
        await again.startup()
        await run_until_idle(again)
        await again.close()
        assert len(fake_ollama.chat_requests()) == 3

        # The user edits the capture: it is tried again, and files.
        fake_ollama.chat_handler = lambda body: answer("Dentist")
        with (tidy_settings.vault / rel).open("a") as handle:
            handle.write("\nalso ask about the gum thing")
        await svc.on_changes([Change(rel, "modified")])
        await run_until_idle(svc)
    finally:
        await svc.close()
    (note,) = filed_notes(tidy_settings)
    assert "also ask about the gum thing" in note.read_text()
    assert svc.status()["failing"] == []


async def test_a_retry_after_an_unusable_answer_names_the_capture(
    tidy_settings: Settings, fake_ollama: FakeOllama, caplog: pytest.LogCaptureFixture
) -> None:
    """The log said "tidy will try again in 30 s: The model's answer could not be used: it was
    not JSON", without saying which capture."""
    rel = put_capture(tidy_settings, WEEK[0])
    fake_ollama.chat_handler = lambda body: "this is not json"
    svc = TidyService(tidy_settings, make_llm(tidy_settings))
    try:
        with caplog.at_level(logging.WARNING, logger="commonplace.tidy"):
            await svc.startup()
            await run_until_idle(svc)
    finally:
        await svc.close()
    retries = [r.getMessage() for r in caplog.records if "will try again" in r.getMessage()]
    assert retries and all(f": {rel}: " in line for line in retries), retries


async def test_close_cancels_a_slow_answer_and_leaves_the_capture(
    tidy_settings: Settings, fake_ollama: FakeOllama
) -> None:
    rel = put_capture(tidy_settings, WEEK[0])
    before = (tidy_settings.vault / rel).read_bytes()
    fake_ollama.enqueue_chat(Stall(60, answer("Late")))  # far longer than close may take
    svc = TidyService(tidy_settings, make_llm(tidy_settings))
    await svc.startup()
    for _ in range(3000):  # 60 s at most
        if fake_ollama.chat_requests():
            break
        await asyncio.sleep(0.02)
    assert svc.status()["busy"] == rel
    async with asyncio.timeout(20):  # a bound for a busy machine, far under the model's 60 s
        await svc.close()
    assert (tidy_settings.vault / rel).read_bytes() == before
    assert filed_notes(tidy_settings) == []


@pytest.mark.parametrize(
    "change",
    [Change("Projects/Shed Rebuild.md", "modified"), Change("Inbox/.x.md.cptmp", "created")],
)
async def test_changes_outside_the_inbox_are_ignored(
    tidy_settings: Settings, fake_ollama: FakeOllama, change: Change
) -> None:
    svc = TidyService(tidy_settings, make_llm(tidy_settings))
    try:
        await svc.on_changes([change])
        assert svc.status()["waiting"] == []
    finally:
        await svc.close()


async def test_a_request_ollama_refuses_counts_like_garbage(
    tidy_settings: Settings, fake_ollama: FakeOllama
) -> None:
    rel = put_capture(tidy_settings, WEEK[0])
    fake_ollama.chat_handler = lambda body: FakeError(400, "invalid JSON schema in format")
    svc = TidyService(tidy_settings, make_llm(tidy_settings))
    try:
        await svc.startup()
        await run_until_idle(svc)
    finally:
        await svc.close()
    (failing,) = svc.status()["failing"]
    assert failing["path"] == rel and "invalid JSON schema" in failing["reason"]
    assert len(fake_ollama.chat_requests()) == 3


async def test_a_missing_model_waits_without_a_mark(
    tidy_settings: Settings, fake_ollama: FakeOllama
) -> None:
    rel = put_capture(tidy_settings, WEEK[0])
    fake_ollama.models = ["nomic-embed-text:latest"]
    svc = TidyService(tidy_settings, make_llm(tidy_settings))
    try:
        await svc.startup()
        for _ in range(3000):  # 60 s at most
            if len(fake_ollama.chat_requests()) >= 4:
                break
            await asyncio.sleep(0.02)
        status = svc.status()
        assert status["failing"] == []
        (waiting,) = status["waiting"]
        assert waiting["path"] == rel and waiting["retrying"]
        assert "ollama pull qwen3.5:9b" in waiting["reason"]
        # Once the model is there, the capture files.
        fake_ollama.models.append("qwen3.5:9b")
        fake_ollama.chat_handler = lambda body: answer("Dentist")
        await run_until_idle(svc)
    finally:
        await svc.close()
    assert len(filed_notes(tidy_settings)) == 1


async def test_a_model_that_refuses_the_request_waits_without_marking_captures(
    tidy_settings: Settings, fake_ollama: FakeOllama
) -> None:
    """think = "on" with a model that cannot think is the settings' fault, not the capture's:
    Ollama's 400 must not mark every capture in the inbox as failing."""
    fake_ollama.add_model("llama3.2:3b")
    settings = with_model(tidy_settings, chat_model="llama3.2:3b", think="on")
    rel = put_capture(settings, WEEK[0])
    svc = TidyService(settings, make_llm(settings))
    try:
        await svc.startup()
        for _ in range(3000):  # 60 s at most
            if len(fake_ollama.chat_requests()) >= 4:
                break
            await asyncio.sleep(0.02)
        status = svc.status()
    finally:
        await svc.close()
    assert status["failing"] == []
    (waiting,) = status["waiting"]
    assert waiting["path"] == rel and waiting["retrying"]
    assert 'think = "off"' in waiting["reason"]


async def test_a_capture_that_cannot_be_read_does_not_hold_up_the_others(
    tidy_settings: Settings, fake_ollama: FakeOllama, monkeypatch: pytest.MonkeyPatch
) -> None:
    for name in WEEK:
        put_capture(tidy_settings, name)
    locked = tidy_settings.vault / "Inbox" / sorted(WEEK)[0]  # the oldest: first in line
    real_open = os.open

    def denied(path: Any, flags: int, *args: Any, **kw: Any) -> int:
        """EACCES for the locked capture (opened by name relative to its folder), as a mode-000
        file gives a user other than root."""
        if os.fspath(path) in (locked.name, str(locked)):
            raise PermissionError(errno.EACCES, "Permission denied", str(path))
        return real_open(path, flags, *args, **kw)

    monkeypatch.setattr(os, "open", denied)
    fake_ollama.chat_handler = lambda body: answer("Note")
    svc = TidyService(tidy_settings, make_llm(tidy_settings))
    try:
        await svc.startup()
        await run_until_idle(svc)  # the unreadable one is parked, not holding up the rest
        assert len(filed_notes(tidy_settings)) == 2
        (entry,) = svc.attention.entries()
        rel = f"Inbox/{locked.name}"
        assert (entry.source, entry.path, entry.code) == ("tidy", rel, "unreadable")
        assert "Permission denied" in entry.reason and "chmod" in entry.action
        assert entry.retry_at is not None
        # The owner fixes the permissions (a chmod is a change): it is filed at once.
        monkeypatch.setattr(os, "open", real_open)
        await svc.on_changes([Change(rel, "modified")])
        await run_until_idle(svc)
    finally:
        await svc.close()
    assert len(filed_notes(tidy_settings)) == 3
    assert svc.attention.entries() == []


async def test_the_worker_is_restarted_after_an_unexpected_error(
    tidy_settings: Settings, fake_ollama: FakeOllama, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("commonplace.runtime.supervise.FIRST_WAIT_S", 0.01)
    put_capture(tidy_settings, WEEK[0])
    fake_ollama.chat_handler = lambda body: answer("Dentist")
    svc = TidyService(tidy_settings, make_llm(tidy_settings))
    real_check = svc.tracker.check
    calls = [0]

    def check(stat: Any) -> Any:
        calls[0] += 1
        if calls[0] == 1:
            raise RuntimeError("a bug in the worker loop")
        return real_check(stat)

    monkeypatch.setattr(svc.tracker, "check", check)
    try:
        await svc.startup()
        await run_until_idle(svc)
    finally:
        await svc.close()
    assert len(filed_notes(tidy_settings)) == 1
    (entry,) = svc.attention.entries()
    assert (entry.source, entry.code) == ("tidy worker", "task_restarted")
    assert "RuntimeError" in entry.reason


async def test_a_capture_that_cannot_be_written_is_retried_and_shown(
    tidy_settings: Settings, fake_ollama: FakeOllama, monkeypatch: pytest.MonkeyPatch
) -> None:
    rel = put_capture(tidy_settings, WEEK[0])
    fake_ollama.chat_handler = lambda body: answer("Dentist")
    refused = disk_full(monkeypatch, writes=2)
    svc = TidyService(tidy_settings, make_llm(tidy_settings))
    reported: list[Entry] = []
    report = svc.attention.report
    monkeypatch.setattr(
        svc.attention, "report", lambda *a, **k: reported.append(report(*a, **k)) or reported[-1]
    )
    try:
        await svc.startup()
        await run_until_idle(svc)
    finally:
        await svc.close()
    assert len(refused) == 2 and len(filed_notes(tidy_settings)) == 1
    assert not (tidy_settings.vault / rel).exists()
    assert [(e.code, e.count) for e in reported] == [("write_failed", 1), ("write_failed", 2)]
    assert reported[0].reason == "not filed yet: the disk is full"
    assert reported[0].action == "free some space on the vault's disk"
    assert svc.attention.entries() == []


async def test_big_and_empty_captures_are_left_as_they_are_and_shown(
    settings: Settings, fake_ollama: FakeOllama
) -> None:
    small = fast(settings, fake_ollama.url, max_capture_kb=1)
    head = "---\ncaptured: 2026-10-19T07:00\n---\n"
    big = put_capture(small, "2026-10-19 0700.md", head + "word " * 300)  # 1.5 KB
    empty = put_capture(small, "2026-10-19 0710.md", head + "\n   \n")
    put_capture(small, WEEK[0])
    before = (small.vault / big).read_bytes()
    fake_ollama.chat_handler = lambda body: answer("Note")
    svc = TidyService(small, make_llm(small))
    try:
        await svc.startup()
        await run_until_idle(svc)
        assert len(fake_ollama.chat_requests()) == 1 and len(filed_notes(small)) == 1
        assert (small.vault / big).read_bytes() == before
        codes = {e.path: (e.code, e.level) for e in svc.attention.entries()}
        assert codes == {big: ("too_large", "warn"), empty: ("empty", "warn")}
        assert "over the 1 KB limit" in str(svc.attention.get("tidy", big))
        # Cut down to size by the owner, it is filed like any capture.
        (small.vault / big).write_text(head + "just a few words\n")
        await svc.on_changes([Change(big, "modified")])
        await run_until_idle(svc)
    finally:
        await svc.close()
    assert len(filed_notes(small)) == 2
    assert [e.path for e in svc.attention.entries()] == [empty]


async def test_a_capture_that_is_not_utf8_is_shown_as_such_until_it_is_fixed(
    tidy_settings: Settings, fake_ollama: FakeOllama
) -> None:
    """It was marked as if the model had answered garbage: not in attention at first, then
    (after a restart) 'the model gave 1 unusable answers', with 'commonplace tidy' to run."""
    rel = put_capture(tidy_settings, "2026-10-19 0700.md", "")
    (tidy_settings.vault / rel).write_bytes("café in Latin-1\n".encode("latin-1"))
    before = (tidy_settings.vault / rel).read_bytes()
    fake_ollama.chat_handler = lambda body: answer("Note")
    for _ in range(2):  # and again after a restart
        svc = TidyService(tidy_settings, make_llm(tidy_settings))
        try:
            await svc.startup()
            await run_until_idle(svc)
            entry = svc.attention.get("tidy", rel)
            assert entry is not None and entry.code == "not_text", entry
            assert "UTF-8" in entry.reason and "save it again as UTF-8" in entry.action
            assert svc.state.mark(rel) is None
        finally:
            await svc.close()
    assert (tidy_settings.vault / rel).read_bytes() == before and not fake_ollama.chat_requests()
    svc = TidyService(tidy_settings, make_llm(tidy_settings))
    try:
        await svc.startup()
        await run_until_idle(svc)
        (tidy_settings.vault / rel).write_text("café, now in UTF-8\n", encoding="utf-8")
        await svc.on_changes([Change(rel, "modified")])
        await run_until_idle(svc)
        assert svc.attention.get("tidy", rel) is None
    finally:
        await svc.close()
    assert len(filed_notes(tidy_settings)) == 1


async def test_a_capture_holding_a_nul_character_stays_in_the_inbox_until_it_is_fixed(
    tidy_settings: Settings, fake_ollama: FakeOllama
) -> None:
    """It was filed, and the filed note was then never indexed (the index skips a note with a
    NUL): words the owner could never find. Now it waits in the inbox, shown with why."""
    rel = put_capture(tidy_settings, "2026-10-19 0700.md", "call the vet\x00 about Tuesday\n")
    before = (tidy_settings.vault / rel).read_bytes()
    fake_ollama.chat_handler = lambda body: answer("Vet")
    svc = TidyService(tidy_settings, make_llm(tidy_settings))
    try:
        await svc.startup()
        await run_until_idle(svc)
        entry = svc.attention.get("tidy", rel)
        assert entry is not None and entry.code == "not_text", entry
        assert "NUL character" in entry.reason and "remove the NUL" in entry.action
        assert (tidy_settings.vault / rel).read_bytes() == before
        assert not fake_ollama.chat_requests() and filed_notes(tidy_settings) == []
        (tidy_settings.vault / rel).write_text("call the vet about Tuesday\n", encoding="utf-8")
        await svc.on_changes([Change(rel, "modified")])
        await run_until_idle(svc)
        assert svc.attention.get("tidy", rel) is None
    finally:
        await svc.close()
    [filed] = filed_notes(tidy_settings)
    note = read_note(tidy_settings.vault, filed.relative_to(tidy_settings.vault).as_posix())
    assert "call the vet about Tuesday" in note.body  # what the index reads: found by search


async def eventually(check: Any, what: str, seconds: float = 60) -> None:
    for _ in range(int(seconds / 0.05)):
        if check():
            return
        await asyncio.sleep(0.05)
    raise AssertionError(f"not within {seconds} s: {what}")


async def test_a_marked_capture_is_tried_again_later_and_shown_until_filed(
    settings: Settings, fake_ollama: FakeOllama
) -> None:
    quick = fast(settings, fake_ollama.url, marked_retry_s=2.0)
    rel = put_capture(quick, WEEK[0])
    replies = iter(["this is not json"] * 3)  # then the model recovers
    fake_ollama.chat_handler = lambda body: next(replies, answer("Dentist"))
    svc = TidyService(quick, make_llm(quick))
    try:
        await svc.startup()
        await run_until_idle(svc)  # marked: parked on its long wait
        (entry,) = svc.attention.entries()
        assert (entry.path, entry.code) == (rel, "unusable_answers")
        assert "3 unusable answers" in entry.reason and entry.retry_at
        assert svc.status()["failing"][0]["path"] == rel
        await eventually(lambda: filed_notes(quick), "the marked capture filed on its retry")
        await eventually(lambda: not svc.attention.entries(), "the mark cleared")
    finally:
        await svc.close()
    assert svc.status()["failing"] == []
    assert len(fake_ollama.chat_requests()) == 4


async def test_a_new_model_tries_marked_captures_again_at_once(
    tidy_settings: Settings, fake_ollama: FakeOllama, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("commonplace.tidy.service.MODEL_CHECK_S", 0.1)
    rel = put_capture(tidy_settings, WEEK[0])  # marked_retry_s: an hour
    fake_ollama.chat_handler = lambda body: "this is not json"
    svc = TidyService(tidy_settings, make_llm(tidy_settings))
    try:
        await svc.startup()
        await run_until_idle(svc)
        await asyncio.sleep(0.5)
        assert len(fake_ollama.chat_requests()) == 3 and not filed_notes(tidy_settings)
        # `ollama pull` brings a new version of the same model: a new digest in /api/tags.
        entry = fake_ollama._model_entry
        monkeypatch.setattr(fake_ollama, "_model_entry", lambda n: entry(n) | {"digest": "f00d"})
        fake_ollama.chat_handler = lambda body: answer("Dentist")
        # Filed, and then (a moment later: archive, remove) gone from the inbox.
        await eventually(
            lambda: bool(filed_notes(tidy_settings)) and not (tidy_settings.vault / rel).exists(),
            "filed with the new model",
        )
    finally:
        await svc.close()


async def test_another_chat_model_tries_marked_captures_again_at_once(
    tidy_settings: Settings, fake_ollama: FakeOllama
) -> None:
    put_capture(tidy_settings, WEEK[0])
    fake_ollama.chat_handler = lambda body: "this is not json"
    svc = TidyService(tidy_settings, make_llm(tidy_settings))
    await svc.startup()
    await run_until_idle(svc)
    await svc.close()
    assert svc.status()["failing"]
    # The owner sets another chat model and restarts the daemon.
    fake_ollama.models.append("llama3.2:3b")
    other = with_model(tidy_settings, chat_model="llama3.2:3b")
    fake_ollama.chat_handler = lambda body: answer("Dentist")
    again = TidyService(other, make_llm(other))
    try:
        await again.startup()
        await eventually(lambda: filed_notes(tidy_settings), "filed with the other model")
    finally:
        await again.close()
    assert fake_ollama.chat_requests()[-1]["model"] == "llama3.2:3b"


async def test_while_ollama_fails_no_other_capture_is_tried(
    tidy_settings: Settings, fake_ollama: FakeOllama
) -> None:
    """Ollama's trouble is not the capture's: the whole inbox waits with it, so a thousand
    captures against a dead Ollama are one try per backoff, not a thousand."""
    for name in WEEK:
        put_capture(tidy_settings, name)
    fake_ollama.chat_handler = lambda body: answer("Note")
    fake_ollama.enqueue_chat(FakeError(500, "out of memory"), FakeError(500, "out of memory"))
    svc = TidyService(tidy_settings, make_llm(tidy_settings))
    try:
        await svc.startup()
        await run_until_idle(svc)
    finally:
        await svc.close()
    seen = [capture_in(r).split("\n</capture>")[0] for r in fake_ollama.chat_requests()]
    oldest = body_of(sorted(WEEK)[0]).strip("\n")
    assert seen[:3] == [oldest] * 3  # two refused (the client's own retry), then filed
    assert len(seen) == 5 and len(filed_notes(tidy_settings)) == 3


async def test_while_ollama_is_down_what_needs_the_owner_is_still_shown(
    settings: Settings, dead_ollama_url: str
) -> None:
    down = fast(settings, dead_ollama_url, max_capture_kb=1, retry_s=60, retry_max_s=60)
    head = "---\ncaptured: 2026-10-19T07:00\n---\n"
    waiting = put_capture(down, "2026-10-19 0700.md", head + "buy flour\n")  # first in line
    big = put_capture(down, "2026-10-19 0710.md", head + "word " * 300)
    empty = put_capture(down, "2026-10-19 0720.md", head + "\n")
    nul = put_capture(down, "2026-10-19 0730.md", head + "half a\x00 file\n")
    latin = put_capture(down, "2026-10-19 0740.md", "")
    (down.vault / latin).write_bytes("café in Latin-1\n".encode("latin-1"))
    svc = TidyService(down, make_llm(down))
    try:
        await svc.startup()
        await eventually(lambda: len(svc.attention.entries()) == 4, "the four shown")
    finally:
        await svc.close()
    assert {e.path: e.code for e in svc.attention.entries()} == {
        big: "too_large",
        empty: "empty",
        nul: "not_text",
        latin: "not_text",
    }
    assert "NUL character" in str(svc.attention.get("tidy", nul))
    (still,) = svc.status()["waiting"]
    assert still["path"] == waiting and "not answering" in still["reason"]


async def test_ollama_is_asked_about_its_models_only_while_a_capture_is_marked(
    tidy_settings: Settings, fake_ollama: FakeOllama, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The check for a new model exists to retry marked captures; with none marked, an idle
    daemon must not wake Ollama (and its disk: it lists its models) every minute."""
    monkeypatch.setattr("commonplace.tidy.service.MODEL_CHECK_S", 0.05)
    fake_ollama.chat_handler = lambda body: "this is not json"
    svc = TidyService(tidy_settings, make_llm(tidy_settings))

    def listings() -> int:
        return sum(1 for r in fake_ollama.requests if r.path == "/api/tags")

    try:
        await svc.startup()  # an empty inbox: the worker and the model check start
        await run_until_idle(svc)
        await asyncio.sleep(0.6)  # a dozen check periods
        assert listings() == 0
        put_capture(tidy_settings, WEEK[0])
        await svc.scan()
        await run_until_idle(svc)  # three unusable answers: marked
        assert svc.status()["failing"]
        before = listings()
        await eventually(lambda: listings() >= before + 3, "checked while one is marked")
    finally:
        await svc.close()
