"""The assistant's turn: the owner's message -> model -> tools -> checks -> the checked reply.

The model proposes; the program decides. Read tools answer at once. A changing tool only gets
its question written and stored (gate.py); the owner answers Yes or No through the page, the
API or the CLI, never the model. Every reply is checked (checks.py) before the owner sees it.

A turn can take a minute with a slow model, and the owner's Yes does not wait for it: a turn
holds the conversation's turn lock, an answer only the short lock around reading the day and
writing the answer (conversation.py). An answer given while a turn runs is told to the model
before its next call in that turn; a reply it wrote before the answer is written again, knowing
it. With no call left, the answer is shown under the reply and told at the next turn, once.

`now` is injected everywhere, and a conversation can live in memory, so the eval suite runs each
request in a fresh conversation at a fixed "now" with every tool call recorded.
"""

from __future__ import annotations

import asyncio
import json
import logging
import re
import time
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from datetime import date, datetime
from typing import Any

from commonplace import prompts
from commonplace.assistant import checks, said, steps
from commonplace.assistant.actions import Propose, ToolError
from commonplace.assistant.arguments import from_words
from commonplace.assistant.conversation import (
    Conversations,
    DayLog,
    DayState,
    answer_note,
    answered_since_last_message,
    asked_in_last_turn,
    asked_since_last_message,
    fold,
    proposal_day,
    ran_since_last_message,
    record_proposal,
)
from commonplace.assistant.days import day_list, day_name, day_name_year
from commonplace.assistant.gate import Proposal, Refused, confirm, describe, same_change
from commonplace.assistant.registry import Registry, ToolContext, coerce_arguments
from commonplace.calendar.text import timed_events
from commonplace.config import Settings
from commonplace.llm import LLM, ChatReply, ToolCall, call_message, tool_message

log = logging.getLogger(__name__)

MAX_ROUNDS = 8  # model calls for one owner message: tool rounds and reminders together
MAX_PROPOSALS = 5  # questions one owner message may raise
MAX_OUTSIDE_PENDING = 5  # questions from one outside source (MCP) waiting at once
# What an outside client may ask the owner about: tasks and the memory note, never the calendar
# (the README promises MCP clients cannot reach it; a move or delete would read it for them, and
# its question and errors would hand them the titles and times of the owner's events).
OUTSIDE_CHANGES = ("add_task", "complete_task", "remember", "forget")
MAX_CLIENT_NAME = 60  # characters of an outside client's name shown to the owner
TOOL_TIMEOUT_S = 30.0
GAVE_UP_REPLY = "Sorry, I couldn't finish that. Please ask again, perhaps more simply."
_YES = re.compile(
    r"^\s*(?:yes|y|yep|yeah|yes please|ok|okay|sure|go ahead|do it)\s*[.!]*\s*$", re.I
)
_NO = re.compile(r"^\s*(?:no|n|nope|no thanks|don't|do not|cancel that)\s*[.!]*\s*$", re.I)

Clock = Callable[[], datetime]
Emit = Callable[[dict[str, Any]], Awaitable[None]]
MemoryReader = Callable[[], str]


@dataclass(frozen=True)
class Outcome:
    ran: bool
    message: str


@dataclass(frozen=True)
class Proposed:
    """What `propose` did: the question now waiting (`new` False: it was waiting already)."""

    proposal: Proposal
    new: bool

    def to_json(self) -> dict[str, Any]:
        """The shape the API answers with and the MCP server reads."""
        p = self.proposal
        return {"id": p.id, "question": p.question, "new": self.new, "asked_by": p.asked_by}


@dataclass
class Turn:
    """What one owner message led to; everything the evals grade is here."""

    day: date
    reply: str = ""
    pending: list[Proposal] = field(default_factory=list)
    proposals: list[Proposal] = field(default_factory=list)  # made in this turn
    tool_calls: list[dict[str, Any]] = field(default_factory=list)  # name, arguments, result
    reminders: list[str] = field(default_factory=list)  # kinds sent
    corrections: list[str] = field(default_factory=list)  # notes appended to the reply
    model_text: str = ""  # the model's last reply before checks
    answered: Outcome | None = None  # the message was a typed Yes/No
    mode: str = ""  # how the model asked for tools: "native" tool calls, or "schema" (steps.py)
    repeated: bool = False  # the model made a call it had made already in this turn


class Assistant:
    """One owner's assistant: its tools, the gate, the day's conversation."""

    def __init__(
        self,
        settings: Settings,
        llm: LLM,
        registry: Registry,
        conversations: Conversations,
        *,
        memory: MemoryReader = lambda: "(nothing yet)",
        clock: Clock | None = None,
    ) -> None:
        self.settings = settings
        self.llm = llm
        self.registry = registry
        self.conversations = conversations
        self.memory = memory
        self.clock = clock or (lambda: datetime.now(settings.tz))

    def now(self) -> datetime:
        return self.clock().astimezone(self.settings.tz)

    # -- the owner's view -------------------------------------------------------------------

    def today(self, now: datetime | None = None) -> tuple[date, DayState]:
        now = now or self.now()
        log_ = self.conversations.day(now.date())
        return now.date(), log_.state()

    # -- a message ---------------------------------------------------------------------------

    async def respond(
        self,
        text: str,
        *,
        now: datetime | None = None,
        emit: Emit | None = None,
        client: checks.Client = "api",
    ) -> Turn:
        """Answer one owner message. `emit` gets preview events for a streamed reply:
        {"type": "delta", "text"}, {"type": "reset"} (the preview was not the answer),
        {"type": "status", "text"} (what the assistant is doing). `client` is where the reply
        is read ("page", "cli", or "api" when not known): the program's own sentences say how
        and where to answer a question there."""
        text = text.strip()
        if not text:
            raise ToolError("the message is empty")
        async with self.conversations.turn():
            now = now or self.now()
            day_log = self.conversations.day(now.date())
            typed = await self._typed_answer(text, day_log, now, client)
            if typed is not None:
                return typed
            day_log.append({"type": "user", "text": text}, now)
            # Read after the message is in: an answer given from here on comes after it in the
            # log, so it is either in this state (and the history) or told during the turn.
            state = day_log.state()
            try:
                turn = await self._turn(text, state, day_log, now, emit, client)
            except Exception as exc:
                day_log.append({"type": "error", "text": _error_text(exc)}, now)
                raise
            turn.pending = day_log.state().pending
            return turn

    async def _typed_answer(
        self, text: str, day_log: DayLog, now: datetime, client: checks.Client
    ) -> Turn | None:
        """A typed "yes" or "no" answers a question as its button would, but only the one
        question this chat raised in its last reply: never a question an outside client asked,
        nor an older one (the owner may be answering something else the assistant said)."""
        yes, no = bool(_YES.match(text)), bool(_NO.match(text))
        if not (yes or no):
            return None
        events = day_log.events()
        state = fold(events)
        if not state.pending:
            return None
        just_asked = asked_in_last_turn(events)
        candidates = [p for p in state.pending if p.id in just_asked and not p.source]
        turn = Turn(day=now.date())
        day_log.append({"type": "user", "text": text}, now)
        if len(candidates) == 1:
            try:
                async with self.conversations.locked():
                    turn.answered = await self._answer(candidates[0].id, yes, now)
                turn.reply = turn.answered.message
            except Refused as exc:  # "answered": it was answered meanwhile, on the page or y/n
                turn.reply = exc.message
        else:
            turn.reply = checks.typed_answer_refused(client, len(state.pending))
        day_log.append({"type": "reply", "text": turn.reply, "typed_answer": True}, now)
        turn.pending = day_log.state().pending
        return turn

    async def _turn(
        self,
        text: str,
        state: DayState,
        day_log: DayLog,
        now: datetime,
        emit: Emit | None,
        client: checks.Client,
    ) -> Turn:
        turn = Turn(day=now.date())
        ctx = ToolContext(self.settings, now, text)
        facts = checks.TurnFacts(
            user_text=text,
            pending=len(state.pending),
            ran_since_last_message=ran_since_last_message(day_log.events()),
            answered_since_last_message=answered_since_last_message(day_log.events()),
            domains=frozenset(t.looks_at for t in self.registry.tools.values() if t.looks_at),
            readers=self.registry.readers(),
            changers=frozenset(t.name for t in self.registry.tools.values() if t.changes),
            client=client,
        )
        heard = set(state.answers)  # answers the history below tells the model
        memory = await asyncio.to_thread(self.memory)  # a file read: off the event loop
        turn.mode = "schema" if await self._in_steps() else "native"
        messages: list[dict[str, Any]] = [
            {"role": "system", "content": self.instructions(now, memory, turn.mode)},
            *state.history(),
            {"role": "user", "content": text},
        ]
        reminders = prompts.sections("assistant_reminders")
        owner = said.read(text, now)
        seen: dict[str, str] = {}  # each call made this turn (its name and arguments): its answer
        must_call = False  # schema mode, just told to call the tool for a change: a tool, no reply
        for round_ in range(MAX_ROUNDS):
            _tell_answers_meanwhile(day_log, heard, messages, now)
            if turn.mode == "schema":
                reply = await steps.next_step(
                    self.llm,
                    messages,
                    self.registry,
                    round_,
                    tools=not turn.repeated,
                    reply=not must_call,
                    question=text,
                )
                must_call = False
            else:
                reply = await self.llm.chat_turn(
                    messages, tools=self.registry.schemas(), on_text=_delta(emit)
                )
            written = False  # the program's own reply, after a question in schema mode
            if reply.tool_calls:
                await _emit(emit, {"type": "reset"})
                made = call_message(reply.content, reply.tool_calls)
                messages.append(made)
                day_log.append({"type": "model", "message": made}, now)
                for call in reply.tool_calls:
                    await _emit(emit, {"type": "status", "text": self._status(call.name)})
                    record = await self._run(call, ctx, facts, turn, day_log, owner, seen)
                    turn.tool_calls.append(record)
                    answer = tool_message(call, record["result"])
                    messages.append(answer)
                    day_log.append({"type": "model", "message": answer}, now)
                # A small model's words after its question are where it claims the change was
                # made: in schema mode the program says what is true, and the turn ends.
                written = turn.mode == "schema" and bool(turn.proposals)
                if not written:
                    continue
            # From this last look at the day to the reply written, nobody answers (an answer
            # being run is waited for): the reply is true of every answer before it in the log.
            async with self.conversations.locked():
                _update_facts(day_log, facts)  # an answer may have come while the model wrote
                # One came: the reply may say the question still waits. The model hears it and
                # writes again while a call is left; else a line under the reply tells it.
                last = round_ == MAX_ROUNDS - 1 or written
                told = not last and _tell_answers_meanwhile(day_log, heard, messages, now)
                if written:
                    reply = ChatReply(content=checks.waiting_reply(facts))
                kind = None if told or written else checks.reminder_for(reply.content, facts)
                if not told and kind is None:
                    self._finish(turn, reply, facts, day_log, heard, now)
                    return turn
            await _emit(emit, {"type": "reset"})
            if kind is not None:
                must_call = kind == checks.NOT_DONE
                facts.reminders.add(kind)
                turn.reminders.append(kind)
                said_again = checks.reminder_text(kind, reminders[kind], reply.content, facts)
                nudge = [
                    {"role": "assistant", "content": reply.content},
                    {"role": "user", "content": said_again},
                ]
                messages.extend(nudge)
                for message in nudge:
                    day_log.append({"type": "model", "message": message}, now)
                log.info("assistant: reminder %s", kind)
        turn.reply = GAVE_UP_REPLY
        log.warning("assistant: no answer after %d model calls", MAX_ROUNDS)
        _record_reply(day_log, turn, now)
        return turn

    @staticmethod
    def _finish(
        turn: Turn,
        reply: ChatReply,
        facts: checks.TurnFacts,
        day_log: DayLog,
        heard: set[str],
        now: datetime,
    ) -> None:
        """The checked reply, written to the day. The caller holds conversations.locked()."""
        turn.model_text = reply.content
        turn.reply, turn.corrections = checks.correct(reply.content, facts)
        if reply.cut:  # the owner should know the end is missing, not guess it
            turn.corrections.append(checks.CUT_SHORT)
            turn.reply = f"{turn.reply}\n\n{checks.CUT_SHORT}"
        if turn.corrections:  # fixed sentences: no words of the owner's
            log.info("assistant: reply corrected (%s)", ", ".join(turn.corrections))
        # Answers the model never heard (no call was left to tell it): the owner reads them
        # under the reply, which may say otherwise. The model hears them after this turn.
        state = day_log.state()
        unheard = [(pid, event) for pid, event in state.answers.items() if pid not in heard]
        for proposal_id, event in unheard:
            asked = state.proposals.get(proposal_id)
            line = checks.answered_meanwhile(
                event["answer"] == "yes", asked.question if asked else "", event["message"]
            )
            turn.corrections.append(line)
            turn.reply = f"{turn.reply}\n\n{line}"
        if unheard:
            log.info("assistant: %d answers given meanwhile shown under the reply", len(unheard))
        _record_reply(day_log, turn, now)

    async def _run(
        self,
        call: ToolCall,
        ctx: ToolContext,
        facts: checks.TurnFacts,
        turn: Turn,
        day_log: DayLog,
        owner: said.Said,
        seen: dict[str, str],
    ) -> dict[str, Any]:
        """One call, recorded as the evals keep it: the owner's days and times put into its
        arguments (arguments.py), and a call made before in this turn not run again (a small
        model asks for the same list until its calls run out)."""
        record: dict[str, Any] = {"name": call.name, "arguments": call.arguments}
        tool = self.registry.tools.get(call.name)
        arguments: dict[str, Any] = dict(call.arguments)
        if tool is not None:
            arguments, changed = from_words(tool.roles(), call.arguments, owner, ctx.today)
            if changed:
                record["from_words"] = {name: arguments.get(name) for name in changed}
        key = f"{call.name} {json.dumps(arguments, sort_keys=True, default=str)}"
        if key in seen:
            turn.repeated = True
            record["repeated"] = True
            record["result"] = (
                f"Error: you called {call.name} with these arguments already, and its answer "
                "is above. Answer the owner from it now."
            )
            return record
        record["result"] = seen[key] = await self._call_tool(
            call, arguments, ctx, facts, turn, day_log
        )
        if tool is not None and tool.looks_at == "calendar" and not tool.changes:
            facts.shown.extend(timed_events(record["result"]))
        return record

    async def _call_tool(
        self,
        call: ToolCall,
        arguments: Mapping[str, Any],
        ctx: ToolContext,
        facts: checks.TurnFacts,
        turn: Turn,
        day_log: DayLog,
    ) -> str:
        """The tool's answer for the model; every failure is an `Error: ...` it can act on."""
        tool = self.registry.tools.get(call.name)
        facts.tools_called.append(call.name)
        if tool is None:
            return f"Error: there is no tool called {call.name}. Use only the tools you were given."
        started = time.monotonic()
        try:
            args = coerce_arguments(tool, arguments, ctx.today)
            # It ran, so it looked, even if it then found nothing or too much ("several tasks
            # match ..." shows the model the tasks).
            if tool.looks_at:
                facts.looked_at.add(tool.looks_at)
            if tool.searches_ahead:
                facts.searched_ahead = True
            async with asyncio.timeout(TOOL_TIMEOUT_S):
                result = await tool.run(ctx, args)
            if isinstance(result, Propose):
                if not tool.changes:
                    raise ToolError(f"{tool.name} cannot change anything")
                result = await self._propose(result, ctx.now, facts, turn, day_log)
        except ToolError as exc:
            return f"Error: {exc}"
        except TimeoutError:
            log.warning("assistant: tool %s took over %.0f s", call.name, TOOL_TIMEOUT_S)
            return f"Error: {call.name} took too long. Tell the owner it is not answering."
        except Exception:
            log.exception("assistant: tool %s failed", call.name)
            return f"Error: {call.name} failed. Tell the owner; the daemon's log has why."
        finally:
            log.debug("assistant: tool %s in %.2f s", call.name, time.monotonic() - started)
        return result

    async def _propose(
        self,
        request: Propose,
        now: datetime,
        facts: checks.TurnFacts,
        turn: Turn,
        day_log: DayLog,
    ) -> str:
        """The gate writes the question; it is stored, and the model told nothing changed."""
        same = (p for p in turn.proposals if same_change(request.kind, request.params, p))
        earlier = next(same, None)
        if earlier is not None:  # never the same question twice in one message
            return (
                f"Proposed already: {earlier.question} Do not propose it again; nothing has "
                "changed, and the owner answers Yes or No."
            )
        described = await describe(self.registry.actions, request, now)
        async with self.conversations.locked():
            waiting = day_log.state().pending
            if any(p.question == described.question for p in waiting):
                return (
                    f"Proposed already: {described.question} Nothing has changed: the owner "
                    "answers Yes or No."
                )
            if len(turn.proposals) >= MAX_PROPOSALS:
                raise ToolError(
                    f"{MAX_PROPOSALS} changes are already waiting for the owner in this message"
                )
            proposal = record_proposal(day_log, request, described.question, now)
        turn.proposals.append(proposal)
        facts.proposed += 1
        return f"Proposed: {proposal.question} Nothing has changed: the owner answers Yes or No."

    # -- a change asked for from outside the chat ----------------------------------------------

    async def propose(
        self,
        tool_name: str,
        arguments: Mapping[str, Any],
        *,
        source: str,
        client: str = "",
        now: datetime | None = None,
    ) -> Proposed:
        """A change an outside client (an MCP client) asks for becomes the owner's question.

        The same changing tool, the same argument coercion and the same gate as in the chat: the
        tool only finds the real task or line and the gate writes the question from it. The
        question is recorded in today's conversation, marked with who asked, and waits for the
        owner's Yes on the phone page or in `commonplace chat`. Nothing here runs a change, and
        the caller gets no way to answer: ToolError (a sentence the client can act on) when the
        request names no change, its arguments make no sense, or too many are waiting.
        """
        now = now or self.now()
        client = client_name(client)
        tool = self.registry.tools.get(tool_name)
        if tool is None or not tool.changes or tool_name not in OUTSIDE_CHANGES:
            known = ", ".join(n for n in OUTSIDE_CHANGES if n in self.registry.tools)
            raise ToolError(f"{tool_name!r} is not a change the owner can be asked about ({known})")
        ctx = ToolContext(self.settings, now)
        args = coerce_arguments(tool, arguments, ctx.today)
        try:
            async with asyncio.timeout(TOOL_TIMEOUT_S):
                request = await tool.run(ctx, args)
        except TimeoutError:
            raise ToolError(f"{tool_name} took too long; try again") from None
        if not isinstance(request, Propose):
            raise ToolError(f"{tool_name} did not propose a change")  # pragma: no cover
        described = await describe(self.registry.actions, request, now)
        day_log = self.conversations.day(now.date())
        async with self.conversations.locked():  # nobody asks the same between read and write
            waiting = day_log.state().pending
            same = next((p for p in waiting if p.question == described.question), None)
            if same is not None:
                return Proposed(same, new=False)
            if sum(1 for p in waiting if p.source == source) >= MAX_OUTSIDE_PENDING:
                raise ToolError(
                    f"{MAX_OUTSIDE_PENDING} questions from outside clients are already waiting "
                    "for the owner; wait until they answer them"
                )
            proposal = record_proposal(day_log, request, described.question, now, source, client)
        return Proposed(proposal, new=True)

    # -- the owner's Yes or No ---------------------------------------------------------------

    async def answer(self, proposal_id: str, yes: bool, *, now: datetime | None = None) -> Outcome:
        """The owner's answer to a question (the page, the API, the CLI; never the model).

        It does not wait for a turn the model is working on: only for another answer or a
        question being recorded, so that each question is answered once."""
        async with self.conversations.locked():
            return await self._answer(proposal_id, yes, now or self.now())

    async def _answer(self, proposal_id: str, yes: bool, now: datetime) -> Outcome:
        """The caller holds conversations.locked(): from the check that the question is
        unanswered to the answer written, nobody else answers it."""
        day = proposal_day(proposal_id)
        if day is None:
            raise Refused("unknown", "There is no such question.")
        if day != now.date():
            state = self.conversations.day(day).state() if day < now.date() else None
            if state is not None and proposal_id in state.proposals:
                raise Refused(
                    "expired",
                    f"That question was from {day_name(day)}; questions expire at the end "
                    "of their day. Nothing was changed: ask again.",
                )
            raise Refused("unknown", "There is no such question.")
        day_log = self.conversations.day(day)
        state = day_log.state()
        proposal = state.proposals.get(proposal_id)
        if proposal is None:
            raise Refused("unknown", "There is no such question.")
        if proposal_id in state.answers:
            earlier = state.answers[proposal_id]
            raise Refused("answered", f"That question was already answered: {earlier['message']}")
        if not yes:
            outcome = Outcome(False, "Nothing was changed.")
            self._record_answer(day_log, proposal, "no", outcome, now)
            return outcome
        try:
            message = await confirm(self.registry.actions, proposal, now)
        except Refused as exc:
            self._record_answer(day_log, proposal, "yes", Outcome(False, exc.message), now)
            log.info("assistant: %s refused at Yes (%s)", proposal.id, exc.code)
            raise
        except Exception as exc:
            log.exception("assistant: %s failed after Yes", proposal.id)
            text = (
                "The change could not be made or confirmed: "
                f"{_error_text(exc)} Check, then ask again if needed."
            )
            self._record_answer(day_log, proposal, "yes", Outcome(False, text), now)
            raise Refused("failed", text) from None
        outcome = Outcome(True, message)
        self._record_answer(day_log, proposal, "yes", outcome, now)
        log.info("assistant: %s ran after Yes", proposal.id)
        return outcome

    @staticmethod
    def _record_answer(
        day_log: DayLog, proposal: Proposal, answer: str, outcome: Outcome, now: datetime
    ) -> None:
        day_log.append(
            {
                "type": "answer",
                "id": proposal.id,
                "answer": answer,
                "ran": outcome.ran,
                "message": outcome.message,
            },
            now,
        )

    def _status(self, name: str) -> str:
        tool = self.registry.tools.get(name)
        if tool is not None and tool.status:
            return tool.status
        return "Writing the question…" if tool is not None and tool.changes else "Working…"

    # -- instructions ------------------------------------------------------------------------

    def instructions(self, now: datetime, memory: str | None = None, mode: str = "native") -> str:
        """The system prompt: rules, one line per tool, the coming days, the memory lines; in
        schema mode, each tool's arguments and how to answer in steps."""
        zone = self.settings.tz.key
        text = prompts.render(
            "assistant_system",
            tools=self.registry.summary(arguments=mode == "schema"),
            now=f"{day_name_year(now.date())}, {now:%H:%M} ({zone})",
            days=day_list(now),
            memory=self.memory() if memory is None else memory,
        )
        return f"{text}\n\n{prompts.render('assistant_steps')}" if mode == "schema" else text

    async def _in_steps(self) -> bool:
        """Schema mode (steps.py) or the server's tool calls: as set, or from what was found
        about the model (LLM.tool_calling), never from its name."""
        setting = self.settings.assistant.tool_calls
        if setting != "auto":
            return setting == "schema"
        return await self.llm.tool_calling() != "calls"


def client_name(name: str) -> str:
    """A client's name for the owner's page: its own claim, so one printable line, short."""
    printable = "".join(c if c.isprintable() else " " for c in name)
    return " ".join(printable.split())[:MAX_CLIENT_NAME]


def _record_reply(day_log: DayLog, turn: Turn, now: datetime) -> None:
    day_log.append(
        {
            "type": "reply",
            "text": turn.reply,
            "model_text": turn.model_text,
            "notes": turn.corrections,
            "reminders": turn.reminders,
        },
        now,
    )


def _tell_answers_meanwhile(
    day_log: DayLog, heard: set[str], messages: list[dict[str, Any]], now: datetime
) -> bool:
    """Answers the owner gave while this turn ran (a Yes on the page while the reply streamed)
    go to the model before its next call, worded as its next turn would hear them, and are
    recorded where it heard them, so it never hears one twice. Without this the model could
    ask again for what was just done, or tell the owner a question is still waiting.
    True when there was one to tell."""
    state = day_log.state()
    told = False
    for proposal_id, event in state.answers.items():
        if proposal_id in heard:
            continue
        heard.add(proposal_id)
        note = answer_note(event, state.proposals)
        messages.append(note)
        day_log.append({"type": "model", "message": note, "answer": proposal_id}, now)
        told = True
    return told


def _update_facts(day_log: DayLog, facts: checks.TurnFacts) -> None:
    """What the checks know about the day now: the questions waiting (and how many of them
    were asked after the owner's message), and whether a Yes ran."""
    events = day_log.events()
    pending = fold(events).pending
    facts.pending = len(pending)
    asked = asked_since_last_message(events)
    facts.pending_this_turn = sum(p.id in asked for p in pending)
    facts.ran_since_last_message = ran_since_last_message(events)
    facts.answered_since_last_message = answered_since_last_message(events)


def _delta(emit: Emit | None) -> Callable[[str], Awaitable[None]] | None:
    if emit is None:
        return None

    async def on_text(piece: str) -> None:
        await emit({"type": "delta", "text": piece})

    return on_text


async def _emit(emit: Emit | None, event: dict[str, Any]) -> None:
    if emit is not None:
        await emit(event)


def _error_text(exc: BaseException) -> str:
    from commonplace.llm import LLMError

    if isinstance(exc, LLMError | ToolError | Refused):
        return str(exc)
    return f"{type(exc).__name__}."
