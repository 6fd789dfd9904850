"""From `make run` to the sample's captures filed by the built-in engine, and its memory.

    .venv/bin/python eval_suite/bench_first_filing.py --out eval_suite/runs/first-filing.json

Runs what `make run FRESH=1` runs (`commonplace run --sample-if-unset --fresh-sample`) as a new
user would on a computer without Ollama (OLLAMA_HOST points at a closed port, so `backend =
"auto"` chooses the built-in engine), in a scratch folder of its own (TMPDIR), and times: the
daemon serving its page, the first capture filed, every capture filed. It reads the engine's
memory (the child's resident set, /proc) while loaded, and again once it has stopped after
`--idle-s` seconds without a request (the daemon's own memory then, too). The machine's load is
recorded before and after: seconds here are only comparable on a quiet machine.
"""

from __future__ import annotations

import argparse
import json
import os
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
CAPTURES = 20


def rss_mib(pid: int) -> float | None:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return round(int(line.split()[1]) / 1024, 1)
    except OSError:
        return None
    return None


def closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--out", type=Path, help="write the figures here as JSON")
    p.add_argument("--idle-s", type=float, default=60.0, help="[builtin] idle_stop_s")
    p.add_argument("--timeout-s", type=float, default=1800.0)
    args = p.parse_args()
    scratch = Path(tempfile.mkdtemp(prefix="bench-first-filing-"))
    config = scratch / "commonplace.toml"
    config.write_text(f"[builtin]\nidle_stop_s = {args.idle_s}\n", encoding="utf-8")
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith("COMMONPLACE_") and k != "OLLAMA_HOST"
    }
    env |= {
        "TMPDIR": str(scratch),
        "XDG_CONFIG_HOME": str(scratch / "config"),
        "XDG_STATE_HOME": str(scratch / "state"),
        "COMMONPLACE_CONFIG": str(config),
        "COMMONPLACE_WEB_PORT": "0",
        "OLLAMA_HOST": f"http://127.0.0.1:{closed_port()}",
    }
    load_before = os.getloadavg()
    command = [
        str(Path(sys.executable).with_name("commonplace")),
        "run",
        "--sample-if-unset",
        "--fresh-sample",
    ]
    started = time.monotonic()
    log = (scratch / "daemon.log").open("w")
    proc = subprocess.Popen(
        command, env=env, cwd=scratch, stdout=subprocess.DEVNULL, stderr=log, text=True
    )
    figures: dict[str, Any] = {"command": " ".join(command[1:]), "load_before": load_before}
    vault = scratch / "commonplace-sample" / "Sample vault"
    filed_dir = vault / "Filed"
    inbox = vault / "Inbox"
    data = scratch / "commonplace-sample" / "data"
    try:
        engine_pid = None
        while time.monotonic() - started < args.timeout_s:
            if (
                "page_s" not in figures
                and "serving the phone page" in (scratch / "daemon.log").read_text()
            ):
                figures["page_s"] = round(time.monotonic() - started, 1)
            filed = list(filed_dir.glob("*.md")) if filed_dir.is_dir() else []
            if filed and "first_filed_s" not in figures:
                figures["first_filed_s"] = round(time.monotonic() - started, 1)
            shared = next(data.glob("*/engine.json"), None)
            if shared is not None and engine_pid is None:
                engine_pid = int(json.loads(shared.read_text())["pid"])
            if engine_pid is not None:
                figures["engine_rss_mib_loaded"] = max(
                    figures.get("engine_rss_mib_loaded", 0), rss_mib(engine_pid) or 0
                )
            waiting = list(inbox.glob("*.md")) if inbox.is_dir() else []
            if len(filed) >= CAPTURES or (filed and not waiting):
                figures["all_filed_s"] = round(time.monotonic() - started, 1)
                figures["filed"] = len(filed)
                break
            time.sleep(0.5)
        time.sleep(args.idle_s + 15)  # the engine stops after idle_s without a request
        figures["engine_running_after_idle"] = bool(engine_pid and rss_mib(engine_pid))
        figures["daemon_rss_mib_after_idle"] = rss_mib(proc.pid)
    finally:
        proc.terminate()
        proc.wait(30)
        log.close()
    figures["load_after"] = os.getloadavg()
    text = json.dumps(figures, indent=1)
    print(text)
    if args.out:
        args.out.write_text(text + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
