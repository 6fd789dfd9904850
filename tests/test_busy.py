"""tests/busy.py, which `make test-busy` runs the suite under: the command's exit status is its
own, and its busy loops end with the command."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

BUSY = Path(__file__).resolve().parent / "busy.py"


def test_the_commands_status_is_passed_on_and_no_busy_loop_is_left(tmp_path: Path) -> None:
    pids = tmp_path / "pids"
    # The command writes the busy loops' pids (its siblings: the children of busy.py).
    script = (
        "import os, sys, pathlib; parent = os.getppid(); "
        "kids = pathlib.Path(f'/proc/{parent}/task/{parent}/children').read_text().split(); "
        f"pathlib.Path({str(pids)!r}).write_text(' '.join(kids)); sys.exit(3)"
    )
    done = subprocess.run(
        [sys.executable, str(BUSY), "--cores", "2", "--", sys.executable, "-c", script],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 3, done.stderr
    assert "2 busy loop(s)" in done.stdout
    loops = [int(p) for p in pids.read_text().split() if int(p) != 0]
    assert len(loops) == 3  # two loops and the command itself
    for pid in loops:
        assert not Path(f"/proc/{pid}").exists() or _zombie_or_gone(pid), pid


def _zombie_or_gone(pid: int) -> bool:
    try:
        return Path(f"/proc/{pid}/stat").read_text().split(") ")[1].startswith(("Z", "X"))
    except OSError:  # gone between the two looks
        return True
