"""Run a command while every core is kept busy: `make test-busy` runs the suite under it.

A test that passes only on an idle machine fails for the owner who runs `make test` while
working, and for CI on a busy day. This keeps one busy loop per core (at the same priority as
the command, so they really compete) for as long as the command runs, and the command's exit
status is this one's. The loops stop with the command, if this process dies (each one checks
that its parent is still there), and after `--max-s` in any case.

    python tests/busy.py [--cores N] [--max-s S] -- COMMAND ARG...
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time

# One core's worth of work: spin, and look up now and then whether to stop.
LOOP = """
import os, sys, time
parent, end = int(sys.argv[1]), time.monotonic() + float(sys.argv[2])
while os.getppid() == parent and time.monotonic() < end:
    for _ in range(200_000):
        pass
"""


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cores", type=int, default=os.cpu_count() or 2, help="busy loops")
    parser.add_argument("--max-s", type=float, default=3 * 3600.0, help="the loops' limit")
    parser.add_argument("command", nargs=argparse.REMAINDER)
    args = parser.parse_args(argv)
    command = args.command[1:] if args.command[:1] == ["--"] else args.command
    if not command:
        parser.error("give the command to run after --")
    loops = [
        subprocess.Popen([sys.executable, "-c", LOOP, str(os.getpid()), str(args.max_s)])
        for _ in range(max(1, args.cores))
    ]
    print(f"busy.py: {len(loops)} busy loop(s) while running: {' '.join(command)}", flush=True)
    started = time.monotonic()
    try:
        return subprocess.call(command)
    finally:
        for loop in loops:
            loop.terminate()
        for loop in loops:
            loop.wait(10)
        print(f"busy.py: done in {time.monotonic() - started:.0f} s", flush=True)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
