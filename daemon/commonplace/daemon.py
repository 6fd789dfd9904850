"""`commonplace run`: one process that serves the phone page and runs the vault's jobs."""

from __future__ import annotations

import asyncio
import contextlib
import errno
import logging
import signal

from aiohttp import web

from commonplace.config import Settings
from commonplace.llm import LLM
from commonplace.server import create_app

log = logging.getLogger(__name__)


class DaemonError(Exception):
    """The daemon cannot start; the message says why and what to do."""


async def run_daemon(settings: Settings, *, ready: asyncio.Event | None = None) -> None:
    """Serve until SIGINT/SIGTERM (or cancellation), then shut down cleanly."""
    if not settings.vault.is_dir():
        raise DaemonError(
            f"the vault folder {settings.vault} does not exist; "
            "set 'vault' in commonplace.toml or COMMONPLACE_VAULT"
        )
    settings.data_path.mkdir(parents=True, exist_ok=True)
    llm = LLM(settings.ollama)
    runner = web.AppRunner(create_app(settings, llm), access_log=None)
    await runner.setup()
    site = web.TCPSite(runner, settings.web.host, settings.web.port)
    try:
        await site.start()
    except OSError as exc:
        await runner.cleanup()
        if exc.errno == errno.EADDRINUSE:
            raise DaemonError(
                f"port {settings.web.port} on {settings.web.host} is already in use; is another "
                "commonplace running? Stop it or set [web] port in commonplace.toml"
            ) from None
        raise DaemonError(
            f"cannot listen on {settings.web.host}:{settings.web.port}: {exc}"
        ) from None
    log.info("serving the phone page at http://%s:%d/", settings.web.host, settings.web.port)
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        with contextlib.suppress(NotImplementedError, RuntimeError):
            loop.add_signal_handler(sig, stop.set)
    if ready is not None:
        ready.set()
    try:
        await stop.wait()
        log.info("stopping")
    finally:
        for sig in (signal.SIGINT, signal.SIGTERM):
            with contextlib.suppress(NotImplementedError, RuntimeError):
                loop.remove_signal_handler(sig)
        await runner.cleanup()
