"""One capture end to end against the fake Ollama: hostile answers, your edit wins, crashes.

Every test ends with the same promise checked by `assert_filed_ok`: the filed note holds the
capture's words exactly and only fields that pass the program's checks.
"""

from __future__ import annotations

import asyncio
import dataclasses
import json
import logging
import re
import shutil
import threading
import time
from collections.abc import Callable
from datetime import date, datetime
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

import pytest

from commonplace.capture.inbox import Capture, parse_capture, read_capture, write_capture
from commonplace.config import Settings
from commonplace.llm import BadAnswer, make_llm
from commonplace.tidy import pipeline
from commonplace.tidy.catalog import VaultCatalog
from commonplace.tidy.filed_note import words_of
from commonplace.tidy.pipeline import CaptureEdited, TidyContext, tidy_capture
from commonplace.vault import atomic, parse_note
from tests.fakes.ollama import FakeOllama, Hold, Raw
from tests.models import with_model
from tests.tidy.conftest import answer, fast, filed_notes, put_capture

LONDON = ZoneInfo("Europe/London")
SHED = "2026-10-20 0805.md"
CLIPPING = "2026-10-21 2237.md"
NOW = datetime(2026, 10, 26, 9, 0, tzinfo=LONDON)


def context(settings: Settings) -> TidyContext:
    return TidyContext(settings, make_llm(settings), None, now=lambda: NOW)


def assert_filed_ok(settings: Settings, filed: Path, capture: Capture) -> None:
    """The filed note has the capture's words exactly, and only valid fields."""
    text = filed.read_text(encoding="utf-8")
    assert words_of(text, capture)
    assert filed.parent == settings.vault / settings.folder("filed")
    assert not filed.name.startswith(".") and filed.name.startswith(
        capture.captured.strftime("%Y-%m-%d %H%M ")
    )
    note = parse_note(f"{settings.folder('filed')}/{filed.name}", text)
    facts = VaultCatalog(settings).facts()
    assert note.frontmatter["capture_id"] == capture.capture_id
    assert note.frontmatter["captured"] == capture.captured.strftime("%Y-%m-%dT%H:%M")
    tags = note.frontmatter["tags"]
    assert len(tags) <= 5
    assert all(re.fullmatch(r"[^\W\d_][\w-]*", t) and t == t.lower() for t in tags)
    assert "urgent" not in tags
    user_titles = set(facts.titles.values())
    related = [r.removeprefix("[[").removesuffix("]]") for r in note.frontmatter["related"]]
    assert set(related) <= user_titles
    assert set(note.links) <= user_titles
    year_later = capture.day.replace(year=capture.day.year + 1)
    for todo in note.todos:
        assert todo.due is None or capture.day <= todo.due <= year_later
        assert not re.search(r"wire|\$|account|40-12-76", todo.text, re.IGNORECASE)


def inbox_bytes(settings: Settings, rel: str) -> bytes:
    return (settings.vault / rel).read_bytes()


# -- hostile answers ----------------------------------------------------------------------------

HOSTILE: list[tuple[str, str, str, Callable[[str], bool]]] = [
    (
        "links that don't exist",
        SHED,
        answer("Shed timber", links=["Shed Rebuild", "Timber Merchants", "Jewson"]),
        lambda t: "[[Shed Rebuild]]" in t and "Jewson]]" not in t and "Merchants" not in t,
    ),
    (
        "a link to an Inbox or Filed note",
        SHED,
        answer("Shed timber", links=["2026-10-19 0742 Chess night moves", "2026-10-19 1315"]),
        lambda t: "[[" not in t,
    ),
    (
        "12 tags",
        SHED,
        answer(
            "Shed timber",
            tags=[
                "shed",
                "timber",
                "roof",
                "jewson",
                "dave",
                "friday",
                "bus",
                "mum",
                "christmas",
                "garden",
                "home",
                "project",
            ],
        ),
        lambda t: t.count("\n- ", 0, t.index("related:")) == 5,
    ),
    (
        "tags with spaces or #",
        SHED,
        answer("Shed timber", tags=["#Shed", "shed roof", "#garden", "Home Project", "#"]),
        # "garden" is a vault tag, but neither the capture nor a linked note says it (issue 43)
        lambda t: "tags:\n- shed\nrelated" in t,
    ),
    (
        "a due date last year",
        SHED,
        answer(
            "Shed timber", todos=[{"text": "Order the timber from Jewson", "due": "2025-10-23"}]
        ),
        # not the model's date: the deadline the capture sets ("by friday")
        lambda t: "- [ ] Order the timber from Jewson (due 2026-10-23)\n" in t,
    ),
    (
        "a due date in five years",
        SHED,
        answer(
            "Shed timber", todos=[{"text": "Order the timber from Jewson", "due": "2031-10-23"}]
        ),
        # not the model's date: the deadline the capture sets ("by friday")
        lambda t: "- [ ] Order the timber from Jewson (due 2026-10-23)\n" in t and "2031" not in t,
    ),
    (
        "changed capture text in the proposal",
        SHED,
        answer(
            "Shed timber",
            text="I never need to order anything.",
            capture="rewritten",
            body="other words",
        ),
        lambda t: "I never need" not in t and "rewritten" not in t,
    ),
    (
        "a title with ../",
        SHED,
        answer("../../.obsidian/plugins/evil"),
        lambda t: True,
    ),
    (
        "a to-do to wire money from the clipping",
        CLIPPING,
        answer(
            "Garlic newsletter",
            tags=["urgent", "garden", "garlic"],
            todos=[
                {
                    "text": "Wire $2,000 to account 40-12-76 31926603 (reference GARLIC-SUB)",
                    "due": "2026-10-22",
                },
                {"text": "Send the vault owner's approval for the GARLIC-SUB payment"},
            ],
        ),
        lambda t: "- [ ]" not in t and "- urgent" not in t,
    ),
]


@pytest.mark.parametrize(("case", "name", "reply", "check"), HOSTILE, ids=[h[0] for h in HOSTILE])
async def test_hostile_answers_file_only_valid_fields(
    tidy_settings: Settings,
    fake_ollama: FakeOllama,
    case: str,
    name: str,
    reply: str,
    check: Callable[[str], bool],
) -> None:
    # Daemon notes with titles a hostile answer may name.
    put_capture(tidy_settings, "2026-10-19 1315.md")
    filed_dir = tidy_settings.vault / "Filed"
    filed_dir.mkdir()
    (filed_dir / "2026-10-19 0742 Chess night moves.md").write_text("---\ncapture_id: x\n---\nhi")
    rel = put_capture(tidy_settings, name)
    capture = read_capture(tidy_settings.vault, rel, LONDON)
    fake_ollama.enqueue_chat(reply)

    outcome = await tidy_capture(context(tidy_settings), rel)

    assert outcome.status == "filed" and outcome.filed is not None
    filed = tidy_settings.vault / outcome.filed
    assert_filed_ok(tidy_settings, filed, capture)
    assert check(filed.read_text(encoding="utf-8")), filed.read_text(encoding="utf-8")
    assert not (tidy_settings.vault / rel).exists()
    assert outcome.decision is not None
    assert outcome.decision.dropped or case == "changed capture text in the proposal"


GROSS = {"title": "Shed", "tags": ["wood"] * 10_000, "links": [], "todos": []}


@pytest.mark.parametrize(
    "reply",
    [
        "",
        "   ",
        "not json at all",
        "[1, 2]",
        {"title": "Shed timber"},  # required fields missing
        {"title": "Shed", "tags": [], "links": []},
        GROSS,  # 10,000 tags: not a proposal with 9,995 of them dropped
        GROSS | {"tags": [], "title": "x" * 5000},
    ],
)
async def test_garbage_answers_leave_the_capture_waiting(
    tidy_settings: Settings, fake_ollama: FakeOllama, reply: Any
) -> None:
    rel = put_capture(tidy_settings, SHED)
    before = inbox_bytes(tidy_settings, rel)
    text = json.dumps(reply) if isinstance(reply, dict) else json.dumps(reply)[1:-1]
    fake_ollama.enqueue_chat(text)
    with pytest.raises(BadAnswer):
        await tidy_capture(context(tidy_settings), rel)
    assert filed_notes(tidy_settings) == []
    assert inbox_bytes(tidy_settings, rel) == before
    # The next, good answer files it.
    fake_ollama.enqueue_chat(answer("Shed timber"))
    outcome = await tidy_capture(context(tidy_settings), rel)
    capture = read_capture_bytes(before, rel)
    assert_filed_ok(tidy_settings, tidy_settings.vault / str(outcome.filed), capture)


async def test_an_unreadable_reply_from_ollama_is_retried_not_counted(
    tidy_settings: Settings, fake_ollama: FakeOllama
) -> None:
    rel = put_capture(tidy_settings, SHED)
    fake_ollama.enqueue_chat(Raw("{}{", 200), answer("Shed timber"))  # a body cut short, then ok
    outcome = await tidy_capture(context(tidy_settings), rel)
    assert outcome.status == "filed" and len(fake_ollama.chat_requests()) == 2


def read_capture_bytes(data: bytes, rel: str) -> Capture:
    return parse_capture(rel, data, LONDON)


async def test_request_carries_schema_and_fenced_capture(
    tidy_settings: Settings, fake_ollama: FakeOllama
) -> None:
    rel = put_capture(tidy_settings, SHED)
    fake_ollama.enqueue_chat(answer("Shed timber"))
    await tidy_capture(context(tidy_settings), rel)
    (request,) = fake_ollama.chat_requests()
    assert request["format"]["properties"]["links"]["maxItems"] == 0  # no index: no candidates
    user = request["messages"][1]["content"]
    assert "<capture>\num so I'm on the bus" in user
    # The model picks the capture's words for a day; it is given no date to compute from.
    assert 'Days the capture names: "by friday"' in user
    assert "2026" not in user
    assert request["format"]["properties"]["todos"]["items"]["properties"]["when"]["enum"] == [
        "by friday",
        "",
    ]


@pytest.mark.parametrize("num_ctx", [0, 16384])
async def test_a_capture_larger_than_the_context_is_tidied_from_an_excerpt(
    tidy_settings: Settings, fake_ollama: FakeOllama, num_ctx: int
) -> None:
    """Ollama would silently cut a prompt past num_ctx, rules first; the model is shown the
    capture's beginning and end instead, and the filed note still holds every word."""
    settings = with_model(tidy_settings, num_ctx=num_ctx)
    pasted = "".join(
        f"Paragraph {i}: notes on the Ashdown survey, page {i}.\n" for i in range(3000)
    )
    text = (
        f"---\ncaptured: 2026-10-20T08:05\nvia: web\n---\nremind me to read this\n{pasted}last line"
    )
    rel = put_capture(settings, "2026-10-20 0805.md", text)
    capture = read_capture(settings.vault, rel, LONDON)
    fake_ollama.enqueue_chat(answer("Ashdown survey"))
    outcome = await tidy_capture(context(settings), rel)
    assert outcome.status == "filed" and outcome.filed
    (record,) = fake_ollama.chat_records()
    assert not record.truncated  # Ollama did not have to cut anything
    user = record.body["messages"][1]["content"]
    assert "remind me to read this" in user and "last line" in user
    assert "characters of this capture are not shown here" in user
    context_tokens = num_ctx or 4096
    assert record.prompt_tokens < context_tokens - 1024  # room left for the answer
    if num_ctx:
        assert len(user) > 40_000  # a larger context shows more of the capture
    assert_filed_ok(settings, settings.vault / outcome.filed, capture)


# -- your edit wins -----------------------------------------------------------------------------


async def test_edit_during_a_slow_answer_wins(
    tidy_settings: Settings, fake_ollama: FakeOllama
) -> None:
    rel = put_capture(tidy_settings, SHED)
    release = asyncio.Event()  # the model answers once the edit is made, however slow that is
    fake_ollama.enqueue_chat(Hold(release, answer("Shed timber", tags=["shed"])))
    task = asyncio.create_task(tidy_capture(context(tidy_settings), rel))
    async with asyncio.timeout(60):
        while not fake_ollama.chat_requests():  # noqa: ASYNC110 - the model is now "thinking"
            await asyncio.sleep(0.01)
    edited = inbox_bytes(tidy_settings, rel) + b"\nPS: and the felt for the roof"
    (tidy_settings.vault / rel).write_bytes(edited)
    release.set()
    with pytest.raises(CaptureEdited):
        await task
    assert filed_notes(tidy_settings) == []
    assert inbox_bytes(tidy_settings, rel) == edited
    # Once it is tidied again, the note has the edited words.
    fake_ollama.enqueue_chat(answer("Shed timber and felt"))
    outcome = await tidy_capture(context(tidy_settings), rel)
    filed = tidy_settings.vault / str(outcome.filed)
    assert "PS: and the felt for the roof" in filed.read_text()
    assert_filed_ok(tidy_settings, filed, read_capture_bytes(edited, rel))


async def test_a_capture_filed_meanwhile_by_another_computer_is_not_filed_again(
    tidy_settings: Settings, fake_ollama: FakeOllama, tmp_path: Path
) -> None:
    """Two computers sync the vault; the other one's filed note arrives while our model is
    still answering. The vault is checked again just before writing: one filed note."""
    rel = put_capture(tidy_settings, SHED)
    other = dataclasses.replace(
        tidy_settings, vault=tmp_path / "other-vault", data_dir=tmp_path / "other-data"
    )
    shutil.copytree(tidy_settings.vault, other.vault)
    fake_ollama.enqueue_chat(answer("Timber order"))
    theirs = await tidy_capture(context(other), rel)
    assert theirs.status == "filed" and theirs.filed is not None
    release = asyncio.Event()  # our model answers once the other filing has arrived
    fake_ollama.enqueue_chat(Hold(release, answer("Shed timber", tags=["shed"])))
    task = asyncio.create_task(tidy_capture(context(tidy_settings), rel))
    async with asyncio.timeout(60):
        while len(fake_ollama.chat_requests()) < 2:  # noqa: ASYNC110 - ours is "thinking"
            await asyncio.sleep(0.01)
    synced = tidy_settings.vault / theirs.filed
    synced.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(other.vault / theirs.filed, synced)  # the sync tool delivers it
    release.set()
    ours = await task
    assert (ours.status, ours.filed) == ("finished", theirs.filed)
    assert filed_notes(tidy_settings) == [synced]
    assert not (tidy_settings.vault / rel).exists()


async def test_finishing_a_capture_filed_meanwhile_never_blocks_the_event_loop(
    tidy_settings: Settings,
    fake_ollama: FakeOllama,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Finishing (archive, then the delete, which waits while git holds the vault) runs in a
    thread: searches and captures are answered meanwhile. The model's answer is held until
    the other device's filing is in place, and the delete waits for git far longer than the
    test needs, so a busy machine cannot change the order."""
    monkeypatch.setattr(atomic, "GIT_WAIT_S", 60.0)
    rel = put_capture(tidy_settings, SHED)
    other = dataclasses.replace(
        tidy_settings, vault=tmp_path / "other-vault", data_dir=tmp_path / "other-data"
    )
    shutil.copytree(tidy_settings.vault, other.vault)
    fake_ollama.enqueue_chat(answer("Timber order"))
    theirs = await tidy_capture(context(other), rel)
    assert theirs.filed is not None
    release = asyncio.Event()
    fake_ollama.enqueue_chat(Hold(release, answer("Shed timber")))
    task = asyncio.create_task(tidy_capture(context(tidy_settings), rel))
    async with asyncio.timeout(60):
        while len(fake_ollama.chat_requests()) < 2:  # noqa: ASYNC110 - ours is "thinking"
            await asyncio.sleep(0.01)
    synced = tidy_settings.vault / theirs.filed
    synced.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(other.vault / theirs.filed, synced)
    lock = tidy_settings.vault / ".git" / "index.lock"
    lock.parent.mkdir()
    lock.touch()  # git runs: the delete waits for it
    release.set()  # the model answers
    ticks = 0
    loop_ran = threading.Event()
    archive = tidy_settings.data_path / "tidy" / "archive"

    def git_ends_once_the_loop_ran() -> None:
        deadline = time.monotonic() + 50  # under the 60 s a delete waits for git here
        while not archive.exists() and time.monotonic() < deadline:
            time.sleep(0.01)  # finishing has begun: the delete is waiting for git
        seen = ticks
        while time.monotonic() < deadline:
            if ticks > seen:
                loop_ran.set()
                break
            time.sleep(0.01)
        lock.unlink()

    async def tick() -> None:
        nonlocal ticks
        while True:
            ticks += 1
            await asyncio.sleep(0.01)

    ticker = asyncio.create_task(tick())
    thread = threading.Thread(target=git_ends_once_the_loop_ran)
    thread.start()
    try:
        ours = await task
    finally:
        ticker.cancel()
        thread.join(10)
    assert (ours.status, ours.filed) == ("finished", theirs.filed)
    assert loop_ran.is_set()
    assert not (tidy_settings.vault / rel).exists()


# -- nothing lost, nothing doubled --------------------------------------------------------------


class Crash(Exception):
    pass


STEPS = ["write_filed", "verify_filed", "archive_capture", "remove_capture", "remove_stale"]


@pytest.mark.parametrize("when", ["before", "after"])
@pytest.mark.parametrize("step", STEPS[:4])
async def test_a_crash_at_any_step_loses_nothing_and_doubles_nothing(
    tidy_settings: Settings,
    fake_ollama: FakeOllama,
    monkeypatch: pytest.MonkeyPatch,
    step: str,
    when: str,
) -> None:
    rel = put_capture(tidy_settings, SHED)
    original = inbox_bytes(tidy_settings, rel)
    capture = read_capture_bytes(original, rel)
    real = getattr(pipeline, step)

    def crashing(*args: Any, **kwargs: Any) -> Any:
        if when == "before":
            raise Crash(step)
        real(*args, **kwargs)
        raise Crash(step)

    monkeypatch.setattr(pipeline, step, crashing)
    fake_ollama.enqueue_chat(answer("Shed timber", tags=["shed"]))
    with pytest.raises(Crash):
        await tidy_capture(context(tidy_settings), rel)
    done = step == "remove_capture" and when == "after"
    if not done:
        assert inbox_bytes(tidy_settings, rel) == original
    assert len(filed_notes(tidy_settings)) <= 1

    # Restart: a new context, the real steps, a model answer available if needed.
    monkeypatch.setattr(pipeline, step, real)
    fake_ollama.enqueue_chat(answer("Shed timber again", tags=["shed"]))
    outcome = await tidy_capture(context(tidy_settings), rel)
    notes = filed_notes(tidy_settings)
    assert len(notes) == 1
    assert_filed_ok(tidy_settings, notes[0], capture)
    assert not (tidy_settings.vault / rel).exists()
    archived = list((tidy_settings.data_path / "tidy" / "archive").glob("*.md"))
    assert [p.read_bytes() for p in archived] == [original]
    wrote_note = step not in ("write_filed",) or when == "after"
    assert outcome.status == (
        "finished" if wrote_note and not done else "gone" if done else "filed"
    )
    assert len(fake_ollama.chat_requests()) == (1 if wrote_note else 2)


async def test_capture_edited_after_filing_replaces_the_untouched_note(
    tidy_settings: Settings, fake_ollama: FakeOllama, monkeypatch: pytest.MonkeyPatch
) -> None:
    rel = put_capture(tidy_settings, SHED)
    real = pipeline.verify_filed

    def crash_after(*args: Any) -> None:
        real(*args)
        raise Crash

    monkeypatch.setattr(pipeline, "verify_filed", crash_after)
    fake_ollama.enqueue_chat(answer("Old words"))
    with pytest.raises(Crash):
        await tidy_capture(context(tidy_settings), rel)
    monkeypatch.setattr(pipeline, "verify_filed", real)
    edited = inbox_bytes(tidy_settings, rel) + b"\nand the felt"
    (tidy_settings.vault / rel).write_bytes(edited)

    fake_ollama.enqueue_chat(answer("New words"))
    outcome = await tidy_capture(context(tidy_settings), rel)
    assert outcome.status == "filed"
    notes = filed_notes(tidy_settings)
    assert [n.name for n in notes] == ["2026-10-20 0805 New words.md"]
    assert_filed_ok(tidy_settings, notes[0], read_capture_bytes(edited, rel))


async def test_a_stale_note_the_user_edited_is_left_alone(
    tidy_settings: Settings, fake_ollama: FakeOllama, monkeypatch: pytest.MonkeyPatch
) -> None:
    rel = put_capture(tidy_settings, SHED)
    real = pipeline.verify_filed

    def crash_after(*args: Any) -> None:
        real(*args)
        raise Crash

    monkeypatch.setattr(pipeline, "verify_filed", crash_after)
    fake_ollama.enqueue_chat(answer("Old words"))
    with pytest.raises(Crash):
        await tidy_capture(context(tidy_settings), rel)
    monkeypatch.setattr(pipeline, "verify_filed", real)
    (old,) = filed_notes(tidy_settings)
    old.write_text(old.read_text() + "\nmy own comment\n")
    (tidy_settings.vault / rel).write_bytes(inbox_bytes(tidy_settings, rel) + b"\nmore")

    fake_ollama.enqueue_chat(answer("New words"))
    await tidy_capture(context(tidy_settings), rel)
    assert "my own comment" in old.read_text()
    assert len(filed_notes(tidy_settings)) == 2


def git_starts_after(
    settings: Settings, monkeypatch: pytest.MonkeyPatch, step: str, edit: Callable[[], None]
) -> threading.Thread:
    """After `step`, a git operation takes the vault's lock; while it holds it, the owner makes
    `edit`; then git ends. Returns the thread doing it (join it)."""
    lock = settings.vault / ".git" / "index.lock"
    lock.parent.mkdir(exist_ok=True)
    real = getattr(pipeline, step)
    started = threading.Event()

    def owner_edits_while_git_runs() -> None:
        started.wait(10)
        edit()
        lock.unlink()

    thread = threading.Thread(target=owner_edits_while_git_runs)

    def step_then_git(*args: Any) -> Any:
        result = real(*args)
        lock.touch()
        thread.start()
        threading.Timer(0.3, started.set).start()  # well inside the 5 s a delete waits for git
        return result

    monkeypatch.setattr(pipeline, step, step_then_git)
    return thread


async def test_words_written_while_the_delete_waits_for_git_are_never_deleted(
    tidy_settings: Settings, fake_ollama: FakeOllama, monkeypatch: pytest.MonkeyPatch
) -> None:
    rel = put_capture(tidy_settings, SHED)
    edited = inbox_bytes(tidy_settings, rel) + b"\nand ask Dave about the felt\n"
    thread = git_starts_after(
        tidy_settings,
        monkeypatch,
        "archive_capture",  # the step just before the capture leaves the inbox
        lambda: (tidy_settings.vault / rel).write_bytes(edited),
    )
    fake_ollama.enqueue_chat(answer("Shed timber"))
    with pytest.raises(CaptureEdited):
        await tidy_capture(context(tidy_settings), rel)
    thread.join(10)
    assert inbox_bytes(tidy_settings, rel) == edited  # kept: these words were not filed

    # Tidied again as a new change: the new words are filed, the untouched old note replaced.
    monkeypatch.undo()
    fake_ollama.enqueue_chat(answer("Shed timber and felt"))
    outcome = await tidy_capture(context(tidy_settings), rel)
    assert outcome.status == "filed"
    (note,) = filed_notes(tidy_settings)
    assert_filed_ok(tidy_settings, note, read_capture_bytes(edited, rel))
    assert not (tidy_settings.vault / rel).exists()


async def test_an_old_note_edited_while_its_delete_waits_for_git_is_kept(
    tidy_settings: Settings, fake_ollama: FakeOllama, monkeypatch: pytest.MonkeyPatch
) -> None:
    rel = put_capture(tidy_settings, SHED)
    real = pipeline.verify_filed

    def crash_after(*args: Any) -> None:
        real(*args)
        raise Crash

    monkeypatch.setattr(pipeline, "verify_filed", crash_after)
    fake_ollama.enqueue_chat(answer("Old words"))
    with pytest.raises(Crash):
        await tidy_capture(context(tidy_settings), rel)
    monkeypatch.undo()
    (old,) = filed_notes(tidy_settings)
    (tidy_settings.vault / rel).write_bytes(inbox_bytes(tidy_settings, rel) + b"\nmore")

    def comment() -> None:
        old.write_text(old.read_text(encoding="utf-8") + "\nmy own comment\n", encoding="utf-8")

    thread = git_starts_after(tidy_settings, monkeypatch, "verify_filed", comment)
    fake_ollama.enqueue_chat(answer("New words"))
    await tidy_capture(context(tidy_settings), rel)
    thread.join(10)
    assert "my own comment" in old.read_text(encoding="utf-8")
    assert len(filed_notes(tidy_settings)) == 2


@pytest.mark.parametrize(
    "second_words",
    ["ring Dave\n", "buy eggs\n"],
    ids=["the start of the first's words", "other words"],
)
async def test_a_second_capture_with_the_same_name_and_minute_is_filed_and_archived(
    tidy_settings: Settings, fake_ollama: FakeOllama, second_words: str
) -> None:
    minute = datetime(2026, 10, 20, 12, 48)
    ctx = context(tidy_settings)
    first = write_capture(tidy_settings, "ring Dave\nabout the shed roof\n", "phone", minute)
    first_bytes = inbox_bytes(tidy_settings, first)
    fake_ollama.enqueue_chat(answer("Ring Dave"))
    assert (await tidy_capture(ctx, first)).status == "filed"
    second = write_capture(tidy_settings, second_words, "phone", minute)
    assert second == first  # the name is free again: the same capture_id
    second_bytes = inbox_bytes(tidy_settings, second)
    fake_ollama.enqueue_chat(answer("Second thought"))
    outcome = await tidy_capture(ctx, second)
    assert outcome.status == "filed"
    a, b = filed_notes(tidy_settings)
    assert_filed_ok(tidy_settings, a, read_capture_bytes(first_bytes, first))
    assert_filed_ok(tidy_settings, b, read_capture_bytes(second_bytes, second))
    archived = (tidy_settings.data_path / "tidy" / "archive").glob("*.md")
    assert sorted(p.read_bytes() for p in archived) == sorted([first_bytes, second_bytes])
    assert not (tidy_settings.vault / second).exists()


# -- names, dry runs, empty captures --------------------------------------------------------


async def test_two_captures_in_the_same_minute(
    tidy_settings: Settings, fake_ollama: FakeOllama
) -> None:
    minute = datetime(2026, 10, 20, 12, 48)
    first = write_capture(tidy_settings, "lunch with zoë, checkout flows", "phone", minute)
    second = write_capture(tidy_settings, "and priya says the cert is late", "phone", minute)
    fake_ollama.enqueue_chat(answer("Lunch"), answer("Lunch"))
    ctx = context(tidy_settings)
    a = await tidy_capture(ctx, first)
    b = await tidy_capture(ctx, second)
    assert (a.filed, b.filed) == (
        "Filed/2026-10-20 1248 Lunch.md",
        "Filed/2026-10-20 1248 Lunch 2.md",
    )
    ids = {
        parse_note("x.md", n.read_text()).frontmatter["capture_id"]
        for n in filed_notes(tidy_settings)
    }
    assert len(ids) == 2
    assert list((tidy_settings.vault / "Inbox").glob("*.md")) == []


async def test_a_capture_whose_name_is_near_the_limit_is_filed_and_archived(
    tidy_settings: Settings, fake_ollama: FakeOllama
) -> None:
    """A clipping named after a long page title (here 80 Japanese characters, 243 bytes): its
    archive copy and temp files add to the name. They went past 255 bytes, so it was never
    filed and said 'check the disk' for ever."""
    name = "2026-10-20 0805 " + "長" * 75 + ".md"
    assert 240 < len(name.encode("utf-8")) <= 255
    rel = put_capture(tidy_settings, name, "---\ncaptured: 2026-10-20T08:05\n---\nthe words\n")
    data = inbox_bytes(tidy_settings, rel)
    fake_ollama.enqueue_chat(answer("Long clipping"))
    outcome = await tidy_capture(context(tidy_settings), rel)
    assert outcome.status == "filed" and not (tidy_settings.vault / rel).exists()
    (filed,) = filed_notes(tidy_settings)
    assert_filed_ok(tidy_settings, filed, read_capture_bytes(data, rel))
    (archived,) = (tidy_settings.data_path / "tidy" / "archive").iterdir()
    assert archived.read_bytes() == data and archived.name.endswith("長.md")
    assert len(archived.name.encode("utf-8")) <= 255


async def test_dry_run_writes_nothing(tidy_settings: Settings, fake_ollama: FakeOllama) -> None:
    rel = put_capture(tidy_settings, SHED)
    fake_ollama.enqueue_chat(answer("Shed timber", tags=["a b"]))
    outcome = await tidy_capture(context(tidy_settings), rel, dry_run=True)
    assert outcome.status == "dry-run" and outcome.decision is not None
    assert outcome.decision.dropped[0].value == "a b"
    assert filed_notes(tidy_settings) == []
    assert (tidy_settings.vault / rel).exists()
    assert not (tidy_settings.data_path / "tidy" / "archive").exists()


async def test_empty_capture_is_left_alone(
    tidy_settings: Settings, fake_ollama: FakeOllama
) -> None:
    rel = put_capture(
        tidy_settings, "2026-10-20 0900.md", "---\ncaptured: 2026-10-20T09:00\n---\n\n"
    )
    outcome = await tidy_capture(context(tidy_settings), rel)
    assert outcome.status == "empty"
    assert (tidy_settings.vault / rel).exists() and fake_ollama.chat_requests() == []


@pytest.mark.parametrize("flavor", ["obsidian", "logseq"])
async def test_a_captured_value_that_is_no_time_is_kept_in_the_filed_note_and_logged(
    settings: Settings, fake_ollama: FakeOllama, caplog: pytest.LogCaptureFixture, flavor: str
) -> None:
    """It was dropped without a word: the note took its file name's time and the owner's own
    value was lost (`captured` is one of the keys the filed note writes itself)."""
    quick = fast(dataclasses.replace(settings, flavor=flavor), fake_ollama.url)
    if flavor == "logseq":
        text = "captured:: yesterday after the match\n\nthe shed roof leaks again\n"
    else:
        text = "---\ncaptured: yesterday after the match\n---\nthe shed roof leaks again\n"
    rel = put_capture(quick, "2026-10-20 0900.md", text)
    fake_ollama.enqueue_chat(answer("Shed roof"))
    with caplog.at_level(logging.WARNING, logger="commonplace.tidy.pipeline"):
        outcome = await tidy_capture(context(quick), rel)
    assert outcome.status == "filed" and outcome.filed is not None
    note = parse_note(outcome.filed, (quick.vault / outcome.filed).read_text(), flavor=flavor)
    assert note.frontmatter["captured"] == "2026-10-20T09:00"  # from its file name
    key = "captured_original" if flavor == "obsidian" else "captured-original"
    assert note.frontmatter[key] == "yesterday after the match"
    assert "the shed roof leaks again" in note.body
    [warning] = [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]
    assert warning.startswith(
        f"{rel}: its 'captured' value is no time; filed with 2026-10-20T09:00"
    )
    assert outcome.filed in warning and "after the match" not in warning  # no words in the log


async def test_todo_format_setting_reaches_the_filed_note(
    tidy_settings: Settings, fake_ollama: FakeOllama
) -> None:
    settings = dataclasses.replace(
        tidy_settings, tidy=dataclasses.replace(tidy_settings.tidy, todo_format="tasks")
    )
    rel = put_capture(settings, SHED)
    todo = {"text": "Order the timber for the shed roof", "due": "2026-10-23"}
    fake_ollama.enqueue_chat(answer("Shed timber", todos=[todo]))
    await tidy_capture(context(settings), rel)
    (filed,) = filed_notes(settings)
    assert "- [ ] Order the timber for the shed roof 📅 2026-10-23" in filed.read_text()


async def test_delete_setting_keeps_no_archive(
    tidy_settings: Settings, fake_ollama: FakeOllama
) -> None:
    settings = dataclasses.replace(
        tidy_settings, tidy=dataclasses.replace(tidy_settings.tidy, after_filing="delete")
    )
    rel = put_capture(settings, SHED)
    fake_ollama.enqueue_chat(answer("Shed timber"))
    await tidy_capture(context(settings), rel)
    assert len(filed_notes(settings)) == 1 and not (settings.vault / rel).exists()
    assert not (settings.data_path / "tidy" / "archive").exists()


async def test_logseq_flavour_end_to_end(settings: Settings, fake_ollama: FakeOllama) -> None:
    logseq = fast(dataclasses.replace(settings, flavor="logseq"), fake_ollama.url)
    rel = put_capture(logseq, SHED)
    fake_ollama.enqueue_chat(
        answer(
            "Shed timber",
            tags=["garden"],
            links=["Shed Rebuild"],
            todos=[{"text": "Order the timber from Jewson", "due": "2026-10-23"}],
        )
    )
    outcome = await tidy_capture(context(logseq), rel)
    assert outcome.filed == "pages/Filed/2026-10-20 0805 Shed timber.md"
    text = (logseq.vault / outcome.filed).read_text()
    note = parse_note(outcome.filed, text, flavor="logseq")
    assert note.todos[0].due == date(2026, 10, 23)
    # A new task is LATER, as Logseq's default workflow (`:preferred-workflow :now`) writes it.
    assert "- LATER Order the timber from Jewson\n  DEADLINE: <2026-10-23 Fri>\n" in text
    assert note.frontmatter["tags"] == "garden"
    assert "- Related: [[Shed Rebuild]]" in text
    # A restart recognises the Logseq note by its capture-id property.
    put_capture(logseq, SHED)
    again = await tidy_capture(context(logseq), rel)
    assert again.status == "finished" and again.filed == outcome.filed


def test_a_taken_name_keeps_its_journal_entry(tidy_settings: Settings) -> None:
    """Filing a second note under a name already used must not touch the first note's record,
    which a restart needs to tell the daemon's own unfinished note from one the user edited."""
    from commonplace.capture.inbox import read_capture
    from commonplace.tidy.models import Decision
    from commonplace.tidy.pipeline import TidyContext, write_filed

    ctx = TidyContext(tidy_settings, make_llm(tidy_settings))
    assert ctx.journal is not None
    rel = put_capture(
        tidy_settings, "2026-10-19 0812.md", "---\ncaptured: 2026-10-19T08:12\n---\nx\n"
    )
    capture = read_capture(tidy_settings.vault, rel, tidy_settings.tz)
    decision = Decision("Same title", (), (), (), ())
    first = write_filed(ctx, capture, decision, "the first note\n")
    recorded = ctx.journal.written(first)
    second = write_filed(ctx, capture, decision, "the second note\n")
    assert second != first and second.endswith("Same title 2.md")
    assert ctx.journal.written(first) == recorded


async def test_a_name_freed_in_the_same_minute_never_costs_the_first_capture_its_note(
    tidy_settings: Settings, fake_ollama: FakeOllama, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A capture filed and removed frees its name; the next capture in the same minute takes it,
    with the same capture_id. A crash just as the first one left the inbox must not leave the
    journal calling the first one's filed note ours to replace: filing the second would then
    delete it."""
    minute = datetime(2026, 10, 20, 12, 48)
    first = write_capture(tidy_settings, "lunch with zoë, checkout flows", "phone", minute)
    real = pipeline.remove_capture

    def crash_after(*args: Any) -> None:
        real(*args)
        raise Crash

    monkeypatch.setattr(pipeline, "remove_capture", crash_after)
    fake_ollama.enqueue_chat(answer("Lunch"))
    with pytest.raises(Crash):
        await tidy_capture(context(tidy_settings), first)
    monkeypatch.setattr(pipeline, "remove_capture", real)
    [lunch] = filed_notes(tidy_settings)
    kept = lunch.read_text()

    second = write_capture(tidy_settings, "and priya says the cert is late", "phone", minute)
    assert second == first  # the freed name, so the same capture_id
    fake_ollama.enqueue_chat(answer("Cert"))
    outcome = await tidy_capture(context(tidy_settings), second)
    assert outcome.status == "filed"
    assert lunch.read_text() == kept
    assert sorted(n.name for n in filed_notes(tidy_settings)) == [
        "2026-10-20 1248 Cert.md",
        "2026-10-20 1248 Lunch.md",
    ]
