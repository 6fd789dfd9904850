"""Benchmark: does `commonplace run` stay responsive whatever lands in the inbox? Prints JSON.

    .venv/bin/python eval_suite/bench_inbox.py --case big
    .venv/bin/python eval_suite/bench_inbox.py --case many --captures 5000

`big`: a 50 MB capture and one with 5 MB of frontmatter dropped into the inbox of a running
daemon, with a (fake) Ollama up. `many`: N small captures waiting while Ollama is down. For
each: /api/state latency (median, p95, max over the polls) while the daemon works, the daemon's
peak resident memory, and how long until the daemon settled. The daemon runs as a subprocess
on a copy of vault_fixture/; the fake Ollama runs in a thread of this process.
"""

from __future__ import annotations

import argparse
import json
import shutil
import socket
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from tests.daemon_process import Daemon, tidy_answer  # noqa: E402
from tests.fakes.ollama import FakeOllama, run_in_thread  # noqa: E402

CONFIG = '[model]\nbackend = "ollama"\nretries = 0\n[tidy]\nstable_s = 0.5\n'


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--case", choices=("big", "many"), default="big")
    parser.add_argument("--captures", type=int, default=5000, help="for --case many")
    parser.add_argument("--seconds", type=float, default=20.0, help="how long to poll")
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="bench-inbox-"))
    try:
        vault = work / "vault"
        shutil.copytree(REPO / "vault_fixture", vault, ignore=shutil.ignore_patterns("captures"))
        (vault / "Inbox").mkdir()
        if args.case == "big":
            fake = FakeOllama()
            fake.chat_handler = tidy_answer("Flour")
            with run_in_thread(fake) as url:
                report = run(vault, work, url, lambda: drop_big(vault), args.seconds)
        else:
            for i in range(args.captures):
                capture = vault / "Inbox" / f"2026-10-19 {i:06d}.md"
                capture.write_text(f"---\ncaptured: 2026-10-19T08:00\n---\nthought {i}\n")
            with socket.socket() as dead:  # bound, never listening: Ollama is down
                dead.bind(("127.0.0.1", 0))
                url = f"http://127.0.0.1:{dead.getsockname()[1]}"
                report = run(vault, work, url, lambda: None, args.seconds)
        print(json.dumps({"case": args.case, **report}, indent=1))
    finally:
        shutil.rmtree(work, ignore_errors=True)


def drop_big(vault: Path) -> None:
    with (vault / "Inbox" / "2026-10-19 0700.md").open("w") as handle:
        handle.write("---\ncaptured: 2026-10-19T07:00\n---\n")
        for _ in range(50):
            handle.write(("a line of words " * 64 + "\n") * 1024)
    fat = vault / "Inbox" / "2026-10-19 0710.md"
    fat.write_text(f"---\ncaptured: 2026-10-19T07:10\njunk: '{'x' * 5_000_000}'\n---\nhi\n")
    (vault / "Inbox" / "2026-10-19 0730.md").write_text("---\n---\nbuy flour\n")


def run(vault: Path, work: Path, url: str, drop: Any, seconds: float) -> dict[str, Any]:
    daemon = Daemon(vault=vault, data=work / "data", ollama_url=url, config=CONFIG)
    started = time.monotonic()
    daemon.start()
    first_answer_s = time.monotonic() - started
    try:
        drop()
        times: list[float] = []
        state: dict[str, Any] = {}
        end = time.monotonic() + seconds
        while time.monotonic() < end:
            t = time.monotonic()
            state = daemon.state() or {}
            times.append(time.monotonic() - t)
            time.sleep(0.25)
        assert daemon.proc is not None
        status = Path(f"/proc/{daemon.proc.pid}/status").read_text()
        peak = int(status.split("VmHWM:")[1].split()[0]) / 1024
    finally:
        daemon.stop()
    times.sort()
    return {
        "start_to_first_state_s": round(first_answer_s, 1),
        "state_polls": len(times),
        "state_median_ms": round(statistics.median(times) * 1000),
        "state_p95_ms": round(times[int(len(times) * 0.95) - 1] * 1000),
        "state_max_ms": round(times[-1] * 1000),
        "peak_rss_mb": round(peak),
        "captures_waiting": state.get("captures_waiting"),
        "attention": [(e["path"], e["code"]) for e in state.get("attention", [])],
    }


if __name__ == "__main__":
    main()
