"""The reply checks, as pure functions over a reply and what happened in its turn."""

from __future__ import annotations

import pytest

from commonplace.assistant import checks
from commonplace.assistant.checks import TurnFacts

ALL = frozenset({"calendar", "tasks", "memory", "weather"})


@pytest.mark.parametrize(
    "reply",
    [
        "I've added a haircut event on Saturday at 14:00.",
        "Done, I added the task.",
        "Done! Your dentist appointment is moved.",
        "I have moved your 1:1 with Marcus to 16:00.",
        "Your dentist appointment has been moved to Friday at 10:00.",
        "I’ve ticked off the timber order.",
        "OK, I've remembered that Sam is allergic to peanuts.",
        "All set — the haircut is now on Saturday.",
        "I just cancelled Saturday's haircut for you.",
    ],
)
def test_claims_of_a_change_are_recognised(reply: str) -> None:
    assert checks.claims_change(reply)


@pytest.mark.parametrize(
    "reply",
    [
        "I've proposed moving your dentist appointment to Friday at 10:00.",
        "Nothing has been changed yet.",
        "You have three tasks due this week.",
        "Your dentist appointment is on Thursday at 16:00.",
        "I haven't changed anything.",
        "Here's a joke: why did the scarecrow win an award? He was outstanding in his field.",
        "The forecast for Thursday: 11 to 16 °C, rain likely.",
    ],
)
def test_other_replies_are_not_claims(reply: str) -> None:
    assert not checks.claims_change(reply)


def test_a_claim_with_a_question_waiting_is_corrected() -> None:
    facts = TurnFacts(pending=1, proposed=1, pending_this_turn=1, client="page")
    text, notes = checks.correct("I've moved it to 16:00.", facts)
    yet = "(Nothing has changed yet: answer the question below.)"
    assert text == "I've moved it to 16:00.\n\n" + yet
    assert notes == [yet]


@pytest.mark.parametrize(
    ("client", "pending", "this_turn", "where"),
    [
        # The page: a card under the reply that asked it, so above once the talk moved on.
        ("page", 1, 1, "the question below"),
        ("page", 1, 0, "the question above"),
        ("page", 2, 2, "the questions below"),
        ("page", 2, 0, "the questions above"),
        ("page", 2, 1, "the questions waiting"),  # one above, one below
        # The terminal: this turn's question is put at a [y/N] prompt after the reply; an
        # earlier one is at a prompt or only in a line saying it waits.
        ("cli", 1, 1, "the question below"),
        ("cli", 1, 0, "the question waiting"),
        ("cli", 2, 1, "the questions waiting"),
        # A script: nothing of ours shows it the questions, so no place is named.
        ("api", 1, 1, "the question waiting"),
        ("api", 1, 0, "the question waiting"),
    ],
)
def test_nothing_changed_yet_says_where_the_question_is_for_each_client(
    client: checks.Client, pending: int, this_turn: int, where: str
) -> None:
    """It said "below" everywhere, also on the page when the question was asked in an earlier
    reply (its card is above) and to callers whose layout is not known."""
    facts = TurnFacts(pending=pending, pending_this_turn=this_turn, client=client)
    text, notes = checks.correct("I've moved it to 16:00.", facts)
    assert notes == [f"(Nothing has changed yet: answer {where}.)"]
    assert text == f"I've moved it to 16:00.\n\n{notes[0]}"


def test_a_claim_with_nothing_proposed_is_corrected() -> None:
    text, notes = checks.correct("Done, I added the haircut.", TurnFacts())
    assert text.endswith(checks.NOTHING_PROPOSED)
    assert notes == [checks.NOTHING_PROPOSED]


def test_a_claim_after_a_no_says_nothing_changed_not_that_nothing_was_proposed() -> None:
    facts = TurnFacts(answered_since_last_message=True)
    text, notes = checks.correct("Done, I added the haircut.", facts)
    assert text == "Done, I added the haircut.\n\n" + checks.NOTHING_CHANGED
    assert notes == [checks.NOTHING_CHANGED]


def test_a_claim_right_after_a_yes_that_ran_is_true_and_passes() -> None:
    text, notes = checks.correct("Done, I ticked it off.", TurnFacts(ran_since_last_message=True))
    assert text == "Done, I ticked it off." and notes == []


@pytest.mark.parametrize(
    "reply",
    [
        "Let me check your tasks.",
        "I'll look at your calendar for Thursday.",
        "One moment, I'll find it.",
    ],
)
def test_an_announced_tool_earns_one_reminder(reply: str) -> None:
    facts = TurnFacts(user_text="What's due this week?", domains=ALL)
    assert checks.reminder_for(reply, facts) == checks.ANNOUNCED
    facts.reminders.add(checks.ANNOUNCED)
    assert checks.reminder_for(reply, facts) != checks.ANNOUNCED  # at most once per message


def test_let_me_know_is_not_an_announcement() -> None:
    assert not checks.announces_tool("Let me know if you'd like to see more.")


@pytest.mark.parametrize(
    "reply",
    [
        "Shall I move your 1:1 with Marcus to 16:00?",
        "Would you like me to add it to your tasks?",
        "Do you want me to cancel the haircut?",
        "Should I go ahead?",
    ],
)
def test_asking_to_go_ahead_earns_a_reminder(reply: str) -> None:
    facts = TurnFacts(user_text="Push my 1:1 with Marcus to 4 pm.", domains=ALL)
    assert checks.reminder_for(reply, facts) == checks.ASKED_TO_GO_AHEAD
    facts.reminders.add(checks.ASKED_TO_GO_AHEAD)
    facts.looked_at.update(ALL)
    assert checks.reminder_for(reply, facts) is None


def test_asking_after_proposing_is_left_alone() -> None:
    facts = TurnFacts(user_text="Add a task", domains=ALL, proposed=1, pending=1)
    assert checks.reminder_for("Shall I go ahead and add it?", facts) is None


def test_a_question_that_is_not_about_a_change_is_fine() -> None:
    facts = TurnFacts(user_text="Tell me a short joke.", domains=ALL)
    assert checks.reminder_for("Want to hear another one?", facts) is None


def test_talking_about_the_calendar_without_looking_earns_a_reminder() -> None:
    facts = TurnFacts(user_text="What's on my calendar on Thursday?", domains=ALL)
    reply = "On Thursday you have the dentist at 16:00."
    assert checks.reminder_for(reply, facts) == checks.NOT_LOOKED
    facts.looked_at.add("calendar")
    assert checks.reminder_for(reply, facts) is None


def test_a_day_alone_makes_it_a_calendar_question() -> None:
    facts = TurnFacts(user_text="Am I free on Sunday morning?", domains=ALL)
    assert checks.reminder_for("Yes, Sunday morning is free.", facts) == checks.NOT_LOOKED


def test_talking_about_tasks_without_looking_earns_a_reminder() -> None:
    facts = TurnFacts(user_text="What's due this week?", domains=ALL)
    assert checks.reminder_for("You have two tasks due.", facts) == checks.NOT_LOOKED


def test_a_no_tool_request_is_never_sent_back() -> None:
    for user, reply in [
        ("Tell me a short joke.", "Why did the calendar feel popular? Its days were numbered."),
        ("What can you do?", "I can look at your calendar and tasks, and remember things."),
        ("Thanks!", "You're welcome."),
    ]:
        assert checks.reminder_for(reply, TurnFacts(user_text=user, domains=ALL)) is None


def test_giving_up_before_searching_ahead_earns_a_reminder() -> None:
    facts = TurnFacts(user_text="Cancel Saturday's haircut.", domains=ALL, looked_at={"calendar"})
    reply = "I couldn't find a haircut on Saturday."
    assert checks.reminder_for(reply, facts) == checks.GAVE_UP
    facts.searched_ahead = True
    assert checks.reminder_for(reply, facts) is None


def test_nothing_on_a_day_after_looking_is_an_answer_not_giving_up() -> None:
    facts = TurnFacts(user_text="Am I free on Sunday morning?", domains=ALL, looked_at={"calendar"})
    assert checks.reminder_for("There is nothing on Sunday morning: you're free.", facts) is None


def test_an_empty_reply_earns_one_reminder() -> None:
    facts = TurnFacts(user_text="Hello", domains=ALL)
    assert checks.reminder_for("", facts) == checks.EMPTY
    facts.reminders.add(checks.EMPTY)
    assert checks.reminder_for("", facts) is None


def test_each_kind_fires_at_most_once_even_when_every_kind_applies() -> None:
    facts = TurnFacts(user_text="Cancel Saturday's haircut.", domains=ALL)
    reply = "Let me check. I couldn't find a haircut on Saturday. Shall I add one?"
    seen = []
    while (kind := checks.reminder_for(reply, facts)) is not None:
        seen.append(kind)
        facts.reminders.add(kind)
    assert len(seen) == len(set(seen)) and seen[0] == checks.ANNOUNCED
    assert set(seen) <= set(checks.REMINDER_KINDS)


@pytest.mark.parametrize(
    "reply",
    [
        "I have asked you to confirm.",
        "I've proposed ticking off the passport task.",
        "Please confirm the question below.",
        "It's waiting for your Yes.",
        "Once you confirm, the haircut moves to 16:00.",
    ],
)
def test_a_question_claimed_when_none_was_made_is_corrected(reply: str) -> None:
    """The tool was refused ("several open tasks match") and the model said it had asked: the
    owner was told to answer a question that did not exist."""
    text, notes = checks.correct(reply, TurnFacts())
    assert text == f"{reply}\n\n{checks.NO_QUESTION}" and notes == [checks.NO_QUESTION]
    assert checks.correct(reply, TurnFacts(proposed=1, pending=1)) == (reply, [])
    assert checks.correct(reply, TurnFacts(pending=1)) == (reply, [])  # asked earlier
    answered = TurnFacts(answered_since_last_message=True)  # and answered while it was written
    assert checks.correct(reply, answered) == (reply, [])


@pytest.mark.parametrize(
    "reply",
    [
        "I suggest taking an umbrella on Thursday.",
        "You asked me about the dentist: it is on Thursday at 16:00.",
        "I haven't proposed anything yet: which passport task do you mean?",
        "Which one do you mean, the renewal or the easyJet update?",
    ],
)
def test_replies_that_claim_no_question_pass(reply: str) -> None:
    assert checks.correct(reply, TurnFacts()) == (reply, [])


SUNDAY = [(660, 720, "Brunch with Zoë"), (1080, 1440, "Ring Mum about Christmas")]
# (the owner's words, the reply, reminded)
FREE = [
    ("Am I free on Sunday morning?", "Yes, I am free on Sunday morning.", True),
    ("Am I free on Sunday morning?", "Yes, you're free then.", True),
    ("Am I free on Sunday morning?", "No: brunch with Zoë at 11:00.", False),
    ("Am I free on Sunday afternoon?", "Yes, you're free on Sunday afternoon.", False),
    ("Anything on Sunday evening?", "There are no events on Sunday evening.", True),
    ("What's on Sunday?", "Nothing planned on Sunday.", True),
    ("Am I free on Sunday morning?", "You're not free: brunch at 11:00.", False),
]


@pytest.mark.parametrize(("asked", "reply", "reminded"), FREE)
def test_a_free_day_said_over_a_listing_that_shows_events_earns_a_reminder(
    asked: str, reply: str, reminded: bool
) -> None:
    facts = TurnFacts(user_text=asked, domains=ALL, looked_at={"calendar"}, shown=list(SUNDAY))
    assert (checks.reminder_for(reply, facts) == checks.SAID_FREE) is reminded
    if reminded:
        text = checks.reminder_text(
            checks.SAID_FREE, "The calendar shows $events then.", reply, facts
        )
        assert text.startswith("The calendar shows ") and "then." in text


def test_the_said_free_reminder_names_what_was_listed_then() -> None:
    facts = TurnFacts(
        user_text="Am I free on Sunday morning?", domains=ALL, looked_at={"calendar"},
        shown=list(SUNDAY),
    )  # fmt: skip
    template = "The calendar shows $events then. Answer again from what it shows."
    assert checks.reminder_text(checks.SAID_FREE, template, "You're free.", facts) == (
        "The calendar shows Brunch with Zoë at 11:00 then. Answer again from what it shows."
    )


def test_free_with_nothing_listed_then_is_an_answer() -> None:
    facts = TurnFacts(user_text="Am I free on Sunday morning?", domains=ALL, looked_at={"calendar"})
    assert checks.reminder_for("Yes, you're free on Sunday morning.", facts) is None


CHANGERS = frozenset({"add_task", "complete_task", "remember", "forget", "move_event"})


@pytest.mark.parametrize(
    ("asked", "change"),
    [
        ("Remember that Sam is allergic to peanuts.", True),
        ("Forget that I prefer meetings after 10.", True),
        ("Push my 1:1 with Marcus to 4 pm.", True),
        ("I can't make chess with Sam this week, please cancel it.", True),
        ("I've paid the window cleaner, you can tick that off.", True),
        ("Can you move my physio appointment to 11:00 the same day?", True),
        ("Put 'renew the home insurance' on my task list, due 5 November.", True),
        ("Where does my brother live?", False),
        ("Do you remember where my brother lives?", False),
        ("What's due this week?", False),
        ("When is my next dentist appointment?", False),
        ("Tell me a short joke.", False),
    ],
)
def test_a_request_for_a_change_is_told_from_a_question(asked: str, change: bool) -> None:
    assert checks.asks_for_change(asked) is change


@pytest.mark.parametrize(
    ("asked", "reply", "facts", "reminded"),
    [
        # "I remember that ...": no tool was called, nothing was proposed (a small model)
        (
            "Remember that Sam is allergic to peanuts.",
            "I remember that Sam is allergic to peanuts.",
            {},
            True,
        ),
        ("Tick off the timber order.", "The timber order is on your list.", {}, True),
        # a question was made, or one waits: nothing to remind
        ("Remember that Sam is allergic to peanuts.", "Noted.", {"proposed": 1}, False),
        ("Remember that Sam is allergic to peanuts.", "Noted.", {"pending": 1}, False),
        # the change tool was called and refused ("several tasks match"): its answer is told
        (
            "Tick off the timber order.",
            "Two tasks match: which one?",
            {"tools_called": ["complete_task"]},
            False,
        ),
        (
            "Tick off the order.",
            "Several tasks match: say which.",
            {"tools_called": ["complete_task"]},
            False,
        ),
        # a question back to the owner is theirs to answer
        ("Add a haircut on Saturday.", "At what time on Saturday?", {}, False),
        # no change asked for
        ("Where does my brother live?", "Sam lives in Leeds.", {}, False),
    ],
)
def test_a_change_asked_for_and_not_proposed_earns_a_reminder(
    asked: str, reply: str, facts: dict[str, object], reminded: bool
) -> None:
    turn = TurnFacts(user_text=asked, domains=ALL, changers=CHANGERS, **facts)  # type: ignore[arg-type]
    assert (checks.reminder_for(reply, turn) == checks.NOT_DONE) is reminded


def test_an_empty_reply_to_a_change_is_reminded_to_answer_first() -> None:
    facts = TurnFacts(user_text="Remember that Sam is allergic to peanuts.", changers=CHANGERS)
    assert checks.reminder_for("", facts) == checks.EMPTY
    facts.reminders.add(checks.EMPTY)
    assert checks.reminder_for("", facts) == checks.NOT_DONE
