"""Browser tests: Debian's Chromium, headless, driven by Playwright, against the real server.

The daemon's app runs on a background thread with its own event loop (so the test can stop and
restart it, as when the computer sleeps), over a real index of the sample vault, with the fake
Ollama answering chat and embeddings. Screenshots go to test-artifacts/ for a person to look at.
"""

from __future__ import annotations

import asyncio
import os
import shutil
import socket
import threading
from collections.abc import Iterator
from datetime import datetime
from pathlib import Path
from typing import Any

import pytest
from aiohttp import web

from commonplace.assistant import build_assistant
from commonplace.config import Settings
from commonplace.index import Index
from commonplace.llm import make_llm
from commonplace.runtime.attention import Attention
from commonplace.server import create_app
from commonplace.server.context import Services
from commonplace.speech import Audio
from tests.fakes.ollama import FakeOllama
from tests.models import with_model

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--use-fake-device-for-media-stream",  # a beeping fake microphone when one is allowed
]
PHONE = {"width": 390, "height": 844}
ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts"

playwright_api = pytest.importorskip("playwright.sync_api")
if not Path(CHROMIUM).exists():  # make test installs it; a bare pytest run may not have it
    if os.environ.get("CI"):  # CI must run them: a skipped browser suite would hide breakage
        raise RuntimeError("chromium is not installed; `make test` should have installed it")
    pytest.skip("chromium is not installed (make test installs it)", allow_module_level=True)


class FakeTranscriber:
    def __init__(self) -> None:
        self.calls: list[tuple[int, str]] = []

    def __call__(self, audio: Audio, prompt: str) -> str:
        self.calls.append((int(audio.shape[0]), prompt))
        return "Ring Maya Collins about the shed roof"


class ServerThread:
    """The app on its own loop and thread; stop() and start() again keep the same port."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        with socket.socket() as sock:
            sock.bind(("127.0.0.1", 0))
            self.port = int(sock.getsockname()[1])
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, daemon=True)
        self.thread.start()
        self.transcriber = FakeTranscriber()
        self.attention = Attention()  # what /api/state lists as needing the owner
        self.now = [datetime(2026, 10, 26, 9, 0, tzinfo=settings.tz)]  # the assistant's clock
        self.index: Index = self._call(self._open_index())
        self.runner: web.AppRunner | None = None
        self.page_resolver: Any = None  # a shared link's page fetch: the name lookup and rule
        self.page_rule: Any = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def _call(self, coro: Any) -> Any:
        return asyncio.run_coroutine_threadsafe(coro, self.loop).result(60)

    async def _open_index(self) -> Index:
        index = Index.open(self.settings, make_llm(self.settings))
        await index.refresh()
        return index

    async def _start(self) -> None:
        llm = make_llm(self.settings)
        assistant = build_assistant(self.settings, llm, clock=lambda: self.now[0])
        services = Services(
            index=self.index,
            transcriber=self.transcriber,
            assistant=assistant,
            attention=self.attention,
            page_resolver=self.page_resolver,
            page_rule=self.page_rule,
        )
        app = create_app(self.settings, make_llm(self.settings), services)
        self.runner = web.AppRunner(app, access_log=None, shutdown_timeout=0.5)
        await self.runner.setup()
        await web.TCPSite(self.runner, "127.0.0.1", self.port, reuse_address=True).start()

    async def _stop(self) -> None:
        if self.runner is not None:
            await self.runner.cleanup()
            self.runner = None

    def start(self) -> None:
        self._call(self._start())

    def stop(self) -> None:
        self._call(self._stop())

    def close(self) -> None:
        self.stop()
        self.index.close()
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(5)


@pytest.fixture
def server(settings: Settings, fake_ollama_thread: FakeOllama) -> Iterator[ServerThread]:
    live = with_model(settings, host=fake_ollama_thread.url)
    thread = ServerThread(live)
    thread.start()
    yield thread
    thread.close()


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    """One Chromium per module. Not per session: Playwright's sync API keeps an event loop in
    the main thread while it runs, which later async tests would trip over."""
    with playwright_api.sync_playwright() as p:
        chromium = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=ARGS)
        yield chromium
        chromium.close()


@pytest.fixture
def page(browser: Any, server: ServerThread) -> Iterator[Any]:
    context = browser.new_context(
        viewport=PHONE, device_scale_factor=2, is_mobile=True, has_touch=True
    )
    context.set_default_timeout(30_000)  # an upper bound: a busy machine slows Chromium
    tab = context.new_page()
    errors: list[str] = []
    tab.on("pageerror", lambda exc: errors.append(str(exc)))
    tab.goto(server.url + "/")
    yield tab
    context.close()
    assert errors == [], errors


def screenshot(page: Any, name: str) -> Path:
    ARTIFACTS.mkdir(exist_ok=True)
    path = ARTIFACTS / f"{name}.png"
    page.screenshot(path=str(path))
    return path


DOCS_ASSETS = Path(__file__).resolve().parents[2] / "docs" / "assets"


def docs_screenshot(page: Any, name: str, height: int = PHONE["height"]) -> Path:
    """A picture for the docs site (docs/assets/NAME.png), taken by the test that checks what it
    shows, so the docs show the page as it is: its top `height` CSS pixels. Written only when it
    changed, so a run that renders the same page leaves the checkout clean."""
    DOCS_ASSETS.mkdir(parents=True, exist_ok=True)
    path = DOCS_ASSETS / f"{name}.png"
    clip = {"x": 0, "y": 0, "width": PHONE["width"], "height": height}
    image: bytes = page.screenshot(clip=clip)
    if not path.is_file() or path.read_bytes() != image:
        path.write_bytes(image)
    return path
