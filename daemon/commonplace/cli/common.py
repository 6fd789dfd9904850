"""What every command shares: the settings on the context, logging, user-grade errors."""

from __future__ import annotations

import asyncio
import logging
import os
from collections.abc import Coroutine
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

import click

from commonplace.config import ConfigError, Settings, load_settings, set_vault
from commonplace.daemon.dataformat import NewerDataFolder, refuse_newer
from commonplace.firstrun.sample import sample_env, sample_paths
from commonplace.llm import LLM, LLMError

if TYPE_CHECKING:
    from commonplace.index import Index

T = TypeVar("T")


def settings_from(
    ctx: click.Context,
    *,
    vault: Path | None = None,
    port: int | None = None,
    check_data: bool = True,
) -> Settings:
    """Load the settings once per invocation; a bad config is one clear line, not a traceback.

    `vault` and `port` (run's --vault, --port) take the place of the config's, checked as the
    config's are. Unless `check_data` is off (doctor reports it as a check), a data folder a
    newer commonplace wrote stops the command here, in one line, before it is read or written.
    """
    obj = ctx.ensure_object(dict)
    if "settings" not in obj:
        env = dict(os.environ)
        if vault is not None:
            env["COMMONPLACE_VAULT"] = str(vault)
        if port is not None:
            env["COMMONPLACE_WEB_PORT"] = str(port)
        try:
            obj["settings"] = load_settings(obj.get("config_path"), env)
        except ConfigError as exc:
            raise click.ClickException(str(exc)) from None
    settings: Settings = obj["settings"]
    if check_data:
        try:
            refuse_newer(settings.data_path)
        except NewerDataFolder as exc:
            raise click.ClickException(str(exc)) from None
    return settings


def require_vault(settings: Settings) -> None:
    if not settings.vault.is_dir():
        hint = ""
        if not settings.vault_configured and sample_paths()[0].is_dir():
            hint = f" (or, for the sample vault `make run` uses: {sample_env()})"
        raise click.ClickException(
            f"the vault folder {settings.vault} does not exist; {set_vault(settings)}{hint}"
        )


def open_index(settings: Settings, llm: LLM) -> tuple[Index, bool]:
    """The search index, and whether this process may update it: not while the daemon writes
    it (it keeps the index fresh then). Raises IndexUnavailable."""
    from commonplace.index import Index, IndexBusy  # slow to import: only when needed

    try:
        return Index.open(settings, llm), True
    except IndexBusy:
        return Index.open(settings, llm, read_only=True), False


def run_async(coro: Coroutine[Any, Any, T]) -> T:
    """Run a coroutine for a command; model errors become a message, not a traceback."""
    try:
        return asyncio.run(coro)
    except LLMError as exc:
        raise click.ClickException(exc.to_person()) from None


def setup_logging(verbose: int) -> None:
    """INFO and above carry paths, counts, ids and timings, never the words of a note, a
    capture, a question or an answer; DEBUG (-vv) may, and says so when it is turned on."""
    level = logging.WARNING if verbose == 0 else logging.INFO if verbose == 1 else logging.DEBUG
    logging.basicConfig(level=level, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    for noisy in ("httpx", "httpcore", "aiohttp.access"):
        logging.getLogger(noisy).setLevel(max(level, logging.WARNING))
    if level == logging.DEBUG:
        logging.getLogger("commonplace").warning(
            "debug logging is on: this log may hold the words of notes, captures, questions "
            "and answers (INFO and above never do)"
        )
