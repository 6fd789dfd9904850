"""One read rule for every part that reads the vault (issue 16, item 1).

A symbolic link `Inbox/x.md -> ~/.ssh/id_rsa` was once read, sent to the model, filed, archived,
indexed and then removed. Here the same kinds of entry (a link out of the vault, a link inside it,
a FIFO) sit in a vault, and each reader runs: tidy, Ask notes, the index, the dictation name
hint, the digest, the assistant's notes, `doctor`, and (in tests/server/test_read_rule_api.py)
`/api/note` and `/api/state`. None may read them (the secret's words appear nowhere), none may
block, and the entries stay exactly where they are, reported with a reason where the issue asks
for it.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from commonplace.ask.service import AskService
from commonplace.assistant.actions import Stale
from commonplace.assistant.vaultfiles import read_snapshot
from commonplace.config import Settings
from commonplace.digest.collect import vault_notes
from commonplace.doctor.checks import inbox_checks, skipped_checks
from commonplace.index import Index
from commonplace.llm import make_llm
from commonplace.runtime.changes import Change
from commonplace.speech.hints import vault_names
from commonplace.tidy.service import TidyService
from commonplace.tidy.vetting import vet_all
from commonplace.vault import FileRefused
from tests.ask.helpers import FixedIndex, cite_passage_with, hit
from tests.daemon_process import Daemon, filed, tidy_answer
from tests.fakes.ollama import FakeOllama
from tests.models import with_model
from tests.tidy.conftest import answer, fast, filed_notes, put_capture

MARK = "Quetzalcoatl"
SECRET = f"---\ncaptured: 2026-10-20T08:05\n---\nprivate key of {MARK}. Ask {MARK} twice.\n"
WAIT_S = 10


@pytest.fixture
def secret(tmp_path: Path) -> Path:
    path = tmp_path / "outside" / "id_rsa"
    path.parent.mkdir()
    path.write_text(SECRET)
    return path


@pytest.fixture
def fifo_cleanup() -> Iterator[list[Path]]:
    """FIFOs made by a test. A read blocked on one (the bug this guards against) would hang the
    event loop for ever, so after a while a thread keeps releasing every reader: the test then
    fails on its assertions instead of hanging."""
    made: list[Path] = []
    done = threading.Event()

    def release() -> None:
        for path in made:
            with contextlib.suppress(OSError):
                os.close(os.open(path, os.O_WRONLY | os.O_NONBLOCK))

    def keep_releasing() -> None:
        if not done.wait(WAIT_S * 1.5):
            while not done.wait(0.1):
                release()

    threading.Thread(target=keep_releasing, daemon=True).start()
    yield made
    done.set()
    release()


def plant(settings: Settings, secret: Path, folder: str, fifos: list[Path]) -> list[str]:
    """A link out of the vault, a link to a note inside it, and a FIFO, in `folder`."""
    base = settings.vault / folder
    base.mkdir(parents=True, exist_ok=True)
    (base / "2026-10-20 0805.md").symlink_to(secret)
    (base / "2026-10-20 0806.md").symlink_to(settings.vault / "People" / "Maya Collins.md")
    fifo = base / "2026-10-20 0807.md"
    os.mkfifo(fifo)
    fifos.append(fifo)
    return [f"{folder}/2026-10-20 080{n}.md" for n in (5, 6, 7)]


def untouched(settings: Settings, paths: list[str], secret: Path, text: str = SECRET) -> None:
    for rel in paths[:2]:
        assert (settings.vault / rel).is_symlink(), f"{rel} was moved or replaced"
    assert (settings.vault / paths[2]).is_fifo()
    assert secret.read_text() == text


def no_secret_under(folder: Path) -> None:
    for path in folder.rglob("*"):
        if path.is_file() and not path.is_symlink():
            assert MARK not in path.read_text(errors="replace"), f"{path} holds the secret"


async def test_tidy_skips_links_and_fifos_and_files_the_rest(
    settings: Settings, fake_ollama: FakeOllama, secret: Path, fifo_cleanup: list[Path]
) -> None:
    s = fast(settings, fake_ollama.url)
    planted = plant(s, secret, "Inbox", fifo_cleanup)
    put_capture(s, "2026-10-19 0742.md")
    fake_ollama.chat_handler = lambda body: answer("Note")
    svc = TidyService(s, make_llm(s))
    try:
        await svc.startup()
        async with asyncio.timeout(WAIT_S):
            await svc.wait_idle()
        # The watcher reports a FIFO created later: it must not block the worker either.
        later = s.vault / "Inbox" / "2026-10-21 0900.md"
        os.mkfifo(later)
        fifo_cleanup.append(later)
        await svc.on_changes([Change("Inbox/2026-10-21 0900.md", "created")])
        async with asyncio.timeout(WAIT_S):
            await svc.wait_idle()
        skipped = {e.path: e.reason for e in svc.attention.entries() if e.code == "not_a_file"}
    finally:
        await svc.close()
    assert [n.name for n in filed_notes(s)] == ["2026-10-19 0742 Note.md"]
    assert set(skipped) == {*planted, "Inbox/2026-10-21 0900.md"}
    assert "symbolic link" in skipped[planted[0]] and "named pipe" in skipped[planted[2]]
    assert all(MARK not in str(body) for body in fake_ollama.chat_requests())
    untouched(s, planted, secret)
    no_secret_under(s.vault)
    no_secret_under(s.data_path)


async def test_ask_notes_behind_links_are_never_read_or_written(
    settings: Settings, fake_ollama: FakeOllama, secret: Path, fifo_cleanup: list[Path]
) -> None:
    question = f"?? what is the key of {MARK}\n"
    await asyncio.to_thread(secret.write_text, question)
    s = with_model(settings, host=fake_ollama.url)
    fake_ollama.chat_handler = cite_passage_with("EZY6041", "The flight leaves at 06:40")
    planted = plant(s, secret, "Ask", fifo_cleanup)
    index = FixedIndex([hit("Travel/Lisbon Trip.md", "Flight EZY6041 leaves at 06:40.")])
    svc = AskService(s, make_llm(s), index, quiet_s=0.01, retry_s=0.05)
    try:
        await svc.startup()
        await svc.on_changes([Change(p, "modified") for p in planted])
        async with asyncio.timeout(WAIT_S):
            while svc.status()["waiting"] or len(svc.attention.entries()) < 3:  # noqa: ASYNC110
                await asyncio.sleep(0.02)
            await svc.idle()
        skipped = {e.path for e in svc.attention.entries()}
    finally:
        await svc.close()
    assert skipped == set(planted)
    assert fake_ollama.chat_requests() == []
    untouched(s, planted, secret, question)  # and no answer written into it


async def test_the_index_and_the_name_hint_and_the_digest_never_see_them(
    settings: Settings, fake_ollama: FakeOllama, secret: Path, fifo_cleanup: list[Path]
) -> None:
    s = with_model(settings, host=fake_ollama.url)
    planted = plant(s, secret, "People", fifo_cleanup) + plant(s, secret, "Inbox", fifo_cleanup)
    index = Index.open(s, make_llm(s))
    try:
        async with asyncio.timeout(WAIT_S):
            await index.refresh()
            index.mark_dirty(planted)  # as the watcher would after the links appeared
            found = await index.search(MARK, limit=10, mode="keyword")
    finally:
        index.close()
    assert found.results == []
    names = await asyncio.wait_for(asyncio.to_thread(vault_names, s.vault), WAIT_S)
    assert MARK not in names
    notes = await asyncio.wait_for(asyncio.to_thread(lambda: list(vault_notes(s))), WAIT_S)
    assert not {n.path for n in notes} & set(planted)
    assert all(MARK not in n.text for n in notes)
    no_secret_under(s.data_path)
    untouched(s, planted[3:], secret)


def test_doctor_lists_them(settings: Settings, secret: Path, fifo_cleanup: list[Path]) -> None:
    planted = plant(settings, secret, "Inbox", fifo_cleanup)
    lines = [c.line() for c in skipped_checks(settings)]
    for rel in planted:
        assert any(line.startswith(f"warn skipped: {rel} ") for line in lines), lines
    inbox = [c.line() for c in inbox_checks(settings)]
    assert "ok   inbox: 0 capture(s) waiting to be tidied" in inbox
    # What the running daemon already shows (attention) is not said twice.
    assert skipped_checks(settings, [("tidy", rel) for rel in planted]) == []


def test_the_assistants_notes_are_read_by_the_same_rule(
    settings: Settings, secret: Path, fifo_cleanup: list[Path]
) -> None:
    (settings.vault / "Tasks.md").symlink_to(secret)
    os.mkfifo(settings.vault / "Memory.md")
    fifo_cleanup.append(settings.vault / "Memory.md")
    for name in ("Tasks.md", "Memory.md"):
        with pytest.raises(Stale, match="left alone") as refused:
            read_snapshot(settings.vault, name)
        assert MARK not in str(refused.value)
    assert (settings.vault / "Tasks.md").is_symlink()


@pytest.mark.slow
def test_the_daemon_as_a_process_skips_them_and_says_so(
    vault: Path, tmp_path: Path, secret: Path, fake_ollama_thread: FakeOllama
) -> None:
    """The black-box case itself: `commonplace run` on a vault with `Inbox/x.md -> id_rsa`."""
    fake_ollama_thread.chat_handler = tidy_answer("Filed thought")
    inbox = vault / "Inbox"
    inbox.mkdir(exist_ok=True)
    (inbox / "x.md").symlink_to(secret)
    os.mkfifo(inbox / "pipe.md")
    (inbox / "2026-10-19 0800.md").write_text("---\ncaptured: 2026-10-19T08:00\n---\nbuy flour\n")
    daemon = Daemon(
        vault, tmp_path / "data", fake_ollama_thread.url, config="[tidy]\nstable_s = 0.2\n"
    )
    daemon.start()
    try:
        daemon.wait_until(lambda: len(filed(vault)) == 1, "the ordinary capture filed")
        daemon.wait_until(
            lambda: {e["path"] for e in daemon.attention()} >= {"Inbox/x.md", "Inbox/pipe.md"},
            "both shown in /api/state",
        )
        codes = {e["path"]: e["code"] for e in daemon.attention()}
    finally:
        log = daemon.stop()
    assert codes["Inbox/x.md"] == codes["Inbox/pipe.md"] == "not_a_file"
    assert (inbox / "x.md").is_symlink() and (inbox / "pipe.md").is_fifo()
    assert all(MARK not in str(body) for body in fake_ollama_thread.chat_requests())
    assert MARK not in log
    no_secret_under(vault)
    no_secret_under(tmp_path / "data")


def test_vetting_while_ollama_is_down_reports_them_too(
    settings: Settings, secret: Path, fifo_cleanup: list[Path]
) -> None:
    """tidy/vetting.py reads waiting captures while Ollama is down: the same rule, no block."""
    planted = plant(settings, secret, "Inbox", fifo_cleanup)
    verdicts = vet_all(settings.vault, planted, settings.tz, 1024 * 1024)
    assert [v.problem for v in verdicts] == ["not_a_file"] * 3
    assert all(isinstance(v.error, FileRefused) for v in verdicts)
    untouched(settings, planted, secret)
