"""Two `commonplace run` processes on one synced vault, each with its own data folder, as two
computers would be (issue 17, item 6): the lease holder alone tidies and answers, the other
serves search and capture, `doctor` names the holder, and after the holder crashes the other
takes over."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from commonplace.daemon.lease import LeaseInfo, lease_path
from commonplace.vault import parse_note
from tests.conftest import REPO
from tests.daemon_process import port_of
from tests.fakes.ollama import FakeOllama, Stall
from tests.test_daemon import call, wait_for_state

# The lease goes stale after 6 s without a heartbeat: a holder that a busy machine holds up for
# a second or two must not look gone (the defaults are 60 s and 600 s).
CONFIG = """
[ollama]
retries = 0
[tidy]
stable_s = 0.2
[ask]
quiet_s = 0.2
[index]
reconcile_minutes = 60.0
[lease]
heartbeat_s = 0.5
stale_s = 6.0
"""


def model(body: dict[str, Any]) -> Any:
    if body.get("format"):  # tidy; slow enough that two daemons would both be answering
        return Stall(0.3, json.dumps({"title": "Garage", "tags": [], "links": [], "todos": []}))
    return "The garage opens at nine [1]."


def until(check: Callable[[], bool], what: str, timeout: float = 60.0) -> None:
    deadline = time.monotonic() + timeout
    while not check():
        if time.monotonic() > deadline:
            raise AssertionError(f"not within {timeout:.0f} s: {what}")
        time.sleep(0.2)


def computer(base: dict[str, str], tmp_path: Path, name: str) -> dict[str, str]:
    return {
        **base,
        "COMMONPLACE_DATA": str(tmp_path / f"data-{name}"),
        "COMMONPLACE_WEB_PORT": "0",  # any free port: port_of reads the one it got
    }


def start(env: dict[str, str]) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "commonplace", "run"],
        env=env,
        cwd=REPO,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def lease_of(env: dict[str, str], proc: subprocess.Popen[str]) -> dict[str, Any]:
    return dict(wait_for_state(port_of(Path(env["COMMONPLACE_DATA"]), proc), proc)["lease"])


def capture(vault: Path, i: int) -> None:
    head = f"---\ncaptured: 2026-10-20T09:{i:02d}\nvia: script\n---\n"
    (vault / "Inbox" / f"c{i:02d}.md").write_text(f"{head}ring the garage, take {i}\n")


def filed(vault: Path) -> list[str]:
    folder = vault / "Filed"
    notes = sorted(folder.glob("*.md")) if folder.is_dir() else []
    return [str(parse_note(p.name, p.read_text()).frontmatter["capture_id"]) for p in notes]


@pytest.mark.slow
def test_two_daemons_on_one_synced_vault_share_the_work_by_the_lease(
    vault: Path, tmp_path: Path, fake_ollama_thread: FakeOllama
) -> None:
    fake_ollama_thread.chat_handler = model
    config = tmp_path / "commonplace.toml"
    config.write_text(CONFIG)
    base = dict(
        os.environ,
        COMMONPLACE_CONFIG=str(config),
        COMMONPLACE_VAULT=str(vault),
        COMMONPLACE_TIMEZONE="Europe/London",
        OLLAMA_HOST=fake_ollama_thread.url,
    )
    (vault / "Inbox").mkdir()
    (vault / "Ask").mkdir()
    env_a, env_b = computer(base, tmp_path, "a"), computer(base, tmp_path, "b")
    a = start(env_a)
    b: subprocess.Popen[str] | None = None
    try:
        until(lambda: lease_of(env_a, a)["held_here"], "the first daemon holds the lease")
        b = start(env_b)
        second = b
        port_b = port_of(Path(env_b["COMMONPLACE_DATA"]), second)
        seen = lease_of(env_b, second)
        assert seen["held_here"] is False and seen["holder"]["pid"] == a.pid
        state_b = wait_for_state(port_b, second)
        (told,) = [e for e in state_b["attention"] if e["source"] == "lease"]
        assert told["code"] == "held_elsewhere" and f"pid {a.pid}" in told["reason"]

        # Ten captures: nine dropped into the inbox, one sent to the second daemon's page.
        for i in range(9):
            capture(vault, i)
        status, _ = call(port_b, "/api/capture", {"text": "oil"})
        assert status == 201
        question = vault / "Ask/Garage.md"
        question.write_text("?? When does the garage open?\n")
        until(lambda: len(filed(vault)) >= 10, "ten captures filed")
        until(lambda: "[!answer]" in question.read_text(), "the question answered")
        time.sleep(1.0)  # anything doubled would show by now
        assert len(filed(vault)) == len(set(filed(vault))) == 10
        assert question.read_text().count("[!answer]") == 1
        asked = [r for r in fake_ollama_thread.requests if r.path == "/api/chat"]
        assert len(asked) == 11  # each capture and the question went to the model once

        # The second daemon still serves search; doctor there names the holder.
        status, found = call(port_b, "/api/search?q=garage")
        assert status == 200 and found["results"]
        doctor = subprocess.run(
            [sys.executable, "-m", "commonplace", "doctor"],
            env=env_b,
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert f"lease: held by {seen['holder']['host']} (pid {a.pid})" in doctor.stdout

        # The holder crashes: the other takes the lease over and tidies.
        a.send_signal(signal.SIGKILL)
        a.communicate(timeout=30)
        until(lambda: lease_of(env_b, second)["held_here"], "the second daemon takes over")
        capture(vault, 30)
        until(lambda: len(filed(vault)) == 11, "a capture filed by the second daemon")
    finally:
        for proc in (a, b):
            if proc is not None and proc.poll() is None:
                proc.send_signal(signal.SIGTERM)
                _, err = proc.communicate(timeout=60)
                assert proc.returncode == 0, err
    info = LeaseInfo.parse(json.loads(lease_path(vault).read_text()))
    assert info is not None and info.released and info.pid == second.pid  # a clean stop frees it
