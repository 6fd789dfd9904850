"""Faults and bad input against `commonplace run` as a real process on a temp vault: what an
independent black-box run broke (issue 17), each case checked the way it was seen."""

from __future__ import annotations

import errno
import json
import os
import shutil
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from commonplace.config import Settings
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


QUESTION = "?? Who do I play chess with?\n"
FAST_ASK = "[ask]\nquiet_s = 0.2\nretry_s = 1.0\n"


def ask_note(vault: Path) -> Path:
    note = vault / "Ask" / "Questions.md"
    note.parent.mkdir(exist_ok=True)
    note.write_text(QUESTION)
    return note


def has_code(daemon: Daemon, path: str, code: str) -> bool:
    entry = daemon.entry(path)
    return entry is not None and entry["code"] == code


@pytest.mark.slow
def test_nothing_is_written_while_git_holds_the_vault(daemon: Daemon, vault: Path) -> None:
    lock = vault / ".git" / "index.lock"
    lock.parent.mkdir()
    lock.write_text("")  # a commit, checkout or pull in progress
    waiting = capture(vault, "2026-10-19 0800.md", "buy flour")
    note = ask_note(vault)
    daemon.config = FAST_TIDY + FAST_ASK
    daemon.start()

    rel = "Inbox/2026-10-19 0800.md"
    daemon.wait_until(lambda: has_code(daemon, rel, "vault_busy"), "tidy waiting for git")
    daemon.wait_until(lambda: has_code(daemon, "Ask/Questions.md", "vault_busy"), "ask too")
    assert filed(vault) == [] and waiting.exists()
    assert note.read_text() == QUESTION
    assert "index.lock" in str(daemon.entry(rel))

    lock.unlink()  # git is done: both go ahead on their next try
    daemon.wait_until(lambda: len(filed(vault)) == 1 and not waiting.exists(), "filed")
    daemon.wait_until(lambda: "[!answer]" in note.read_text(), "the question answered")
    daemon.wait_until(lambda: daemon.attention() == [], "the entries cleared")


@pytest.fixture
def small_disk(tmp_path: Path) -> Iterator[Path]:
    """A 4 MB tmpfs, so the disk can really be full (needs root; skipped elsewhere, where the
    in-process tests with a refused write still cover it)."""
    mount = tmp_path / "disk"
    mount.mkdir()
    if os.geteuid() != 0:
        pytest.skip("mounting a small tmpfs needs root")
    done = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", "size=4m", "tmpfs", str(mount)], capture_output=True
    )
    if done.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here: {done.stderr.decode().strip()}")
    try:
        yield mount
    finally:
        subprocess.run(["umount", "-l", str(mount)], check=False)


def fill(disk: Path) -> Path:
    filler = disk / "filler.bin"
    with filler.open("wb") as handle:
        try:
            while True:
                handle.write(b"\0" * 65536)
                handle.flush()
        except OSError as exc:
            assert exc.errno == errno.ENOSPC
    return filler


@pytest.mark.slow
def test_writes_refused_by_a_full_disk_are_retried_once_there_is_space(
    small_disk: Path, vault: Path, tmp_path: Path, fake_ollama_thread: FakeOllama
) -> None:
    on_disk = small_disk / "vault"
    shutil.copytree(vault, on_disk)
    waiting = capture(on_disk, "2026-10-19 0800.md", "buy flour")
    note = ask_note(on_disk)
    filler = fill(small_disk)
    fake_ollama_thread.chat_handler = tidy_answer("Flour")
    daemon = Daemon(vault=on_disk, data=tmp_path / "data", ollama_url=fake_ollama_thread.url)
    daemon.config = FAST_TIDY + FAST_ASK
    try:
        daemon.start()
        rel = "Inbox/2026-10-19 0800.md"
        daemon.wait_until(lambda: has_code(daemon, rel, "write_failed"), "tidy refused")
        daemon.wait_until(lambda: has_code(daemon, "Ask/Questions.md", "write_failed"), "ask")
        entry = daemon.entry(rel)
        assert entry is not None and entry["reason"] == "not filed yet: the disk is full"
        assert entry["action"] == "free some space on the vault's disk"
        assert entry["retry_at"] and waiting.exists() and note.read_text() == QUESTION

        filler.unlink()  # space comes back
        daemon.wait_until(lambda: len(filed(on_disk)) == 1 and not waiting.exists(), "filed")
        daemon.wait_until(lambda: "[!answer]" in note.read_text(), "the answer inserted")
        daemon.wait_until(lambda: daemon.attention() == [], "the entries cleared")
    finally:
        daemon.stop()


def peak_rss_mb(daemon: Daemon) -> float:
    assert daemon.proc is not None
    status = Path(f"/proc/{daemon.proc.pid}/status").read_text()
    return int(status.split("VmHWM:")[1].split()[0]) / 1024


@pytest.mark.slow
def test_big_and_empty_captures_stay_in_the_inbox_and_the_api_answers(
    daemon: Daemon, vault: Path, fake_ollama_thread: FakeOllama
) -> None:
    daemon.config = FAST_TIDY
    daemon.start()
    baseline = peak_rss_mb(daemon)
    inbox = vault / "Inbox"
    inbox.mkdir()
    big = inbox / "2026-10-19 0700.md"  # 50 MB of words, dropped in by another program
    with big.open("w") as handle:
        handle.write("---\ncaptured: 2026-10-19T07:00\n---\n")
        for _ in range(50):
            handle.write(("a line of words " * 64 + "\n") * 1024)
    fat = inbox / "2026-10-19 0710.md"  # 5 MB of frontmatter above a few words
    fat.write_text(f"---\ncaptured: 2026-10-19T07:10\njunk: '{'x' * 5_000_000}'\n---\nhi\n")
    capture(vault, "2026-10-19 0720.md", "  \n")  # frontmatter and blank lines only
    capture(vault, "2026-10-19 0730.md", "buy flour")
    untouched = {p: (p.stat().st_size, p.stat().st_mtime_ns) for p in (big, fat)}

    slowest = [0.0]
    want = {
        "Inbox/2026-10-19 0700.md": "too_large",
        "Inbox/2026-10-19 0710.md": "too_large",
        "Inbox/2026-10-19 0720.md": "empty",
    }

    def settled() -> bool:
        started = time.monotonic()
        entries = daemon.attention()
        slowest[0] = max(slowest[0], time.monotonic() - started)
        return {e["path"]: e["code"] for e in entries} == want and len(filed(vault)) == 1

    daemon.wait_until(settled, "the normal capture filed, the other three shown with why")
    for _ in range(10):  # and it stays quick afterwards
        settled()
    # The goal is under 1 s (eval_suite/bench_inbox.py measures it); without the limit it was
    # over 10 s. A generous bound here, so a busy test machine cannot make it flaky.
    assert slowest[0] < 8.0, f"/api/state took {slowest[0]:.2f} s"
    assert {p: (p.stat().st_size, p.stat().st_mtime_ns) for p in (big, fat)} == untouched
    entry = daemon.entry("Inbox/2026-10-19 0700.md")
    assert entry is not None and "over the 512 KB limit" in entry["reason"]
    assert "max_capture_kb" in entry["action"]
    requests = fake_ollama_thread.chat_requests()
    assert requests and max(len(json.dumps(r)) for r in requests) < 100_000
    assert peak_rss_mb(daemon) - baseline < 150, (baseline, peak_rss_mb(daemon))


@pytest.mark.slow
def test_temp_files_left_by_a_crash_are_removed_at_start(daemon: Daemon, vault: Path) -> None:
    hour_ago = time.time() - 3600
    data_path = Settings(vault=vault, data_dir=daemon.data).data_path
    left = {
        vault / "Filed" / ".2026-10-19 0800 Lunch.md.0badc0de.cptmp": "zanzibarquux filed",
        vault / "Inbox" / ".2026-10-19 0800.md.deadbeef.cptmp": "---\n---\nzanzibarquux",
        data_path / "tidy" / ".state.json.12345678.cptmp": "{}",
    }
    for path, text in left.items():
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
        os.utime(path, (hour_ago, hour_ago))
    young = vault / "Ask" / ".Questions.md.abcdef12.cptmp"  # a write in progress elsewhere
    young.parent.mkdir()
    young.write_text("zanzibarquux")
    soon = time.time() + 300  # still young when the daemon, slow to start on a busy machine, looks
    os.utime(young, (soon, soon))
    daemon.start()
    daemon.wait_until(lambda: not any(p.exists() for p in left), "the leftovers removed")
    assert young.exists()

    def indexed() -> bool:
        state = daemon.state() or {}
        return bool(state.get("index", {}).get("last_refresh"))

    daemon.wait_until(indexed, "the start-up index check done")
    status, found = daemon.call("/api/search?q=zanzibarquux&mode=keyword")
    assert status == 200 and found["results"] == []
    assert filed(vault) == []


@pytest.mark.slow
def test_a_capture_marked_while_the_model_answered_garbage_is_filed_once_it_recovers(
    daemon: Daemon, vault: Path, fake_ollama_thread: FakeOllama
) -> None:
    good = tidy_answer("Flour")
    broken = [True]

    def model(body: dict[str, object]) -> str:
        return '{"title": "Flour"}' if broken[0] else good(body)  # required fields missing

    fake_ollama_thread.chat_handler = model
    waiting = capture(vault, "2026-10-19 0800.md", "buy flour")
    daemon.config = FAST_TIDY + "max_attempts = 2\nmarked_retry_s = 3.0\n"
    daemon.start()
    rel = "Inbox/2026-10-19 0800.md"
    daemon.wait_until(lambda: has_code(daemon, rel, "unusable_answers"), "the capture marked")
    entry = daemon.entry(rel)
    assert entry is not None and "tags: Field required" in entry["reason"]
    assert filed(vault) == [] and waiting.exists()

    broken[0] = False  # Ollama answers properly again
    daemon.wait_until(lambda: len(filed(vault)) == 1 and not waiting.exists(), "filed later")
    daemon.wait_until(lambda: daemon.attention() == [], "the mark cleared")


@pytest.mark.slow
def test_sync_conflict_copies_are_shown_with_what_to_do(daemon: Daemon, vault: Path) -> None:
    marker = ".sync-conflict-20261020-081500-ABCDEFG"
    capture(vault, "2026-10-19 0800.md", "buy flour")
    copy = capture(vault, f"2026-10-19 0800{marker}.md", "buy flour and eggs")
    note = ask_note(vault)
    ask_copy = note.with_name(f"Questions{marker}.md")
    ask_copy.write_text("?? Where is the chess clock?\n")
    daemon.config = FAST_TIDY + FAST_ASK
    daemon.start()
    rel, ask_rel = f"Inbox/{copy.name}", f"Ask/{ask_copy.name}"
    daemon.wait_until(lambda: has_code(daemon, rel, "conflict_copy"), "the capture's copy shown")
    daemon.wait_until(lambda: has_code(daemon, ask_rel, "conflict_copy"), "the Ask copy shown")
    entry = daemon.entry(rel)
    assert entry is not None and entry["source"] == "sync"
    assert "compare it with Inbox/2026-10-19 0800.md" in entry["action"]

    daemon.wait_until(lambda: len(filed(vault)) == 1, "the original filed")
    daemon.wait_until(lambda: "[!answer]" in note.read_text(), "the original's question answered")
    assert copy.exists() and ask_copy.read_text() == "?? Where is the chess clock?\n"
    assert filed(vault)[0].read_text().count("buy flour and eggs") == 0  # the copy is not filed

    doctor = daemon.command("doctor").stdout
    assert f"warn sync: {rel}: a sync conflict copy of the capture" in doctor
    assert f"warn sync: {ask_rel}: a sync conflict copy of the Ask note" in doctor

    copy.unlink()  # the owner merged it by hand
    daemon.wait_until(lambda: daemon.entry(rel) is None, "the entry gone", timeout=30)
