"""Why the child stopped, in words the owner can act on: from its exit status alone.

Never from llama.cpp's log: its lines may quote a request (a parse error shows the text around
it), and a request carries the words of notes, which go to the log at debug level only. So a
crash is told by its signal or exit code, with what it most likely means and what to do.
"""

from __future__ import annotations

import signal
from dataclasses import dataclass

from commonplace.engine.hardware import ELSEWHERE

AGAIN = "it starts again by itself at the next request"
SIGKILL = -int(getattr(signal, "SIGKILL", 9))  # as returncodes; Windows has no SIGKILL
SIGILL = -int(getattr(signal, "SIGILL", 4))
LOG = "the daemon's log at debug level has llama.cpp's last lines"


@dataclass(frozen=True)
class Stopped:
    code: str  # for attention: "engine_killed", "engine_cpu", "engine_crashed", ...
    reason: str  # what happened
    action: str  # what to do
    fatal: bool  # True: starting again cannot help (this processor, this build)


def exit_reason(returncode: int, *, during: str = "") -> Stopped:
    """What an unexpected exit with `returncode` (negative: killed by that signal) means.
    `during` says what it was doing ("during a request", "while loading")."""
    when = f" {during}" if during else ""
    if returncode == SIGKILL:
        return Stopped(
            "engine_killed",
            f"its process was killed (SIGKILL){when}: the computer may have run out of memory "
            "(the kernel then kills the biggest process), or another program ended it",
            f"nothing if it happens once, {AGAIN}; if it keeps happening, free memory, set "
            f"[builtin] context lower or pick a smaller model, or {ELSEWHERE}",
            fatal=False,
        )
    if returncode == SIGILL:
        return Stopped(
            "engine_cpu",
            f"its process stopped at an instruction this processor does not have (SIGILL)"
            f"{when}: the installed llama.cpp build needs AVX2 on x86-64",
            ELSEWHERE,
            fatal=True,
        )
    if returncode < 0:
        try:
            name = signal.Signals(-returncode).name
        except ValueError:
            name = f"signal {-returncode}"
        return Stopped(
            "engine_crashed",
            f"its process crashed ({name}){when}",
            f"{AGAIN}; {LOG}; report it if it keeps happening",
            fatal=False,
        )
    return Stopped(
        "engine_crashed",
        f"its process stopped (exit code {returncode}){when}",
        f"{AGAIN}; {LOG}",
        fatal=False,
    )


def refused(code: str, message: str) -> Stopped:
    """The child said why it would not start ({"error": code, "message": ...}); its message
    is the program's own sentence (child.py), never llama.cpp's."""
    fatal = code in ("cpu", "no_gpu")
    action = "" if fatal else f"{AGAIN}; {LOG}"
    return Stopped(f"engine_{code}", message, action, fatal=fatal)


def not_answering(seconds: float) -> Stopped:
    return Stopped(
        "engine_not_answering",
        f"its server stopped answering (/health, for {seconds:.0f} s) and was ended",
        f"{AGAIN}; {LOG}",
        fatal=False,
    )


def garbled() -> Stopped:
    return Stopped(
        "engine_crashed",
        "its process answered something other than its ready line, and was ended",
        f"{AGAIN}; {LOG}; the installed program may be damaged: reinstall it",
        fatal=False,
    )


def not_started(exc: OSError) -> Stopped:
    return Stopped(
        "engine_not_started",
        f"its process could not be started ({exc.strerror or exc})",
        f"{AGAIN}; if the program was upgraded while running, restart the daemon",
        fatal=False,
    )
