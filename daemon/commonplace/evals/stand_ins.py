"""The sample week's calendar and weather for the assistant eval: a real Radicale and a
recorded Open-Meteo forecast, both on loopback, started and stopped by the runner.

Radicale is the same CalDAV server the tests use (`auth.type = none` set explicitly: its default
is `denyall`), in a thread, with its storage in the eval's throwaway folder, so a run leaves no
process and no file behind. The forecast stand-in answers every request with the recorded
forecast, as Open-Meteo would for the sample week's place.
"""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager, contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import niquests
from aiohttp import web

from commonplace.calendar.ical import split_by_uid
from commonplace.evals.suite import EvalError

CALENDAR_USER = "owner"
CALENDAR_NAME = "Personal"


@dataclass(frozen=True)
class CalDAVServer:
    url: str  # http://127.0.0.1:PORT/
    user: str
    calendar_url: str


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


def _answers(url: str) -> bool:
    try:
        niquests.request("OPTIONS", url, timeout=1)
    except niquests.exceptions.RequestException:
        return False
    return True


@contextmanager
def radicale(folder: Path, ics: Path) -> Iterator[CalDAVServer]:
    """A Radicale on loopback holding the events of `ics` in one calendar; stopped (and its
    thread joined) when the block ends."""
    try:
        import radicale.config
        import radicale.server
    except ImportError:
        raise EvalError(
            "the assistant eval runs its sample week in a Radicale CalDAV server: "
            "install it with  pip install 'commonplace[eval]'  (or radicale>=3.2)"
        ) from None
    folder.mkdir(parents=True, exist_ok=True)
    port = _free_port()
    configuration = radicale.config.load([])
    configuration.update(
        {
            "server": {"hosts": f"127.0.0.1:{port}"},
            "storage": {"filesystem_folder": str(folder / "collections")},
            "auth": {"type": "none", "delay": "0"},
            "logging": {"level": "warning"},
        },
        "eval",
        privileged=True,
    )
    stop, stop_out = socket.socketpair()
    thread = threading.Thread(
        target=radicale.server.serve, args=(configuration, stop_out), daemon=True
    )
    thread.start()
    url = f"http://127.0.0.1:{port}/"
    try:
        deadline = time.monotonic() + 15
        while not _answers(url):
            if not thread.is_alive() or time.monotonic() > deadline:
                raise EvalError("the eval's Radicale server did not start")
            time.sleep(0.05)
        calendar_url = _make_calendar(url, CALENDAR_USER, CALENDAR_NAME)
        _load(calendar_url, CALENDAR_USER, ics.read_text(encoding="utf-8"))
        yield CalDAVServer(url, CALENDAR_USER, calendar_url)
    finally:
        stop.close()
        thread.join(15)
        stop_out.close()


def _make_calendar(url: str, user: str, name: str) -> str:
    target = f"{url}{user}/{name.lower()}/"
    body = (
        '<?xml version="1.0" encoding="utf-8"?>'
        '<C:mkcalendar xmlns:D="DAV:" xmlns:C="urn:ietf:params:xml:ns:caldav">'
        f"<D:set><D:prop><D:displayname>{name}</D:displayname></D:prop></D:set>"
        "</C:mkcalendar>"
    )
    answer = niquests.request("MKCALENDAR", target, data=body.encode(), auth=(user, ""), timeout=10)
    if answer.status_code != 201:
        raise EvalError(f"the eval's Radicale refused to make a calendar ({answer.status_code})")
    return target


def _load(calendar_url: str, user: str, text: str) -> None:
    """One resource per UID, as a calendar app stores them."""
    for i, resource in enumerate(split_by_uid(text)):
        answer = niquests.put(
            f"{calendar_url}event-{i:02d}.ics",
            data=resource.encode("utf-8"),
            headers={"Content-Type": "text/calendar; charset=utf-8"},
            auth=(user, ""),
            timeout=10,
        )
        if answer.status_code not in (201, 204):
            raise EvalError(f"the eval's Radicale refused an event ({answer.status_code})")


@asynccontextmanager
async def forecast_stand_in(body: dict[str, Any]) -> AsyncIterator[str]:
    """Open-Meteo's /v1/forecast on loopback answering with the recorded `body`; yields its URL."""

    async def forecast(request: web.Request) -> web.Response:
        if "timezone" not in request.query:  # the real API refuses daily data without one
            return web.json_response({"error": True, "reason": "Timezone is required"}, status=400)
        return web.json_response(body)

    app = web.Application()
    app.router.add_get("/v1/forecast", forecast)
    runner = web.AppRunner(app, access_log=None)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    port = site._server.sockets[0].getsockname()[1]  # type: ignore[union-attr]
    try:
        yield f"http://127.0.0.1:{port}/v1/forecast"
    finally:
        await runner.cleanup()
