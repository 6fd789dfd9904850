"""A real Radicale CalDAV server on loopback, in a thread, for the calendar tests.

Radicale's default auth is now `denyall`, so `auth.type = none` is set explicitly (any user
name, no password) unless users are given, which switches to plain htpasswd (for the
wrong-password test). Storage is a temp folder; fsync is off, it is thrown away anyway.
Loading the fixture week PUTs one resource per UID, as a calendar app would.
"""

from __future__ import annotations

import shutil
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import niquests

from commonplace.evals import stand_ins
from commonplace.evals.stand_ins import radicale_server

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


@contextmanager
def running_radicale(folder: Path, users: dict[str, str] | None = None) -> Iterator[Radicale]:
    """Serve until the block ends (the eval's runner, so both test the same server set-up)."""
    with radicale_server(folder, users) as url:
        yield Radicale(url, folder / "collections" / "collection-root")


def make_calendar(url: str, user: str, name: str) -> str:
    return stand_ins.make_calendar(url, user, name)


def load_ics(url: str, user: str, calendar: str, text: str) -> int:
    """PUT each UID of an .ics file as its own resource; returns how many."""
    slug = calendar.lower().replace(" ", "-")
    return stand_ins.load_events(f"{url}{user}/{slug}/", user, text)


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
