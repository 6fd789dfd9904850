"""Benchmark of the assistant's task list (list_tasks): a cold read, then calls with nothing
changed. Prints JSON.

    .venv/bin/python eval_suite/bench_tasks.py --notes 50000 --tools-dir ../shared/tools

Builds the synthetic vault with make_vault.py (or takes --vault), then times
`TaskReader.open_tasks`: the first call parses every note; each later call walks the vault and
stats every note, and reads again only what changed. CPU seconds are given beside wall-clock
seconds: on a shared machine they are the steadier figure.

With --read-ahead it also times what the daemon does after start-up (`TaskReader.warm` in a
thread of its own) and the first call after it, and how much a small piece of Python work in
the main thread (the shape of a search's own work in the event loop, about a millisecond) is
slowed meanwhile: its p50/p95 before and during the read-ahead, counted from when it was due
(a wait for the interpreter after an idle moment counts).

With --client S,... it times what `commonplace chat` (read-ahead without rests) and
`commonplace mcp` (with rests) do (they read the vault themselves, daemon or not): a fresh
reader read ahead from the process's start, and the first list_tasks S seconds later
(`open_tasks_within`, which answers "still being read" rather than wait past LIST_WAIT_S): how
long that first answer took, whether it had the list, and when the list was there.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

from commonplace.assistant.tasks import TaskReader, TasksNotReady, warm_in_background
from commonplace.config import Settings, load_settings


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--notes", type=int, default=50_000)
    p.add_argument("--seed", type=int, default=7)
    p.add_argument("--rounds", type=int, default=9, help="calls timed after the cold one")
    p.add_argument("--vault", help="an existing vault instead of a synthetic one")
    p.add_argument("--tools-dir", default=os.environ.get("COMMONPLACE_SHARED_TOOLS"))
    p.add_argument("--read-ahead", action="store_true", help="also time the daemon's read-ahead")
    p.add_argument("--client", help="seconds after start of a chat/MCP first list_tasks: 0,5,15")
    args = p.parse_args()
    with tempfile.TemporaryDirectory(prefix="bench-tasks-") as work:
        vault = Path(args.vault) if args.vault else Path(work) / "vault"
        if not args.vault:
            if not args.tools_dir:
                sys.exit("give --tools-dir (the folder with make_vault.py) or --vault")
            make = Path(args.tools_dir) / "make_vault.py"
            subprocess.run(
                [sys.executable, str(make), str(vault), "--notes", str(args.notes),
                 "--seed", str(args.seed), "--queries", str(Path(work) / "q.jsonl")],
                check=True, stdout=subprocess.DEVNULL,
            )  # fmt: skip
        env = {"COMMONPLACE_VAULT": str(vault), "COMMONPLACE_DATA": str(Path(work) / "data")}
        reader = TaskReader(load_settings(env=env))
        start, cpu = time.perf_counter(), time.process_time()
        tasks = reader.open_tasks()
        cold, cold_cpu = time.perf_counter() - start, time.process_time() - cpu
        warm, warm_cpu = [], []
        for _ in range(args.rounds):
            start, cpu = time.perf_counter(), time.process_time()
            reader.open_tasks()
            warm.append(time.perf_counter() - start)
            warm_cpu.append(time.process_time() - cpu)
        ahead = read_ahead(load_settings(env=env)) if args.read_ahead else {}
        if args.client:
            delays = [float(d) for d in args.client.split(",")]
            ahead["client"] = [
                first_client_call(load_settings(env=env), d, rest)
                for rest in (0.0, 1.0)
                for d in delays
            ]
    print(
        json.dumps(
            {
                **ahead,
                "notes": sum(1 for _ in vault.rglob("*.md")) if args.vault else args.notes,
                "open_tasks": len(tasks),
                "cold_s": round(cold, 2),
                "cold_cpu_s": round(cold_cpu, 2),
                "call_median_s": round(statistics.median(warm), 3),
                "call_min_s": round(min(warm), 3),
                "call_cpu_median_s": round(statistics.median(warm_cpu), 3),
            }
        )
    )


def probe() -> None:
    """About a millisecond of Python work, like a search's own in the event loop."""
    rows = [{"path": f"Notes/n{i}.md", "score": i / 7, "text": "word " * 40} for i in range(400)]
    json.loads(json.dumps(sorted(rows, key=lambda r: -float(r["score"]))))


IDLE_S = 0.02  # an event loop is mostly idle between requests


def probes(until: threading.Event | None, count: int = 300) -> list[float]:
    """Each probe's time from the moment it was due (the end of an idle wait) to its end: the
    wait for the interpreter after the idle wait counts too, as it would for a request."""
    took: list[float] = []
    while len(took) < count and not (until is not None and until.is_set()):
        due = time.perf_counter() + IDLE_S
        time.sleep(IDLE_S)
        probe()
        took.append(time.perf_counter() - due)
    return took


def read_ahead(settings: Settings) -> dict[str, float]:
    """A fresh reader read ahead as the daemon does, then its first call; the probe's times
    before and during the read-ahead."""
    reader = TaskReader(settings)
    alone = probes(None, 150)
    done = threading.Event()
    spent: dict[str, float] = {}

    def run() -> None:
        start, cpu = time.perf_counter(), time.thread_time()
        reader.warm()
        spent.update(wall=time.perf_counter() - start, cpu=time.thread_time() - cpu)
        done.set()

    threading.Thread(target=run).start()
    during = probes(done, 10**9)
    done.wait()
    start, cpu = time.perf_counter(), time.process_time()
    reader.open_tasks()
    first, first_cpu = time.perf_counter() - start, time.process_time() - cpu

    def ms(values: list[float], q: float) -> float:
        return round(sorted(values)[int(q * (len(values) - 1))] * 1000, 2)

    return {
        "read_ahead_s": round(spent["wall"], 2),
        "read_ahead_cpu_s": round(spent["cpu"], 2),
        "first_call_after_s": round(first, 3),
        "first_call_after_cpu_s": round(first_cpu, 3),
        "probe_alone_p50_ms": ms(alone, 0.5),
        "probe_alone_p95_ms": ms(alone, 0.95),
        "probe_during_p50_ms": ms(during, 0.5),
        "probe_during_p95_ms": ms(during, 0.95),
        "probes_during": len(during),
    }


def first_client_call(settings: Settings, after_s: float, rest: float) -> dict[str, object]:
    """chat (rest 0) or MCP (rest 1): read ahead from the start (cli/chat.py, cli/mcp.py), the
    first list_tasks `after_s` later: how long its answer took, whether it had the list, and
    when the list was there (asked again until it was)."""
    reader = TaskReader(settings)
    stop = warm_in_background(reader, rest=rest)
    time.sleep(after_s)
    out: dict[str, object] = {"rest": rest, "asked_after_s": after_s}
    asked = time.perf_counter()
    while True:
        start = time.perf_counter()
        try:
            reader.open_tasks_within()
            listed = True
        except TasksNotReady:
            listed = False
        out.setdefault("first_answer_s", round(time.perf_counter() - start, 2))
        out.setdefault("first_listed", listed)
        if listed:
            out["listed_after_asking_s"] = round(time.perf_counter() - asked, 2)
            break
    stop.set()
    return out


if __name__ == "__main__":
    main()
