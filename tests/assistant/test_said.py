"""Days, times and lengths read from the owner's words, and the arguments they set: tables of
what people write, on Monday 26 October 2026 at 09:00 in London unless a row says otherwise."""

from __future__ import annotations

from datetime import date, datetime, time
from typing import Any
from zoneinfo import ZoneInfo

import pytest

from commonplace.assistant.arguments import from_words
from commonplace.assistant.registry import Param, Tool
from commonplace.assistant.said import read, target_split, without_due

LONDON = ZoneInfo("Europe/London")
NOW = datetime(2026, 10, 26, 9, 0, tzinfo=LONDON)  # a Monday
TODAY = NOW.date()

# (words, [(first day, days)], vague)
DAYS = [
    ("What's on my calendar on Thursday?", [("2026-10-29", 1)], False),
    ("Am I free on Sunday morning?", [("2026-11-01", 1)], False),
    ("What's on today?", [("2026-10-26", 1)], False),  # a weekday's own day is today
    ("What have I got on Monday?", [], True),  # on a Monday: today, or a week today?
    ("What time is my 1:1 with Marcus tomorrow?", [("2026-10-27", 1)], False),
    ("the day after tomorrow", [("2026-10-28", 1)], False),
    ("Do I have anything on this evening?", [("2026-10-26", 1)], False),
    ("Cancel Saturday's haircut.", [("2026-10-31", 1)], False),
    ("due 5 November", [("2026-11-05", 1)], False),
    ("by November 5th", [("2026-11-05", 1)], False),
    ("on the 5th of November", [("2026-11-05", 1)], False),
    ("by the 30th", [("2026-10-30", 1)], False),
    ("by the 25th", [("2026-11-25", 1)], False),  # this month's is past: the next
    ("on 20 October", [("2027-10-20", 1)], False),  # a date without a year is not the past
    ("on 2026-11-03", [("2026-11-03", 1)], False),
    ("Friday 30 October", [("2026-10-30", 1)], False),
    ("in 3 days", [("2026-10-29", 1)], False),
    ("in two weeks", [("2026-11-09", 1)], False),
    ("What's due this week?", [("2026-10-26", 7)], False),  # Monday to Sunday
    ("anything next week?", [("2026-11-02", 7)], False),
    ("this weekend", [("2026-10-31", 2)], False),
    # not read, so the model's own date stands (the question shows it)
    ("next Thursday", [], True),
    ("next weekend", [], True),
    ("Friday 31 October", [], True),  # the 31st is a Saturday: the words disagree
    ("sometime in December", [], True),
    # no day at all
    ("Thursdays at the club", [], False),  # a habit, not a day
    # no day at all
    ("Add a task: buy bin bags", [], False),
    ("Tell me a short joke.", [], False),
    ("You may want to check", [], False),  # "may" is not the month here
]


@pytest.mark.parametrize(("words", "days", "vague"), DAYS)
def test_the_days_people_write(words: str, days: list[tuple[str, int]], vague: bool) -> None:
    said = read(words, NOW)
    assert [(d.first.isoformat(), d.days) for d in said.days] == days
    assert said.vague is vague


def test_on_a_sunday_the_weekend_is_today_and_this_week_is_one_day() -> None:
    sunday = datetime(2026, 11, 1, 9, 0, tzinfo=LONDON)
    assert [(d.first, d.days) for d in read("this weekend", sunday).days] == [
        (date(2026, 11, 1), 1)
    ]
    assert [(d.first, d.days) for d in read("this week", sunday).days] == [(date(2026, 11, 1), 1)]


def test_the_31st_in_a_30_day_month_is_the_next_month_that_has_one() -> None:
    november = datetime(2026, 11, 2, 9, 0, tzinfo=LONDON)
    assert [d.first for d in read("by the 31st", november).days] == [date(2026, 12, 31)]


# (words, [(time, other reading)])
TIMES = [
    ("Push my 1:1 with Marcus to 4 pm.", [("16:00", None)]),  # "1:1" is no time
    ("at 9am", [("09:00", None)]),
    ("at 12 pm", [("12:00", None)]),
    ("at 12am", [("00:00", None)]),
    ("at 9.30 am", [("09:30", None)]),
    ("to 12:30", [("12:30", None)]),
    ("to 11:00 the same day", [("11:00", "23:00")]),
    ("at 16:00", [("16:00", None)]),
    ("at 09:30", [("09:30", None)]),
    ("to Friday at 10.", [("10:00", "22:00")]),
    ("move it to 4", [("16:00", "04:00")]),  # daytime first, the other kept
    ("at 7 o'clock", [("07:00", "19:00")]),  # 7 to 12 in the morning, 1 to 6 after noon
    ("at noon", [("12:00", None)]),
    ("from 2 to 3 pm", [("14:00", "02:00"), ("15:00", None)]),
    # counts are not times
    ("Add a task to buy 2 nails", []),
    ("remind me in 3 minutes", []),
    ("give it to 4 people", []),
]


@pytest.mark.parametrize(("words", "times"), TIMES)
def test_the_times_people_write(words: str, times: list[tuple[str, str | None]]) -> None:
    said = read(words, NOW)
    got = [
        (t.at.strftime("%H:%M"), t.other.strftime("%H:%M") if t.other else None) for t in said.times
    ]
    assert got == times


LENGTHS = [
    ("Add a haircut on Saturday at 2 pm for 30 minutes.", 30),
    ("for an hour", 60),
    ("for 2 hours", 120),
    ("for half an hour", 30),
    ("for an hour and a half", 90),
    ("for 1.5 hours", 90),
    ("lunch from 12 to 1:30 pm", 90),
    ("from 10 to 11 am", 60),
    ("Add the party on Saturday at 11pm, 3 hours", 180),
    ("at 2 pm", None),
    ("for Thursday", None),
    ("in 3 hours", None),  # when, not how long
]


@pytest.mark.parametrize(("words", "minutes"), LENGTHS)
def test_lengths(words: str, minutes: int | None) -> None:
    assert read(words, NOW).minutes == minutes


SPLITS = [
    ("Move my dentist appointment to Friday at 10.", "Friday at 10."),
    ("Move Thursday's dentist to Friday", "Friday"),
    ("Push my 1:1 with Marcus to 4 pm.", "4 pm."),
    ("Move the dentist from Thursday to Friday", "Friday"),
    ("Reschedule the dentist for Friday", None),  # no "to": the model's reading stands
    ("What's on Thursday?", None),
]


@pytest.mark.parametrize(("words", "target"), SPLITS)
def test_where_a_moves_new_day_and_time_begin(words: str, target: str | None) -> None:
    split = target_split(words, read(words, NOW))
    assert (words[split:].strip() if split is not None else None) == target


async def _nothing(ctx: Any, args: dict[str, Any]) -> str:
    return ""


def tool(*params: Param) -> Tool:
    return Tool("t", "", params, _nothing)


LIST = tool(
    Param("day", "date", "", None, said="day"), Param("days", "integer", "", None, said="days")
)
FIND = tool(
    Param("words", "string", ""),
    Param("day", "date", "", None, said="day?"),
    Param("days", "integer", "", None, said="days"),
)
ADD_TASK = tool(Param("text", "string", ""), Param("due", "date", "", None, said="due"))
TASKS = tool(Param("due_within_days", "integer", "", None, said="within"))
ADD_EVENT = tool(
    Param("title", "string", ""),
    Param("day", "date", "", said="day"),
    Param("start_time", "time", "", None, said="time"),
    Param("minutes", "minutes", "", 60, said="minutes"),
)
MOVE = tool(
    Param("event", "string", ""),
    Param("new_day", "date", "", None, said="new_day"),
    Param("new_time", "time", "", None, said="new_time"),
    Param("on_day", "date", "", None, said="on_day"),
)
DELETE = tool(Param("event", "string", ""), Param("on_day", "date", "", None, said="on_day"))

# (tool, the owner's words, what the model sent, the arguments used, the names changed)
ARGUMENTS = [
    # the issue's own: an invented due date is dropped, the owner's is computed
    (ADD_TASK, "Add a task: buy bin bags", {"text": "buy bin bags", "due": "2026-10-27"},
     {"text": "buy bin bags"}, ["due"]),
    (ADD_TASK, "Add a task to buy nails, due Friday.", {"text": "buy nails", "due": "2026-10-29"},
     {"text": "buy nails", "due": "2026-10-30"}, ["due"]),
    (ADD_TASK, "Put 'renew the home insurance' on my task list, due 5 November.",
     {"text": "renew the home insurance"},
     {"text": "renew the home insurance", "due": "2026-11-05"}, ["due"]),
    # a model that read the words right keeps its values, in its own spelling
    (ADD_TASK, "Add a task to buy nails, due Friday.", {"text": "buy nails", "due": "Friday"},
     {"text": "buy nails", "due": "Friday"}, []),
    # words no rule reads: the model's date is kept for the question to show
    (ADD_TASK, "Add a task to call Sam next Thursday", {"text": "call Sam", "due": "2026-11-05"},
     {"text": "call Sam", "due": "2026-11-05"}, []),
    (LIST, "What have I got on Saturday?", {"day": "2026-11-07", "days": 1},
     {"day": "2026-10-31", "days": 1}, ["day"]),
    (LIST, "What's on this week?", {"day": "2026-10-26"}, {"day": "2026-10-26", "days": 7},
     ["days"]),
    (LIST, "What's on my calendar?", {"day": "2026-10-27"}, {"day": "2026-10-27"}, []),
    (FIND, "When is my next dentist appointment?", {"words": "dentist", "day": "2026-10-29"},
     {"words": "dentist"}, ["day"]),
    (TASKS, "What's due this week?", {"due_within_days": 7}, {"due_within_days": 6},
     ["due_within_days"]),
    (TASKS, "Is anything overdue?", {"due_within_days": 0}, {"due_within_days": 0}, []),
    (ADD_EVENT, "Add a haircut on Saturday at 2 pm for 30 minutes.",
     {"title": "Haircut", "day": "2026-11-07", "start_time": "14:00"},
     {"title": "Haircut", "day": "2026-10-31", "start_time": "14:00", "minutes": 30},
     ["day", "minutes"]),
    (ADD_EVENT, "Put a call with the plumber in my calendar for Thursday at 9am.",
     {"title": "Call with the plumber", "day": "2026-10-29", "start_time": "21:00",
      "minutes": 1},
     {"title": "Call with the plumber", "day": "2026-10-29", "start_time": "09:00"},
     ["start_time", "minutes"]),  # no length said: the tool's hour, not the model's minute
    (ADD_EVENT, "Book a haircut with Jo on 7 November at 10",
     {"title": "Haircut with Jo", "day": "2026-11-07", "start_time": "10:00", "minutes": 45},
     {"title": "Haircut with Jo", "day": "2026-11-07", "start_time": "10:00", "minutes": 45},
     []),  # a length nobody said, but one a haircut may have: the model's
    (ADD_EVENT, "Add a dentist appointment this week", {"title": "Dentist", "day": "2026-10-28"},
     {"title": "Dentist", "day": "2026-10-28"}, []),  # a span is no day for a new event
    # "at 4": the model chose one of the two readings, so it is believed
    (ADD_EVENT, "Add a call on Friday at 4", {"title": "Call", "day": "Friday",
     "start_time": "04:00"}, {"title": "Call", "day": "Friday", "start_time": "04:00"}, []),
    (MOVE, "Push my 1:1 with Marcus to 4 pm.",
     {"event": "1:1 with Marcus", "new_day": "2026-10-26", "new_time": "16:00"},
     {"event": "1:1 with Marcus", "new_time": "16:00"}, ["new_day"]),
    (MOVE, "Move my dentist appointment to Friday at 10.",
     {"event": "dentist", "new_day": "2026-11-06", "new_time": "10:00", "on_day": "2026-11-05"},
     {"event": "dentist", "new_day": "2026-10-30", "new_time": "10:00", "on_day": "2026-11-05"},
     ["new_day"]),
    (MOVE, "Move brunch with Zoë to 12:30.", {"event": "brunch", "new_time": "12:30"},
     {"event": "brunch", "new_time": "12:30"}, []),
    (MOVE, "Can you move my physio appointment to 11:00 the same day?",
     {"event": "physio", "new_day": "2026-10-26", "new_time": "11:00"},
     {"event": "physio", "new_time": "11:00"}, ["new_day"]),
    (MOVE, "Move Thursday's dentist to Friday", {"event": "dentist", "new_day": "2026-10-30",
     "new_time": "10:00"}, {"event": "dentist", "new_day": "2026-10-30",
     "on_day": "2026-10-29"}, ["new_time", "on_day"]),
    (MOVE, "Move the dentist to next Friday", {"event": "dentist", "new_day": "2026-11-06"},
     {"event": "dentist", "new_day": "2026-11-06"}, []),
    # two moves in one message: which new day goes with which event is the model's to say
    (MOVE, "Move the dentist to Friday and brunch to Saturday",
     {"event": "dentist", "new_day": "2026-10-30"},
     {"event": "dentist", "new_day": "2026-10-30"}, []),
    (MOVE, "I want to move the dentist to Friday", {"event": "dentist", "new_day": "2026-11-06"},
     {"event": "dentist", "new_day": "2026-10-30"}, ["new_day"]),
    (DELETE, "Cancel Saturday's haircut.", {"event": "haircut", "on_day": "2026-11-07"},
     {"event": "haircut", "on_day": "2026-10-31"}, ["on_day"]),
    (DELETE, "I can't make chess with Sam this week, please cancel it.",
     {"event": "chess", "on_day": "2026-11-04"}, {"event": "chess"}, ["on_day"]),
    (DELETE, "I can't make chess with Sam this week, please cancel it.",
     {"event": "chess", "on_day": "2026-10-28"}, {"event": "chess", "on_day": "2026-10-28"},
     []),
    (DELETE, "Cancel the chess", {"event": "chess", "on_day": "2026-11-04"},
     {"event": "chess", "on_day": "2026-11-04"}, []),
]  # fmt: skip


@pytest.mark.parametrize(("tool_", "words", "model", "used", "changed"), ARGUMENTS)
def test_arguments_from_the_owners_words(
    tool_: Tool, words: str, model: dict[str, Any], used: dict[str, Any], changed: list[str]
) -> None:
    args, names = from_words(tool_.roles(), model, read(words, NOW), TODAY)
    assert args == used
    assert sorted(names) == sorted(changed)


def test_a_tool_with_no_day_arguments_is_left_alone() -> None:
    plain = tool(Param("task", "string", ""))
    assert from_words(plain.roles(), {"task": "timber"}, read("due Friday", NOW), TODAY) == (
        {"task": "timber"},
        [],
    )


DUE_TAILS = [
    ("Buy nails, due Friday", "Buy nails"),
    ("buy bin bags (due Tuesday 27 October)", "buy bin bags"),
    ("Renew the home insurance by 5 November.", "Renew the home insurance"),
    ("Send the slides by tomorrow at 10", "Send the slides"),
    ("Call the bank by phone", "Call the bank by phone"),  # no day: the task's own words
    ("Pay by Friday the invoice", "Pay by Friday the invoice"),  # words after the day
    ("due Friday", "due Friday"),  # nothing would be left
]


@pytest.mark.parametrize(("text", "kept"), DUE_TAILS)
def test_a_due_date_glued_to_a_tasks_words_is_taken_off(text: str, kept: str) -> None:
    assert without_due(text, NOW) == kept


def test_times_are_read_whatever_the_model_said_about_them() -> None:
    said = read("Move my dentist appointment to Friday at 10.", NOW)
    assert said.one_day is not None and said.one_day.first == date(2026, 10, 30)
    assert said.one_time is not None and said.one_time.at == time(10, 0)
