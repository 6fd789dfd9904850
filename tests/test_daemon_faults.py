"""Faults and bad input against `commonplace run` as a real process on a temp vault: what an
independent black-box run broke (issue 17), each case checked the way it was seen."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.daemon_process import Daemon, filed, like_a_user, tidy_answer
from tests.fakes.ollama import FakeOllama

FAST_TIDY = "[tidy]\nstable_s = 0.2\nretry_s = 1.0\nretry_max_s = 2.0\n"


def capture(vault: Path, name: str, words: str) -> Path:
    path = vault / "Inbox" / name
    path.parent.mkdir(exist_ok=True)
    path.write_text(f"---\ncaptured: {name[:10]}T{name[11:13]}:{name[13:15]}\n---\n{words}\n")
    return path


@pytest.fixture
def daemon(vault: Path, tmp_path: Path, fake_ollama_thread: FakeOllama) -> Iterator[Daemon]:
    fake_ollama_thread.chat_handler = tidy_answer("Filed thought")
    run = Daemon(vault=vault, data=tmp_path / "data", ollama_url=fake_ollama_thread.url)
    yield run
    run.stop()


@pytest.mark.slow
def test_an_unreadable_capture_does_not_block_the_inbox(daemon: Daemon, vault: Path) -> None:
    locked = capture(vault, "2026-10-19 0700.md", "the oldest, first in line")
    capture(vault, "2026-10-19 0800.md", "buy flour")
    capture(vault, "2026-10-19 0900.md", "ring the garage")
    locked.chmod(0)
    daemon.config = FAST_TIDY
    daemon.start(prefix=like_a_user())
    rel = "Inbox/2026-10-19 0700.md"

    daemon.wait_until(lambda: len(filed(vault)) == 2, "the two readable captures filed")
    daemon.wait_until(lambda: daemon.entry(rel), "the unreadable capture shown in /api/state")
    entry = daemon.entry(rel)
    assert entry is not None
    assert entry["code"] == "unreadable" and "Permission denied" in entry["reason"]
    assert entry["retry_at"] and "chmod" in entry["action"]
    assert locked.exists()

    locked.chmod(0o644)  # the owner fixes it: filed at once, the entry goes
    daemon.wait_until(lambda: len(filed(vault)) == 3, "the third capture filed")
    daemon.wait_until(lambda: daemon.entry(rel) is None, "the entry cleared")
    log = daemon.stop()
    assert "Task exception was never retrieved" not in log
