"""Benchmark of the assistant's task list (list_tasks): a cold read, then calls with nothing
changed. Prints JSON.

    .venv/bin/python eval_suite/bench_tasks.py --notes 50000 --tools-dir ../shared/tools

Builds the synthetic vault with make_vault.py (or takes --vault), then times
`TaskReader.open_tasks`: the first call parses every note; each later call walks the vault and
stats every note, and reads again only what changed. CPU seconds are given beside wall-clock
seconds: on a shared machine they are the steadier figure.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from commonplace.assistant.tasks import TaskReader
from commonplace.config import load_settings


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--notes", type=int, default=50_000)
    p.add_argument("--seed", type=int, default=7)
    p.add_argument("--rounds", type=int, default=9, help="calls timed after the cold one")
    p.add_argument("--vault", help="an existing vault instead of a synthetic one")
    p.add_argument("--tools-dir", default=os.environ.get("COMMONPLACE_SHARED_TOOLS"))
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
    print(
        json.dumps(
            {
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


if __name__ == "__main__":
    main()
