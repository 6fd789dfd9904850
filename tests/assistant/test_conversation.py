"""The day log: what the model hears of answers given while a turn ran, and the two locks."""

from __future__ import annotations

import asyncio
import fcntl
import os
import threading
from datetime import datetime
from pathlib import Path
from typing import Any

from commonplace.assistant import Assistant, checks
from commonplace.assistant.conversation import DayLog, fold
from tests.assistant.conftest import NOW, call
from tests.fakes.ollama import FakeOllama, Hold

PROPOSAL = {
    "type": "proposal",
    "id": "2026-10-26-aaaa",
    "kind": "remember",
    "params": {"fact": "x"},
    "question": "Remember x?",
    "day": "2026-10-26",
}
ANSWER = {"type": "answer", "id": "2026-10-26-aaaa", "answer": "yes", "ran": True, "message": "ok"}
NOTE = {"role": "user", "content": "[The owner answered Yes to: Remember x? Result: ok]"}


def user(text: str) -> dict[str, Any]:
    return {"type": "user", "text": text}


def reply(text: str, **extra: Any) -> dict[str, Any]:
    return {"type": "reply", "text": text, "model_text": text, **extra}


def heard(message: dict[str, Any]) -> dict[str, Any]:
    return {"type": "model", "message": message, "answer": "2026-10-26-aaaa"}


def test_an_answer_between_turns_is_its_own_turn() -> None:
    state = fold([PROPOSAL, user("a"), reply("A"), ANSWER, user("b"), reply("B")])
    assert state.history() == [
        {"role": "user", "content": "a"},
        {"role": "assistant", "content": "A"},
        NOTE,
        {"role": "user", "content": "b"},
        {"role": "assistant", "content": "B"},
    ]


def test_an_answer_the_model_heard_mid_turn_is_where_it_heard_it_once() -> None:
    state = fold([PROPOSAL, user("a"), ANSWER, heard(NOTE), reply("A")])
    assert state.history() == [{"role": "user", "content": "a"}, NOTE, _said("A")]


def test_an_answer_the_model_did_not_hear_comes_after_its_turn() -> None:
    state = fold([PROPOSAL, user("a"), ANSWER, reply("A")])
    assert state.history() == [{"role": "user", "content": "a"}, _said("A"), NOTE]


def test_an_answer_given_during_a_failed_or_cut_short_turn_is_still_heard() -> None:
    error = {"type": "error", "text": "Ollama is not answering."}
    assert fold([PROPOSAL, user("a"), ANSWER, error]).history() == [NOTE]
    # A crash left the turn open: the next message's turn still hears it.
    crashed = fold([PROPOSAL, user("a"), ANSWER, user("b"), reply("B")])
    assert crashed.history() == [NOTE, {"role": "user", "content": "b"}, _said("B")]
    assert fold([PROPOSAL, user("a"), ANSWER]).history() == [NOTE]  # read mid-turn


def test_an_answer_heard_in_a_failed_or_cut_short_turn_is_heard_again_after_it() -> None:
    """The model heard the Yes mid-turn, then the turn failed (or a crash cut it short): the
    turn is not sent back, so neither is where it heard the Yes. The Yes goes after it, or the
    next turn's model would believe the question still waits."""
    error = {"type": "error", "text": "Ollama is not answering."}
    asked = [user("a"), PROPOSAL, reply("A"), user("b"), ANSWER, heard(NOTE)]
    earlier = [{"role": "user", "content": "a"}, _said("A")]
    assert fold([*asked, error]).history() == [*earlier, NOTE]
    crashed = fold([*asked, user("c"), reply("C")])
    assert crashed.history() == [*earlier, NOTE, {"role": "user", "content": "c"}, _said("C")]
    assert fold(asked).history() == [*earlier, NOTE]  # read while the turn still runs
    # A turn that ends with its reply keeps the note where the model heard it, once.
    kept = fold([*asked, reply("B")]).history()
    assert kept == [*earlier, {"role": "user", "content": "b"}, NOTE, _said("B")]


def test_a_typed_yes_is_heard_as_the_answer_only() -> None:
    state = fold([PROPOSAL, user("yes"), ANSWER, reply("ok", typed_answer=True)])
    assert state.history() == [NOTE]


def test_appended_lines_stay_whole_when_many_write_at_once(tmp_path: Path) -> None:
    """Each append is one whole line under the file's lock, from threads here as from other
    processes: long lines written at once never interleave."""
    log = DayLog(NOW.date(), tmp_path / "day.jsonl")

    def write(n: int) -> None:
        for i in range(50):
            log.append({"type": "model", "message": {"content": f"{n}-{i} " + "x" * 70_000}}, NOW)

    threads = [threading.Thread(target=write, args=(n,)) for n in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    events = log.events()
    assert len(events) == 200
    assert {e["message"]["content"].split()[0] for e in events} == {
        f"{n}-{i}" for n in range(4) for i in range(50)
    }


async def test_an_answer_waits_for_another_process_answering_not_for_its_turn(
    assistant: Assistant, fake_ollama: FakeOllama, task_vault: Path, clock: list[datetime]
) -> None:
    """`commonplace chat` in another process: while it is in a turn, the daemon's answers go
    ahead; while it is answering (reading, deciding, writing), the daemon's answer waits."""
    fake_ollama.enqueue_chat(call("remember", fact="Sam is allergic to peanuts"), "Proposed.")
    [proposal] = (await assistant.respond("Remember it")).pending
    folder = assistant.settings.data_path / "assistant"

    def held(name: str) -> int:
        fd = os.open(folder / name, os.O_RDWR | os.O_CREAT, 0o600)
        fcntl.flock(fd, fcntl.LOCK_EX)  # another open file: as another process would hold it
        return fd

    turn = held(".turn.lock")
    try:
        outcome = await asyncio.wait_for(assistant.answer(proposal.id, yes=False), 30)
        assert outcome.message == "Nothing was changed."
    finally:
        os.close(turn)

    fake_ollama.enqueue_chat(call("forget", words="brother"), "Proposed.")
    [second] = (await assistant.respond("Forget that Sam is my brother")).pending
    deciding = held(".lock")
    answering = asyncio.create_task(assistant.answer(second.id, yes=True))
    try:
        await asyncio.sleep(0.5)
        assert not answering.done()
        assert "Sam is my brother" in (task_vault / "Memory.md").read_text()
    finally:
        os.close(deciding)
    assert (await asyncio.wait_for(answering, 30)).ran
    assert "Sam is my brother" not in (task_vault / "Memory.md").read_text()


async def test_a_no_given_while_the_model_writes_is_told_and_its_claim_corrected(
    assistant: Assistant, fake_ollama: FakeOllama, task_vault: Path
) -> None:
    """The owner says No while the last words stream: the model hears it and writes again; a
    claim of the change it still makes is corrected with what is true (a change was proposed,
    the owner said No: nothing was changed)."""
    fake_ollama.enqueue_chat(call("remember", fact="Sam is allergic to peanuts"), "Proposed.")
    [proposal] = (await assistant.respond("Remember it")).pending
    release = asyncio.Event()
    fake_ollama.enqueue_chat(Hold(release, "It is waiting for your answer."), "Done, I saved it.")
    turn = asyncio.create_task(assistant.respond("Is it saved?"))
    await _until(lambda: len(fake_ollama.chat_requests()) == 3)
    outcome = await asyncio.wait_for(assistant.answer(proposal.id, yes=False), 30)
    assert outcome.message == "Nothing was changed."
    release.set()
    done = await asyncio.wait_for(turn, 30)
    assert done.reply == "Done, I saved it.\n\n" + checks.NOTHING_CHANGED
    assert fake_ollama.chat_requests()[3]["messages"][-1] == {
        "role": "user",
        "content": '[The owner answered No to: Add to your memory note: "Sam is allergic to '
        'peanuts"? Result: Nothing was changed.]',
    }
    assert "peanuts" not in (task_vault / "Memory.md").read_text()


async def test_the_reply_is_written_after_an_answer_being_decided_elsewhere(
    assistant: Assistant, fake_ollama: FakeOllama, clock: list[datetime]
) -> None:
    """Another process (`commonplace chat`) is answering as the model's last words arrive:
    the turn waits for that answer to be written, then tells the model, so the reply written
    after it in the log is true of it."""
    fake_ollama.enqueue_chat(call("remember", fact="Sam is allergic to peanuts"), "Proposed.")
    [proposal] = (await assistant.respond("Remember it")).pending
    folder = assistant.settings.data_path / "assistant"
    fd = os.open(folder / ".lock", os.O_RDWR | os.O_CREAT, 0o600)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)  # another open file: as another process would hold it
        fake_ollama.enqueue_chat("It is waiting for your answer.", "It is saved now.")
        turn = asyncio.create_task(assistant.respond("Is it saved?"))
        # The last words are in and the turn waits for the answer being decided.
        await _until(lambda: assistant.conversations._decide.locked())
        assert not turn.done()
        day = assistant.conversations.day(clock[0].date())
        answer = {"type": "answer", "id": proposal.id, "answer": "yes", "ran": True}
        day.append(answer | {"message": "Added."}, clock[0])
    finally:
        os.close(fd)
    done = await asyncio.wait_for(turn, 30)
    assert done.reply == "It is saved now." and done.pending == []
    assert len(fake_ollama.chat_requests()) == 4


async def _until(check: Any, seconds: float = 20) -> None:
    deadline = asyncio.get_running_loop().time() + seconds
    while not check():
        assert asyncio.get_running_loop().time() < deadline, "timed out"
        await asyncio.sleep(0.02)


def _said(text: str) -> dict[str, Any]:
    return {"role": "assistant", "content": text}
