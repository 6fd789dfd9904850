"""iCalendar in and out: pure functions over `icalendar` objects, no server.

Reading turns one component into an `Event` in the user's zone. Writing changes a resource's
calendar data the way every calendar app expects: a moved or deleted occurrence of a recurring
event becomes an override (a component with RECURRENCE-ID) or an EXDATE on the series, written
in the series' own timezone, so the rest of the series is untouched.
"""

from __future__ import annotations

import hashlib
import logging
import unicodedata
from collections.abc import Iterable
from datetime import UTC, date, datetime, time, timedelta
from typing import Any
from zoneinfo import ZoneInfo

import icalendar
import recurring_ical_events

from commonplace.calendar.duration import add_duration
from commonplace.calendar.models import Event

log = logging.getLogger(__name__)

PRODID = "-//Commonplace//Assistant//EN"
MAX_TITLE = 200
_SERIES_ONLY = ("RRULE", "RDATE", "EXDATE", "EXRULE")
_TIMES = ("DTSTART", "DTEND", "DURATION", "RECURRENCE-ID")
ONE_DAY = timedelta(days=1)


def local(value: datetime | date, tz: ZoneInfo) -> datetime | date:
    """A DTSTART/DTEND value in the user's zone; a floating time is taken as the user's.

    Through UTC, also when the value is already in that zone (`astimezone` then changes
    nothing): a time the clocks skip, which another app may store (02:30 on the night they go
    forward), is the instant RFC 5545 makes of it (with the offset before the gap: 03:30), not
    a clock reading that does not exist that night."""
    if not isinstance(value, datetime):
        return value
    if value.tzinfo is None:
        value = value.replace(tzinfo=tz)
    return value.astimezone(UTC).astimezone(tz)


def occurrence_key(value: datetime | date, tz: ZoneInfo) -> str:
    """How an occurrence is named between calls: its original start as a UTC instant (or a
    date for an all-day series), so the same occurrence reads the same from any zone."""
    if not isinstance(value, datetime):
        return value.isoformat()
    if value.tzinfo is None:
        value = value.replace(tzinfo=tz)
    return value.astimezone(UTC).isoformat()


class BadEvent(ValueError):
    """A component whose times cannot be read (another app stored something malformed). It is
    left out of what is read, and only its place (the href) is logged: one bad event must not
    hide the rest of the calendar."""


def _dt(component: icalendar.Component, name: str) -> Any:
    """A date/time property's Python value (datetime, date or timedelta), None if absent."""
    prop: Any = component.get(name)
    return None if prop is None else prop.dt


def _moment(component: icalendar.Component, name: str) -> datetime | date | None:
    """A DTSTART/DTEND/RECURRENCE-ID value, None if absent; BadEvent if it is not a date or a
    date-time (icalendar keeps an unparsable value as a property that raises on use, and a
    PERIOD reads as a tuple)."""
    try:
        value = _dt(component, name)
    except (ValueError, TypeError, AttributeError):
        raise BadEvent(f"{name} cannot be read") from None
    if value is not None and not isinstance(value, date):
        raise BadEvent(f"{name} is not a date or a date-time")
    return value  # type: ignore[no-any-return]


def _text(component: icalendar.Component, name: str) -> str:
    value = component.get(name)
    return str(value).strip() if value is not None else ""


def _duration(component: icalendar.Component) -> timedelta | None:
    """The DURATION an event is given by (None when it has a DTEND, which wins, or none)."""
    if "DTEND" in component or "DURATION" not in component:
        return None
    try:
        duration = _dt(component, "DURATION")
    except (ValueError, TypeError, AttributeError):
        return None
    return duration if isinstance(duration, timedelta) else None


def _end(
    component: icalendar.Component, start: datetime | date, tz: ZoneInfo
) -> datetime | date | None:
    """DTEND, or DTSTART + DURATION as RFC 5545 adds it (`add_duration`: the days on the clock
    of the start's zone, the rest in real time); None when neither is given or can be read
    (the start alone still says when the event is). A floating start is on the user's clock."""
    try:
        if "DTEND" in component:
            return _moment(component, "DTEND")
        duration = _duration(component)
        if duration is not None:
            if isinstance(start, datetime) and start.tzinfo is None:
                start = start.replace(tzinfo=tz)
            return add_duration(start, duration)
    except (BadEvent, ValueError, TypeError, AttributeError, OverflowError):
        return None
    return None


def _fit_end(
    start: datetime | date, end: datetime | date | None, tz: ZoneInfo
) -> datetime | date | None:
    """The end, in the user's zone and of the start's kind, or None if it is before the start.

    RFC 5545 wants DTEND of DTSTART's type, but not every app writes it so: a date end of a
    timed event is that day's midnight; a date-time end of an all-day event ends the day it
    falls in (the next midnight if it is not midnight). An all-day event lasts at least its day.
    """
    if end is not None:
        end = local(end, tz)
        if isinstance(start, datetime) and not isinstance(end, datetime):
            end = datetime.combine(end, time(0), tzinfo=tz)
        elif not isinstance(start, datetime) and isinstance(end, datetime):
            end = end.date() + timedelta(days=0 if end.time() == time(0) else 1)
        if _instant(end) < _instant(start):  # type: ignore[operator]  # same kind by now
            end = None
    if not isinstance(start, datetime) and (end is None or end <= start):
        return start + timedelta(days=1)  # RFC 5545: an all-day event lasts its day
    return end


def _instant(value: datetime | date) -> datetime | date:
    """For comparing: two times in one zone compare as clock readings (fold ignored), so 01:15
    GMT came "before" 01:45 BST on the night the clocks go back, and such an end was lost."""
    return value.astimezone(UTC) if isinstance(value, datetime) else value


def to_event(
    component: icalendar.Component,
    *,
    tz: ZoneInfo,
    calendar: str,
    href: str,
    etag: str | None,
    recurring: bool,
) -> Event:
    """One VEVENT as an `Event`; BadEvent if its start cannot be read.

    The title becomes one line of at most MAX_TITLE characters: it reaches the model's tool
    results and the owner's Yes/No questions, where a newline could forge a line of its own.
    """
    raw_start = _moment(component, "DTSTART")
    if raw_start is None:
        raise BadEvent("DTSTART is missing")
    start = local(raw_start, tz)
    rid = _moment(component, "RECURRENCE-ID")
    return Event(
        title=clean_title(_text(component, "SUMMARY")) or "(no title)",
        start=start,
        end=_fit_end(start, _end(component, raw_start, tz), tz),
        all_day=not isinstance(raw_start, datetime),
        calendar=calendar,
        uid=_text(component, "UID"),
        href=href,
        etag=etag,
        recurrence_id=occurrence_key(rid, tz) if rid is not None else None,
        recurring=recurring or rid is not None,
        description=_text(component, "DESCRIPTION"),
        location=_text(component, "LOCATION"),
        zone=zone_name(raw_start),
        duration=_duration(component),
    )


_NO_PLACE = {"utc", "etc/utc", "gmt", "etc/gmt", "z", "universal", "zulu", "etc/universal"}


def zone_name(value: datetime | date) -> str:
    """The IANA name of the zone a start is written in ('America/New_York'); '' for a
    floating time, an all-day date, UTC, or a zone without a name this computer knows."""
    if not isinstance(value, datetime) or value.tzinfo is None:
        return ""
    name = getattr(value.tzinfo, "key", None) or getattr(value.tzinfo, "zone", None)
    if not isinstance(name, str) or name.casefold() in _NO_PLACE:
        return ""
    try:
        ZoneInfo(name)
    except (KeyError, ValueError, OSError):  # not found (a KeyError), or not a zone's name
        return ""
    return name


def is_cancelled(component: icalendar.Component) -> bool:
    return _text(component, "STATUS").upper() == "CANCELLED"


def events_of(
    ical: icalendar.Calendar,
    *,
    tz: ZoneInfo,
    calendar: str,
    href: str,
    etag: str | None,
    recurring: bool,
) -> tuple[list[Event], int]:
    """The events of one resource's (already expanded) calendar data, cancelled ones left out;
    and how many could not be read (no DTSTART, or times that are not times), which are left
    out too and logged by href and UID only."""
    found = []
    bad = 0
    for component in ical.walk("VEVENT"):
        if is_cancelled(component):
            continue
        try:
            found.append(
                to_event(
                    component,
                    tz=tz,
                    calendar=calendar,
                    href=href,
                    etag=etag,
                    recurring=recurring,
                )
            )
        except BadEvent as exc:
            bad += 1
            log.warning(
                "calendar: an event in %s (UID %s) left out: %s",
                href,
                _text(component, "UID")[:120] or "none",
                exc,
            )
    return found, bad


def master(ical: icalendar.Calendar) -> icalendar.Component | None:
    """The series (or the single event): the VEVENT without RECURRENCE-ID."""
    for component in ical.walk("VEVENT"):
        if "RECURRENCE-ID" not in component:
            return component
    return None


def is_series(ical: icalendar.Calendar) -> bool:
    main = master(ical)
    return main is not None and any(p in main for p in ("RRULE", "RDATE"))


def _override(ical: icalendar.Calendar, rid: str, tz: ZoneInfo) -> icalendar.Component | None:
    for component in ical.walk("VEVENT"):
        try:
            value = _moment(component, "RECURRENCE-ID")
        except BadEvent:
            continue
        if value is not None and occurrence_key(value, tz) == rid:
            return component
    return None


def find_occurrence(
    ical: icalendar.Calendar, rid: str | None, tz: ZoneInfo
) -> icalendar.Component | None:
    """The component that is this event now: the single event, an override of the occurrence,
    or the occurrence as the series' rule makes it. None when it no longer exists (deleted,
    excluded, or the rule changed)."""
    main = master(ical)
    if rid is None:
        return main
    found = _override(ical, rid, tz)
    if found is not None:
        return None if is_cancelled(found) else found
    if main is None or "DTSTART" not in main:
        return None
    instant = _parse_key(rid, tz)
    series = icalendar.Calendar()
    for component in ical.subcomponents:
        if isinstance(component, icalendar.Timezone) or component is main:
            series.add_component(component)
    for occurrence in recurring_ical_events.of(series).between(
        instant - timedelta(minutes=1), instant + timedelta(minutes=1)
    ):
        value = _dt(occurrence, "RECURRENCE-ID") or _dt(occurrence, "DTSTART")
        if value is not None and occurrence_key(value, tz) == rid:
            return _with_length(ical, occurrence, tz)
    return None


def expand(
    data: icalendar.Calendar, start: datetime, end: datetime, tz: ZoneInfo
) -> icalendar.Calendar:
    """One resource's calendar data for [start, end): a series as its occurrences, each with
    the length RFC 5545 gives it; anything else as it is (read by `events_of`). Occurrences
    that only touch the window's edges may be among them: the caller keeps what overlaps.

    The occurrences come from recurring_ical_events (as caldav's own expansion does), which
    ends each one at its start plus the series' length on the clock, and drops DURATION: a
    PT1H occurrence in the hour the clocks skip ended where it began. So each occurrence gets
    its length again from where it comes from (`_with_length`). A series whose rule cannot be
    read is given as it is: its first occurrence is still listed."""
    if not is_series(data):
        return data
    try:
        occurrences = recurring_ical_events.of(data).between(start - ONE_DAY, end)
    except (ValueError, TypeError, OverflowError) as exc:  # InvalidCalendar is a ValueError
        log.warning("calendar: a series (UID %s) cannot be expanded: %s", _uid(data), exc)
        return data
    out = icalendar.Calendar()
    for component in data.subcomponents:
        if isinstance(component, icalendar.Timezone):
            out.add_component(component)
    for occurrence in occurrences:
        out.add_component(_with_length(data, occurrence, tz))
    return out


def _uid(data: icalendar.Calendar) -> str:
    main = master(data)
    return _text(main, "UID")[:120] if main is not None else "none"


def _with_length(
    data: icalendar.Calendar, occurrence: icalendar.Component, tz: ZoneInfo
) -> icalendar.Component:
    """`occurrence` (a copy recurring_ical_events made) with the end RFC 5545 gives it.

    An override keeps its own length: its DURATION, given back (`_end` adds it at its start),
    or its DTEND, which the copy kept. An occurrence the rule makes takes the series': a
    DURATION is added at the occurrence's own start (P1D from 09:00 ends at 09:00 the next
    day, also across a clock change), and a DTEND gives the exact time from the series'
    DTSTART to its DTEND (RFC 5545 3.8.5.3: "the same exact duration will apply to all the
    members of the generated recurrence set"). An RDATE given as a period keeps its own end.
    """
    try:
        source = _source(data, occurrence, tz)
        if source is None:
            return occurrence
        duration = _duration(source)
        if duration is not None:
            occurrence.pop("DTEND", None)
            occurrence.pop("DURATION", None)
            occurrence.add("DURATION", duration)
            return occurrence
        length = _exact_length(source, tz) if "RECURRENCE-ID" not in source else None
        start = _moment(occurrence, "DTSTART")
        if length is None or start is None:
            return occurrence
        if isinstance(start, datetime) and start.tzinfo is None:
            start = start.replace(tzinfo=tz)
        ends = add_duration(start, length, exact=isinstance(start, datetime))
    except (BadEvent, ValueError, TypeError, AttributeError, OverflowError):
        return occurrence  # `to_event` says what cannot be read
    occurrence.pop("DTEND", None)
    occurrence.add("DTEND", ends)
    return occurrence


def _source(
    data: icalendar.Calendar, occurrence: icalendar.Component, tz: ZoneInfo
) -> icalendar.Component | None:
    """Where an occurrence's length comes from: its override, else the latest override before
    it that changes this and future occurrences (RANGE=THISANDFUTURE), else the series; None
    for an occurrence of an RDATE period (the period's end is its own)."""
    rid = _moment(occurrence, "RECURRENCE-ID")
    main = master(data)
    if rid is None or main is None:
        return None
    key = occurrence_key(rid, tz)
    found = _override(data, key, tz)
    if found is not None:
        return found
    if key in _period_keys(main, tz):
        return None
    when = _utc(rid, tz)
    best: tuple[datetime, icalendar.Component] | None = None
    for component in data.walk("VEVENT"):
        prop: Any = component.get("RECURRENCE-ID")
        if prop is None or str(prop.params.get("RANGE", "")).upper() != "THISANDFUTURE":
            continue
        since = _utc(_moment(component, "RECURRENCE-ID") or rid, tz)
        if since <= when and (best is None or since > best[0]):
            best = (since, component)
    return main if best is None else best[1]


def _period_keys(main: icalendar.Component, tz: ZoneInfo) -> set[str]:
    rdates: Any = main.get("RDATE", [])
    keys = set()
    for prop in rdates if isinstance(rdates, list) else [rdates]:
        for value in getattr(prop, "dts", []):
            if isinstance(value.dt, tuple):
                keys.add(occurrence_key(value.dt[0], tz))
    return keys


def _utc(value: datetime | date, tz: ZoneInfo) -> datetime:
    if not isinstance(value, datetime):
        value = datetime.combine(value, time(0), tzinfo=tz)
    elif value.tzinfo is None:
        value = value.replace(tzinfo=tz)
    return value.astimezone(UTC)


def _exact_length(main: icalendar.Component, tz: ZoneInfo) -> timedelta | None:
    """The series' DTSTART to DTEND: days for an all-day series, else real time (DTSTART and
    DTEND may be in different zones: a flight); None without a DTEND of the start's kind."""
    first, last = _moment(main, "DTSTART"), _moment(main, "DTEND")
    if first is None or last is None or isinstance(first, datetime) != isinstance(last, datetime):
        return None
    if not isinstance(first, datetime):
        return last - first
    return _utc(last, tz) - _utc(first, tz)


def _parse_key(rid: str, tz: ZoneInfo) -> datetime:
    if "T" not in rid:
        return datetime.combine(date.fromisoformat(rid), datetime.min.time(), tzinfo=tz)
    return datetime.fromisoformat(rid)


def _like(instant: datetime | date, model: datetime | date) -> datetime | date:
    """`instant` written the way `model` (the series' DTSTART) is: same zone, or floating, or
    a date, so a RECURRENCE-ID or EXDATE matches what the series generates."""
    if not isinstance(model, datetime):
        return instant.date() if isinstance(instant, datetime) else instant
    if not isinstance(instant, datetime):
        return datetime.combine(instant, model.time(), tzinfo=model.tzinfo)
    if model.tzinfo is None:
        return instant.replace(tzinfo=None)
    return instant.astimezone(model.tzinfo)


def _kept_zone(model: icalendar.Component, value: datetime | date) -> datetime | date:
    """A moved time written in the zone the event was set in (an invite from New York stays in
    New York time, as a calendar app keeps it), not turned into the owner's: the question
    names that zone. A floating or all-day event's times are written as they come."""
    was = _dt(model, "DTSTART")
    if (
        isinstance(value, datetime)
        and value.tzinfo is not None
        and isinstance(was, datetime)
        and was.tzinfo is not None
    ):
        return value.astimezone(was.tzinfo)
    return value


def _set_times(
    component: icalendar.Component,
    start: datetime | date,
    end: datetime | date | None,
) -> None:
    for name in ("DTSTART", "DTEND", "DURATION"):
        component.pop(name, None)
    component.add("DTSTART", _unambiguous(start))
    if end is not None:
        component.add("DTEND", _unambiguous(end))


def _unambiguous(value: datetime | date) -> datetime | date:
    """A time in the hour that happens twice, meant the second time (fold=1), in UTC: written
    with its TZID it would be read as the first (RFC 5545, 3.3.5), an hour early."""
    if not isinstance(value, datetime) or value.tzinfo is None or value.fold == 0:
        return value
    twice = value.replace(fold=0).utcoffset() != value.utcoffset()
    return value.astimezone(UTC) if twice else value


def _touch(component: icalendar.Component, now: datetime) -> None:
    """A changed component gets a new DTSTAMP and LAST-MODIFIED, and SEQUENCE + 1 if it had one
    (RFC 5546: other copies of an invite then know this version is newer)."""
    stamp = now.astimezone(UTC).replace(microsecond=0)
    for name in ("DTSTAMP", "LAST-MODIFIED"):
        component.pop(name, None)
        component.add(name, stamp)
    if "SEQUENCE" in component:
        sequence = int(component.pop("SEQUENCE"))
        component.add("SEQUENCE", sequence + 1)


def move(
    ical: icalendar.Calendar,
    rid: str | None,
    start: datetime | date,
    end: datetime | date | None,
    tz: ZoneInfo,
    now: datetime,
) -> None:
    """Give the event (or only occurrence `rid` of a series) a new start and end, in place."""
    main = master(ical)
    if main is None:
        raise ValueError("the calendar data holds no event")
    if rid is None:
        start, end = _kept_zone(main, start), end and _kept_zone(main, end)
        _set_times(main, start, end)
        _touch(main, now)
        ical.add_missing_timezones()  # the new times may be in another zone than the old
        return
    component = _override(ical, rid, tz)
    if component is None:
        component = icalendar.Event()
        for name, value in main.items():
            if name not in _SERIES_ONLY and name not in _TIMES:
                component.add(name, value)
        component.add("RECURRENCE-ID", _like(_parse_key(rid, tz), _dt(main, "DTSTART")))
        ical.add_component(component)
    start, end = _kept_zone(main, start), end and _kept_zone(main, end)
    _set_times(component, start, end)
    _touch(component, now)
    ical.add_missing_timezones()


def delete_occurrence(ical: icalendar.Calendar, rid: str, tz: ZoneInfo, now: datetime) -> None:
    """Leave occurrence `rid` out of its series (EXDATE) and drop any override of it."""
    main = master(ical)
    if main is None:
        raise ValueError("the calendar data holds no event")
    found = _override(ical, rid, tz)
    if found is not None:
        ical.subcomponents.remove(found)
    main.add("EXDATE", _like(_parse_key(rid, tz), _dt(main, "DTSTART")))
    _touch(main, now)


def new_event(
    *,
    uid: str,
    title: str,
    start: datetime | date,
    end: datetime | date | None,
    now: datetime,
) -> icalendar.Calendar:
    """A calendar holding one new event (with the VTIMEZONE its times need)."""
    ical = icalendar.Calendar()
    ical.add("PRODID", PRODID)
    ical.add("VERSION", "2.0")
    event = icalendar.Event()
    event.add("UID", uid)
    event.add("SUMMARY", clean_title(title))
    _set_times(event, start, end)
    _touch(event, now)
    ical.add_component(event)
    ical.add_missing_timezones()
    return ical


def clean_title(title: str) -> str:
    """One line, no control characters, at most MAX_TITLE characters: for a title read and
    for a title written."""
    printable = "".join(" " if unicodedata.category(c) == "Cc" else c for c in title)
    return " ".join(printable.split())[:MAX_TITLE]


def stable_uid(title: str, start: datetime | date, calendar: str, attempt: int = 0) -> str:
    """The same request always makes the same UID: a second PUT of it cannot make a second
    event (If-None-Match: * refuses it), whatever the search before it saw. `attempt` > 0: the
    request's next UID, for when its first one is taken by an event added so once and changed
    since (the sequence is the same on every try, so a retried Yes still finds its own)."""
    key = f"{clean_title(title).casefold()}|{occurrence_key(start, ZoneInfo('UTC'))}|{calendar}"
    uid = f"commonplace-{hashlib.sha256(key.encode()).hexdigest()[:24]}"
    return uid if attempt == 0 else f"{uid}-{attempt + 1}"


def split_by_uid(text: str | bytes) -> list[str]:
    """One .ics file (a whole calendar) as one resource per UID, each with the timezones it
    uses: CalDAV stores one UID per resource. For loading fixtures and importing."""
    source = icalendar.Calendar.from_ical(text)
    timezones = [c for c in source.subcomponents if isinstance(c, icalendar.Timezone)]
    groups: dict[str, list[icalendar.Component]] = {}
    for component in source.subcomponents:
        if isinstance(component, icalendar.Timezone):
            continue
        groups.setdefault(str(component.get("UID", "")), []).append(component)
    out = []
    for components in groups.values():
        ical = icalendar.Calendar()
        ical.add("PRODID", str(source.get("PRODID", PRODID)))
        ical.add("VERSION", "2.0")
        used = _tzids(components)
        for tz_component in timezones:
            if str(tz_component.get("TZID")) in used:
                ical.add_component(tz_component)
        for component in components:
            ical.add_component(component)
        out.append(ical.to_ical().decode("utf-8"))
    return out


def _tzids(components: Iterable[icalendar.Component]) -> set[str]:
    found: set[str] = set()
    for component in components:
        for value in component.property_items():
            params = getattr(value[1], "params", None)
            if params and "TZID" in params:
                found.add(str(params["TZID"]))
    return found
