"""How quiet an idle daemon is: CPU, wake-ups, disk writes, log lines, requests. Prints JSON.

    .venv/bin/python eval_suite/bench_idle.py --idle-s 600 --work /tmp/bench-idle
    .venv/bin/python eval_suite/bench_idle.py --idle-s 300 --ollama down --work /tmp/bench-idle
    .venv/bin/python eval_suite/bench_idle.py --idle-s 300 --page visible --work /tmp/bench-idle

It does what a user does: copies the sample vault (vault_fixture/) into --work, writes a
commonplace.toml there (`[web] port = 0`), starts the fake Ollama (tests/fakes/ollama.py, in
this process: its requests are counted) or none (`--ollama down`: the host is a closed port),
and starts `commonplace run` as a process of its own. Once start-up is done (the index ready,
the queue empty, the task list read ahead) and --settle-s more seconds have passed, it measures
for --idle-s seconds:

- CPU seconds (utime + stime from /proc/PID/task/*/stat), per thread by name, with the
  daemon's child processes counted too (a thread or process that ends during the window is
  left out: its figures go with it);
- wake-ups: voluntary context switches per thread (/proc/PID/task/*/status: each is a thread
  going to sleep, so each is one wake-up); involuntary ones (preemptions, which say more about
  the machine's load than about the daemon) are counted apart;
- bytes written (/proc/PID/io write_bytes: what reaches the disk; wchar: every write call),
  and every file written in the vault and the data folder, counted by inotify (close after
  writing, renamed into place), with how many times;
- log lines the daemon wrote;
- requests the daemon sent to Ollama, by path;
- open file descriptors and threads, at the start and the end;
- with `--page visible|hidden`, the phone page open in headless Chromium (Debian's, driven by
  Playwright as in the browser tests) the whole time, and the requests it made; `hidden` tells
  the page it was hidden (a phone with the screen off, a background tab).

With `--strace`, `strace -f -c` also runs on the daemon for the window and the system calls it
counted are added; tracing stops every thread at every system call, so that run's CPU and
wake-up figures are left out (measure them in a run without it).

Linux only (/proc). Not a test: it takes minutes.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))  # tests.fakes.ollama, as `python -m tests.fakes.ollama` finds it

TICKS = os.sysconf("SC_CLK_TCK")


def main() -> None:
    args = parse_args()
    work = Path(args.work)
    vault, data = prepare(work, args.captures)
    report = measure(args, work, vault, data)
    print(json.dumps(report, indent=2))


def parse_args() -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--work", required=True, help="folder for the vault, data and logs (replaced)")
    p.add_argument("--idle-s", type=float, default=600.0, help="length of the measured window")
    p.add_argument("--settle-s", type=float, default=30.0, help="wait after start-up work")
    p.add_argument("--ollama", choices=("up", "down"), default="up")
    p.add_argument("--page", choices=("none", "visible", "hidden"), default="none")
    p.add_argument(
        "--captures", type=int, default=0, help="the fixture week's first N captures in Inbox/"
    )
    p.add_argument("--strace", action="store_true", help="count system calls (strace -f -c)")
    p.add_argument("--timeout-s", type=float, default=300.0, help="longest start-up")
    return p.parse_args()


# -- the vault, as `make run` makes it ------------------------------------------------------------


def prepare(work: Path, captures: int) -> tuple[Path, Path]:
    """A fresh copy of the sample vault (as `make run` makes it), with `captures` of the
    fixture week's captures waiting in its inbox (with Ollama down, they wait there)."""
    from commonplace.firstrun.sample import make_sample_vault, sample_captures

    shutil.rmtree(work, ignore_errors=True)
    work.mkdir(parents=True)
    vault = make_sample_vault(work / "vault")
    inbox = vault / "Inbox"
    inbox.mkdir(exist_ok=True)
    for capture in sample_captures()[:captures]:
        shutil.copy2(capture, inbox / capture.name)
    return vault, work / "data"


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@contextlib.contextmanager
def ollama(mode: str) -> Iterator[tuple[str, Any]]:
    """(host, the fake) with the fake served from a thread of this process; down: a port that
    nothing listens on, and no fake."""
    if mode == "down":
        yield f"http://127.0.0.1:{free_port()}", None
        return
    from tests.fakes.ollama import FakeOllama, run_in_thread

    fake = FakeOllama()
    with run_in_thread(fake) as url:
        yield url, fake


def start_daemon(work: Path, vault: Path, data: Path, host: str) -> subprocess.Popen[bytes]:
    config = work / "commonplace.toml"
    config.write_text(
        f'vault = "{vault}"\ndata_dir = "{data}"\ntimezone = "Europe/London"\n\n'
        f'[web]\nport = 0\n\n[model]\nbackend = "ollama"\n\n[ollama]\nhost = "{host}"\n',
        encoding="utf-8",
    )
    env = {k: v for k, v in os.environ.items() if not k.startswith(("COMMONPLACE_", "OLLAMA_"))}
    env["COMMONPLACE_CONFIG"] = str(config)
    log = (work / "daemon.log").open("wb")
    return subprocess.Popen(
        [sys.executable, "-m", "commonplace", "run"], env=env, stdout=log, stderr=log
    )


def port_of(data: Path, proc: subprocess.Popen[bytes], limit_s: float) -> int:
    from commonplace.runtime.lock import LOCK_NAME, read_lock

    deadline = time.monotonic() + limit_s
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise SystemExit("the daemon exited; see daemon.log")
        for path in data.glob(f"*/{LOCK_NAME}"):
            lock = read_lock(path)
            if lock is not None and lock.pid == proc.pid and lock.port:
                return lock.port
        time.sleep(0.2)
    raise SystemExit(f"the daemon did not listen within {limit_s:.0f} s")


def state(port: int) -> dict[str, Any]:
    request = urllib.request.Request(f"http://127.0.0.1:{port}/api/state")
    with urllib.request.urlopen(request, timeout=30) as response:
        return dict(json.load(response))


def wait_started(port: int, log: Path, proc: subprocess.Popen[bytes], limit_s: float) -> float:
    """Until the start-up work is done: the index ready, nothing queued or running, and the
    task list read ahead (or a failure of the index's start-up job, with Ollama down)."""
    started = time.monotonic()
    while time.monotonic() - started < limit_s:
        if proc.poll() is not None:
            raise SystemExit("the daemon exited; see daemon.log")
        text = log.read_text(errors="replace")
        body = state(port)
        jobs, index = body["daemon"]["jobs"], body.get("index") or {}
        idle = not jobs["pending"] and not jobs["running"] and not index.get("running")
        if idle and "task list read ahead" in text:
            return time.monotonic() - started
        time.sleep(0.5)
    raise SystemExit(f"start-up did not finish within {limit_s:.0f} s")


# -- what /proc says --------------------------------------------------------------------------


@dataclass
class Thread:
    name: str
    ticks: int
    switches: int  # voluntary
    preempted: int  # involuntary


@dataclass
class Snapshot:
    at: float
    threads: dict[str, Thread] = field(default_factory=dict)  # "pid/tid" -> Thread
    io: dict[int, dict[str, int]] = field(default_factory=dict)  # per process
    fds: int = 0
    processes: int = 0


def family(pid: int) -> list[int]:
    """The daemon and its descendants (a helper process it started, if any)."""
    out, todo = [], [pid]
    while todo:
        p = todo.pop()
        out.append(p)
        with contextlib.suppress(OSError):
            for task in Path(f"/proc/{p}/task").iterdir():
                todo.extend(int(k) for k in (task / "children").read_text().split())
    return out


def snapshot(pid: int) -> Snapshot:
    snap = Snapshot(at=time.monotonic())
    for p in family(pid):
        with contextlib.suppress(OSError):
            for task in Path(f"/proc/{p}/task").iterdir():
                with contextlib.suppress(OSError):
                    stat = (task / "stat").read_text()
                    name = stat[stat.index("(") + 1 : stat.rindex(")")]
                    fields = stat[stat.rindex(")") + 2 :].split()
                    status = _fields((task / "status").read_text())
                    snap.threads[f"{p}/{task.name}"] = Thread(
                        name,
                        int(fields[11]) + int(fields[12]),
                        int(status["voluntary_ctxt_switches"]),
                        int(status["nonvoluntary_ctxt_switches"]),
                    )
            io = _fields(Path(f"/proc/{p}/io").read_text())
            for key in ("wchar", "syscw", "write_bytes", "rchar", "syscr", "read_bytes"):
                snap.io.setdefault(p, {})[key] = int(io[key])
            snap.fds += sum(1 for _ in Path(f"/proc/{p}/fd").iterdir())
            snap.processes += 1
    return snap


def _fields(text: str) -> dict[str, str]:
    return {k.strip(): v.strip() for k, _, v in (line.partition(":") for line in text.splitlines())}


def difference(a: Snapshot, b: Snapshot) -> dict[str, Any]:
    """CPU and wake-ups over the window, in all and per thread name (threads of one name, such
    as a pool's, added up), the most wake-ups first."""
    by_name: dict[str, list[float]] = {}
    preempted = 0
    for key, t in b.threads.items():
        old = a.threads.get(key, Thread(t.name, 0, 0, 0))
        row = by_name.setdefault(t.name, [0, 0, 0])
        row[0] += 1
        row[1] += (t.ticks - old.ticks) / TICKS
        row[2] += t.switches - old.switches
        preempted += t.preempted - old.preempted
    window = b.at - a.at
    cpu = sum(r[1] for r in by_name.values())
    wakes = sum(r[2] for r in by_name.values())
    return {
        "cpu_s": round(cpu, 2),
        "cpu_s_per_hour": round(cpu * 3600 / window, 1),
        "wakeups_per_s": round(wakes / window, 2),
        "preempted_per_s": round(preempted / window, 2),
        "threads_by_name": {
            name: {"threads": int(n), "cpu_s": round(c, 2), "wakeups_per_s": round(w / window, 2)}
            for name, (n, c, w) in sorted(by_name.items(), key=lambda kv: (-kv[1][2], kv[0]))
            if c or w
        },
        "write_bytes": _io(a, b, "write_bytes"),
        "write_calls": _io(a, b, "syscw"),
        "wchar": _io(a, b, "wchar"),
        "read_calls": _io(a, b, "syscr"),
        "fds": [a.fds, b.fds],
        "threads": [len(a.threads), len(b.threads)],
        "processes": [a.processes, b.processes],
    }


def _io(a: Snapshot, b: Snapshot, key: str) -> int:
    """Over the window, for the processes alive at its end (a helper process that exited during
    it, such as the vector store's after its idle time, is left out: its last figures are gone
    with it)."""
    return sum(io[key] - a.io.get(pid, {}).get(key, 0) for pid, io in b.io.items())


# -- files written, counted by inotify ---------------------------------------------------------


class Writes:
    """Every file closed after writing or renamed into place under the folders, counted."""

    def __init__(self, *roots: Path) -> None:
        from watchdog.events import FileClosedEvent, FileMovedEvent, FileSystemEventHandler
        from watchdog.observers import Observer

        from commonplace.vault.layout import TEMP_SUFFIX

        self.counts: Counter[str] = Counter()
        self.roots = roots
        counts = self.counts

        class Handler(FileSystemEventHandler):
            def on_any_event(self, event: Any) -> None:
                if event.is_directory:
                    return
                path = os.fsdecode(
                    event.dest_path if event.event_type == "moved" else event.src_path
                )
                if event.event_type == "moved" or not path.endswith(TEMP_SUFFIX):
                    counts[_short(path, roots)] += 1  # a temp file counts once, as renamed

        self.observer = Observer()
        for root in roots:
            self.observer.schedule(
                Handler(), str(root), recursive=True, event_filter=[FileClosedEvent, FileMovedEvent]
            )

    def __enter__(self) -> Writes:
        self.observer.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.observer.stop()
        self.observer.join(5)


def _short(path: str, roots: tuple[Path, ...]) -> str:
    for root in roots:
        with contextlib.suppress(ValueError):
            return f"{root.name}/{Path(path).relative_to(root).as_posix()}"
    return path


# -- the phone page -------------------------------------------------------------------------------


@contextlib.contextmanager
def phone_page(port: int, mode: str) -> Iterator[Counter[str]]:
    """The page open in headless Chromium; yields the count of its requests by path."""
    counts: Counter[str] = Counter()
    if mode == "none":
        yield counts
        return
    from playwright.sync_api import sync_playwright

    done = threading.Event()
    ready = threading.Event()
    failed: list[BaseException] = []

    def run() -> None:  # Playwright's sync API keeps to the thread that started it
        try:
            with sync_playwright() as pw:
                browser = pw.chromium.launch(
                    executable_path=shutil.which("chromium") or "/usr/bin/chromium",
                    args=["--no-sandbox", "--disable-gpu", "--disable-background-networking"],
                )
                page = browser.new_page(viewport={"width": 390, "height": 844})
                page.goto(f"http://127.0.0.1:{port}/")
                page.wait_for_selector("#status-text")
                if mode == "hidden":
                    page.evaluate(HIDE)
                page.wait_for_timeout(1000)
                page.on("request", lambda r: counts.update([urlsplit(r.url).path]))
                ready.set()
                while not done.is_set():
                    page.wait_for_timeout(500)  # serves the page's timers meanwhile
                browser.close()
        except BaseException as exc:
            failed.append(exc)
            ready.set()

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    ready.wait(120)
    if failed:
        raise SystemExit(f"the phone page could not be opened: {failed[0]}")
    try:
        yield counts
    finally:
        done.set()
        thread.join(60)


# What a browser does when the page is no longer shown (a phone's screen off, another tab).
HIDE = """() => {
  Object.defineProperty(document, "visibilityState", { configurable: true, get: () => "hidden" });
  Object.defineProperty(document, "hidden", { configurable: true, get: () => true });
  document.dispatchEvent(new Event("visibilitychange"));
}"""


# -- the run -----------------------------------------------------------------------------------


def measure(args: argparse.Namespace, work: Path, vault: Path, data: Path) -> dict[str, Any]:
    with ollama(args.ollama) as (host, fake):
        proc = start_daemon(work, vault, data, host)
        try:
            port = port_of(data, proc, args.timeout_s)
            log = work / "daemon.log"
            startup_s = wait_started(port, log, proc, args.timeout_s)
            time.sleep(args.settle_s)
            return window(args, proc, port, vault, data, log, fake) | {
                "startup_s": round(startup_s, 1),
                "ollama": args.ollama,
                "page": args.page,
                "captures": args.captures,
            }
        finally:
            stop(proc)


def window(
    args: argparse.Namespace,
    proc: subprocess.Popen[bytes],
    port: int,
    vault: Path,
    data: Path,
    log: Path,
    fake: Any,
) -> dict[str, Any]:
    with phone_page(port, args.page) as page, Writes(vault, data) as writes:
        tracer = _strace(proc.pid, Path(args.work)) if args.strace else None
        lines_before = _lines(log)
        requests_before = len(fake.requests) if fake is not None else 0
        first = snapshot(proc.pid)
        time.sleep(args.idle_s)
        last = snapshot(proc.pid)
        lines = log.read_text(errors="replace").splitlines()[lines_before:]
        requests = fake.requests[requests_before:] if fake is not None else []
        syscalls = _strace_stop(tracer) if tracer is not None else None
    report = difference(first, last)
    report["idle_s"] = round(last.at - first.at)
    report["log_lines"] = len(lines)
    report["log_sample"] = lines[:12]
    report["files_written"] = dict(writes.counts.most_common())
    report["ollama_requests"] = dict(Counter(r.path for r in requests))
    report["page_requests"] = dict(page)
    if syscalls is not None:
        for key in ("cpu_s", "cpu_s_per_hour", "wakeups_per_s", "preempted_per_s"):
            del report[key]
        report["threads_by_name"] = {n: t["threads"] for n, t in report["threads_by_name"].items()}
        report["syscalls"] = syscalls
    return report


def _lines(log: Path) -> int:
    return len(log.read_text(errors="replace").splitlines())


def _strace(pid: int, work: Path) -> tuple[subprocess.Popen[bytes], Path]:
    out = work / "strace.txt"
    tracer = subprocess.Popen(
        ["strace", "-f", "-c", "-o", str(out), "-p", str(pid)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    time.sleep(1.0)  # attached to every thread
    return tracer, out


def _strace_stop(tracer: tuple[subprocess.Popen[bytes], Path]) -> dict[str, int]:
    proc, out = tracer
    proc.send_signal(signal.SIGINT)
    proc.wait(30)
    calls: dict[str, int] = {}
    for line in out.read_text().splitlines():
        parts = line.split()
        if len(parts) >= 5 and parts[0][0].isdigit() and parts[-1] != "total":
            calls[parts[-1]] = int(parts[3])
    return dict(sorted(calls.items(), key=lambda kv: -kv[1])[:15])


def stop(proc: subprocess.Popen[bytes]) -> None:
    if proc.poll() is None:
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(timeout=60)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


if __name__ == "__main__":
    with contextlib.suppress(KeyboardInterrupt):
        os.environ.setdefault("TMPDIR", tempfile.gettempdir())
        main()
