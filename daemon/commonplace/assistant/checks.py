"""Every reply is checked before the owner sees it: pure functions over the text and the turn.

Small models claim changes they never made ("I've added a haircut event"), announce a tool
instead of calling it ("Let me check your tasks."), ask whether to go ahead instead of
proposing, talk about the calendar without having looked, and give up before searching. Two
kinds of answer here:

- a *reminder*: a short message, as if from the owner, that sends the model back to work; each
  kind at most once per owner message, so the model cannot be kept in a loop;
- a *correction*: a fixed sentence appended to the reply, when the reply claims a change that
  did not happen (the model is not asked again: the owner is told the truth), or, when the
  owner answered a question while the reply was written and no model call was left to tell
  the model, that answer (the reply may still say the question waits).
"""

from __future__ import annotations

import re
import string
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Literal

# Who the reply is for, so that its fixed sentences say what is true where it is read: the
# phone page shows each question as a card with Yes and No under the reply that asked it; the
# terminal chat puts a question at a [y/N] prompt after the reply that asked it, and says in one
# line that an earlier one waits ('questions' asks it again); any other caller of the API (a
# script) is shown nothing by us, so the words name no place.
Client = Literal["page", "cli", "api"]

# Kinds of reminder, in the order they are tried.
ANNOUNCED = "announced"
ASKED_TO_GO_AHEAD = "asked_to_go_ahead"
NOT_LOOKED = "not_looked"
GAVE_UP = "gave_up"
SAID_FREE = "said_free"
EMPTY = "empty"
NOT_DONE = "not_done"
REMINDER_KINDS = (ANNOUNCED, ASKED_TO_GO_AHEAD, NOT_LOOKED, SAID_FREE, GAVE_UP, EMPTY, NOT_DONE)

NOTHING_PROPOSED = "(Nothing was changed: no change was proposed. Ask again.)"
NOTHING_CHANGED = "(Nothing was changed.)"  # after a No, or a Yes refused: its result says why
CUT_SHORT = (
    "(This reply was cut short before its end: the model's length limit, or its server stopped it.)"
)
NO_QUESTION = "(No question was made: nothing is waiting for your Yes. Ask again.)"

_CHANGE_VERBS = (
    r"add(?:ed)?|mov(?:ed|e)|delet(?:ed|e)|remov(?:ed|e)|cancel(?:l?ed)?|tick(?:ed)?|"
    r"complet(?:ed|e)|mark(?:ed)?|updat(?:ed|e)|chang(?:ed|e)|reschedul(?:ed|e)|book(?:ed)?|"
    r"schedul(?:ed|e)|creat(?:ed|e)|sav(?:ed|e)|not(?:ed|e)|remember(?:ed)?|put|push(?:ed)?|"
    r"shift(?:ed)?|clear(?:ed)?|forg(?:otten|et)|stor(?:ed|e)|writ(?:ten|e)|set|edit(?:ed)?"
)
_PAST = (
    r"added|moved|deleted|removed|cancel+ed|ticked(?: off)?|completed|marked|updated|changed|"
    r"rescheduled|booked|scheduled|created|saved|noted|remembered|put|pushed|shifted|cleared|"
    r"forgotten|stored|written|set up|set|edited|logged"
)
_CLAIMS = [
    # "I've added ...", "I have moved ...", "I just ticked ...", "I went ahead and ..."
    re.compile(
        rf"\bi(?:'ve|’ve| have)?\s+(?:now\s+|just\s+|already\s+|successfully\s+|also\s+)*"
        rf"(?:{_PAST})\b",
        re.IGNORECASE,
    ),
    re.compile(r"\bi(?:'ve|’ve| have)?\s+gone ahead\b|\bi went ahead\b", re.IGNORECASE),
    # "It has been added", "Your dentist appointment is now moved", "... is now on Friday"
    re.compile(
        rf"\b(?:has|have)\s+(?:now\s+|just\s+)?been\s+(?:{_PAST})\b|"
        rf"\bis\s+now\s+(?:{_PAST}|on|in|at|scheduled|set)\b",
        re.IGNORECASE,
    ),
    # "Done!", "All done.", "All set", "Done, I added ..."
    re.compile(r"^\s*(?:all\s+)?(?:done|set)\b[\s!.,:—-]", re.IGNORECASE),
]
_NEGATED = re.compile(
    r"\b(?:not|n't|never|haven't|have not|nothing|no change)\b[^.!?]{0,30}$", re.IGNORECASE
)
_PROPOSAL_TALK = re.compile(r"\b(?:propos|suggest)\w*|\basked you\b", re.IGNORECASE)
# "I've asked you to confirm", "I have proposed ticking it off", "please confirm below",
# "waiting for your Yes": the reply says a question is there for the owner to answer.
_CLAIMS_QUESTION = re.compile(
    r"\bi(?:'ve|’ve| have)?\s+(?:now\s+|just\s+|already\s+)*(?:proposed|asked you|sent you|"
    r"put (?:a|the) question)\b|"
    r"\b(?:confirm|answer|yes)\b[^.!?\n]{0,30}\b(?:below|above|the question|the card|on your "
    r"(?:phone|page|screen))\b|"
    r"\bwaiting for your (?:yes|confirmation|answer|approval)\b|"
    r"\b(?:once|when|after|if) you (?:confirm|approve|say yes|answer yes)\b",
    re.IGNORECASE,
)

_ANNOUNCE = re.compile(
    r"\b(?:let me(?! know)|i'll|i’ll|i will|i am going to|i'm going to|i’m going to|allow me to|"
    r"one moment|just a moment|give me a (?:moment|second|sec)|hold on)\b[^.!?\n]{0,40}?"
    r"\b(?:check|look|see|find|search|pull up|get|fetch|review|open|go through|add|move|"
    r"cancel|delete|remove|tick|mark|remember|note|schedule|book|set up|create|put|update)\b",
    re.IGNORECASE,
)
_ASK_GO_AHEAD = re.compile(
    r"(?:\b(?:shall|should|can|may)\s+i\b|\bwould you like (?:me\s+)?to\b|\bdo you want (?:me\s+)?"
    r"to\b|\bwant me to\b|\bdo you (?:confirm|want)\b|\bplease confirm\b|\bcan you confirm\b|"
    r"\bis that (?:ok|okay|alright|right)\b|\bgo ahead\b|\bproceed\b)[^?]*\?",
    re.IGNORECASE,
)
_ASK_VERB = re.compile(
    rf"\b(?:{_CHANGE_VERBS}|go ahead|proceed|confirm|do (?:that|it|this))\b", re.IGNORECASE
)

DOMAIN_WORDS = {
    "calendar": re.compile(
        r"\b(?:calendar|diary|event|events|appointments?|meetings?|schedule|scheduled|"
        r"free|busy|booked|plans?|1:1|one-to-one)\b",
        re.IGNORECASE,
    ),
    "tasks": re.compile(r"\b(?:tasks?|to-?dos?|due|overdue|tick(?:ed)? off)\b", re.IGNORECASE),
    "weather": re.compile(
        r"\b(?:weather|forecast|rain|rainy|sunny|temperature|°c|degrees|umbrella|cold|warm)\b",
        re.IGNORECASE,
    ),
}
_TIME_WORDS = re.compile(
    r"\b(?:today|tonight|tomorrow|morning|afternoon|evening|weekend|"
    r"monday|tuesday|wednesday|thursday|friday|saturday|sunday|what's on|what’s on|"
    r"anything on|\d{1,2}(?::\d{2})?\s*(?:am|pm)|\d{1,2}:\d{2})\b",
    re.IGNORECASE,
)
_SEEKING = re.compile(r"\bwhen(?:'s|’s| is| was| are| do| does| did| will)\b|\bnext\b|\bfind\b")
_GAVE_UP = re.compile(
    r"\b(?:i\s+(?:could\s*n[o']t|couldn’t|can\s*n[o']t|can’t|cannot|did\s*n[o']t|didn’t|"
    r"was unable to|am unable to|wasn't able to)\s+(?:find|see|locate|spot)|"
    r"i\s+don['’]?t\s+see|i\s+do not see|(?:there\s+(?:is|are)|there['’]s)\s+no\b|"
    r"no\s+(?:such|matching)|not\s+(?:find|found|see)\s+any|doesn['’]t (?:seem to )?exist|"
    r"isn['’]t (?:on|in) your|nothing (?:called|named|matching))",
    re.IGNORECASE,
)


@dataclass
class TurnFacts:
    """What happened in this turn (one owner message), for the checks."""

    user_text: str = ""
    tools_called: list[str] = field(default_factory=list)
    looked_at: set[str] = field(default_factory=set)  # domains read this turn
    searched_ahead: bool = False
    proposed: int = 0  # proposals made this turn
    pending: int = 0  # questions waiting for the owner (this turn or before)
    ran_since_last_message: bool = False  # a Yes ran since the owner's previous message
    answered_since_last_message: bool = False  # a question was answered since then, ran or not
    reminders: set[str] = field(default_factory=set)  # kinds already sent this turn
    domains: frozenset[str] = frozenset()  # domains the assistant has tools for
    client: Client = "api"  # where the reply is read: decides where its questions are
    pending_this_turn: int = 0  # of `pending`, those asked after this message (shown after it)
    readers: Mapping[str, Sequence[str]] = field(default_factory=dict)  # domain -> its tools
    shown: list[tuple[int, int, str]] = field(default_factory=list)  # timed events listed
    changers: frozenset[str] = frozenset()  # the tools that propose a change


def claims_change(text: str) -> bool:
    """Does the reply say something was changed ("I've added", "Done", "has been moved")?"""
    for sentence in re.split(r"(?<=[.!?])\s+|\n+", text):
        for pattern in _CLAIMS:
            for match in pattern.finditer(sentence):
                before = sentence[: match.start()]
                if _NEGATED.search(before) or _NEGATED.search(match.group(0)):
                    continue
                if _PROPOSAL_TALK.search(sentence):
                    continue  # "I've proposed adding ...", "once you confirm, I'll have ..."
                return True
    return False


def claims_question(text: str) -> bool:
    """Does the reply say a Yes/No question is waiting ("I've asked you to confirm")?"""
    for sentence in re.split(r"(?<=[.!?])\s+|\n+", text):
        match = _CLAIMS_QUESTION.search(sentence)
        if match and not _NEGATED.search(sentence[: match.start()]):
            return True
    return False


def announces_tool(text: str) -> bool:
    """ "Let me check your tasks." with no tool call: said instead of done."""
    return bool(_ANNOUNCE.search(text))


def asks_to_go_ahead(text: str) -> bool:
    """ "Shall I move it to 16:00?": asks the owner instead of proposing through the gate."""
    return any(_ASK_VERB.search(m.group(0)) for m in _ASK_GO_AHEAD.finditer(text))


def domains_talked_about(text: str) -> set[str]:
    return {name for name, pattern in DOMAIN_WORDS.items() if pattern.search(text)}


def gives_up(text: str) -> bool:
    return bool(_GAVE_UP.search(text))


def reminder_for(reply: str, facts: TurnFacts) -> str | None:
    """The first reminder this reply earns that has not been sent this turn, or None."""
    for kind in REMINDER_KINDS:
        if kind in facts.reminders:
            continue
        if _earns(kind, reply, facts):
            return kind
    return None


def _earns(kind: str, reply: str, facts: TurnFacts) -> bool:
    if kind == EMPTY:
        return not reply.strip()
    if kind == ANNOUNCED:
        return announces_tool(reply) and not facts.proposed
    if kind == ASKED_TO_GO_AHEAD:
        return asks_to_go_ahead(reply) and not facts.proposed and not facts.pending
    if kind == NOT_LOOKED:
        return bool(_unlooked(reply, facts))
    if kind == SAID_FREE:
        return says_free(reply) and bool(busy_then(facts))
    if kind == NOT_DONE:
        return (
            asks_for_change(facts.user_text)
            and not (facts.proposed or facts.pending)
            and not set(facts.tools_called) & facts.changers
            and "?" not in reply  # a question back is the owner's to answer
            and not gives_up(reply)  # "I couldn't find it": gave_up's, once it searched ahead
        )
    if kind == GAVE_UP:
        # Only when the owner was after one thing ("when is my next ...", "cancel the ...")
        # and the model gave up without searching the coming days: "there is nothing on
        # Sunday morning" after listing Sunday is a right answer, not giving up.
        user = facts.user_text
        seeking = bool(_SEEKING.search(user) or _ASK_VERB.search(user))
        wanted = asked_domains(user) & {"calendar", "tasks"} & set(facts.domains)
        return gives_up(reply) and seeking and bool(wanted) and not facts.searched_ahead
    raise AssertionError(kind)  # pragma: no cover


_FREE = re.compile(
    r"\b(?:you(?:'re|’re| are)|i(?:'m|’m| am))\s+(?:completely\s+|totally\s+|entirely\s+)?free\b|"
    r"\bno (?:events?|plans|appointments?|meetings?)\b|"
    r"\bnothing (?:on|planned|scheduled|booked)\b|\b(?:is|looks) (?:clear|free)\b",
    re.IGNORECASE,
)
# The part of a day the owner asked about, in minutes: "free on Sunday morning?"
_PARTS = (
    (re.compile(r"\bmorning\b", re.I), 0, 12 * 60),
    (re.compile(r"\bafternoon\b", re.I), 12 * 60, 17 * 60),
    (re.compile(r"\b(?:evening|tonight)\b", re.I), 17 * 60, 24 * 60),
)


_ASKS_CHANGE = re.compile(
    r"(?:^|[.!;,]\s*|\b(?:please|can you|could you|would you|you can)\s+)"
    r"(?:remember|forget|add|put|move|push|cancel|delete|remove|tick|book|reschedule)\b",
    re.IGNORECASE,
)


def asks_for_change(user_text: str) -> bool:
    """ "Remember that Sam is allergic to peanuts.", "..., please cancel it.", "you can tick
    that off": the owner's message asks for a change (a request, not a question about one)."""
    return bool(_ASKS_CHANGE.search(user_text.strip()))


def says_free(reply: str) -> bool:
    """ "Yes, you're free on Sunday morning.", "There are no events then." """
    return bool(_FREE.search(reply))


def busy_then(facts: TurnFacts) -> list[tuple[int, int, str]]:
    """The timed events this turn's calendar reads listed in the part of the day the owner
    asked about (the whole day when they named none): a reply that says they are free then
    says what the listing does not (a small model answered "Yes, I am free on Sunday morning"
    over a listing of brunch at 11:00)."""
    low, high = next(
        ((lo, hi) for pattern, lo, hi in _PARTS if pattern.search(facts.user_text)), (0, 24 * 60)
    )
    return [e for e in facts.shown if e[0] < high and e[1] > low]


_DOMAIN_NAMES = {"calendar": "your calendar", "tasks": "your tasks", "weather": "the weather"}


def reminder_text(kind: str, text: str, reply: str, facts: TurnFacts) -> str:
    """A reminder as sent: `not_looked` says what was not looked at and which tools look
    ("You haven't looked at your calendar yet. Call list_events or find_events first"): told
    only "call the tool", a small model called the weather again for "Am I free on Sunday?"."""
    if kind == SAID_FREE:
        shown = [
            f"{title} at {start // 60:02d}:{start % 60:02d}" for start, _, title in busy_then(facts)
        ]
        return string.Template(text).safe_substitute(events=" and ".join(shown))
    if kind != NOT_LOOKED:
        return text
    unlooked = sorted(_unlooked(reply, facts))
    what = " and ".join(_DOMAIN_NAMES.get(d, d) for d in unlooked) or "it"
    tools = [name for d in unlooked for name in facts.readers.get(d, ())]
    return string.Template(text).safe_substitute(
        what=what, tools=" or ".join(tools) if tools else "the tool"
    )


def asked_domains(user_text: str) -> set[str]:
    """What the owner's message is about; a day or a time alone means the calendar."""
    asked = domains_talked_about(user_text)
    if not asked and _TIME_WORDS.search(user_text):
        asked = {"calendar"}  # "What's on Thursday?", "Cancel Saturday's haircut."
    return asked


def _unlooked(reply: str, facts: TurnFacts) -> set[str]:
    """Domains the reply talks about, that the owner asked about, and nothing looked at."""
    asked = asked_domains(facts.user_text)
    talked = domains_talked_about(reply) | (asked if _TIME_WORDS.search(reply) else set())
    return (talked & asked & set(facts.domains)) - facts.looked_at


def correct(reply: str, facts: TurnFacts) -> tuple[str, list[str]]:
    """The reply the owner sees, and the corrections made to it (for the record)."""
    text = reply.strip()
    notes: list[str] = []
    if claims_change(text) and not facts.ran_since_last_message:
        if facts.pending:
            note = nothing_yet(facts)
        elif facts.answered_since_last_message:  # a change was proposed: the owner said No
            note = NOTHING_CHANGED
        else:
            note = NOTHING_PROPOSED
        notes.append(note)
        text = f"{text}\n\n{note}" if text else note
    elif claims_question(text) and not (
        facts.proposed or facts.pending or facts.answered_since_last_message
    ):
        # The tool was refused ("several tasks match", "no such event") or never called, and
        # the reply tells the owner to answer a question that is nowhere to be seen.
        notes.append(NO_QUESTION)
        text = f"{text}\n\n{NO_QUESTION}"
    return text, notes


def nothing_yet(facts: TurnFacts) -> str:
    """The note under a claimed change while a question waits, saying where the question is:
    "below" was wrong on the page when it had been asked in an earlier reply (its card is
    above), and wherever the client's layout is not known."""
    questions = "the questions" if facts.pending > 1 else "the question"
    place = questions_place(facts) or "waiting"
    return f"(Nothing has changed yet: answer {questions} {place}.)"


def questions_place(facts: TurnFacts) -> str:
    """Where the waiting questions are, seen from this reply: "below", "above", or "" when
    that is not known or they are in both places. The page puts a question's card under the
    reply of the turn that asked it; the terminal puts a question at a [y/N] prompt after that
    reply, and one asked before it at no fixed place (at a prompt, if this session has not
    asked it yet; else only a line saying it waits)."""
    if facts.client == "api" or not facts.pending:
        return ""
    if facts.pending_this_turn >= facts.pending:
        return "below"
    if facts.pending_this_turn == 0 and facts.client == "page":
        return "above"
    return ""


def waiting_reply(facts: TurnFacts) -> str:
    """The reply the program writes after the model asked for a change in schema mode, where a
    small model's own words would claim it done: where the question is, and that nothing
    changes before a Yes. Never a claim, so never corrected (tests hold it to that)."""
    questions = "the questions" if facts.pending_this_turn > 1 else "the question"
    place = questions_place(facts)
    return f"Answer {questions}{' ' + place if place else ''}: nothing changes until you say Yes."


def typed_answer_refused(client: Client, waiting: int) -> str:
    """The reply to a typed "yes" or "no" that answers nothing (it answers only the one question
    the last reply asked): how to answer where the owner is. The terminal has no buttons."""
    many = waiting > 1
    if client == "page":
        if many:
            return "Answer the questions with their Yes or No buttons."
        return "Answer the question with its Yes or No button."
    if client == "cli":
        if many:
            return "Type 'questions' to answer the questions waiting, each at its [y/N] prompt."
        return "Type 'questions' to answer the question waiting at its [y/N] prompt."
    return (
        f"Answer the question{'s' if many else ''} waiting with Yes or No: on the phone page, "
        "or type 'questions' in commonplace chat."
    )


def answered_meanwhile(yes: bool, question: str, result: str) -> str:
    """The line under a reply the model wrote before it could hear the owner's answer."""
    said = "Yes" if yes else "No"
    return f"(While this reply was written, you answered {said} to: {question} Result: {result})"
