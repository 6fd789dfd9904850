"""The daemon started exactly as the systemd unit starts it (the command line and environment
read from the unit file), asked about with `service status` and `service logs`, then stopped
the way systemd stops it: SIGTERM, then a wait. Nothing is lost: the capture being filed at
that moment is filed, or left in the inbox as it was."""

from __future__ import annotations

import json
import shlex
import signal
import subprocess
import threading
import time
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from commonplace.cli.main import cli
from commonplace.config import Settings
from commonplace.service import tools
from tests.daemon_process import WAIT_S, port_of
from tests.fakes.ollama import FakeOllama
from tests.fakes.service_tools import make_fake_tools

WORDS = "ring the garage about the MOT before Friday"


def unescape(word: str) -> str:
    return word.replace("%%", "%").replace("$$", "$")


def as_the_unit_starts_it(unit: str, home: Path) -> tuple[list[str], dict[str, str]]:
    """ExecStart and Environment= as systemd reads them (double quotes, backslash escapes,
    %% and $$), over the environment a systemd user manager gives a service."""
    lines = unit.splitlines()
    (exec_start,) = [line.removeprefix("ExecStart=") for line in lines if "ExecStart=" in line]
    argv = [unescape(word) for word in shlex.split(exec_start)]
    env = {"HOME": str(home), "PATH": "/usr/local/bin:/usr/bin:/bin", "LANG": "C.UTF-8"}
    for line in lines:
        if line.startswith("Environment="):
            (pair,) = shlex.split(line.removeprefix("Environment="))
            key, _, value = unescape(pair).partition("=")
            env[key] = value
    return argv, env


@pytest.mark.slow
def test_the_daemon_started_as_the_unit_starts_it_stops_cleanly_with_nothing_lost(
    settings: Settings,
    tmp_path: Path,
    fake_ollama_thread: FakeOllama,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    make_fake_tools(tmp_path, monkeypatch)
    monkeypatch.setattr(tools, "platform", lambda: "linux")
    asked = threading.Event()

    def slow_model(body: dict[str, Any]) -> str:
        asked.set()
        time.sleep(2)  # still filing when SIGTERM comes
        return json.dumps({"title": "Garage", "tags": [], "links": [], "todos": []})

    fake_ollama_thread.chat_handler = slow_model
    config = tmp_path / "commonplace.toml"
    config.write_text(
        f'vault = "{settings.vault}"\ntimezone = "Europe/London"\n'
        "[web]\nport = 0\n[tidy]\nstable_s = 0.2\n",
        encoding="utf-8",
    )
    runner = CliRunner()
    dry = runner.invoke(cli, ["--config", str(config), "service", "install", "--dry-run"])
    assert dry.exit_code == 0, dry.output
    argv, env = as_the_unit_starts_it(dry.stdout, home)
    assert env["OLLAMA_HOST"] == fake_ollama_thread.url  # carried from the installing shell
    proc = subprocess.Popen(argv, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        port_of(Path(env["COMMONPLACE_DATA"]), proc)  # up, its page listening
        status = runner.invoke(cli, ["--config", str(config), "service", "status"])
        assert f"daemon: running, pid {proc.pid}" in status.output, status.output
        logs = runner.invoke(cli, ["--config", str(config), "service", "logs"])
        assert "serving the phone page" in logs.output
        inbox = settings.vault / "Inbox"
        inbox.mkdir(exist_ok=True)
        capture = inbox / "2026-12-02 0730.md"
        text = f"---\ncaptured: 2026-12-02T07:30\nvia: phone\n---\n{WORDS}\n"
        capture.write_text(text, encoding="utf-8")
        assert asked.wait(WAIT_S), "the capture was never sent to the model"
        proc.send_signal(signal.SIGTERM)  # systemctl stop
        code = proc.wait(timeout=60)  # TimeoutStopSec
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        assert proc.stderr is not None
        err = proc.stderr.read().decode()
        proc.stderr.close()
    assert code == 0, err  # a clean stop: Restart=on-failure does not start it again
    holding = [p for p in settings.vault.rglob("*.md") if WORDS in p.read_text(encoding="utf-8")]
    assert holding, "the capture's words are nowhere in the vault"
    assert (capture.exists() and capture.read_text(encoding="utf-8") == text) or any(
        "Filed" in p.parts for p in holding
    )
    assert list(settings.vault.rglob("*.cptmp")) == []
