"""The owner's calendars over CalDAV, with the `caldav` library.

caldav's synchronous client is the well-tested one, so each operation runs in a worker thread,
one at a time (a lock). Every HTTP request is bounded by `[calendar] timeout_s`, and so is the
caller's wait for everything a call reads. Whatever goes wrong on the wire (refused, slow, a
login refused, a server error) comes out as one `CalendarUnavailable` sentence with what to do,
never a traceback; the password is never logged or put into a message.

A change (PUT or DELETE) is the exception to the wait: a thread cannot be stopped, so once the
request is sent, giving up on it would leave the change to happen unseen while the owner is told
nothing changed. So the reads before it share `timeout_s`, and a write never starts once the
caller has stopped waiting (`Attempt`); once sent, its answer is waited for (its own request
timeout), and a write that gets no answer is `ChangeUnconfirmed`: it may have been made.

"Sent" is known, not guessed from the exception: niquests' `pre_send` hook fires once a live
connection is picked (DNS, TCP and TLS done) and before a byte of the request goes out. A write
that fails before that hook fired for it (connection refused, a name that does not resolve, a
TLS handshake refused or timed out) certainly did not reach the server: that is a plain
`CalendarUnavailable`, and "nothing was changed" is true. After it fired, a read timeout, a
reset connection or a gateway's 5xx leave the outcome unknown: `ChangeUnconfirmed`. (The
exception alone cannot tell: a TLS handshake that times out raises the same ReadTimeout as a
server that never answers.)

Changes compare and write. `move` and `delete` read the event again, refuse unless its ETag is
the one the owner said Yes to, and send that ETag as If-Match (`precondition="etag"`: never
If-Schedule-Tag-Match, under which a server merges an attendee's reply instead of refusing), so
the server refuses (412) if anything changed it since. A weak ETag (`W/"..."`, as GMX gives) can
never match If-Match (RFC 9110 compares strongly): then the re-read just before the write is the
only comparison, and the write itself is unconditional (a Schedule-Tag, if the server gave one,
is still sent). `add` writes a UID made from the request (see `stable_uid`) with If-None-Match: *,
after checking that no event with the same title and start exists, so a retried Yes never makes
two.

Around it: `attempt.py` (a call's point of no return), `wire.py` (what went wrong on the wire,
and which answers may follow a stored change), `sentences.py` (what the owner is told),
`instants.py` (comparing times as instants), `password.py` (the app password), and `ical.py`
(the iCalendar data itself).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import threading
import time
from collections.abc import Callable, Iterator, Mapping
from dataclasses import replace
from datetime import date, datetime, timedelta
from typing import TYPE_CHECKING, Any, TypeVar
from urllib.parse import urlsplit

from commonplace.calendar import ical
from commonplace.calendar.attempt import SAFE_METHODS, Attempt, collect
from commonplace.calendar.find import title_matches
from commonplace.calendar.instants import later, overlaps, same_time
from commonplace.calendar.models import (
    CalendarError,
    CalendarNotSetUp,
    CalendarUnavailable,
    ChangeUnconfirmed,
    Event,
    EventChanged,
    EventList,
)
from commonplace.calendar.password import read_password
from commonplace.calendar.sentences import NOT_SET_UP, Sentences
from commonplace.calendar.wire import is_forbidden, kind, maybe_stored, reason
from commonplace.config import Settings

if TYPE_CHECKING:
    from commonplace.calendar.dav import CheckedDAVClient

# caldav and its HTTP client (niquests, urllib3) are imported by the methods that use them, in
# the worker thread of a calendar call: a daemon whose calendar is never used does not load
# them (about 12 MB; see "What holds the memory" in the README).

log = logging.getLogger(__name__)

T = TypeVar("T")
DISCOVERY_TTL_S = 600.0  # calendars are listed again after this long
MAX_UID_TRIES = 5  # UIDs one add request may take (see `_add`)
ONE_MINUTE = timedelta(minutes=1)
ANSWER_GRACE_S = 2.0  # beyond a sent change's own request timeout, before it is "unconfirmed"


def _host(url: str) -> str:
    return urlsplit(url).netloc or url


class CalendarClient:
    """Read and change the owner's calendars. One per daemon; safe to share between tasks."""

    def __init__(
        self, settings: Settings, env: Mapping[str, str] | None = None, *, in_doctor: bool = False
    ) -> None:
        self.settings = settings
        self.in_doctor = in_doctor  # its sentences then do not send the owner to run doctor
        self.config = settings.calendar
        self.tz = settings.tz
        self._env = os.environ if env is None else env
        self._lock = threading.Lock()
        self._client: CheckedDAVClient | None = None
        self._calendars: list[tuple[str, Any]] = []
        self._listed_at = -DISCOVERY_TTL_S
        self._attempt = Attempt()  # the call running in the worker thread (under _lock)
        self._watched = False  # the session reports each request it sends (`_on_request`)
        self._until: float | None = None  # see `all_within`
        self._found: list[tuple[str, Any]] = []  # every calendar, as last listed
        self._found_at = -DISCOVERY_TTL_S

    @property
    def configured(self) -> bool:
        return self.config.configured

    # -- the async face: every call bounded by timeout_s, a change once sent by its answer ------

    async def _call(self, fn: Callable[..., T], *args: Any) -> T:
        if not self.configured:
            raise CalendarNotSetUp(NOT_SET_UP)
        started = time.monotonic()
        wait = self.config.timeout_s
        if self._until is not None:
            wait = min(wait, self._until - started)
            if wait <= 0:
                raise CalendarUnavailable(self._say.slow())
        attempt = Attempt(deadline=started + wait)
        work = asyncio.ensure_future(asyncio.to_thread(self._guarded, attempt, fn, *args))
        work.add_done_callback(collect)
        try:
            try:
                async with asyncio.timeout(wait):
                    return await asyncio.shield(work)
            except TimeoutError:
                if not attempt.give_up():  # nothing was sent, and now nothing will be
                    raise CalendarUnavailable(self._say.slow()) from None
            # A change is on its way: wait for the server's answer to it, which its own
            # request timeout bounds; past that, nobody can say whether it was made.
            try:
                async with asyncio.timeout(self.config.timeout_s + ANSWER_GRACE_S):
                    return await asyncio.shield(work)
            except TimeoutError:
                raise ChangeUnconfirmed(self._say.unconfirmed()) from None
        except asyncio.CancelledError:
            attempt.give_up()
            raise
        finally:
            log.debug("calendar %s: %.2f s", fn.__name__, time.monotonic() - started)

    def close(self) -> None:
        """Close the connection to the server (its keep-alive thread ends with it). Waits for
        a call still running in the worker thread: a read ends when its caller stopped waiting
        (`Attempt.read_time_left`), a change when it is answered or its own timeout is up."""
        with self._lock:
            if self._client is not None:
                self._client.close()
                self._client = None

    async def aclose(self) -> None:
        """`close`, without holding up the event loop while a call in the thread ends."""
        await asyncio.to_thread(self.close)

    @contextlib.contextmanager
    def all_within(self, seconds: float) -> Iterator[None]:
        """The calls made inside share one wait of `seconds` (each also within timeout_s):
        `commonplace doctor` lists the calendars, then reads today's events, and the owner
        should wait for the calendar at most once, not once per call."""
        self._until = time.monotonic() + seconds
        try:
            yield
        finally:
            self._until = None

    async def all_calendar_names(self) -> list[str]:
        """Every calendar of the account, for set-up help (doctor)."""
        return await self._call(self._all_names)

    async def events(self, start: datetime, end: datetime) -> EventList:
        """Events (each occurrence of a recurring one) overlapping [start, end), sorted; those
        that cannot be read are left out and counted (`EventList.unreadable`)."""
        return await self._call(self._events, start, end)

    async def events_on(self, first: date, days: int = 1) -> EventList:
        start = datetime.combine(first, datetime.min.time(), tzinfo=self.tz)
        end = datetime.combine(first + timedelta(days=days), datetime.min.time(), tzinfo=self.tz)
        return await self.events(start, end)

    async def find(self, words: str, first: date, days: int) -> EventList:
        """Events in the window whose title holds every word (the start of a word counts); an
        event that cannot be read might have matched, so its count is kept."""
        found = await self.events_on(first, days)
        return EventList((e for e in found if title_matches(words, e.title)), found.unreadable)

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

    def _guarded(self, attempt: Attempt, fn: Callable[..., T], *args: Any) -> T:
        with self._lock:
            attempt.check()  # the caller may have stopped waiting while another call ran
            self._attempt = attempt
            try:
                return fn(*args)
            except CalendarError:
                raise
            except Exception as exc:
                self._forget()
                if attempt.sent:
                    log.info("calendar at %s: no answer to a change (%s)", self._where, kind(exc))
                    raise ChangeUnconfirmed(self._say.unconfirmed(exc)) from None
                raise self._unavailable(exc) from None

    def _unavailable(self, exc: Exception) -> CalendarUnavailable:
        """What went wrong on the wire (or in what the server sent), as one sentence."""
        import niquests
        from caldav.lib import error as dav_error

        from commonplace.calendar.dav import NotCalendarData

        if isinstance(exc, NotCalendarData):  # before caldav reads it (see calendar/dav.py)
            log.warning(
                "calendar at %s: the request for events was answered with %s, not CalDAV; "
                "check [calendar] url",
                self._where,
                exc.what,
            )
            return CalendarUnavailable(self._say.not_calendar_data(exc.what))
        if isinstance(exc, dav_error.AuthorizationError):
            status = getattr(exc, "status", None)
            log.info("calendar at %s: %s (HTTP %s)", self._where, kind(exc), status)
            if status == 403:  # the login may be right: this account may not read there
                return CalendarUnavailable(self._say.no_access())
            return CalendarUnavailable(self._say.refused())
        if isinstance(exc, niquests.exceptions.Timeout):
            return CalendarUnavailable(self._say.slow())
        wire = (niquests.exceptions.RequestException, OSError, dav_error.DAVError)
        if isinstance(exc, wire):
            log.info("calendar at %s: %s", self._where, kind(exc))
        if isinstance(exc, niquests.exceptions.RequestException | OSError):
            return CalendarUnavailable(
                f"The calendar at {self._where} is not answering ({reason(exc)}). Check "
                "[calendar] url, and that the server is up and this computer is online."
            )
        if isinstance(exc, dav_error.DAVError):
            return CalendarUnavailable(
                f"The calendar at {self._where} answered with an error ({kind(exc)}, "
                f"{getattr(exc, 'reason', '') or 'no reason given'})."
                + self._say.see_doctor("to check the set-up")
            )
        # not the wire: what the server sent could not be read (a web page, a proxy's or a
        # captive portal's answer, a server's bug). One line says so and what to do; the
        # traceback, which only a developer reads, goes to the debug log.
        log.warning(
            "calendar at %s: its answer could not be read as CalDAV (%s); check [calendar] url "
            "(`commonplace doctor`)",
            self._where,
            kind(exc),
        )
        log.debug("calendar at %s: the answer that could not be read", self._where, exc_info=exc)
        return CalendarUnavailable(
            f"The calendar at {self._where} sent an answer that cannot be read as a calendar "
            f"({kind(exc)}): [calendar] url may point at a web page rather than the CalDAV "
            "address, or something between here and the server answered in its place. Check "
            "[calendar] url." + self._say.see_doctor("to check the set-up")
        )

    def _send(self, change: Callable[[], T]) -> T:
        """Send one change (PUT or DELETE). Refused if the caller has stopped waiting; once
        the request is on the wire the change may be made, whatever becomes of the answer.

        Failing before that (`Attempt.on_wire` never came: refused, no such name, TLS), it
        certainly was not. A server's answer that refuses it (4xx, 412) says it was not made;
        a 5xx says the server, or a gateway in front of it, failed while handling it, which may
        be after it was stored (`maybe_stored`): ChangeUnconfirmed. So is a refusal of a
        second try (caldav sends a PUT again after a 5xx): a 412 then may be the first one's.
        """
        import niquests
        from caldav.lib import error as dav_error

        self._attempt.begin_write(watched=self._watched)
        try:
            result = change()
        except dav_error.DAVError as exc:
            if self._attempt.resent or maybe_stored(getattr(exc, "status", None)):
                log.info(
                    "calendar at %s: a change failed on the server (%s, HTTP %s)",
                    self._where,
                    kind(exc),
                    getattr(exc, "status", None),
                )
                raise ChangeUnconfirmed(self._say.unconfirmed(exc)) from None
            self._attempt.answered(made=False)  # the server refused it
            if is_forbidden(exc):  # the login worked for the read just before: not the password
                raise CalendarUnavailable(self._say.forbidden()) from None
            raise
        except Exception as exc:
            connect = isinstance(exc, niquests.exceptions.ConnectTimeout)
            if not self._attempt.sent or (connect and not self._watched):
                self._attempt.answered(made=False)  # it never reached the server
            raise
        self._attempt.answered(made=True)
        return result

    def _on_request(self, request: Any, **_: Any) -> None:
        """niquests' `pre_send` hook: a request is about to go out on a live connection."""
        if str(getattr(request, "method", "")).upper() not in SAFE_METHODS:
            self._attempt.on_wire()

    @property
    def _where(self) -> str:
        return _host(self.config.url)

    @property
    def _say(self) -> Sentences:
        return Sentences(self._where, self.config.timeout_s, self.config.username, self.in_doctor)

    def _forget(self) -> None:
        """After a failure the next call connects afresh (a new password file, a new URL, and
        no connection left waiting for an answer that never came)."""
        if self._client is not None:
            with contextlib.suppress(Exception):
                self._client.close()
        self._client = None
        self._calendars = []
        self._listed_at = -DISCOVERY_TTL_S
        self._found = []
        self._found_at = -DISCOVERY_TTL_S

    # -- the synchronous work, in a worker thread -------------------------------------------

    def _dav(self) -> CheckedDAVClient:
        from commonplace.calendar.dav import CheckedDAVClient

        if self._client is None:
            password = read_password(self.config, self._env)
            self._client = CheckedDAVClient(
                url=self.config.url,
                username=self.config.username or None,
                password=password or None,
                timeout=max(1, round(self.config.timeout_s)),
                time_left=self._read_time_left,
            )
            hooks = getattr(self._client.session, "hooks", None)
            self._watched = isinstance(hooks, dict) and isinstance(hooks.get("pre_send"), list)
            if self._watched:
                hooks["pre_send"].append(self._on_request)  # type: ignore[index]
        return self._client

    def _discover(self) -> list[tuple[str, Any]]:
        found = []
        # the synchronous client returns lists (caldav's types also allow its async client's)
        calendars: list[Any] = self._dav().get_principal().get_calendars()  # type: ignore[assignment]
        for calendar in calendars:
            name = calendar.get_display_name() or _last_segment(str(calendar.url))
            found.append((str(name), calendar))
        if not found and self._answers_with_a_web_page():
            log.warning("calendar at %s: answered with a web page, not CalDAV", self._where)
            raise CalendarUnavailable(self._say.web_page())
        self._found, self._found_at = found, time.monotonic()
        return found

    def _read_time_left(self, method: str) -> float | None:
        return self._attempt.read_time_left(method)

    def _answers_with_a_web_page(self) -> bool:
        """No calendars listed: an HTML page (which caldav reads as XML with nothing in it)
        rather than an account with none. Asked only then, with one PROPFIND of the url."""
        try:
            answer = self._dav().propfind(self.config.url, depth=0)
        except Exception:  # the listing just worked: not knowing is "no calendars"
            return False
        from commonplace.calendar.dav import looks_like_html

        kind = str(answer.headers.get("Content-Type", "")).lower()
        body = answer.raw if isinstance(answer.raw, str) else ""
        return "html" in kind or looks_like_html(body)

    def _all_names(self) -> list[str]:
        return [name for name, _ in self._discover()]

    def _list(self) -> list[tuple[str, Any]]:
        if time.monotonic() - self._listed_at < DISCOVERY_TTL_S and self._calendars:
            return self._calendars
        # the calendars just listed (doctor lists them, then reads the events) are not asked
        # for again: the events' request then has what is left of the wait, as it has in the
        # assistant's calls
        fresh = time.monotonic() - self._found_at < DISCOVERY_TTL_S and self._found
        found = self._found if fresh else self._discover()
        wanted = {n.casefold() for n in self.config.read}
        chosen = [(n, c) for n, c in found if not wanted or n.casefold() in wanted]
        missing = wanted - {n.casefold() for n, _ in found}
        if missing:
            log.warning("calendar: %d calendar(s) in [calendar] read do not exist", len(missing))
        if not chosen:  # "no events" would then be said of days nobody looked at
            log.warning("calendar at %s: no calendar to read (%d found)", self._where, len(found))
            raise CalendarUnavailable(self._say.nothing_to_read(found=len(found)))
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

    def _events(self, start: datetime, end: datetime) -> EventList:
        found: list[Event] = []
        unreadable = 0
        for name, calendar in self._list():
            # the resources as stored (a series with its overrides), expanded here: caldav's
            # expansion ends each occurrence on the clock and drops its DURATION (`ical.expand`)
            for obj in calendar.search(event=True, start=start, end=end, expand=False):
                try:
                    data = ical.expand(obj.get_icalendar_instance(), start, end, self.tz)
                except ValueError:
                    unreadable += 1
                    log.warning("calendar: %s cannot be read; left out", obj.url)
                    continue
                events, bad = ical.events_of(
                    data,
                    tz=self.tz,
                    calendar=name,
                    href=str(obj.url),
                    etag=obj.etag,
                    recurring=False,
                )
                unreadable += bad
                found.extend(e for e in events if overlaps(e, start, end))
        log.info(
            "calendar: %d event(s) from %d calendar(s), %d unreadable",
            len(found),
            len(self._list()),
            unreadable,
        )
        return EventList(sorted(found, key=Event.sort_key), unreadable)

    def _calendar_of(self, href: str) -> tuple[str, Any]:
        for name, calendar in self._list():
            if href.startswith(str(calendar.url)):
                return name, calendar
        raise EventChanged("The event's calendar is no longer one this assistant reads.")

    def _load(self, href: str) -> tuple[str, Any] | None:
        from caldav.lib import error as dav_error

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
        try:
            event = ical.to_event(
                component,
                tz=self.tz,
                calendar=name,
                href=str(obj.url),
                etag=obj.etag,
                recurring=ical.is_series(data),
            )
        except ical.BadEvent as exc:
            log.warning("calendar: the event at %s cannot be read: %s", obj.url, exc)
            return None
        if recurrence_id is not None and event.recurrence_id is None:
            # the occurrence as the rule makes it: it is still that occurrence
            event = _with(event, recurrence_id=recurrence_id, recurring=True)
        return event

    def _add(
        self, title: str, start: datetime | date, end: datetime | date | None
    ) -> tuple[Event, bool]:
        from caldav.lib import error as dav_error

        name, calendar = self._write_calendar()
        title = ical.clean_title(title)
        existing = self._identical(title, start)
        if existing is not None:
            return existing, False
        for attempt in range(MAX_UID_TRIES):
            uid = ical.stable_uid(title, start, name, attempt)
            data = ical.new_event(uid=uid, title=title, start=start, end=end, now=_now(self.tz))

            def put(text: str = data.to_ical().decode("utf-8")) -> Any:
                return calendar.add_event(text, no_overwrite=True, increase_seqno=False)

            try:
                obj = self._send(put)
            except dav_error.ConsistencyError:
                # the UID is taken: by this request, written before (a retried Yes), and then
                # that event is the answer; or by an event once added so and since moved or
                # renamed on the phone, and then the next UID of the request is tried
                found = self._identical(title, start)
                if found is not None:
                    return found, False
                continue
            log.info("calendar: added an event to %s", name)
            asked = Event(
                title=title,
                start=start,
                end=end,
                all_day=not isinstance(start, datetime),
                calendar=name,
                uid=uid,
                href=str(obj.url),
                etag=None,
            )
            return self._read_back(obj, name, None, asked), True
        raise CalendarUnavailable(
            f'"{title}" cannot be added: the calendar holds {MAX_UID_TRIES} events once added '
            "at this time with this title and changed since. Add it in your calendar app."
        )

    def _read_back(self, obj: Any, name: str, rid: str | None, asked: Event) -> Event:
        """The event as just written, or as asked if it cannot be read back: the change was
        made, and a failure to read it must not turn into "nothing was changed"."""
        try:
            event = self._event_in(obj, name, rid)
        except Exception:  # what was just written is ours; a surprise in it is logged
            log.exception("calendar: a change to %s was made but cannot be read back", name)
            event = None
        return event if event is not None else asked

    def _identical(self, title: str, start: datetime | date) -> Event | None:
        """An event with the same title and start in any calendar read, if one exists. The
        window is a minute either side of the instant: in the hour that happens twice, 01:30
        BST and 01:30 GMT are different events (arithmetic on the clock would lose which)."""
        if isinstance(start, datetime):
            window = (later(start, -ONE_MINUTE, self.tz), later(start, ONE_MINUTE, self.tz))
        else:
            first = datetime.combine(start, datetime.min.time(), tzinfo=self.tz)
            window = (first, first + timedelta(days=1))
        for event in self._events(*window):
            if event.title.casefold() == title.casefold() and same_time(event.start, start):
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
        """PUT with If-Match: exactly the version the owner said Yes to (see the module's
        docstring for Schedule-Tags and weak ETags)."""
        from caldav.elements import dav
        from caldav.lib import error as dav_error

        obj.props[dav.GetEtag.tag] = seen.etag
        try:
            self._send(
                lambda: obj.save(
                    increase_seqno=False, only_this_recurrence=False, precondition="etag"
                )
            )
        except (dav_error.ETagMismatchError, dav_error.ScheduleTagMismatchError):
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
        asked = _with(seen, start=start, end=end, etag=None, duration=None)
        return self._read_back(obj, name, seen.recurrence_id, asked)

    def _delete(self, seen: Event) -> None:
        from caldav.lib import error as dav_error

        name, obj = self._fresh(seen)
        if seen.recurrence_id is not None:
            with obj.edit_icalendar_instance() as data:
                ical.delete_occurrence(data, seen.recurrence_id, self.tz, _now(self.tz))
            self._save(obj, seen)
        else:
            try:
                self._send(lambda: obj.delete(if_match=_if_match(obj, seen), precondition="etag"))
            except (dav_error.ETagMismatchError, dav_error.ScheduleTagMismatchError):
                raise self._changed(seen) from None
            except dav_error.NotFoundError:
                raise EventChanged(f'"{seen.title}" is no longer on the calendar.') from None
        log.info("calendar: deleted an event in %s", name)


def _if_match(obj: Any, seen: Event) -> str | bool:
    """The DELETE's precondition: the ETag the owner said Yes to, sent as If-Match; for a weak
    one, which If-Match never matches, the Schedule-Tag if the server gave one (True), else
    none (False): `_fresh` compared the ETag just before."""
    if seen.etag and not seen.etag.startswith("W/"):
        return seen.etag
    return obj.schedule_tag is not None


def _with(event: Event, **changes: Any) -> Event:
    return replace(event, **changes)


def _now(tz: Any) -> datetime:
    return datetime.now(tz)


def _last_segment(url: str) -> str:
    return url.rstrip("/").rsplit("/", 1)[-1] or url
