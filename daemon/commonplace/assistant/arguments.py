"""A tool's day, time and length arguments, set from the owner's own words (said.py).

Each such argument says in its `Param.said` what it is; the model's value is kept only where
the owner's message says nothing the program can read for it:

- `day`: the day a read or a new event is about ("on Thursday", "tomorrow", "this week");
  `days` goes with it (a span said: its days; a day said: 1).
- `day?`: the same, but a day the owner did not say is left out rather than taken from the
  model (a search's first day: the model's guess would hide what comes before it).
- `due`: a due date only from the owner's words; none said, none kept ("buy bin bags"). Words
  that look like a day but that no rule reads ("next Thursday") keep the model's: the question
  shows the date, and the owner says No to a wrong one.
- `within`: "what's due this week": the days from today to the end of what was said.
- `time`: the time said ("at 2 pm").
- `minutes`: the length said ("for 30 minutes", ", 3 hours"); none said, the model's if it is
  a length an event may have (15 minutes to 12 hours), else the tool's default (a model asked
  for a length nobody gave sent 0, then 1: an event from 09:00 to 09:01).
- `on_day`: the day an event is on now, where a change finds it ("Saturday's haircut"); in a
  span said ("this week"), the model's day only if it is in it; a day of the model's that is
  no date at all ("Monday 27 October", a Tuesday) is left out, as the event is found without.
- `new_day`, `new_time`: a move. What follows its last "to" is the new day and time,
  what comes before names the event ("move Thursday's dentist to Friday at 10"). A new time
  said with no new day keeps the event's day ("push my 1:1 to 4 pm"), and a new day with no
  time keeps its time.

A bigger model that read the words right gets the same values, so it loses nothing; the
question the program writes names the real day and time either way.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import date, datetime, time, timedelta
from typing import Any

from commonplace.assistant.days import DateWordsError, parse_day, parse_time
from commonplace.assistant.said import DaySaid, Said, TimeSaid, read, target_split, targets

MIN_GUESSED, MAX_GUESSED = 15, 12 * 60  # minutes a length nobody said may be
ROLES = ("day", "day?", "days", "due", "within", "time", "minutes", "new_day", "new_time", "on_day")


def from_words(
    roles: Mapping[str, str], raw: Mapping[str, Any], said: Said, today: date
) -> tuple[dict[str, Any], list[str]]:
    """The arguments with every day, time and length the owner said put in, and the names of
    those the program set to something other than what the model sent. `roles`: role ->
    argument name, for the tool's arguments that have one (`Tool.roles`)."""
    if not roles:
        return dict(raw), []
    values = _values(roles, raw, said, today)
    args = dict(raw)
    changed = []
    for name, value in values.items():
        if _same(raw.get(name), value, today):
            continue
        changed.append(name)
        if value is None:
            args.pop(name, None)
        else:
            args[name] = value
    return args, changed


def _values(
    roles: Mapping[str, str], raw: Mapping[str, Any], said: Said, today: date
) -> dict[str, Any]:
    """Argument name -> the value the owner's words give it (None: leave it out); arguments
    the words say nothing about are not in the result."""
    out: dict[str, Any] = {}
    if "new_day" in roles or "new_time" in roles:
        moved = _move(roles, raw, said, today)
        if (
            "on_day" in roles
            and roles["on_day"] not in moved
            and _unreadable(raw.get(roles["on_day"]), today)
        ):
            moved[roles["on_day"]] = None
        return moved
    one = said.one_day
    for role in ("day", "day?"):
        if role not in roles:
            continue
        if one is not None and (one.days == 1 or "days" in roles):
            out[roles[role]] = one.first.isoformat()
            if "days" in roles:
                out[roles["days"]] = one.days
        elif role == "day?" and not said.days and not said.vague:
            out[roles[role]] = None
    if "due" in roles:
        if one is not None and one.days == 1:
            out[roles["due"]] = one.first.isoformat()
        elif not said.days and not said.vague:
            out[roles["due"]] = None
    if "within" in roles and one is not None:
        out[roles["within"]] = max((one.first - today).days + one.days - 1, 0)
    if "on_day" in roles and one is not None:
        out[roles["on_day"]] = _on_day(one, raw.get(roles["on_day"]), today)
    elif "on_day" in roles and _unreadable(raw.get(roles["on_day"]), today):
        out[roles["on_day"]] = None  # only a hint where to look: the event is found without it
    if "time" in roles and said.one_time is not None:
        out[roles["time"]] = _time_value(said.one_time, raw.get(roles["time"]))
    if "minutes" in roles:
        out[roles["minutes"]] = said.minutes or _plausible(raw.get(roles["minutes"]))
    return out


def _move(
    roles: Mapping[str, str], raw: Mapping[str, Any], said: Said, today: date
) -> dict[str, Any]:
    out: dict[str, Any] = {}
    split = target_split(said.text, said)
    if split is None or targets(said.text) > 1:
        return out  # no "to", or two moves in one message: which day is which is the model's
    event, target = said.part(0, split), said.part(split, len(said.text))
    new_day: DaySaid | None = target.one_day
    new_time: TimeSaid | None = target.one_time
    if len(target.days) > 1 or len(target.times) > 1 or (target.vague and new_day is None):
        return out  # "to Friday or Saturday", "to next Thursday": the model's reading stands
    if "new_day" in roles and (new_day is None or new_day.days == 1):
        out[roles["new_day"]] = new_day.first.isoformat() if new_day is not None else None
    if "new_time" in roles and (new_day is not None or new_time is not None):
        out[roles["new_time"]] = (
            _time_value(new_time, raw.get(roles["new_time"])) if new_time is not None else None
        )
    where = event.one_day
    if "on_day" in roles and where is not None:
        out[roles["on_day"]] = _on_day(where, raw.get(roles["on_day"]), today)
    return out


def _unreadable(value: Any, today: date) -> bool:
    """A day the model sent that no reading makes a date ("Monday 27 October": the 27th is a
    Tuesday)."""
    if value is None or not str(value).strip():
        return False
    try:
        parse_day(str(value), today)
    except DateWordsError:
        found = read(str(value), datetime.combine(today, time(12)))
        return not (found.one_day is not None and found.one_day.days == 1 and not found.vague)
    return False


def _on_day(said: DaySaid, model: Any, today: date) -> str | None:
    """The day an event is on: the one said; in a span said ("this week"), the model's day if
    it is in it, else none (the next one the words find)."""
    if said.days == 1:
        return said.first.isoformat()
    try:
        day = parse_day(str(model), today) if model else None
    except DateWordsError:
        day = None
    inside = day is not None and said.first <= day < said.first + timedelta(days=said.days)
    return day.isoformat() if inside and day is not None else None


def _plausible(minutes: Any) -> int | None:
    """A length the owner did not say: the model's, when it is one an event may last (a
    haircut of 45 minutes); else none, and the tool's hour (not a call of 1 minute)."""
    try:
        value = int(minutes)
    except (TypeError, ValueError):
        return None
    return value if MIN_GUESSED <= value <= MAX_GUESSED else None


def _time_value(said: TimeSaid, model: Any) -> str:
    """The time said; of its two readings when no am/pm was said ("at 4"), the model's if it
    chose one of them."""
    if said.other is not None and _as_time(model) == said.other:
        return said.other.strftime("%H:%M")
    return said.at.strftime("%H:%M")


def _as_time(value: Any) -> time | None:
    try:
        return parse_time(str(value))
    except DateWordsError:
        return None


def _same(model: Any, value: Any, today: date) -> bool:
    """The model sent the same thing, in any spelling the tool reads ("Thursday" and
    "2026-10-29", "4 pm" and "16:00", "7" and 7)."""
    if model is None or (isinstance(model, str) and not model.strip()):
        return value is None
    if value is None:
        return False
    if str(model).strip() == str(value):
        return True
    if isinstance(value, int):
        try:
            return int(model) == value
        except (TypeError, ValueError):
            return False
    if isinstance(value, str) and len(value) == 10 and value[4] == "-":  # an ISO date
        try:
            return parse_day(str(model), today) == date.fromisoformat(value)
        except DateWordsError:
            return False
    return _as_time(model) is not None and _as_time(model) == _as_time(value)
