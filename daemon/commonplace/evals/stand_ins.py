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
def radicale_server(folder: Path, users: dict[str, str] | None = None) -> Iterator[str]:
    """Radicale on a free loopback port, storage under `folder`; yields its URL. With `users`
    it takes those logins (plain htpasswd), else any (`auth.type = none`, set explicitly: the
    default is `denyall`). Stopped, and its thread joined, when the block ends."""
    try:
        import radicale.config
        import radicale.server
    except ImportError:
        raise EvalError(
            "the assistant eval runs its sample week in a Radicale CalDAV server: "
            "install it with  pip install 'commonplace[eval]'  (or radicale>=3.2)"
        ) from None
    folder.mkdir(parents=True, exist_ok=True)
    auth: dict[str, str] = {"type": "none", "delay": "0"}
    if users is not None:
        htpasswd = folder / "users"
        htpasswd.write_text("".join(f"{u}:{p}\n" for u, p in users.items()), encoding="utf-8")
        auth = {
            "type": "htpasswd",
            "htpasswd_filename": str(htpasswd),
            "htpasswd_encryption": "plain",
            "delay": "0",
        }
    for _ in range(5):  # another process may take the port between the probe and the bind
        port = _free_port()
        configuration = radicale.config.load([])
        configuration.update(
            {
                "server": {"hosts": f"127.0.0.1:{port}"},
                "storage": {"filesystem_folder": str(folder / "collections")},
                "auth": auth,
                "logging": {"level": "warning"},
            },
            "commonplace",
            privileged=True,
        )
        # Thrown away afterwards: no fsync (the eval and the tests write hundreds of events).
        configuration.update(
            {"storage": {"_filesystem_fsync": "False"}}, "commonplace", privileged=True
        )
        stop, stop_out = socket.socketpair()
        thread = threading.Thread(
            target=radicale.server.serve, args=(configuration, stop_out), daemon=True
        )
        thread.start()
        url = f"http://127.0.0.1:{port}/"
        deadline = time.monotonic() + 15
        while thread.is_alive() and not _answers(url) and time.monotonic() < deadline:
            time.sleep(0.02)
        if thread.is_alive() and _answers(url):
            break
        stop.close()
        thread.join(5)
        stop_out.close()
    else:
        raise EvalError("Radicale did not start")
    try:
        yield url
    finally:
        stop.close()
        thread.join(15)
        stop_out.close()


def make_calendar(url: str, user: str, name: str) -> str:
    """MKCALENDAR /user/<slug>/ with a display name; returns the calendar's URL."""
    target = f"{url}{user}/{name.lower().replace(' ', '-')}/"
    body = (
        '<?xml version="1.0" encoding="utf-8"?>'
        '<C:mkcalendar xmlns:D="DAV:" xmlns:C="urn:ietf:params:xml:ns:caldav">'
        f"<D:set><D:prop><D:displayname>{name}</D:displayname></D:prop></D:set>"
        "</C:mkcalendar>"
    )
    answer = niquests.request("MKCALENDAR", target, data=body.encode(), auth=(user, ""), timeout=10)
    if answer.status_code != 201:
        raise EvalError(f"Radicale refused to make a calendar ({answer.status_code})")
    return target


def load_events(calendar_url: str, user: str, text: str) -> int:
    """PUT each UID of an .ics text as its own resource, as a calendar app does; how many."""
    resources = split_by_uid(text)
    for i, resource in enumerate(resources):
        answer = niquests.put(
            f"{calendar_url}fixture-{i:02d}.ics",
            data=resource.encode("utf-8"),
            headers={"Content-Type": "text/calendar; charset=utf-8"},
            auth=(user, ""),
            timeout=10,
        )
        if answer.status_code not in (201, 204):
            raise EvalError(f"Radicale refused an event ({answer.status_code})")
    return len(resources)


@contextmanager
def radicale(folder: Path, ics: Path) -> Iterator[CalDAVServer]:
    """The sample week: a Radicale holding the events of `ics` in one calendar."""
    with radicale_server(folder) as url:
        calendar_url = make_calendar(url, CALENDAR_USER, CALENDAR_NAME)
        load_events(calendar_url, CALENDAR_USER, ics.read_text(encoding="utf-8"))
        yield CalDAVServer(url, CALENDAR_USER, calendar_url)


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
