"""Benchmark of the daemon while it indexes a big vault: search latency, memory. Prints JSON.

    .venv/bin/python eval_suite/bench_daemon.py --notes 20000 --note-kb 16 --work /tmp/bench-20k

It makes a synthetic vault with ../shared/tools/make_vault.py (grown to about --note-kb per note,
so 20,000 notes come to the ~320 MB of the black-box run in issue 17), starts the fake Ollama in
a process of its own (hashed bag-of-words embeddings; by default an embedder only, as in that
run, so the inbox's captures wait for a chat model; `--chat` adds one that answers "OK"), starts
`commonplace run` on a fresh data folder as a real process, as a user would. While the daemon
builds its index from nothing, searches are sent to /api/search at a steady rate and /api/state
is polled; the daemon's resident memory is read from /proc. It stops once the index is ready
and a few more searches were timed, and reports what holds the daemon's memory then
(`memory_at_end`: RSS, PSS, USS, anonymous against mapped files, the biggest mappings).
`--restart` keeps the last run's index: a usual start instead of a first one. The daemon's
vector store runs in a child process (vector_process.py), reported as `vector_process_at_end`;
`--idle-wait-s` then stops searching for that long (with `--idle-minutes` shorter than it, the
child stops meanwhile), reports the idle daemon (`after_idle`) and times the next search (the
child started again).

    .venv/bin/python eval_suite/bench_daemon.py --notes 44 --note-kb 2 --after-s 60 \
        --search-every 5 --work /tmp/bench-44 [--restart]

Linux only (/proc). Not a test: it takes minutes and most of a 2-core machine.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import random
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import aiohttp

REPO = Path(__file__).resolve().parents[1]
READY = "search index ready"


def main() -> None:
    args = parse_args()
    work = Path(args.work)
    vault = make_vault(args, work)
    if not args.restart:
        reset(work, vault)
    queries = [json.loads(r)["query"] for r in (work / "queries.jsonl").read_text().splitlines()]
    with fake_ollama(work, chat=args.chat) as host:
        report = asyncio.run(measure(args, work, vault, host, queries))
    report["vault"] = {"notes": args.notes, "mb": round(folder_bytes(vault) / 1e6, 1)}
    print(json.dumps(report, indent=2))


def parse_args() -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--notes", type=int, default=20000)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--note-kb", type=float, default=16.0, help="grow notes to about this size")
    p.add_argument("--work", required=True, help="folder for the vault, data and logs (kept)")
    p.add_argument("--tools-dir", default=os.environ.get("COMMONPLACE_SHARED_TOOLS"))
    p.add_argument("--search-every", type=float, default=0.25, help="seconds between searches")
    p.add_argument("--after-s", type=float, default=20.0, help="keep searching once ready")
    p.add_argument("--timeout-s", type=float, default=3600.0)
    p.add_argument("--chat", action="store_true", help="a chat model too (answering garbage)")
    p.add_argument(
        "--idle-minutes",
        type=float,
        help="[index] vector_process_idle_minutes for the daemon (default: its own default)",
    )
    p.add_argument(
        "--idle-wait-s",
        type=float,
        default=0.0,
        help="then stop searching for this long, measure the idle daemon, and time one search",
    )
    p.add_argument(
        "--restart",
        action="store_true",
        help="keep the last run's index: a restart, not a first start",
    )
    return p.parse_args()


# -- the vault ------------------------------------------------------------------------------------


def make_vault(args: argparse.Namespace, work: Path) -> Path:
    """make_vault.py's notes, each grown with other notes' bodies to about --note-kb (Inbox/
    captures stay short, as captures are). Made once per --work folder."""
    vault = work / "vault"
    done = work / "vault.done"
    if done.exists():
        return vault
    tools = Path(args.tools_dir) if args.tools_dir else _shared_tools()
    work.mkdir(parents=True, exist_ok=True)
    subprocess.run(
        [
            *(sys.executable, str(tools / "make_vault.py"), str(vault)),
            *("--notes", str(args.notes), "--seed", str(args.seed)),
            *("--queries", str(work / "queries.jsonl")),
        ],
        check=True,
        stdout=subprocess.DEVNULL,
    )
    notes = sorted(p for p in vault.rglob("*.md") if "Inbox" not in p.parts)
    bodies = [_body(p.read_text(encoding="utf-8")) for p in notes]
    target = int(args.note_kb * 1024)
    for i, path in enumerate(notes):
        text = path.read_text(encoding="utf-8")
        parts, size, j = [text.rstrip("\n")], len(text.encode()), i
        while size < target:
            j = (j + 1) % len(bodies)
            extra = f"\n\n## Also {j}\n\n{bodies[j]}"
            parts.append(extra)
            size += len(extra.encode())
        path.write_text("".join(parts) + "\n", encoding="utf-8")
    done.write_text("ok\n")
    return vault


def _shared_tools() -> Path:
    """../shared/tools next to the checkout (or next to the worktrees' folder)."""
    for up in (REPO.parent, REPO.parent.parent):
        if (up / "shared" / "tools" / "make_vault.py").exists():
            return up / "shared" / "tools"
    raise SystemExit("make_vault.py not found; give --tools-dir")


def _body(text: str) -> str:
    if text.startswith("---\n"):
        end = text.find("\n---\n", 4)
        if end != -1:
            text = text[end + 5 :]
    return text.strip().replace("\n# ", "\n### ")


def reset(work: Path, vault: Path) -> None:
    """A first start: no data folder, and nothing the last run wrote into the vault."""
    shutil.rmtree(work / "data", ignore_errors=True)
    for folder in ("Digests", "Ask", ".commonplace"):
        shutil.rmtree(vault / folder, ignore_errors=True)


def folder_bytes(path: Path) -> int:
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file())


# -- processes ------------------------------------------------------------------------------------


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@contextlib.contextmanager
def fake_ollama(work: Path, *, chat: bool) -> Iterator[str]:
    port = free_port()
    models = "qwen3.5:9b,nomic-embed-text:latest" if chat else "nomic-embed-text:latest"
    with (work / "fake-ollama.log").open("w") as log:
        proc = subprocess.Popen(
            [sys.executable, "-m", "tests.fakes.ollama", "--port", str(port), "--models", models],
            cwd=REPO,
            stdout=log,
            stderr=subprocess.STDOUT,
        )
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), 1):
                break
            time.sleep(0.2)
        yield f"http://127.0.0.1:{port}"
    finally:
        proc.terminate()
        proc.wait(timeout=30)


def start_daemon(
    work: Path, vault: Path, host: str, port: int, idle_minutes: float | None = None
) -> subprocess.Popen[bytes]:
    config = work / "commonplace.toml"
    # Defaults, except the search rate limit: the benchmark sends 4 searches a second from one
    # client, over the 120 a minute a person never meets; it measures latency, not the limiter.
    text = "[limits]\nsearches_per_minute = 100000\n"
    if idle_minutes is not None:
        text += f"[index]\nvector_process_idle_minutes = {idle_minutes}\n"
    config.write_text(text)
    env = dict(os.environ)
    env.update(
        COMMONPLACE_CONFIG=str(config),
        COMMONPLACE_VAULT=str(vault),
        COMMONPLACE_DATA=str(work / "data"),
        COMMONPLACE_WEB_PORT=str(port),
        COMMONPLACE_TIMEZONE="Europe/London",
        OLLAMA_HOST=host,
    )
    log = (work / "daemon.log").open("wb")
    return subprocess.Popen(
        [sys.executable, "-m", "commonplace", "run"], env=env, stdout=log, stderr=log
    )


def memory_mb(pid: int) -> dict[str, float]:
    """VmRSS, VmHWM (peak), RssAnon and RssFile (mapped files, e.g. Tantivy's) of the process,
    MB."""
    out: dict[str, float] = {}
    with contextlib.suppress(OSError):
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            key = line.split(":", 1)[0]
            if key in ("VmRSS", "VmHWM", "RssAnon", "RssFile"):
                out[key] = int(line.split()[1]) / 1024
    return out


def memory_breakdown(pid: int, top: int = 12) -> dict[str, Any]:
    """What holds the memory at the end (/proc/PID/smaps), MB: RSS; PSS (each shared page
    divided among the processes that map it); USS (pages no other process maps: what stopping
    the daemon would free); anonymous memory (the heaps: Python objects, native allocations)
    against pages of mapped files (native libraries, index files: the kernel can drop and read
    them again); and the mappings that hold the most, by file."""
    by_name: dict[str, dict[str, float]] = {}
    totals = {"rss": 0.0, "pss": 0.0, "uss": 0.0, "anon": 0.0, "file": 0.0}
    name = "?"
    try:
        lines = Path(f"/proc/{pid}/smaps").read_text().splitlines()
    except OSError:
        return {}
    for line in lines:
        parts = line.split()
        if parts and not parts[0].endswith(":") and "-" in parts[0]:  # a mapping's header
            name = parts[5] if len(parts) > 5 else "[anonymous]"
            continue
        if len(parts) != 3 or parts[2] != "kB":
            continue
        key, mb = parts[0].rstrip(":"), int(parts[1]) / 1024
        row = by_name.setdefault(name, {"rss": 0.0, "anon": 0.0})
        if key == "Rss":
            row["rss"] += mb
            totals["rss"] += mb
        elif key == "Pss":
            totals["pss"] += mb
        elif key in ("Private_Clean", "Private_Dirty"):
            totals["uss"] += mb
        elif key == "Anonymous":
            row["anon"] += mb
            totals["anon"] += mb
    totals["file"] = totals["rss"] - totals["anon"]
    biggest = sorted(by_name.items(), key=lambda kv: -kv[1]["rss"])[:top]
    return {
        **{f"{k}_mb": round(v, 1) for k, v in totals.items()},
        "mappings_mb": {
            Path(k).name or k: {"rss": round(v["rss"], 1), "anon": round(v["anon"], 1)}
            for k, v in biggest
        },
    }


def child_memory(pid: int) -> dict[str, Any]:
    """memory_breakdown of the daemon's vector store process (vector_process.py), {} if none
    runs."""
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        with contextlib.suppress(OSError):
            stat = (entry / "stat").read_text()
            cmdline = (entry / "cmdline").read_bytes()
            if int(stat.rsplit(")", 1)[1].split()[1]) == pid and b"vector_child" in cmdline:
                return {"pid": int(entry.name), **memory_breakdown(int(entry.name), top=6)}
    return {}


# -- measuring ------------------------------------------------------------------------------------


@dataclass
class Samples:
    searches: list[dict[str, Any]] = field(default_factory=list)
    states: list[dict[str, Any]] = field(default_factory=list)
    rss: list[tuple[float, dict[str, float]]] = field(default_factory=list)
    ready_at: float | None = None
    peak_mb: float = 0.0
    incomplete: str = ""
    final: dict[str, Any] = field(default_factory=dict)
    child: dict[str, Any] = field(default_factory=dict)  # the vector store's process, if running
    idle: dict[str, Any] = field(default_factory=dict)  # after --idle-wait-s without searches


async def measure(
    args: argparse.Namespace, work: Path, vault: Path, host: str, queries: list[str]
) -> dict[str, Any]:
    port = free_port()
    started = time.monotonic()
    proc = start_daemon(work, vault, host, port, args.idle_minutes)
    samples = Samples()
    base = f"http://127.0.0.1:{port}"
    try:
        async with aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=60)) as http:
            first = await wait_up(http, base, proc)
            tasks = [
                asyncio.create_task(search_loop(http, base, queries, args, samples, started)),
                asyncio.create_task(state_loop(http, base, samples, started)),
                asyncio.create_task(memory_loop(proc.pid, samples, started)),
            ]
            try:
                await wait_ready(work, proc, samples, started, args.timeout_s)
                await asyncio.sleep(args.after_s)
            except SystemExit as exc:  # report what was measured until then
                samples.incomplete = str(exc)
            for task in tasks:
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)
            samples.peak_mb = max(samples.peak_mb, memory_mb(proc.pid).get("VmHWM", 0.0))
            samples.final = memory_breakdown(proc.pid)
            samples.child = child_memory(proc.pid)
            if args.idle_wait_s:
                await asyncio.sleep(args.idle_wait_s)
                samples.idle = {
                    "daemon": memory_breakdown(proc.pid),
                    "vector_process": child_memory(proc.pid),
                }
                t0 = time.monotonic()
                async with http.get(f"{base}/api/search", params={"q": queries[0]}) as response:
                    body = await response.json()
                samples.idle["search_after_idle"] = {
                    "ms": round(1000 * (time.monotonic() - t0)),
                    "mode": body.get("mode"),
                    "results": len(body.get("results", [])),
                }
            (work / "samples.json").write_text(json.dumps(asdict(samples)))
    finally:
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(timeout=60)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
    return summarise(samples, first - started)


async def wait_up(http: aiohttp.ClientSession, base: str, proc: subprocess.Popen[bytes]) -> float:
    while proc.poll() is None:
        with contextlib.suppress(aiohttp.ClientError, OSError):
            async with http.get(f"{base}/api/state") as response:
                if response.status == 200:
                    return time.monotonic()
        await asyncio.sleep(0.2)
    raise SystemExit("the daemon exited; see daemon.log")


async def wait_ready(
    work: Path, proc: subprocess.Popen[bytes], samples: Samples, started: float, limit_s: float
) -> None:
    log = work / "daemon.log"
    while time.monotonic() - started < limit_s:
        if proc.poll() is not None:
            raise SystemExit("the daemon exited; see daemon.log")
        if READY in log.read_text(errors="replace"):
            samples.ready_at = time.monotonic() - started
            return
        await asyncio.sleep(0.5)
    raise SystemExit(f"the index was not ready within {limit_s:.0f} s")


async def search_loop(
    http: aiohttp.ClientSession,
    base: str,
    queries: list[str],
    args: argparse.Namespace,
    samples: Samples,
    started: float,
) -> None:
    rng = random.Random(7)
    while True:
        query = rng.choice(queries)
        t0 = time.monotonic()
        row: dict[str, Any] = {"at": t0 - started, "during": samples.ready_at is None}
        try:
            async with http.get(f"{base}/api/search", params={"q": query}) as response:
                body = await response.json()
                row.update(status=response.status, notice=body.get("notice"))
                row["results"] = len(body.get("results", []))
        except (aiohttp.ClientError, TimeoutError) as exc:
            row.update(status=0, error=type(exc).__name__)
        row["ms"] = 1000 * (time.monotonic() - t0)
        samples.searches.append(row)
        await asyncio.sleep(max(0.0, args.search_every - (time.monotonic() - t0)))


async def state_loop(
    http: aiohttp.ClientSession, base: str, samples: Samples, started: float
) -> None:
    while True:
        t0 = time.monotonic()
        row: dict[str, Any] = {"at": t0 - started, "during": samples.ready_at is None}
        try:
            async with http.get(f"{base}/api/state") as response:
                body = await response.json()
                row["status"] = response.status
                row["index"] = body.get("index", {}).get("progress")
        except (aiohttp.ClientError, TimeoutError) as exc:
            row.update(status=0, error=type(exc).__name__)
        row["ms"] = 1000 * (time.monotonic() - t0)
        samples.states.append(row)
        await asyncio.sleep(max(0.0, 1.0 - (time.monotonic() - t0)))


async def memory_loop(pid: int, samples: Samples, started: float) -> None:
    while True:
        mem = memory_mb(pid)
        samples.rss.append((time.monotonic() - started, mem))
        samples.peak_mb = max(samples.peak_mb, mem.get("VmHWM", 0.0))
        await asyncio.sleep(0.5)


def latency(rows: list[dict[str, Any]]) -> dict[str, Any]:
    times = sorted(r["ms"] for r in rows)
    if not times:
        return {"n": 0}
    return {
        "n": len(times),
        "p50_ms": round(statistics.median(times), 1),
        "p95_ms": round(times[min(len(times) - 1, int(0.95 * len(times)))], 1),
        "max_ms": round(times[-1], 1),
        "errors": sum(1 for r in rows if r.get("status") != 200),
    }


def summarise(samples: Samples, first_answer_s: float) -> dict[str, Any]:
    during = [r for r in samples.searches if r["during"]]
    after = [r for r in samples.searches if not r["during"]]
    notices = [r.get("notice") for r in during if r.get("notice")]
    return {
        "incomplete": samples.incomplete or None,
        "first_state_answer_s": round(first_answer_s, 1),
        "index_ready_s": round(samples.ready_at or 0.0, 1),
        "search_while_indexing": latency(during),
        "search_after": latency(after),
        "state_while_indexing": latency([r for r in samples.states if r["during"]]),
        "searches_with_results_while_indexing": sum(1 for r in during if r.get("results")),
        "a_notice_while_indexing": notices[len(notices) // 2] if notices else None,
        "peak_rss_mb": round(samples.peak_mb),
        "memory_at_end": samples.final,
        "vector_process_at_end": samples.child or None,
        "after_idle": samples.idle or None,
        "peak_anon_mb": round(max((m.get("RssAnon", 0.0) for _, m in samples.rss), default=0)),
        "peak_file_mb": round(max((m.get("RssFile", 0.0) for _, m in samples.rss), default=0)),
        "rss_mb_at_ready": round(
            next(
                (
                    m.get("VmRSS", 0)
                    for at, m in reversed(samples.rss)
                    if at <= (samples.ready_at or 0)
                ),
                0.0,
            )
        ),
    }


if __name__ == "__main__":
    main()
