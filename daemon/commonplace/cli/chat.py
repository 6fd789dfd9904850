"""`commonplace chat`: the assistant in the terminal; its questions are answered y/n here.

The same engine, tools and day conversation as the phone page: a question asked on the phone
can be answered here and the other way round.
"""

from __future__ import annotations

import asyncio

import click

from commonplace.assistant import Assistant, Refused, ToolError, build_assistant
from commonplace.assistant.gate import Proposal
from commonplace.assistant.tasks import TaskReader, warm_in_background
from commonplace.cli.common import require_vault, run_async, settings_from
from commonplace.llm import make_llm

EXIT_WORDS = {"quit", "exit", "bye", ":q"}
QUESTION_WORDS = {"questions", "question", "?"}  # put the waiting questions at the prompt again
YES_WORDS = {"y", "yes"}
NO_WORDS = {"", "n", "no"}  # Enter is No, as the [y/N] says


@click.command()
@click.argument("message", nargs=-1)
@click.pass_context
def chat(ctx: click.Context, message: tuple[str, ...]) -> None:
    """Talk to the assistant (tasks, memory, calendar, weather).

    With MESSAGE, answer it and stop; without, keep going until 'quit' or Ctrl-D. Nothing is
    changed until you answer y to the question the program asks.
    """
    settings = settings_from(ctx)
    require_vault(settings)
    # The vault's to-dos are read here, not asked of a running daemon: read ahead from the
    # start, without rests (nothing else here needs the interpreter while the owner types),
    # so a first list_tasks on a big vault finds most of it read.
    tasks = TaskReader(settings)
    assistant = build_assistant(settings, make_llm(settings), tasks=tasks)
    stop = warm_in_background(tasks, rest=0.0)
    try:
        run_async(_session(assistant, " ".join(message)))
    finally:
        stop.set()


async def _session(assistant: Assistant, message: str) -> None:
    """One event loop for the whole session: the model client's connections live in it.

    Each question is put at a [y/N] prompt once in a session: one typed over stays waiting, and
    later replies only say in one line that it waits ('questions' puts it at the prompt again).
    It used to be asked again under every reply, taking the line meant for the next message."""
    shown: set[str] = set()  # ids of the questions already put at a prompt here
    try:
        if message:
            typed = await _one(assistant, message, shown)
        else:
            click.echo("Talk to your assistant ('quit' or Ctrl-D to stop).")
            typed = await _ask_owner(assistant, assistant.today()[1].pending, shown)
        while True:
            if typed is None and message:  # one message: done once nothing more was typed
                return
            text = typed if typed is not None else await _read_line("you> ")
            word = text.strip().lower()
            if word in EXIT_WORDS:
                return
            if word in QUESTION_WORDS:
                typed = await _ask_again(assistant, shown)
                continue
            typed = await _one(assistant, text, shown) if text.strip() else None
    except EOFError:
        click.echo()


async def _one(assistant: Assistant, text: str, shown: set[str]) -> str | None:
    """One message and its questions; returns what the owner typed instead of y or n."""
    try:
        turn = await assistant.respond(text, client="cli")
    except ToolError as exc:
        raise click.ClickException(str(exc)) from None
    click.echo(f"assistant> {turn.reply}")
    new = [p for p in turn.pending if p.id not in shown]
    if earlier := len(turn.pending) - len(new):
        click.echo(f"  {_still_waiting(earlier)}")
    if turn.answered is None:
        return await _ask_owner(assistant, new, shown)
    return None


async def _ask_again(assistant: Assistant, shown: set[str]) -> str | None:
    """'questions': every question still waiting, at the prompt again."""
    waiting = assistant.today()[1].pending
    if not waiting:
        click.echo("  (No question is waiting.)")
        return None
    return await _ask_owner(assistant, waiting, shown)


def _still_waiting(count: int) -> str:
    """The one line under a reply while questions already asked here wait for y or n."""
    if count == 1:
        return (
            "(A question asked earlier is still waiting: type 'questions' to answer it, "
            "or answer it on the phone page.)"
        )
    return (
        f"({count} questions asked earlier are still waiting: type 'questions' to answer "
        "them, or answer them on the phone page.)"
    )


async def _ask_owner(assistant: Assistant, pending: list[Proposal], shown: set[str]) -> str | None:
    """Each waiting question, answered y or n at the prompt (Enter is n); nothing runs on
    anything but y. Anything else typed is the owner's next message, not an answer (a question
    waiting from before the chat is easily typed over): it is returned to be sent, and this
    question and the rest stay waiting, for 'questions' here or the phone page."""
    for n, proposal in enumerate(pending):
        shown.add(proposal.id)
        if proposal.asked_by:
            click.echo(f"  ({proposal.asked_by})")
        reply = await _read_line(f"  {proposal.question} [y/N] ")
        word = reply.strip().lower()
        if word not in YES_WORDS | NO_WORDS:
            left = len(pending) - n
            click.echo(
                f"  (Not answered: {'it stays' if left == 1 else f'{left} questions stay'} "
                "waiting. Type 'questions' to answer later, or answer on the phone page.)"
            )
            return reply
        try:
            outcome = await assistant.answer(proposal.id, word in YES_WORDS)
            click.echo(f"  {outcome.message}")
        except Refused as exc:
            click.echo(f"  {exc.message}")
    return None


async def _read_line(prompt: str) -> str:
    """One line typed by the owner; EOFError at the end of input (Ctrl-D) or Ctrl-C."""
    try:
        return str(
            await asyncio.to_thread(
                click.prompt, prompt, prompt_suffix="", default="", show_default=False
            )
        )
    except click.Abort:
        raise EOFError from None
