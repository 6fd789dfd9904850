"""What this computer can run: its physical cores, its processor's features, the memory free,
and the accelerator the installed llama.cpp build has. Plain functions whose inputs (the text
of /proc/cpuinfo, a sysctl, the device list) can be given, so the tests read any computer.

Read in the daemon before the engine starts (cheap: a few small files, no llama.cpp): a
processor without AVX2 would die at load with SIGILL, and a model bigger than the free memory
would be killed by the kernel halfway through; both are refused here with a sentence that says
what to do instead. Only `devices()` imports llama.cpp, and only the child calls it.
"""

from __future__ import annotations

import os
import platform
import re
import subprocess
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

# What xllamacpp's prebuilt x86-64 CPU wheels are compiled for: its get_system_info() says
# "AVX = 1 | AVX2 = 1 | F16C = 1 | FMA = 1 | BMI2 = 1" (GGML_NATIVE off, ggml's defaults). A
# processor without one of them stops with SIGILL at the first instruction it lacks.
X86_NEEDS = ("avx", "avx2", "fma", "f16c", "bmi2")
X86_MACHINES = {"x86_64", "amd64", "i386", "i686", "x86"}

ELSEWHERE = (
    "use Ollama (ollama.com) on this computer, or a model server on another computer: set "
    '[model] backend = "ollama" with [ollama] host, or backend = "openai" with [openai] base_url'
)

Run = Callable[[Sequence[str]], str]  # runs a command, gives its output ("" if it fails)


def _run(command: Sequence[str]) -> str:
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=5, check=False)
    except (OSError, subprocess.SubprocessError):
        return ""
    return done.stdout if done.returncode == 0 else ""


def _read(path: str) -> str:
    try:
        return Path(path).read_text(encoding="utf-8", errors="replace")
    except OSError:
        return ""


# -- cores ------------------------------------------------------------------------------------


def physical_cores(
    *,
    system: str | None = None,
    cpuinfo: str | None = None,
    allowed: Iterable[int] | None = None,
    run: Run = _run,
) -> int:
    """Physical cores this process may use: llama.cpp computes fastest with one thread per
    core, and a second thread on a core's hyper-thread only competes for the same units.

    Linux: distinct (physical id, core id) pairs of /proc/cpuinfo among the processors the
    process may run on (sched_getaffinity: a container or `taskset` gives fewer). macOS: the
    performance cores (hw.perflevel0.physicalcpu; efficiency cores would hold the others back),
    else hw.physicalcpu. Elsewhere, or when nothing can be read, the logical count."""
    system = system or platform.system()
    if system == "Darwin":
        for key in ("hw.perflevel0.physicalcpu", "hw.physicalcpu"):
            text = run(["sysctl", "-n", key]).strip()
            if text.isdigit() and int(text) > 0:
                return int(text)
        return max(1, os.cpu_count() or 1)
    if allowed is None:
        allowed = os.sched_getaffinity(0) if hasattr(os, "sched_getaffinity") else ()
    allowed = set(allowed) or set(range(os.cpu_count() or 1))
    if system != "Linux":
        return max(1, len(allowed))
    info = _read("/proc/cpuinfo") if cpuinfo is None else cpuinfo
    cores: set[tuple[str, str]] = set()
    for block in info.split("\n\n"):
        fields = _fields(block)
        if "processor" not in fields or not fields["processor"].isdigit():
            continue
        if int(fields["processor"]) not in allowed:
            continue
        if "core id" not in fields:  # ARM and others say nothing of cores: no hyper-threads
            return max(1, len(allowed))
        cores.add((fields.get("physical id", "0"), fields["core id"]))
    return max(1, len(cores) or len(allowed))


def _fields(block: str) -> dict[str, str]:
    out: dict[str, str] = {}
    for line in block.splitlines():
        key, sep, value = line.partition(":")
        if sep:
            out.setdefault(key.strip(), value.strip())
    return out


# -- processor features -----------------------------------------------------------------------


def is_x86(machine: str | None = None) -> bool:
    return (machine or platform.machine()).lower() in X86_MACHINES


def cpu_flags(
    *,
    system: str | None = None,
    machine: str | None = None,
    cpuinfo: str | None = None,
    run: Run = _run,
) -> frozenset[str] | None:
    """The x86 processor's features in lower case ("avx2", "fma", ...); None when it is not
    an x86 processor (Apple silicon and other ARM need none of them) or they cannot be read."""
    if not is_x86(machine):
        return None
    system = system or platform.system()
    if system == "Darwin":
        text = run(["sysctl", "-n", "machdep.cpu.features", "machdep.cpu.leaf7_features"])
        words = {w.lower() for w in text.split()}
        return frozenset({"avx" if w == "avx1.0" else w for w in words}) or None
    if system != "Linux":
        return None
    info = _read("/proc/cpuinfo") if cpuinfo is None else cpuinfo
    match = re.search(r"^flags\s*:(.*)$", info, re.M)
    return frozenset(match.group(1).split()) if match else None


def missing_features(flags: frozenset[str] | None, machine: str | None = None) -> list[str]:
    """What the llama.cpp build needs that this processor lacks; [] when nothing is missing or
    the processor cannot be read (then the child's load is the test, and a SIGILL is told in
    the same words by process.py)."""
    if flags is None or not is_x86(machine):
        return []
    return [f for f in X86_NEEDS if f not in flags]


def cpu_problem(flags: frozenset[str] | None, machine: str | None = None) -> str | None:
    """A sentence when the processor cannot run llama.cpp's build, else None."""
    missing = missing_features(flags, machine)
    if not missing:
        return None
    names = ", ".join(m.upper() for m in missing)
    return (
        f"This computer's processor lacks {names}, which the built-in model's llama.cpp build "
        f"needs on x86-64, so it cannot run here; {ELSEWHERE}"
    )


# -- memory -----------------------------------------------------------------------------------


def available_memory(
    *,
    system: str | None = None,
    meminfo: str | None = None,
    cgroup: tuple[str, str] | None = None,
    run: Run = _run,
) -> int | None:
    """Bytes a new process can take without pushing others out; None when unknown.

    Linux: MemAvailable (free memory plus the caches the kernel gives back), and, when the
    process runs under a memory limit (a container, a systemd unit with MemoryMax), what is
    left under that limit: the kernel kills at the limit, whatever the computer has free.
    `cgroup` is (memory.max, memory.current) for the tests. macOS: vm_stat's free, inactive,
    speculative and purgeable pages."""
    system = system or platform.system()
    if system == "Darwin":
        return _mac_available(run(["vm_stat"]))
    if system != "Linux":
        return None
    info = _read("/proc/meminfo") if meminfo is None else meminfo
    match = re.search(r"^MemAvailable:\s*(\d+)\s*kB", info, re.M)
    free = int(match.group(1)) * 1024 if match else None
    limit, used = _cgroup_memory() if cgroup is None else cgroup
    if limit.strip().isdigit() and used.strip().isdigit():
        left = max(0, int(limit) - int(used))
        free = left if free is None else min(free, left)
    return free


def _cgroup_memory() -> tuple[str, str]:
    """memory.max and memory.current of this process's cgroup (v2); ("", "") when none."""
    for line in _read("/proc/self/cgroup").splitlines():
        if line.startswith("0::"):
            folder = "/sys/fs/cgroup" + line[3:].strip().rstrip("/")
            return _read(f"{folder}/memory.max"), _read(f"{folder}/memory.current")
    return "", ""


def _mac_available(text: str) -> int | None:
    size = re.search(r"page size of (\d+) bytes", text)
    if not size:
        return None
    pages = 0
    for name in ("free", "inactive", "speculative", "purgeable"):
        match = re.search(rf"^Pages {name}:\s*(\d+)", text, re.M)
        pages += int(match.group(1)) if match else 0
    return pages * int(size.group(1))


def memory_problem(need: int, available: int | None, what: str, *, fix: str = "") -> str | None:
    """A sentence when `need` bytes are more than `available`, else None (also when the free
    memory is unknown: the load is then the test)."""
    if available is None or need <= available:
        return None
    fix = f"{fix}, " if fix else ""
    return (
        f"The built-in model needs about {gb(need)} of free memory ({what}) and this computer "
        f"has {gb(available)} free; close other programs, {fix}or {ELSEWHERE}"
    )


def gb(n: int) -> str:
    return f"{n / 1e9:.1f} GB"


# -- the accelerator --------------------------------------------------------------------------


def devices() -> list[dict[str, Any]]:
    """The devices of the installed llama.cpp build (xllamacpp.get_device_info()). Imports
    llama.cpp (about 100 MB of code): call it in the child, never in the daemon."""
    import xllamacpp

    return list(xllamacpp.get_device_info())


GPU_TYPES = {1, 2}  # ggml_backend_dev_type: 1 GPU (CUDA, Vulkan, ROCm), 2 IGPU (Metal)


def accelerator(found: Sequence[Mapping[str, Any]], gpu: str = "auto") -> str:
    """The device the engine computes on, for people: "Metal", "CUDA0", or "CPU". With gpu
    'off' always the CPU; otherwise the build's first GPU, if it has one."""
    if gpu == "off":
        return "CPU"
    for device in found:
        if int(device.get("type", 0)) in GPU_TYPES:
            return str(device.get("name") or "GPU")
    return "CPU"


# -- all of it at once ------------------------------------------------------------------------


@dataclass(frozen=True)
class Readings:
    """What the engine's plan reads of the computer (sizing.plan); the tests make their own."""

    cores: int
    flags: frozenset[str] | None
    machine: str
    available: int | None


def read() -> Readings:
    return Readings(
        cores=physical_cores(),
        flags=cpu_flags(),
        machine=platform.machine(),
        available=available_memory(),
    )
