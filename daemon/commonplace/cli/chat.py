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
from commonplace.llm import LLM

EXIT_WORDS = {"quit", "exit", "bye", ":q"}


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
    assistant = build_assistant(settings, LLM(settings.ollama), tasks=tasks)
    stop = warm_in_background(tasks, rest=0.0)
    try:
        run_async(_session(assistant, " ".join(message)))
    finally:
        stop.set()


async def _session(assistant: Assistant, message: str) -> None:
    """One event loop for the whole session: the model client's connections live in it."""
    if message:
        await _one(assistant, message)
        return
    click.echo("Talk to your assistant ('quit' or Ctrl-D to stop).")
    await _ask_owner(assistant, assistant.today()[1].pending)
    while True:
        try:
            text = await asyncio.to_thread(
                click.prompt, "you", prompt_suffix="> ", default="", show_default=False
            )
        except (click.Abort, EOFError):
            click.echo()
            return
        if text.strip().lower() in EXIT_WORDS:
            return
        if text.strip():
            await _one(assistant, text)


async def _one(assistant: Assistant, text: str) -> None:
    try:
        turn = await assistant.respond(text)
    except ToolError as exc:
        raise click.ClickException(str(exc)) from None
    click.echo(f"assistant> {turn.reply}")
    if turn.answered is None:
        await _ask_owner(assistant, turn.pending)


async def _ask_owner(assistant: Assistant, pending: list[Proposal]) -> None:
    """Each waiting question, answered at the prompt; nothing runs on anything but 'y'."""
    for proposal in pending:
        if proposal.asked_by:
            click.echo(f"  ({proposal.asked_by})")
        yes = await asyncio.to_thread(click.confirm, f"  {proposal.question}", default=False)
        try:
            outcome = await assistant.answer(proposal.id, yes)
            click.echo(f"  {outcome.message}")
        except Refused as exc:
            click.echo(f"  {exc.message}")
