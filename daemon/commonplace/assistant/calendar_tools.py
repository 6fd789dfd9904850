"""The calendar for the assistant: two tools that read, three that propose, and the actions the
gate runs after the owner's Yes.

The model names events by words from their title and, where it helps, the day they are on now;
it never sees an href, a UID or an ETag. A changing tool finds the one real event, reads it again
from the server, and hands the gate a proposal that pins it (where it is, which occurrence, its
ETag, and the title and time the question names). At Yes the action reads it again: another
ETag means someone changed it (on the phone, in another app), so nothing runs and the owner is
told what changed. The write itself carries If-Match with the ETag read at Yes.

Without a calendar set up, every tool answers that it is not set up, so the model can say so.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC, date, datetime, time, timedelta
from typing import Any
from zoneinfo import ZoneInfo

from commonplace.assistant.actions import Described, Propose, Stale, ToolError, Unconfirmed
from commonplace.assistant.days import PassSaid
from commonplace.assistant.registry import Param, Tool, ToolContext
from commonplace.basics.dates import (
    clock,
    clock_exact,
    day_for_model,
    day_name_near,
    day_name_year,
    happens_twice,
)
from commonplace.calendar import (
    NOT_SET_UP,
    CalendarClient,
    CalendarError,
    ChangeUnconfirmed,
    Event,
    EventChanged,
    EventList,
    unreadable_note,
)
from commonplace.calendar.duration import add_duration
from commonplace.calendar.find import title_in
from commonplace.calendar.ical import clean_title
from commonplace.calendar.instants import later
from commonplace.calendar.text import event_line, last_day, listing

MAX_DAYS = 14  # the longest window one read covers
MAX_AHEAD = timedelta(days=366)  # how far ahead an event may be added or moved
MAX_AWAY = timedelta(days=3660)  # how far from today a read may look (ten years)
MAX_LISTED = 5  # events named when the words match several


# -- pinning an event in a proposal, and telling what changed -----------------------------------


def _iso(value: datetime | date | None) -> str | None:
    return None if value is None else value.isoformat()


def _value(text: Any, tz: ZoneInfo) -> datetime | date | None:
    """A pinned time read back, on the owner's clock in their zone (an ISO string carries only
    an offset, which is no zone: written to the calendar, it would make a bogus TZID)."""
    if text is None:
        return None
    if "T" not in str(text):
        return date.fromisoformat(str(text))
    moment = datetime.fromisoformat(str(text))
    return moment.astimezone(tz) if moment.tzinfo is not None else moment.replace(tzinfo=tz)


def pin(event: Event) -> dict[str, Any]:
    """What a proposal keeps of its event: where it is, which version, what the owner saw."""
    return {
        "href": event.href,
        "recurrence_id": event.recurrence_id,
        "etag": event.etag,
        "title": event.title,
        "start": _iso(event.start),
        "all_day": event.all_day,
        "recurring": event.recurring,
    }


def when(start: datetime | date, today: date) -> str:
    """'Thursday 29 October at 16:00', 'Friday 30 October (all day)'; the year when it is not
    this year's; which pass, and the zone, in the hour the clocks go back ('at 01:30 (the
    second, GMT)')."""
    if not isinstance(start, datetime):
        return f"{day_name_near(start, today)} (all day)"
    return f"{day_name_near(start.date(), today)} at {clock_exact(start)}"


def when_all(start: datetime | date, end: datetime | date | None, today: date) -> str:
    """`when`, and for an all-day event over several days its last day too ('Saturday 31
    October (all day, until Sunday 1 November)'): a question that named only the first day hid
    what a Yes would move or delete."""
    if isinstance(start, datetime) or not isinstance(end, date) or isinstance(end, datetime):
        return when(start, today)
    last = end - timedelta(days=1)
    if last <= start:
        return when(start, today)
    return f"{day_name_near(start, today)} (all day, until {day_name_near(last, today)})"


def span_words(start: datetime | date, end: datetime | date | None, today: date) -> str:
    """For a new event: 'Saturday 7 November from 10:00 to 11:00', 'Saturday 7 November from
    23:00 to Sunday 8 November at 02:00' (an end on another day says its day), '... (all day)'."""
    if isinstance(start, datetime) and isinstance(end, datetime):
        until = clock_exact(end)
        if end.date() != start.date():
            until = f"{day_name_near(end.date(), today)} at {until}"
        return f"{day_name_near(start.date(), today)} from {clock_exact(start)} to {until}"
    return when(start, today)


# -- times on the owner's clock: DST ----------------------------------------------------------


def on_the_clock(day: date, at: time, tz: ZoneInfo) -> datetime:
    """`at` on `day` in the owner's zone; ToolError when the clocks skip it that night (never
    shifted to an hour nobody asked for). In the hour that happens twice when they go back,
    `at.fold` says which: 0 the first (as RFC 5545 reads a local time), 1 the second; the
    question names it ('01:30 (the second, GMT)'), so the owner sees which."""
    moment = datetime.combine(day, at, tzinfo=tz)  # keeps at.fold
    if moment.astimezone(UTC).astimezone(tz).replace(tzinfo=None) != moment.replace(tzinfo=None):
        raise ToolError(
            f"{clock(at)} does not exist on {day_name_year(day)}: the clocks go forward that "
            "night. Ask the owner for another time."
        )
    return moment if happens_twice(moment) else moment.replace(fold=0)


def real_length(start: datetime, end: datetime) -> timedelta:
    return end.astimezone(UTC) - start.astimezone(UTC)


def what_changed(
    params: Mapping[str, Any], now_event: Event | None, today: date, tz: ZoneInfo
) -> str:
    title = str(params["title"])
    start = _value(params["start"], tz)
    was = when(start, today) if start is not None else "its time"
    if now_event is None:
        return f'"{title}" on {was} is no longer on the calendar.'
    if now_event.title != title:
        return f'"{title}" on {was} was renamed "{now_event.title}" on the calendar meanwhile.'
    if not _same_moment(now_event.start, start):
        return f'"{title}" was moved to {when(now_event.start, today)} on the calendar meanwhile.'
    if params.get("recurring"):  # one ETag for the whole series: another occurrence, maybe
        return (
            f'"{title}" repeats, and its series was changed on the calendar meanwhile (this '
            f"occurrence is still on {was})."
        )
    return f'"{title}" on {was} was changed on the calendar meanwhile.'


def _same_moment(a: datetime | date | None, b: datetime | date | None) -> bool:
    """Equal as instants (within one zone `==` compares the clock, and so cannot tell 01:30 BST
    from 01:30 GMT)."""
    if isinstance(a, datetime) and isinstance(b, datetime):
        return a.astimezone(UTC) == b.astimezone(UTC)
    return type(a) is type(b) and a == b


def unconfirmed(exc: ChangeUnconfirmed, fact: str, on: datetime | date) -> Unconfirmed:
    """A change that reached the server with no answer saying what became of it: the owner is
    told it may have been made, and how to look (the gate must not say "Nothing was changed",
    which may be false). One that never reached it is a CalendarUnavailable, and then
    "Nothing was changed" is what the owner reads, because it is true."""
    day = on.date() if isinstance(on, datetime) else on
    return Unconfirmed(
        f"{exc} Check whether {fact} (`commonplace calendar --date {day.isoformat()}`, or your "
        "calendar app) before asking again."
    )


def own_zone(event: Event, moments: list[datetime | date | None], tz: ZoneInfo, today: date) -> str:
    """When the event is set in another zone than the owner's (an invite from New York), the
    question's times, which are on the owner's clock, say so, and what they are in the event's
    zone, where its calendar app may show it: ' (times in Europe/London; in America/New_York,
    the event's own zone: Thursday 29 October at 12:00)'. '' when the zones keep the same
    clock at those times, or for an all-day event."""
    timed = [m for m in moments if isinstance(m, datetime)]
    if not event.zone or event.zone == tz.key or not timed:
        return ""
    other = ZoneInfo(event.zone)
    there = [m.astimezone(other) for m in timed]
    if all(
        t.replace(tzinfo=None) == m.replace(tzinfo=None) for t, m in zip(there, timed, strict=True)
    ):
        return ""
    said = " and ".join(when(t, today) for t in there)
    return f" (times in {tz.key}; in {event.zone}, the event's own zone: {said})"


def in_calendar(event: Event) -> str:
    """Which calendar: an invite is often in two (Work and Personal, one UID), and a Yes
    changes only the copy the question was written from."""
    return f' (calendar "{event.calendar}")'


def occurrence_note(params: Mapping[str, Any]) -> str:
    return " (this occurrence only)" if params.get("recurring") else ""


# -- finding the one event the owner means ------------------------------------------------------


async def find_one(
    calendar: CalendarClient, words: str, on_day: date | None, now: datetime, owner: str = ""
) -> Event:
    """The event the words name (on `on_day`, else in the coming two weeks), read again now.

    Several occurrences of one repeating event: the next is meant ("move my 1:1 to 14:00"),
    the first that is not over yet (on a Monday evening, "cancel the standup" is next week's,
    not this morning's); several different events: the model is asked for more words or the
    day, with the candidates. Words that no title holds are read the other way round, as
    words that hold a title (`title_in`), then the owner's own message (`owner`) is; and
    nothing on the day given is looked for in the coming two weeks.
    """
    today = now.date()
    first, days = (on_day, 1) if on_day is not None else (today, MAX_DAYS)
    hits = await calendar.find(words, first, days)
    if not hits:
        around = await calendar.events_on(first, days)
        named = [e for e in around if title_in(words, e.title)]
        named = named or [e for e in around if owner and title_in(owner, e.title)]
        hits = EventList(named, around.unreadable)
    if not hits and on_day is not None:
        return await find_one(calendar, words, None, now, owner)
    last = first + timedelta(days=days - 1)
    window = (
        f"on {day_for_model(first, today)}"
        if days == 1
        else f"from {day_for_model(first, today)} to {day_for_model(last, today)}"
    )
    if not hits:
        raise ToolError(
            f"no event with {words!r} in its title {window}. Call find_events with other words "
            "or more days."
        )
    if len({e.uid for e in hits}) > 1:
        shown = "; ".join(f'"{e.title}" on {when(e.start, today)}' for e in hits[:MAX_LISTED])
        raise ToolError(
            f"several events match {words!r} {window}: {shown}. Call again with more words "
            "from the title, or with on_day."
        )
    chosen = next((e for e in hits if not _over(e, now)), hits[0])
    fresh = await calendar.get(chosen.href, chosen.recurrence_id)
    if fresh is None:
        raise ToolError(f"{chosen.title!r} just disappeared from the calendar; look again")
    return fresh


def _over(event: Event, now: datetime) -> bool:
    """The event has ended (one without an end: has begun); an all-day event on its last day."""
    if not isinstance(event.start, datetime):
        return last_day(event) < now.date()
    end = event.end if isinstance(event.end, datetime) else event.start
    return end.astimezone(UTC) <= now.astimezone(UTC)


def _calendar_error(exc: CalendarError) -> ToolError:
    return ToolError(str(exc))


def near(day: date | None, today: date, name: str) -> None:
    """A day to read must be within ten years of today (a model's '9999-12-31' is a mistake,
    and would overflow the date arithmetic)."""
    if day is not None and not today - MAX_AWAY <= day <= today + MAX_AWAY:
        raise ToolError(f"'{name}' {day.isoformat()} must be within ten years of today")


# -- the tools ----------------------------------------------------------------------------------


def calendar_tools(calendar: CalendarClient) -> list[Tool]:
    zone = calendar.tz.key

    def window(args: dict[str, Any], ctx: ToolContext, default_days: int) -> tuple[date, int]:
        first: date = args["day"] or ctx.today
        near(first, ctx.today, "day")
        days: int = args["days"] if args["days"] is not None else default_days
        if not 1 <= days <= MAX_DAYS:
            raise ToolError(f"'days' must be 1 to {MAX_DAYS}")
        return first, days

    async def list_events(ctx: ToolContext, args: dict[str, Any]) -> str:
        if not calendar.configured:
            return NOT_SET_UP
        first, days = window(args, ctx, 1)
        try:
            events = await calendar.events_on(first, days)
        except CalendarError as exc:
            raise _calendar_error(exc) from None
        return listing(events, first, days, zone, unreadable=events.unreadable)

    async def find_events(ctx: ToolContext, args: dict[str, Any]) -> str:
        if not calendar.configured:
            return NOT_SET_UP
        first, days = window(args, ctx, MAX_DAYS)
        words = str(args["words"])
        try:
            hits = await calendar.find(words, first, days)
        except CalendarError as exc:
            raise _calendar_error(exc) from None
        last = first + timedelta(days=days - 1)
        span = f"from {day_for_model(first, ctx.today)} to {day_for_model(last, ctx.today)}"
        lines = [f"Events with {words!r} in their title {span} (times in {zone}):"]
        if not hits:
            lines = [f"No event with {words!r} in its title {span}. Times are in {zone}."]
        for event in hits:
            lines.append(f"{day_for_model(event.day, ctx.today)}:")
            lines.append(event_line(event, notes=True))
        if hits.unreadable:
            lines.append(unreadable_note(hits.unreadable))
        return "\n".join(lines)

    async def add_event(ctx: ToolContext, args: dict[str, Any]) -> str | Propose:
        if not calendar.configured:
            return NOT_SET_UP
        title = clean_title(str(args["title"]))
        if not title:
            raise ToolError("the event needs a title")
        day: date = args["day"]
        if not ctx.today <= day <= ctx.today + MAX_AHEAD:
            raise ToolError(f"{day.isoformat()} must be between today and a year from now")
        at: time | None = args["start_time"]
        start: datetime | date
        end: datetime | date | None
        if at is None:
            start, end = day, day + timedelta(days=1)
        else:
            minutes: int = args["minutes"]
            if not 1 <= minutes <= 24 * 60:
                raise ToolError("'minutes' must be 1 to 1440")
            start = on_the_clock(day, at, calendar.tz)
            end = later(start, timedelta(minutes=minutes), calendar.tz)
        return Propose(
            "add_event",
            {"title": title, "start": _iso(start), "end": _iso(end), "all_day": at is None},
        )

    async def move_event(ctx: ToolContext, args: dict[str, Any]) -> str | Propose:
        if not calendar.configured:
            return NOT_SET_UP
        new_day: date | None = args["new_day"]
        new_time: time | None = args["new_time"]
        if new_day is None and new_time is None:
            raise ToolError("say the new day (new_day), the new time (new_time), or both")
        if new_day is not None and not ctx.today <= new_day <= ctx.today + MAX_AHEAD:
            raise ToolError(f"{new_day.isoformat()} must be between today and a year from now")
        near(args["on_day"], ctx.today, "on_day")
        try:
            event = await find_one(calendar, str(args["event"]), args["on_day"], ctx.now, ctx.words)
        except CalendarError as exc:
            raise _calendar_error(exc) from None
        start, end = moved_times(event, new_day, new_time, calendar)
        start_day = start.date() if isinstance(start, datetime) else start
        if start_day < ctx.today or (
            isinstance(start, datetime) and start.astimezone(UTC) < ctx.now.astimezone(UTC)
        ):
            raise ToolError("the new time is in the past")
        if start_day > ctx.today + MAX_AHEAD:  # an event found far ahead, given a new time
            raise ToolError(f"{start_day.isoformat()} must be between today and a year from now")
        if _same_moment(start, event.start):
            raise ToolError(f'"{event.title}" is already on {when(event.start, ctx.today)}')
        return Propose("move_event", {**pin(event), "new_start": _iso(start), "new_end": _iso(end)})

    async def delete_event(ctx: ToolContext, args: dict[str, Any]) -> str | Propose:
        if not calendar.configured:
            return NOT_SET_UP
        near(args["on_day"], ctx.today, "on_day")
        try:
            event = await find_one(calendar, str(args["event"]), args["on_day"], ctx.now, ctx.words)
        except CalendarError as exc:
            raise _calendar_error(exc) from None
        return Propose("delete_event", pin(event))

    which = Param("event", "string", "words from the event's title")
    on_day = Param(
        "on_day", "date", "the day the event is on now, if the owner said", None, said="on_day"
    )
    return [
        Tool(
            "list_events",
            "Call when the owner asks what is on, about their plans, or whether they are free, "
            "on a day or some days.",
            (
                Param("day", "date", "the first day", None, said="day"),
                Param("days", "integer", f"how many days, 1 to {MAX_DAYS}", None, said="days"),
            ),
            list_events,
            looks_at="calendar",
            searches_ahead=True,
            status="Looking at your calendar…",
        ),
        Tool(
            "find_events",
            "Call when the owner asks when an event is (their next dentist appointment, say): "
            "finds it by words from its title, two weeks ahead unless told.",
            (
                Param("words", "string", "words from the event's title"),
                Param("day", "date", "the first day to look at", None, said="day?"),
                Param(
                    "days",
                    "integer",
                    f"how many days to look at, 1 to {MAX_DAYS}",
                    None,
                    said="days",
                ),
            ),
            find_events,
            looks_at="calendar",
            searches_ahead=True,
            status="Looking for it in your calendar…",
        ),
        Tool(
            "add_event",
            "Call when the owner asks to add or book something on the calendar (the owner is "
            "asked to confirm).",
            (
                Param("title", "string", "what the event is, in the owner's words"),
                Param("day", "date", "the day", said="day"),
                Param(
                    "start_time", "time", "the start time; leave out for all day", None, said="time"
                ),
                Param("minutes", "minutes", "how long it lasts", 60, said="minutes"),
            ),
            add_event,
            looks_at="calendar",
            changes=True,
        ),
        Tool(
            "move_event",
            "Call when the owner asks to move, reschedule or postpone an event (the owner is "
            "asked to confirm).",
            (
                which,
                Param("new_day", "date", "the new day, if it changes", None, said="new_day"),
                Param(
                    "new_time", "time", "the new start time, if it changes", None, said="new_time"
                ),
                on_day,
            ),
            move_event,
            looks_at="calendar",
            changes=True,
        ),
        Tool(
            "delete_event",
            "Call when the owner asks to cancel or delete an event (the owner is asked to "
            "confirm).",
            (which, on_day),
            delete_event,
            looks_at="calendar",
            changes=True,
        ),
    ]


def moved_times(
    event: Event, new_day: date | None, new_time: time | None, calendar: CalendarClient
) -> tuple[datetime | date, datetime | date | None]:
    """The new start and end, on the new day and/or at the new time, the event as long as
    before: a DTEND's length is real time (also across a clock change); a DURATION is added
    again at the new start (RFC 5545 3.3.6: its days on the clock of the event's zone, the rest
    real time), so an event of P1D still ends at its start's time the next day."""
    if event.all_day or not isinstance(event.start, datetime):
        if new_time is not None:
            raise ToolError(f'"{event.title}" is an all-day event: give only new_day')
        assert new_day is not None
        first = event.start if not isinstance(event.start, datetime) else event.start.date()
        days = (event.end - first) if isinstance(event.end, date) else timedelta(days=1)
        return new_day, add_duration(new_day, max(days, timedelta(days=1)))
    day = new_day or event.start.date()
    at = new_time or event.start.time()  # the event's own time keeps its fold
    keeps_pass = day == event.start.date() and _second_pass(event.start)
    if new_time is not None and keeps_pass and not isinstance(new_time, PassSaid):
        at = time(new_time.hour, new_time.minute, fold=1)  # its pass, unless one was said
    start = on_the_clock(day, at, calendar.tz)
    if not isinstance(event.end, datetime):
        return start, None
    if event.duration is not None:  # given by DURATION: its days stay on the event's clock
        zone = ZoneInfo(event.zone) if event.zone else calendar.tz
        return start, add_duration(start.astimezone(zone), event.duration).astimezone(calendar.tz)
    return start, later(start, real_length(event.start, event.end), calendar.tz)


def _second_pass(moment: datetime) -> bool:
    """In the second pass of the hour that happens twice (01:30 GMT, after 01:30 BST)."""
    return bool(moment.fold) and happens_twice(moment)


# -- the actions (run only by the gate, after Yes) ----------------------------------------------


@dataclass
class _EventAction:
    calendar: CalendarClient

    async def current(self, params: Mapping[str, Any], now: datetime) -> Event:
        """The pinned event as it is now; Stale if it is gone or is not the version asked about."""
        if not self.calendar.configured:
            raise ToolError(NOT_SET_UP)
        try:
            event = await self.calendar.get(str(params["href"]), params.get("recurrence_id"))
        except CalendarError as exc:
            raise ToolError(str(exc)) from None
        if event is None or event.etag != params.get("etag"):
            raise Stale(what_changed(params, event, now.date(), self.calendar.tz))
        return event


@dataclass
class MoveEvent(_EventAction):
    kind: str = "move_event"

    def _target(self, params: Mapping[str, Any]) -> tuple[datetime | date, datetime | date | None]:
        start = _value(params["new_start"], self.calendar.tz)
        if start is None:
            raise ToolError("the new time is missing")
        return start, _value(params.get("new_end"), self.calendar.tz)

    async def describe(self, params: Mapping[str, Any], now: datetime) -> Described:
        event = await self.current(params, now)
        start, end = self._target(params)
        today = now.date()
        question = (
            f'Move "{event.title}"{in_calendar(event)} from '
            f"{when_all(event.start, event.end, today)} to {when_all(start, end, today)}"
            f"{occurrence_note(params)}"
            f"{own_zone(event, [event.start, start], self.calendar.tz, today)}?"
        )
        return Described(question, event)

    async def run(self, params: Mapping[str, Any], seen: Described, now: datetime) -> str:
        event: Event = seen.token
        start, end = self._target(params)
        try:
            await self.calendar.move(event, start, end)
        except EventChanged as exc:
            raise Stale(what_changed(params, exc.current, now.date(), self.calendar.tz)) from None
        except ChangeUnconfirmed as exc:
            raise unconfirmed(
                exc, f'"{event.title}" is on {when(start, now.date())}', start
            ) from None
        except CalendarError as exc:
            raise ToolError(str(exc)) from None
        return (
            f'Moved "{event.title}"{in_calendar(event)} to {when_all(start, end, now.date())}'
            f"{occurrence_note(params)}"
            f"{own_zone(event, [start], self.calendar.tz, now.date())}."
        )


@dataclass
class DeleteEvent(_EventAction):
    kind: str = "delete_event"

    async def describe(self, params: Mapping[str, Any], now: datetime) -> Described:
        event = await self.current(params, now)
        question = (
            f'Delete "{event.title}"{in_calendar(event)} on '
            f"{when_all(event.start, event.end, now.date())}"
            f"{occurrence_note(params)}"
            f"{own_zone(event, [event.start], self.calendar.tz, now.date())}?"
        )
        return Described(question, event)

    async def run(self, params: Mapping[str, Any], seen: Described, now: datetime) -> str:
        event: Event = seen.token
        try:
            await self.calendar.delete(event)
        except EventChanged as exc:
            raise Stale(what_changed(params, exc.current, now.date(), self.calendar.tz)) from None
        except ChangeUnconfirmed as exc:
            raise unconfirmed(
                exc, f'"{event.title}" is still on {when(event.start, now.date())}', event.start
            ) from None
        except CalendarError as exc:
            raise ToolError(str(exc)) from None
        return (
            f'Deleted "{event.title}"{in_calendar(event)} on '
            f"{when_all(event.start, event.end, now.date())}"
            f"{occurrence_note(params)}."
        )


@dataclass
class AddEvent:
    calendar: CalendarClient
    kind: str = "add_event"

    def _event(
        self, params: Mapping[str, Any]
    ) -> tuple[str, datetime | date, datetime | date | None]:
        start = _value(params["start"], self.calendar.tz)
        if start is None:
            raise ToolError("the start is missing")
        return str(params["title"]), start, _value(params.get("end"), self.calendar.tz)

    async def describe(self, params: Mapping[str, Any], now: datetime) -> Described:
        if not self.calendar.configured:
            raise ToolError(NOT_SET_UP)
        title, start, end = self._event(params)
        try:
            existing = await self.calendar.identical(title, start)
            name = await self.calendar.write_calendar_name()
        except CalendarError as exc:
            raise ToolError(str(exc)) from None
        if existing is not None:
            raise Stale(f'"{title}" on {when(start, now.date())} is already on the calendar.')
        question = (
            f'Add "{title}" on {span_words(start, end, now.date())} to the calendar "{name}"?'
        )
        return Described(question)

    async def run(self, params: Mapping[str, Any], seen: Described, now: datetime) -> str:
        title, start, end = self._event(params)
        try:
            event, created = await self.calendar.add(title, start, end)
        except EventChanged as exc:
            raise Stale(str(exc)) from None
        except ChangeUnconfirmed as exc:
            raise unconfirmed(exc, f'"{title}" is on {when(start, now.date())}', start) from None
        except CalendarError as exc:
            raise ToolError(str(exc)) from None
        if not created:
            raise Stale(f'"{title}" on {when(start, now.date())} is already on the calendar.')
        return (
            f'Added "{event.title}" on {span_words(start, end, now.date())} to the calendar '
            f'"{event.calendar}".'
        )


def calendar_actions(calendar: CalendarClient) -> list[Any]:
    return [AddEvent(calendar), MoveEvent(calendar), DeleteEvent(calendar)]
