"""`commonplace run` as a real process: it serves, keeps working with Ollama down, refuses a
second copy on the same vault, and stops cleanly on SIGTERM."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from commonplace.plugin.discovery import read_discovery
from commonplace.runtime.lock import LOCK_NAME
from tests.daemon_process import port_of


def call(port: int, path: str, body: dict[str, Any] | None = None) -> tuple[int, Any]:
    url = f"http://127.0.0.1:{port}{path}"
    data = json.dumps(body).encode() if body is not None else None
    headers = {"Content-Type": "application/json", "Origin": f"http://127.0.0.1:{port}"}
    request = urllib.request.Request(url, data=data, headers=headers if data else {})
    try:
        with urllib.request.urlopen(request, timeout=60) as response:
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as exc:
        return exc.code, json.loads(exc.read())


def wait_for_state(port: int, proc: subprocess.Popen[str], timeout: float = 60) -> dict[str, Any]:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise AssertionError(f"the daemon exited early:\n{proc.communicate()[1]}")
        try:
            status, state = call(port, "/api/state")
            if status == 200:
                return dict(state)
        except OSError:
            pass
        time.sleep(0.2)
    raise AssertionError("the daemon did not answer /api/state in time")


@pytest.fixture
def daemon_env(vault: Path, tmp_path: Path, dead_ollama_url: str) -> Iterator[dict[str, str]]:
    config = tmp_path / "commonplace.toml"
    config.write_text("[ollama]\nretries = 0\n")  # Ollama is down: no need to wait for retries
    env = dict(os.environ)
    env.update(
        COMMONPLACE_CONFIG=str(config),
        COMMONPLACE_VAULT=str(vault),
        COMMONPLACE_DATA=str(tmp_path / "data"),
        COMMONPLACE_WEB_PORT="0",  # any free port: port_of reads the one it got
        COMMONPLACE_TIMEZONE="Europe/London",
        OLLAMA_HOST=dead_ollama_url,
    )
    yield env


def start(env: dict[str, str]) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "commonplace", "run"],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


@pytest.mark.slow
def test_run_serves_refuses_a_second_copy_and_stops_on_sigterm(
    daemon_env: dict[str, str], vault: Path, tmp_path: Path
) -> None:
    proc = start(daemon_env)
    try:
        port = port_of(tmp_path / "data", proc)
        state = wait_for_state(port, proc)
        assert state["ollama"]["reachable"] is False

        # Where the plugin (and `commonplace plugin pair`) find it: the discovery file, outside
        # the vault, with the port the system picked.
        found = read_discovery(vault)
        assert found is not None and found["url"] == f"http://127.0.0.1:{port}"
        pair = subprocess.run(
            [sys.executable, "-m", "commonplace", "plugin", "pair", "--wait", "0"],
            env=daemon_env,
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert pair.returncode == 1 and "no pairing request is waiting" in pair.stderr

        # Ollama is down: the capture is still saved, and waits in the inbox.
        status, saved = call(port, "/api/capture", {"text": "buy more flour"})
        assert status == 201
        assert (vault / saved["path"]).read_text().endswith("buy more flour")

        # Search falls back to keywords and says so.
        deadline = time.monotonic() + 20
        while True:
            status, found = call(port, "/api/search?q=sourdough")
            if (status == 200 and found["results"]) or time.monotonic() > deadline:
                break
            time.sleep(0.3)
        assert status == 200 and found["mode"] == "keyword" and found["notice"]

        # A second daemon on the same vault (another port) is refused with a clear message.
        second = subprocess.run(
            [sys.executable, "-m", "commonplace", "run"],
            env=daemon_env,
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert second.returncode != 0
        assert "already running on this vault" in second.stderr
        assert wait_for_state(port, proc)  # the first one is unharmed

        proc.send_signal(signal.SIGTERM)
        _, err = proc.communicate(timeout=30)
        assert proc.returncode == 0, err
        assert "Traceback" not in err
        assert "stopped" in err
        assert f"serving the phone page at http://127.0.0.1:{port}/" in err  # the real port
        locks = list((tmp_path / "data").glob(f"*/{LOCK_NAME}"))
        assert locks == []
        assert read_discovery(vault) is None  # removed at a clean stop
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
