"""`commonplace index` and `commonplace search`: the search index from the command line."""

from __future__ import annotations

import json
import logging
from typing import Any

import click

from commonplace.cli.common import open_index, require_vault, run_async, settings_from
from commonplace.index import SEARCH_MODES, Index, IndexBusy, IndexUnavailable, RefreshStats
from commonplace.llm import make_llm


@click.command("index")
@click.option(
    "--full", is_flag=True, help="Read every note again (unchanged chunks keep their vectors)."
)
@click.option("--json", "as_json", is_flag=True, help="Print the figures as JSON.")
@click.pass_context
def index_command(ctx: click.Context, full: bool, as_json: bool) -> None:
    """Bring the search index up to date with the vault."""
    settings = settings_from(ctx)
    require_vault(settings)

    async def go() -> RefreshStats:
        try:
            index = Index.open(settings, make_llm(settings))
        except IndexBusy:
            raise click.ClickException(
                "another commonplace process (the daemon?) is updating the index; it keeps the "
                "index up to date by itself, or stop it and run this again"
            ) from None
        try:
            stats = await index.refresh(full=full)
            reader = index.attachments
            if reader is not None and reader.due:
                total = len(reader.due)
                if not as_json:
                    click.echo(f"reading {total} attachment(s) (PDFs and images)...", err=True)

                def progress(path: str) -> None:
                    if not as_json:
                        click.echo(f"  {reader.done}/{total} {path}", err=True)

                await index.read_attachments(on_file=progress)
                now = index.status()
                stats.notes, stats.chunks = now["notes"], now["chunks"]
            if reader is not None:
                problems.update(reader.problems)
                attachments.update(index.status()["attachments"])
            return stats
        finally:
            index.close()

    problems: dict[str, Any] = {}
    attachments: dict[str, Any] = {}
    stats = run_async(go())
    if as_json:
        figures = stats.to_json()
        figures["attachments"] = {
            "indexed": attachments.get("indexed", 0),
            "problems": {p: {"code": v.code, "reason": v.reason} for p, v in problems.items()},
        }
        click.echo(json.dumps(figures, indent=2))
        return
    click.echo(
        f"{stats.notes} notes, {stats.chunks} chunks; {stats.embedded} chunks embedded now, "
        f"{stats.reused} reused; {stats.indexed} notes indexed, {stats.deleted} removed, "
        f"{stats.skipped} skipped; {stats.seconds:.2f} s"
    )
    if attachments:
        ocr = "" if attachments.get("ocr") else " (no OCR: see `commonplace doctor`)"
        click.echo(f"{attachments.get('indexed', 0)} attachments indexed{ocr}")
    for path, problem in sorted(problems.items()):
        click.echo(f"attachment {path}: {problem.reason}", err=True)
    for error in dict.fromkeys(stats.errors):
        click.echo(f"warning: {error}", err=True)
    if stats.vectors_pending:
        click.echo(
            f"warning: {stats.vectors_pending} note(s) wait for embeddings; keyword search "
            "finds them already, run this again when the model server is up",
            err=True,
        )


@click.command("search")
@click.argument("query", nargs=-1, required=True)
@click.option("--limit", "-n", type=click.IntRange(1, 1000), default=10, show_default=True)
@click.option("--mode", "-m", type=click.Choice(SEARCH_MODES), default="hybrid", show_default=True)
@click.option("--chunks", is_flag=True, help="List matching chunks, not one result per note.")
@click.option("--json", "as_json", is_flag=True, help="Print results as a JSON list.")
@click.pass_context
def search_command(
    ctx: click.Context,
    query: tuple[str, ...],
    limit: int,
    mode: str,
    chunks: bool,
    as_json: bool,
) -> None:
    """Search the vault by meaning and keywords; "quoted phrases" match exactly.

    One result per note, best first, with its best passage; --chunks lists the passages.
    """
    text = " ".join(query)
    if not text.strip():  # it found nothing and said "No matches.": the API answers 400
        raise click.UsageError("the search is empty: give some words to search for", ctx)
    settings = settings_from(ctx)
    require_vault(settings)

    async def go() -> tuple[list[dict[str, Any]], str, str | None]:
        from commonplace.index.highlight import query_terms, result_json

        # One try at the model: with its server down a search falls back to keywords at once and
        # says so, rather than waiting through the daemon's retries (7.5 s before).
        llm = make_llm(settings, retries=0)
        index, fresh = open_index(settings, llm)
        try:
            if fresh:
                await index.refresh()
            resp = await index.search(text, limit=limit, mode=mode, group_by_note=not chunks)
            terms = query_terms(text)
            return [result_json(r, terms) for r in resp.results], resp.mode, resp.notice
        finally:
            index.close()

    held = HeldWarnings()
    indexer_log = logging.getLogger("commonplace.index.indexer")
    indexer_log.addFilter(held)
    try:
        results, used, notice = run_async(go())
    except IndexUnavailable as exc:
        raise click.ClickException(str(exc)) from None
    finally:
        indexer_log.removeFilter(held)
    held.emit(unless_in=notice or "")
    if notice:
        click.echo(f"note: {notice}", err=True)
    if as_json:
        click.echo(json.dumps(results, indent=2, ensure_ascii=False))
        return
    if not results:
        click.echo("No matches.")
        return
    for n, r in enumerate(results, start=1):
        heading = r["heading"].split(" > ")[-1] if r["heading"] else ""
        where = r["title"] + (f" › {heading}" if heading and heading != r["title"] else "")
        if r.get("attachment"):
            where = r["label"]  # Manual.pdf, page 4
        click.echo(f"{n}. {where}  ({r['path']}, {r['score']:.3f}, {used})")
        click.echo(f"   {marked(r['snippet'], r['marks'])}")


class HeldWarnings(logging.Filter):
    """Holds back the index's "embeddings unavailable" warning during a search: the search's
    note says the same sentence (the error is the index's), and saying it twice reads as two
    problems. Emitted after all when the note does not say it (a keyword search has none)."""

    def __init__(self) -> None:
        super().__init__()
        self.held: list[logging.LogRecord] = []

    def filter(self, record: logging.LogRecord) -> bool:
        if str(record.msg).startswith("embeddings unavailable"):
            self.held.append(record)
            return False
        return True

    def emit(self, *, unless_in: str) -> None:
        for record in self.held:
            if not all(str(arg) in unless_in for arg in record.args or ()):
                logging.getLogger(record.name).handle(record)


def marked(text: str, marks: list[list[int]]) -> str:
    """The snippet with its marked words in bold (plain when the output is not a terminal)."""
    out: list[str] = []
    at = 0
    for start, end in marks:
        out += [text[at:start], click.style(text[start:end], bold=True)]
        at = end
    return "".join([*out, text[at:]])
