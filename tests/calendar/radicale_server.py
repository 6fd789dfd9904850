"""A real Radicale CalDAV server on loopback, in a thread, for the calendar tests.

Radicale's default auth is now `denyall`, so `auth.type = none` is set explicitly (any user
name, no password) unless users are given, which switches to plain htpasswd (for the
wrong-password test). Storage is a temp folder; fsync is off, it is thrown away anyway.
Loading the fixture week PUTs one resource per UID, as a calendar app would.
"""

from __future__ import annotations

import shutil
import socket
import threading
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import niquests
import radicale.config
import radicale.server

from commonplace.calendar.ical import split_by_uid

FIXTURE_WEEK = Path(__file__).resolve().parents[2] / "vault_fixture" / "calendar" / "week.ics"


@dataclass(frozen=True)
class Radicale:
    url: str  # http://127.0.0.1:PORT/
    storage: Path  # Radicale's collection-root

    def new_account(self, *, calendars: tuple[str, ...] = ("Personal",), load: bool = True) -> str:
        """A fresh user with empty calendars (the fixture week in the first); its user name.

        The first account of each kind is made over HTTP (MKCALENDAR, one PUT per event, as
        a calendar app does); later ones copy its folder, which takes milliseconds instead of
        a second, and Radicale reads it like any other.
        """
        user = f"owner-{uuid.uuid4().hex[:8]}"
        template = self.storage / f"template-{'-'.join(calendars)}-{load}".lower()
        if not template.is_dir():
            name = template.name
            for calendar in calendars:
                make_calendar(self.url, name, calendar)
            if load:
                load_ics(self.url, name, calendars[0], FIXTURE_WEEK.read_text(encoding="utf-8"))
        shutil.copytree(template, self.storage / user)
        return user


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
def running_radicale(folder: Path, users: dict[str, str] | None = None) -> Iterator[Radicale]:
    """Serve until the block ends; the thread is joined before it returns."""
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
            "tests",
            privileged=True,
        )
        configuration.update({"storage": {"_filesystem_fsync": "False"}}, "tests", privileged=True)
        stop, stop_out = socket.socketpair()
        thread = threading.Thread(
            target=radicale.server.serve, args=(configuration, stop_out), daemon=True
        )
        thread.start()
        url = f"http://127.0.0.1:{port}/"
        deadline = time.monotonic() + 10
        while thread.is_alive() and not _answers(url) and time.monotonic() < deadline:
            time.sleep(0.02)
        if thread.is_alive() and _answers(url):
            break
        stop.close()
        thread.join(5)
    else:
        raise RuntimeError("Radicale did not start")
    try:
        yield Radicale(url, folder / "collections" / "collection-root")
    finally:
        stop.close()
        thread.join(10)
        stop_out.close()


def make_calendar(url: str, user: str, name: str) -> str:
    """MKCALENDAR /user/<slug>/ with a display name; returns the calendar's URL."""
    slug = name.lower().replace(" ", "-")
    target = f"{url}{user}/{slug}/"
    body = (
        '<?xml version="1.0" encoding="utf-8"?>'
        '<C:mkcalendar xmlns:D="DAV:" xmlns:C="urn:ietf:params:xml:ns:caldav">'
        f"<D:set><D:prop><D:displayname>{name}</D:displayname></D:prop></D:set>"
        "</C:mkcalendar>"
    )
    answer = niquests.request("MKCALENDAR", target, data=body.encode(), auth=(user, ""), timeout=5)
    assert answer.status_code == 201, answer.status_code
    return target


def load_ics(url: str, user: str, calendar: str, text: str) -> int:
    """PUT each UID of an .ics file as its own resource; returns how many."""
    slug = calendar.lower().replace(" ", "-")
    resources = split_by_uid(text)
    for i, resource in enumerate(resources):
        answer = niquests.put(
            f"{url}{user}/{slug}/fixture-{i:02d}.ics",
            data=resource.encode("utf-8"),
            headers={"Content-Type": "text/calendar; charset=utf-8"},
            auth=(user, ""),
            timeout=5,
        )
        assert answer.status_code in (201, 204), answer.status_code
    return len(resources)


def put_raw(url: str, user: str, calendar: str, name: str, text: str) -> str:
    """Write a resource directly, as another app (a phone) would; returns its new ETag."""
    slug = calendar.lower().replace(" ", "-")
    answer = niquests.put(
        f"{url}{user}/{slug}/{name}",
        data=text.encode("utf-8"),
        headers={"Content-Type": "text/calendar; charset=utf-8"},
        auth=(user, ""),
        timeout=5,
    )
    assert answer.status_code in (201, 204), answer.status_code
    return str(answer.headers.get("ETag"))
