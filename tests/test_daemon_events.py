"""`commonplace run` as a real process when file events go wrong (issue 17, items 11 and 12).

- The kernel's watch limit is reached: the watcher says so once, and the inbox and the Ask notes
  are polled, so captures are still filed and questions answered.
- The kernel's event queue overflows in a burst of captures: the daemon scans at once, and every
  capture is filed, long before the next periodic scan (an hour away here).
- A burst of 400 changed notes becomes a handful of jobs, and leaves the index exactly as a
  full rebuild of the same vault would.

The faults are injected where watchdog meets the kernel (tests/fakes/inotify_faults.py); the
model is the fake Ollama on a thread of the test process.
"""

from __future__ import annotations

import asyncio
import json
import os
import re
import signal
import subprocess
import sys
import time
from collections import Counter
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import lancedb
import pytest

from commonplace.config import load_settings
from commonplace.index import Index
from commonplace.index.keywords import KeywordIndex
from commonplace.index.manifest import Manifest
from commonplace.llm import make_llm
from tests.conftest import REPO
from tests.daemon_process import port_of
from tests.fakes.ollama import FakeOllama
from tests.test_daemon import call, wait_for_state

CONFIG = """
[ollama]
retries = 0
[tidy]
stable_s = 0.2
retry_s = 0.5
[ask]
quiet_s = 0.2
[index]
reconcile_minutes = 60.0
"""


def model(body: dict[str, Any]) -> str:
    if body.get("format"):  # tidy
        return json.dumps({"title": "Burst", "tags": [], "links": [], "todos": []})
    return "The garage opens at nine [1]."  # ask


@pytest.fixture
def env(vault: Path, tmp_path: Path, fake_ollama_thread: FakeOllama) -> Iterator[dict[str, str]]:
    fake_ollama_thread.chat_handler = model
    fake_ollama_thread.record = False
    config = tmp_path / "commonplace.toml"
    config.write_text(CONFIG)
    yield dict(
        os.environ,
        COMMONPLACE_CONFIG=str(config),
        COMMONPLACE_VAULT=str(vault),
        COMMONPLACE_DATA=str(tmp_path / "data"),
        COMMONPLACE_WEB_PORT="0",  # any free port: port_of reads the one it got
        COMMONPLACE_TIMEZONE="Europe/London",
        OLLAMA_HOST=fake_ollama_thread.url,
    )


def start(env: dict[str, str], fault: str | None = None) -> subprocess.Popen[str]:
    command = (
        ["-m", "commonplace"] if fault is None else ["-m", "tests.fakes.inotify_faults", fault]
    )
    return subprocess.Popen(
        [sys.executable, *command, "run"],
        env=env,
        cwd=REPO,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def stop(proc: subprocess.Popen[str]) -> str:
    proc.send_signal(signal.SIGTERM)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 0, err
    return err


def until(check: Callable[[], bool], what: str, timeout: float = 90.0) -> None:
    deadline = time.monotonic() + timeout
    while not check():
        if time.monotonic() > deadline:
            raise AssertionError(f"not within {timeout:.0f} s: {what}")
        time.sleep(0.2)


def capture(vault: Path, i: int) -> None:
    """A capture dropped into the inbox by a script (each in its own minute)."""
    inbox = vault / "Inbox"
    inbox.mkdir(exist_ok=True)
    head = f"---\ncaptured: 2026-10-20T{8 + i // 60:02d}:{i % 60:02d}\nvia: script\n---\n"
    (inbox / f"burst-{i:03d}.md").write_text(f"{head}ring the garage about job {i}\n")


def all_filed(vault: Path, n: int) -> Callable[[], bool]:
    def check() -> bool:
        left = list((vault / "Inbox").glob("*.md"))
        filed = list((vault / "Filed").glob("*.md")) if (vault / "Filed").is_dir() else []
        return not left and len(filed) == n

    return check


def idle(port: int, proc: subprocess.Popen[str]) -> dict[str, Any]:
    """The state once the queue has been empty and the job count still for two seconds."""
    last: tuple[int, int] | None = None
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        state = wait_for_state(port, proc)
        jobs = state["daemon"]["jobs"]
        busy = jobs["pending"] or jobs["running"] or state["index"]["pending"]
        now = (jobs["done"], jobs["failed"])
        if not busy and now == last:
            return state
        last = None if busy else now
        time.sleep(2.0)
    raise AssertionError("the daemon did not settle")


@pytest.mark.slow
def test_past_the_watch_limit_the_inbox_and_ask_notes_are_polled(
    env: dict[str, str], vault: Path
) -> None:
    (vault / "Inbox").mkdir()
    (vault / "Ask").mkdir()
    proc = start(env, "limit")
    try:
        port = port_of(Path(env["COMMONPLACE_DATA"]), proc)
        state = wait_for_state(port, proc)
        assert state["watcher"]["unwatched_folders"] >= 1
        assert state["watcher"]["polling"] == ["Inbox", "Ask"]
        for i in range(5):
            capture(vault, i)
        note = vault / "Ask/Garage.md"
        note.write_text("?? When does the garage open?\n")
        until(all_filed(vault, 5), "the captures filed")
        until(lambda: "[!answer]" in note.read_text(), "the question answered")
    finally:
        err = stop(proc) if proc.poll() is None else proc.communicate()[1]
    warnings = [line for line in err.splitlines() if "cannot be watched" in line]
    assert len(warnings) == 1, err
    assert "fs.inotify.max_user_watches" in warnings[0]


@pytest.mark.slow
def test_after_lost_events_every_capture_is_filed_at_once(env: dict[str, str], vault: Path) -> None:
    """60 captures, the events of the first ~30 lost to an overflow: all filed within the
    wait, although the next periodic scan is an hour away."""
    (vault / "Inbox").mkdir()
    proc = start(env, "overflow:90")
    try:
        port = port_of(Path(env["COMMONPLACE_DATA"]), proc)
        wait_for_state(port, proc)
        idle(port, proc)
        for i in range(60):
            capture(vault, i)
        until(all_filed(vault, 60), "all 60 captures filed")
        assert wait_for_state(port, proc)["watcher"]["overflows"] == 1
    finally:
        err = stop(proc) if proc.poll() is None else proc.communicate()[1]
    assert "scanning the vault now" in err


@pytest.mark.slow
def test_a_burst_of_changes_is_few_jobs_with_the_end_state_of_a_rebuild(
    env: dict[str, str], vault: Path, tmp_path: Path
) -> None:
    proc = start(env)
    try:
        port = port_of(Path(env["COMMONPLACE_DATA"]), proc)
        before = idle(port, proc)["daemon"]["jobs"]["done"]
        burst = vault / "Burst"
        burst.mkdir()
        for i in range(400):  # a git checkout or a sync tool catching up, over a few seconds
            (burst / f"Note {i:03d}.md").write_text(f"# Note {i}\n\nThe kiwi number {i}.\n")
            time.sleep(0.01)
        for path in sorted(vault.glob("Projects/*.md"))[:5]:
            path.write_text(path.read_text() + "\nAn added line about a kiwi.\n")
        (vault / "Areas/Car.md").unlink()
        (vault / "People").rename(vault / "Folk")
        after = idle(port, proc)
        status, found = call(port, "/api/search?q=kiwi&limit=50&mode=keyword")
        assert status == 200 and len(found["results"]) == 50
    finally:
        err = stop(proc) if proc.poll() is None else proc.communicate()[1]
    jobs = after["daemon"]["jobs"]["done"] - before
    assert jobs <= 12, f"{jobs} jobs for one burst"
    assert "Traceback" not in err
    settings = load_settings(env={k: v for k, v in env.items() if k.startswith(("COMMON", "OLL"))})
    daemon_state = snapshot(settings.data_path / "index")
    rebuilt = tmp_path / "rebuilt"
    fresh = load_settings(env={**env, "COMMONPLACE_DATA": str(rebuilt)})
    index = Index.open(fresh, make_llm(fresh))
    try:
        asyncio.run(index.refresh(full=True))
    finally:
        index.close()
    assert daemon_state == snapshot(fresh.data_path / "index")


def snapshot(folder: Path) -> dict[str, Any]:
    """What an index holds: per file its hash and chunks, every (path, fingerprint) vector row,
    and the number of keyword documents."""
    manifest = Manifest(folder / "manifest.sqlite")
    try:
        files = {p: (e.hash, e.chunks, e.vectors_ok, e.skipped) for p, e in manifest.all().items()}
    finally:
        manifest.close()
    table = lancedb.connect(folder / "vectors").open_table("chunks").to_arrow()
    rows = Counter(zip(table["path"].to_pylist(), table["fingerprint"].to_pylist(), strict=True))
    keywords = KeywordIndex(folder / "keywords", writable=False)
    try:
        docs = keywords.count()
    finally:
        keywords.close()
    assert not [p for p in files if re.match(r"(Areas/Car|People/)", p)]
    return {"files": files, "vectors": rows, "keyword_docs": docs}
