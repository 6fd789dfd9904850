"""`commonplace run` as a real process on a temp vault, for the fault and bad-input tests.

The daemon talks to a fake Ollama over loopback (any fixture that serves it on a thread), is
asked about its state over HTTP like a user's script would, and is stopped with SIGTERM. When
the tests run as root, the daemon runs without the capabilities that let root read any file,
so that a file with mode 000 is as unreadable to it as to a normal user.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from commonplace.runtime.lock import LOCK_NAME, read_lock

WAIT_S = 45.0
ROOT_READS_ANYTHING = ("dac_override", "dac_read_search")


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def port_of(data: Path, proc: subprocess.Popen[str], timeout: float = WAIT_S) -> int:
    """The port a daemon started with `COMMONPLACE_WEB_PORT=0` got, from its lock file under
    the data folder `data`. A port picked free beforehand could be taken by another program on
    a shared machine before the daemon bound it; the system's own pick cannot."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise AssertionError(f"the daemon exited early:\n{proc.communicate()[1]}")
        for path in data.glob(f"*/{LOCK_NAME}"):
            lock = read_lock(path)
            if lock is not None and lock.pid == proc.pid and lock.port:
                return lock.port
        time.sleep(0.1)
    raise AssertionError(f"the daemon did not record its port within {timeout} s")


def like_a_user() -> list[str]:
    """The command prefix that takes away root's right to read every file (none needed when
    the tests are not root)."""
    if os.geteuid() != 0:
        return []
    setpriv = shutil.which("setpriv")
    if setpriv is None:
        pytest.skip("running as root without setpriv: cannot make a file unreadable to the daemon")
    return [setpriv, "--bounding-set=" + ",".join(f"-{c}" for c in ROOT_READS_ANYTHING)]


@dataclass
class Daemon:
    vault: Path
    data: Path
    ollama_url: str
    config: str = ""  # commonplace.toml text
    port: int = 0  # the one it got, once started (it binds any free port)
    proc: subprocess.Popen[str] | None = None
    log: str = ""

    def env(self) -> dict[str, str]:
        """The environment of `commonplace` commands on this vault (writes the config file)."""
        config = self.data.parent / "commonplace.toml"
        config.write_text(self.config)
        env = dict(os.environ)
        env.update(
            COMMONPLACE_CONFIG=str(config),
            COMMONPLACE_VAULT=str(self.vault),
            COMMONPLACE_DATA=str(self.data),
            COMMONPLACE_WEB_PORT="0",
            COMMONPLACE_TIMEZONE="Europe/London",
            OLLAMA_HOST=self.ollama_url,
        )
        return env

    def start(self, *, prefix: list[str] | None = None) -> Daemon:
        self.proc = subprocess.Popen(
            [*(prefix or []), sys.executable, "-m", "commonplace", "-v", "run"],
            env=self.env(),
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
        )
        self.port = port_of(self.data, self.proc)
        self.wait_until(lambda: self.state() is not None, "the daemon answers /api/state")
        return self

    def call(self, path: str) -> tuple[int, Any]:
        request = urllib.request.Request(f"http://127.0.0.1:{self.port}{path}")
        try:
            with urllib.request.urlopen(request, timeout=WAIT_S) as response:
                return response.status, json.loads(response.read())
        except urllib.error.HTTPError as exc:
            return exc.code, json.loads(exc.read())

    def command(self, *args: str) -> subprocess.CompletedProcess[str]:
        """Another `commonplace` command on the same vault, e.g. `doctor`."""
        return subprocess.run(
            [sys.executable, "-m", "commonplace", *args],
            env=self.env(),
            capture_output=True,
            text=True,
            timeout=120,
        )

    def state(self) -> dict[str, Any] | None:
        assert self.proc is not None
        if (code := self.proc.poll()) is not None:
            raise AssertionError(f"the daemon exited early (status {code}):\n{self.stop()}")
        try:
            status, body = self.call("/api/state")
        except OSError:
            return None
        return dict(body) if status == 200 else None

    def attention(self) -> list[dict[str, Any]]:
        state = self.state() or {}
        return list(state.get("attention", []))

    def entry(self, path: str) -> dict[str, Any] | None:
        return next((e for e in self.attention() if e["path"] == path), None)

    def wait_until(self, check: Callable[[], object], what: str, timeout: float = WAIT_S) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if check():
                return
            time.sleep(0.2)
        raise AssertionError(f"not within {timeout} s: {what}\n{self.stop()}")

    def stop(self) -> str:
        """SIGTERM, wait, and return the daemon's log (stderr)."""
        if self.proc is None:
            return self.log
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                _, self.log = self.proc.communicate(timeout=30)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                _, self.log = self.proc.communicate()
        else:
            _, self.log = self.proc.communicate()
        self.proc = None
        return self.log


def filed(vault: Path) -> list[Path]:
    folder = vault / "Filed"
    return sorted(folder.glob("*.md")) if folder.is_dir() else []


def tidy_answer(title: str) -> Callable[[dict[str, Any]], str]:
    """A model that answers every tidy request with a good proposal, and questions plainly."""

    def reply(body: dict[str, Any]) -> str:
        if body.get("format"):
            return json.dumps({"title": title, "tags": [], "links": [], "todos": []})
        return "I don't know [1]."

    return reply
