"""`commonplace ask QUESTION`: an answer from the notes, its sources, and the program's checks."""

from __future__ import annotations

import dataclasses
import json
from datetime import date, datetime
from typing import TYPE_CHECKING

import click

from commonplace.ask import Answer, AskError, answer_question
from commonplace.cli.common import open_index, require_vault, run_async, settings_from
from commonplace.config import Settings
from commonplace.llm import LLM, make_llm

if TYPE_CHECKING:
    from commonplace.index import Index


@click.command()
@click.argument("question", nargs=-1, required=True)
@click.option("--json", "as_json", is_flag=True, help="Print the answer as JSON.")
@click.option(
    "--passages",
    type=click.IntRange(1, 50),
    default=None,
    help="How many passages the model sees (default: [ask] passages).",
)
@click.option(
    "--today",
    type=click.DateTime(formats=["%Y-%m-%d"]),
    default=None,
    help="Answer as if today were this date (YYYY-MM-DD), e.g. for the eval suite.",
)
@click.pass_context
def ask(
    ctx: click.Context,
    question: tuple[str, ...],
    as_json: bool,
    passages: int | None,
    today: datetime | None,
) -> None:
    """Answer QUESTION from your notes, citing the passages it used.

    The answer is followed by the source of each cited number and by the program's checks
    (citations that match no passage, an answer that cites nothing). When the notes don't hold
    the answer, the reply is "I can't find that in your notes."
    """
    settings = settings_from(ctx)
    require_vault(settings)
    if passages is not None:
        settings = dataclasses.replace(
            settings, ask=dataclasses.replace(settings.ask, passages=passages)
        )
    day = today.date() if today is not None else None
    try:
        answer = run_async(_ask(settings, " ".join(question), day))
    except AskError as exc:
        raise click.ClickException(str(exc)) from None
    if as_json:
        click.echo(json.dumps(answer.to_json(), ensure_ascii=False, indent=2))
    else:
        click.echo(render(answer))


async def _ask(settings: Settings, question: str, today: date | None) -> Answer:
    llm = make_llm(settings)
    index, writable = _open_index(settings, llm)
    try:
        if writable:
            await index.refresh()  # picks up what changed since the daemon (or we) last ran
        return await answer_question(question, index=index, llm=llm, settings=settings, today=today)
    finally:
        index.close()


def _open_index(settings: Settings, llm: LLM) -> tuple[Index, bool]:
    """The index, and whether we may update it (not while the daemon is writing it)."""
    from commonplace.index import IndexUnavailable  # slow; only when asking

    try:
        return open_index(settings, llm)
    except IndexUnavailable as exc:
        raise click.ClickException(f"the search index cannot be opened: {exc}") from None


def render(answer: Answer) -> str:
    """The answer, then the source of each cited number, then the checks."""
    lines = [answer.answer or "(no answer)"]
    if answer.sources:
        lines += ["", "Sources:"]
        for s in answer.sources:
            # As `search` and the Ask note show it: the heading itself, not its whole path,
            # which began with the title again ("Passport › Passport > Key dates").
            heading = s.last_heading
            where = s.title + (f" › {heading}" if heading and heading != s.title else "")
            meta = ", ".join(x for x in (s.path, s.note_date) if x)
            lines.append(f"  [{s.n}] {where} ({meta})")
            lines.append(f"      {s.text}")
    if answer.findings:
        lines += ["", "Checks:"]
        lines += [f"  - {f}" for f in answer.findings]
    return "\n".join(lines)
