"""What the computer can run, read from given readings: any computer, on this one."""

from __future__ import annotations

from collections.abc import Sequence

import pytest

from commonplace.engine import hardware

# Two cores with two hyper-threads each, as /proc/cpuinfo lists them (fields cut down).
HYPERTHREADED = "\n\n".join(
    f"processor\t: {n}\nphysical id\t: 0\ncore id\t\t: {n % 2}\n"
    "flags\t\t: fpu sse sse2 avx avx2 fma f16c bmi2"
    for n in range(4)
)
NO_AVX2 = HYPERTHREADED.replace(" avx2", "")
ARM = "processor\t: 0\nBogoMIPS\t: 48.00\n\nprocessor\t: 1\nBogoMIPS\t: 48.00\n"
MEMINFO = "MemTotal:       16000000 kB\nMemFree:         1000000 kB\nMemAvailable:    6000000 kB\n"
VM_STAT = (
    "Mach Virtual Memory Statistics: (page size of 16384 bytes)\n"
    "Pages free:                               10000.\n"
    "Pages active:                            400000.\n"
    "Pages inactive:                           50000.\n"
    "Pages speculative:                         2000.\n"
    "Pages purgeable:                           1000.\n"
)


def sysctl(values: dict[str, str]) -> hardware.Run:
    def run(command: Sequence[str]) -> str:
        return "\n".join(values.get(key, "") for key in command[2:])

    return run


def test_physical_cores_count_cores_not_hyper_threads() -> None:
    assert hardware.physical_cores(system="Linux", cpuinfo=HYPERTHREADED, allowed={0, 1, 2, 3}) == 2
    # processors 0 and 2 are the two threads of core 0: one core
    assert hardware.physical_cores(system="Linux", cpuinfo=HYPERTHREADED, allowed={0, 2}) == 1
    assert hardware.physical_cores(system="Linux", cpuinfo=ARM, allowed={0, 1}) == 2
    assert hardware.physical_cores(system="Linux", cpuinfo="", allowed={0, 1, 2}) == 3


def test_on_a_mac_the_performance_cores_count() -> None:
    apple = sysctl({"hw.perflevel0.physicalcpu": "4", "hw.physicalcpu": "10"})
    assert hardware.physical_cores(system="Darwin", run=apple) == 4
    intel = sysctl({"hw.physicalcpu": "6"})
    assert hardware.physical_cores(system="Darwin", run=intel) == 6


def test_a_processor_without_avx2_gets_a_sentence_that_says_what_to_do() -> None:
    flags = hardware.cpu_flags(system="Linux", machine="x86_64", cpuinfo=NO_AVX2)
    assert flags is not None and "avx" in flags and "avx2" not in flags
    assert hardware.missing_features(flags, "x86_64") == ["avx2"]
    said = hardware.cpu_problem(flags, "x86_64")
    assert said == (
        "This computer's processor lacks AVX2, which the built-in model's llama.cpp build needs "
        "on x86-64, so it cannot run here; use Ollama (ollama.com) on this computer, or a model "
        'server on another computer: set [model] backend = "ollama" with [ollama] host, or '
        'backend = "openai" with [openai] base_url'
    )
    full = hardware.cpu_flags(system="Linux", machine="x86_64", cpuinfo=HYPERTHREADED)
    assert hardware.cpu_problem(full, "x86_64") is None


def test_arm_needs_no_x86_features_and_unknown_flags_refuse_nothing() -> None:
    assert hardware.cpu_flags(system="Linux", machine="aarch64", cpuinfo=ARM) is None
    assert hardware.cpu_problem(None, "aarch64") is None
    assert hardware.cpu_problem(frozenset({"sse2"}), "arm64") is None  # not x86: not asked
    assert hardware.cpu_problem(None, "x86_64") is None  # unreadable: the load is the test


def test_an_intel_mac_names_its_features_its_own_way() -> None:
    run = sysctl(
        {
            "machdep.cpu.features": "FPU SSE SSE2 AVX1.0 FMA F16C",
            "machdep.cpu.leaf7_features": "BMI1 AVX2 BMI2",
        }
    )
    flags = hardware.cpu_flags(system="Darwin", machine="x86_64", run=run)
    assert flags is not None and hardware.missing_features(flags, "x86_64") == []


def test_available_memory_is_the_kernels_and_a_memory_limit_wins() -> None:
    assert hardware.available_memory(system="Linux", meminfo=MEMINFO, cgroup=("max", "5")) == (
        6_000_000 * 1024
    )
    limited = hardware.available_memory(
        system="Linux", meminfo=MEMINFO, cgroup=("4000000000", "3000000000\n")
    )
    assert limited == 1_000_000_000  # a container's limit, not the computer's free memory
    assert hardware.available_memory(system="Linux", meminfo="", cgroup=("", "")) is None
    mac = hardware.available_memory(system="Darwin", run=lambda _: VM_STAT)
    assert mac == (10000 + 50000 + 2000 + 1000) * 16384


def test_too_little_memory_gets_a_sentence_that_says_what_to_do() -> None:
    said = hardware.memory_problem(3_000_000_000, 1_200_000_000, "Qwen 3B (2.0 GB)", fix="x")
    assert said == (
        "The built-in model needs about 3.0 GB of free memory (Qwen 3B (2.0 GB)) and this "
        "computer has 1.2 GB free; close other programs, x, or use Ollama (ollama.com) on this "
        'computer, or a model server on another computer: set [model] backend = "ollama" with '
        '[ollama] host, or backend = "openai" with [openai] base_url'
    )
    assert hardware.memory_problem(1000, 2000, "small") is None
    assert hardware.memory_problem(1000, None, "unknown") is None


@pytest.mark.parametrize(
    ("devices", "gpu", "expected"),
    [
        ([{"name": "CPU", "type": 0}], "auto", "CPU"),
        ([{"name": "MTL0", "type": 2}, {"name": "CPU", "type": 0}], "auto", "MTL0"),
        ([{"name": "CUDA0", "type": 1}, {"name": "CPU", "type": 0}], "on", "CUDA0"),
        ([{"name": "CUDA0", "type": 1}, {"name": "CPU", "type": 0}], "off", "CPU"),
        ([{"name": "BLAS", "type": 3}, {"name": "CPU", "type": 0}], "auto", "CPU"),
    ],
)
def test_the_accelerator_is_the_builds_first_gpu(
    devices: list[dict[str, object]], gpu: str, expected: str
) -> None:
    assert hardware.accelerator(devices, gpu) == expected


def test_this_computer_reads_without_errors() -> None:
    readings = hardware.read()
    assert readings.cores >= 1
    assert readings.available is None or readings.available > 0
