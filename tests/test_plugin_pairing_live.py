"""The Obsidian plugin's own code pairs with a real `commonplace run`: this test starts the
daemon on a free port and runs obsidian-bridge/tests/live/pairing.live.test.ts against it with
vitest (the plugin's real source, in the Obsidian stand-in, over real HTTP)."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from tests.daemon_process import port_of
from tests.test_daemon import daemon_env, start, wait_for_state  # noqa: F401 - the fixture

BRIDGE = Path(__file__).resolve().parents[1] / "obsidian-bridge"


def _vitest() -> Path:
    vitest = BRIDGE / "node_modules" / ".bin" / "vitest"
    if shutil.which("node") and vitest.exists():
        return vitest
    if os.environ.get("CI"):
        raise RuntimeError(
            "node or obsidian-bridge/node_modules is missing: make plugin installs them"
        )
    pytest.skip("node or obsidian-bridge/node_modules is missing (make plugin installs them)")


@pytest.mark.slow
def test_the_plugin_pairs_with_a_real_daemon(daemon_env: dict[str, str], tmp_path: Path) -> None:  # noqa: F811
    vitest = _vitest()
    proc = start(daemon_env)
    try:
        port = port_of(tmp_path / "data", proc)
        wait_for_state(port, proc)
        owner = subprocess.run(
            [sys.executable, "-m", "commonplace", "token"],
            env=daemon_env,
            capture_output=True,
            text=True,
            timeout=60,
            check=True,
        ).stdout.strip()
        env = {
            **daemon_env,
            "COMMONPLACE_LIVE_DAEMON": f"http://127.0.0.1:{port}",
            "COMMONPLACE_LIVE_OWNER_TOKEN": owner,
            "COMMONPLACE_LIVE_PYTHON": sys.executable,
        }
        run = subprocess.run(
            [str(vitest), "run", "tests/live/pairing.live.test.ts"],
            cwd=BRIDGE,
            env=env,
            capture_output=True,
            text=True,
            timeout=300,
        )
        out = run.stdout + run.stderr
        assert run.returncode == 0, out
        assert "1 passed" in out and "skipped" not in out, out
    finally:
        proc.send_signal(signal.SIGTERM)
        try:
            proc.communicate(timeout=30)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.communicate()
