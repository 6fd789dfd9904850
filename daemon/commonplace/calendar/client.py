"""The owner's calendars over CalDAV, with the `caldav` library.

caldav's synchronous client is the well-tested one, so each operation runs in a worker thread,
one at a time (a lock), and the caller's wait is bounded by `[calendar] timeout_s` as a whole,
as is every HTTP request inside it. Whatever goes wrong on the wire (refused, slow, a login
refused, a server error) comes out as one `CalendarUnavailable` sentence with what to do, never
a traceback; the password is never logged or put into a message.

Changes compare and write: `move` and `delete` carry the ETag of the event the owner said Yes
to, as If-Match. The server refuses (412) if anything changed it since, and nothing is written.
`add` writes a UID made from the request (see `stable_uid`) with If-None-Match: *, after
checking that no event with the same title and start exists, so a retried Yes never makes two.
"""

from __future__ import annotations

import asyncio
import logging
import os
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import replace
from datetime import date, datetime, timedelta
from pathlib import Path
from typing import Any, TypeVar
from urllib.parse import urlsplit

import niquests
from caldav.davclient import DAVClient
from caldav.elements import dav
from caldav.lib import error as dav_error

from commonplace.calendar import ical
from commonplace.calendar.find import title_matches
from commonplace.calendar.models import (
    CalendarError,
    CalendarNotSetUp,
    CalendarUnavailable,
    Event,
    EventChanged,
)
from commonplace.config import CalendarSettings, Settings

log = logging.getLogger(__name__)

T = TypeVar("T")
PASSWORD_ENV = "COMMONPLACE_CALDAV_PASSWORD"
DISCOVERY_TTL_S = 600.0  # calendars are listed again after this long
NOT_SET_UP = (
    "The calendar is not set up: set [calendar] url and username in commonplace.toml and put "
    "the app password in the file named by password_file (see the README's calendar section)."
)


def read_password(settings: CalendarSettings, env: Mapping[str, str]) -> str:
    """The app password: COMMONPLACE_CALDAV_PASSWORD, else the first line of password_file."""
    if env.get(PASSWORD_ENV):
        return env[PASSWORD_ENV]
    if not settings.password_file:
        return ""
    path = Path(settings.password_file).expanduser()
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError) as exc:
        reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else type(exc).__name__
        raise CalendarNotSetUp(
            f"The calendar password file {path} cannot be read ({reason}); check "
            "[calendar] password_file, or set COMMONPLACE_CALDAV_PASSWORD"
        ) from None
    return lines[0].strip() if lines else ""


def _host(url: str) -> str:
    return urlsplit(url).netloc or url


class CalendarClient:
    """Read and change the owner's calendars. One per daemon; safe to share between tasks."""

    def __init__(self, settings: Settings, env: Mapping[str, str] | None = None) -> None:
        self.settings = settings
        self.config = settings.calendar
        self.tz = settings.tz
        self._env = os.environ if env is None else env
        self._lock = threading.Lock()
        self._client: DAVClient | None = None
        self._calendars: list[tuple[str, Any]] = []
        self._listed_at = -DISCOVERY_TTL_S

    @property
    def configured(self) -> bool:
        return self.config.configured

    # -- the async face: every call bounded by timeout_s --------------------------------------

    async def _call(self, fn: Callable[..., T], *args: Any) -> T:
        if not self.configured:
            raise CalendarNotSetUp(NOT_SET_UP)
        started = time.monotonic()
        try:
            async with asyncio.timeout(self.config.timeout_s):
                return await asyncio.to_thread(self._guarded, fn, *args)
        except TimeoutError:
            raise CalendarUnavailable(self._slow()) from None
        finally:
            log.debug("calendar %s: %.2f s", fn.__name__, time.monotonic() - started)

    def close(self) -> None:
        """Close the connection to the server (its keep-alive thread ends with it)."""
        with self._lock:
            if self._client is not None:
                self._client.close()
                self._client = None

    async def calendar_names(self) -> list[str]:
        """The calendars read (after `[calendar] read`), by display name."""
        return await self._call(lambda: [name for name, _ in self._list()])

    async def all_calendar_names(self) -> list[str]:
        """Every calendar of the account, for set-up help (doctor)."""
        return await self._call(self._all_names)

    async def events(self, start: datetime, end: datetime) -> list[Event]:
        """Events (each occurrence of a recurring one) overlapping [start, end), sorted."""
        return await self._call(self._events, start, end)

    async def events_on(self, first: date, days: int = 1) -> list[Event]:
        start = datetime.combine(first, datetime.min.time(), tzinfo=self.tz)
        end = datetime.combine(first + timedelta(days=days), datetime.min.time(), tzinfo=self.tz)
        return await self.events(start, end)

    async def find(self, words: str, first: date, days: int) -> list[Event]:
        """Events in the window whose title holds every word (the start of a word counts)."""
        found = await self.events_on(first, days)
        return [e for e in found if title_matches(words, e.title)]

    async def identical(self, title: str, start: datetime | date) -> Event | None:
        """An event with this title and start in a calendar read, if there is one."""
        return await self._call(self._identical, ical.clean_title(title), start)

    async def write_calendar_name(self) -> str:
        """The calendar new events go to ([calendar] write, else the first one read)."""
        return await self._call(lambda: self._write_calendar()[0])

    async def get(self, href: str, recurrence_id: str | None) -> Event | None:
        """The event as the server has it now (with its current ETag), None if it is gone."""
        return await self._call(self._get, href, recurrence_id)

    async def add(
        self, title: str, start: datetime | date, end: datetime | date | None
    ) -> tuple[Event, bool]:
        """Add an event to the write calendar; (the event, False) if an identical one exists."""
        return await self._call(self._add, title, start, end)

    async def move(self, seen: Event, start: datetime | date, end: datetime | date | None) -> Event:
        """Move `seen` (one occurrence only, for a recurring event); EventChanged if the event
        is no longer the version `seen` was read as."""
        return await self._call(self._move, seen, start, end)

    async def delete(self, seen: Event) -> None:
        """Delete `seen` (one occurrence only, for a recurring event), on the same terms."""
        await self._call(self._delete, seen)

    # -- error boundary ---------------------------------------------------------------------

    def _guarded(self, fn: Callable[..., T], *args: Any) -> T:
        with self._lock:
            try:
                return fn(*args)
            except CalendarError:
                raise
            except dav_error.AuthorizationError:
                self._forget()
                raise CalendarUnavailable(self._refused()) from None
            except niquests.exceptions.Timeout:
                self._forget()
                raise CalendarUnavailable(self._slow()) from None
            except (niquests.exceptions.RequestException, OSError) as exc:
                self._forget()
                log.info("calendar at %s: %s", _host(self.config.url), type(exc).__name__)
                raise CalendarUnavailable(
                    f"The calendar at {_host(self.config.url)} is not answering "
                    f"({_reason(exc)}). Check [calendar] url, and that the server is up and "
                    "this computer is online."
                ) from None
            except dav_error.DAVError as exc:
                self._forget()
                log.info("calendar at %s: %s", _host(self.config.url), type(exc).__name__)
                raise CalendarUnavailable(
                    f"The calendar at {_host(self.config.url)} answered with an error "
                    f"({type(exc).__name__}, {getattr(exc, 'reason', '') or 'no reason given'}). "
                    "Run `commonplace doctor` to check the set-up."
                ) from None

    def _slow(self) -> str:
        return (
            f"The calendar at {_host(self.config.url)} did not answer within "
            f"{self.config.timeout_s:g} s. Try again later, or raise [calendar] timeout_s."
        )

    def _refused(self) -> str:
        return (
            f"The calendar at {_host(self.config.url)} refused the login for "
            f"{self.config.username or '(no username)'}. Check [calendar] username and the app "
            f"password (in [calendar] password_file or {PASSWORD_ENV}); many providers need an "
            "app password, not your usual one."
        )

    def _forget(self) -> None:
        """After a failure the next call connects afresh (a new password file, a new URL)."""
        self._client = None
        self._calendars = []
        self._listed_at = -DISCOVERY_TTL_S

    # -- the synchronous work, in a worker thread -------------------------------------------

    def _dav(self) -> DAVClient:
        if self._client is None:
            password = read_password(self.config, self._env)
            self._client = DAVClient(
                url=self.config.url,
                username=self.config.username or None,
                password=password or None,
                timeout=max(1, round(self.config.timeout_s)),
            )
        return self._client

    def _discover(self) -> list[tuple[str, Any]]:
        found = []
        # the synchronous client returns lists (caldav's types also allow its async client's)
        calendars: list[Any] = self._dav().get_principal().get_calendars()  # type: ignore[assignment]
        for calendar in calendars:
            name = calendar.get_display_name() or _last_segment(str(calendar.url))
            found.append((str(name), calendar))
        return found

    def _all_names(self) -> list[str]:
        return [name for name, _ in self._discover()]

    def _list(self) -> list[tuple[str, Any]]:
        if time.monotonic() - self._listed_at < DISCOVERY_TTL_S and self._calendars:
            return self._calendars
        found = self._discover()
        wanted = {n.casefold() for n in self.config.read}
        chosen = [(n, c) for n, c in found if not wanted or n.casefold() in wanted]
        missing = wanted - {n.casefold() for n, _ in found}
        if missing:
            log.warning("calendar: %d calendar(s) in [calendar] read do not exist", len(missing))
        self._calendars, self._listed_at = chosen, time.monotonic()
        return chosen

    def _write_calendar(self) -> tuple[str, Any]:
        calendars = self._list()
        if self.config.write:
            for name, calendar in self._discover():
                if name.casefold() == self.config.write.casefold():
                    return name, calendar
            raise CalendarUnavailable(
                f"There is no calendar called {self.config.write!r} to add events to; set "
                "[calendar] write to one of the names `commonplace doctor` lists."
            )
        if not calendars:
            raise CalendarUnavailable(
                "The account has no calendar to add events to; make one in your calendar app."
            )
        return calendars[0]

    def _events(self, start: datetime, end: datetime) -> list[Event]:
        found: list[Event] = []
        for name, calendar in self._list():
            results = calendar.search(
                event=True, start=start, end=end, expand=True, split_expanded=False
            )
            for obj in results:
                data = obj.get_icalendar_instance()
                found.extend(
                    e
                    for e in ical.events_of(
                        data,
                        tz=self.tz,
                        calendar=name,
                        href=str(obj.url),
                        etag=obj.etag,
                        recurring=False,
                    )
                    if _overlaps(e, start, end)
                )
        log.info("calendar: %d event(s) from %d calendar(s)", len(found), len(self._list()))
        return sorted(found, key=Event.sort_key)

    def _calendar_of(self, href: str) -> tuple[str, Any]:
        for name, calendar in self._list():
            if href.startswith(str(calendar.url)):
                return name, calendar
        raise EventChanged("The event's calendar is no longer one this assistant reads.")

    def _load(self, href: str) -> tuple[str, Any] | None:
        name, calendar = self._calendar_of(href)
        try:
            return name, calendar.event_by_url(href)
        except dav_error.NotFoundError:
            return None

    def _get(self, href: str, recurrence_id: str | None) -> Event | None:
        loaded = self._load(href)
        if loaded is None:
            return None
        name, obj = loaded
        return self._event_in(obj, name, recurrence_id)

    def _event_in(self, obj: Any, name: str, recurrence_id: str | None) -> Event | None:
        data = obj.get_icalendar_instance()
        component = ical.find_occurrence(data, recurrence_id, self.tz)
        if component is None:
            return None
        event = ical.to_event(
            component,
            tz=self.tz,
            calendar=name,
            href=str(obj.url),
            etag=obj.etag,
            recurring=ical.is_series(data),
        )
        if recurrence_id is not None and event.recurrence_id is None:
            # the occurrence as the rule makes it: it is still that occurrence
            event = _with(event, recurrence_id=recurrence_id, recurring=True)
        return event

    def _add(
        self, title: str, start: datetime | date, end: datetime | date | None
    ) -> tuple[Event, bool]:
        name, calendar = self._write_calendar()
        title = ical.clean_title(title)
        existing = self._identical(title, start)
        if existing is not None:
            return existing, False
        uid = ical.stable_uid(title, start, name)
        data = ical.new_event(uid=uid, title=title, start=start, end=end, now=_now(self.tz))
        try:
            obj = calendar.add_event(
                data.to_ical().decode("utf-8"), no_overwrite=True, increase_seqno=False
            )
        except dav_error.ConsistencyError:
            # the same request was written before (a retried Yes): that event is the answer
            found = self._identical(title, start)
            if found is None:
                raise EventChanged(
                    f'An event "{title}" at that time was just written, but cannot be read back.'
                ) from None
            return found, False
        log.info("calendar: added an event to %s", name)
        added = self._event_in(obj, name, None)
        if added is None:  # pragma: no cover - the server lost what it just stored
            raise EventChanged("The new event cannot be read back from the calendar.")
        return added, True

    def _identical(self, title: str, start: datetime | date) -> Event | None:
        """An event with the same title and start in any calendar read, if one exists."""
        if isinstance(start, datetime):
            window = (start - timedelta(minutes=1), start + timedelta(minutes=1))
        else:
            first = datetime.combine(start, datetime.min.time(), tzinfo=self.tz)
            window = (first, first + timedelta(days=1))
        for event in self._events(*window):
            if event.title.casefold() == title.casefold() and _same_time(event.start, start):
                return event
        return None

    def _fresh(self, seen: Event) -> tuple[str, Any]:
        """The resource `seen` came from, loaded now; EventChanged unless it is that version."""
        loaded = self._load(seen.href)
        now = self._event_in(loaded[1], loaded[0], seen.recurrence_id) if loaded else None
        if loaded is None or now is None:
            raise EventChanged(f'"{seen.title}" is no longer on the calendar.', None)
        if loaded[1].etag != seen.etag:
            raise EventChanged(f'"{seen.title}" was changed on the calendar meanwhile.', now)
        return loaded

    def _save(self, obj: Any, seen: Event) -> None:
        """PUT with If-Match: exactly the version the owner said Yes to."""
        obj.props[dav.GetEtag.tag] = seen.etag
        try:
            obj.save(increase_seqno=False, only_this_recurrence=False)
        except dav_error.ETagMismatchError:
            raise self._changed(seen) from None

    def _changed(self, seen: Event) -> EventChanged:
        """After a 412: what the event is now, so the owner can be told what changed."""
        current = self._get(seen.href, seen.recurrence_id)
        return EventChanged(f'"{seen.title}" was changed on the calendar meanwhile.', current)

    def _move(self, seen: Event, start: datetime | date, end: datetime | date | None) -> Event:
        name, obj = self._fresh(seen)
        with obj.edit_icalendar_instance() as data:
            ical.move(data, seen.recurrence_id, start, end, self.tz, _now(self.tz))
        self._save(obj, seen)
        log.info("calendar: moved an event in %s", name)
        moved = self._event_in(obj, name, seen.recurrence_id)
        if moved is None:  # pragma: no cover - what was just written cannot be found in it
            raise EventChanged("The moved event cannot be read back from the calendar.")
        return moved

    def _delete(self, seen: Event) -> None:
        name, obj = self._fresh(seen)
        if seen.recurrence_id is not None:
            with obj.edit_icalendar_instance() as data:
                ical.delete_occurrence(data, seen.recurrence_id, self.tz, _now(self.tz))
            self._save(obj, seen)
        else:
            try:
                obj.delete(if_match=seen.etag)
            except dav_error.ETagMismatchError:
                raise self._changed(seen) from None
            except dav_error.NotFoundError:
                raise EventChanged(f'"{seen.title}" is no longer on the calendar.') from None
        log.info("calendar: deleted an event in %s", name)


def _overlaps(event: Event, start: datetime, end: datetime) -> bool:
    """caldav asks the server for a wider window; keep what overlaps [start, end) for the user."""
    tz = start.tzinfo
    first = _instant(event.start, tz)
    last = _instant(event.end, tz) if event.end is not None else first
    if last == first:
        return start <= first < end
    return first < end and last > start


def _instant(value: datetime | date, tz: Any) -> datetime:
    if isinstance(value, datetime):
        return value
    return datetime.combine(value, datetime.min.time(), tzinfo=tz)


def _same_time(a: datetime | date, b: datetime | date) -> bool:
    if isinstance(a, datetime) != isinstance(b, datetime):
        return False
    return a == b


def _with(event: Event, **changes: Any) -> Event:
    return replace(event, **changes)


def _now(tz: Any) -> datetime:
    return datetime.now(tz)


def _last_segment(url: str) -> str:
    return url.rstrip("/").rsplit("/", 1)[-1] or url


def _reason(exc: BaseException) -> str:
    text = str(exc)
    for known in ("Connection refused", "Name or service not known", "No route to host"):
        if known.lower() in text.lower():
            return known.lower()
    return type(exc).__name__
