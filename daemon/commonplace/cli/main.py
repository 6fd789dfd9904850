"""Entry point of the `commonplace` command."""

from __future__ import annotations

import importlib
from pathlib import Path

import click

from commonplace import __version__
from commonplace.cli.common import setup_logging

# Commands load on first use: the index's libraries take seconds to import, and `--help`,
# `doctor` or `run`'s start-up message should not wait for them. name -> (module:attr, summary)
COMMANDS: dict[str, tuple[str, str]] = {
    "init": ("init:init", "Set up: find the vault, write the config, check the model server."),
    "run": ("run:run", "Watch the vault, serve the phone page and run jobs until stopped."),
    "doctor": ("doctor:doctor", "Check the config, the vault, the model server and its models."),
    "index": ("index:index_command", "Bring the search index up to date with the vault."),
    "search": ("index:search_command", "Search the vault by meaning and keywords."),
    "tidy": ("tidy:tidy", "File captures from the inbox into notes."),
    "ask": ("ask:ask", "Answer a question from your notes, with its sources."),
    "chat": ("chat:chat", "Talk to the assistant; it asks before it changes anything."),
    "mcp": ("mcp:mcp", "Serve the vault to other AI clients over MCP (stdio or --http)."),
    "digest": ("digest:digest", "Write the weekly digest note."),
    "push": ("push:push", "Web push notifications."),
    "calendar": (
        "calendar:calendar_command",
        "List the calendar's events as the assistant sees them.",
    ),
    "briefing": ("briefing:briefing", "Print (and send) the morning briefing for a day."),
    "token": (
        "token:token",
        "Print (or --rotate) the token the Obsidian plugin and MCP clients send; list, revoke.",
    ),
    "service": ("service:service_group", "Keep the daemon running: install, status, logs."),
    "logs": ("logs:logs", "Show the daemon's log (-f: follow it)."),
    "plugin": ("plugin:plugin", "Install the Obsidian plugin into a vault; confirm a pairing."),
    "models": ("models:models", "The built-in engine's models: list, get, check, remove, add."),
    "eval": ("evals:eval_group", "Measure search, tidying, answers, the digest and dictation."),
}


class LazyGroup(click.Group):
    """A group whose commands are imported only when one of them runs."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return list(COMMANDS)

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        if cmd_name not in COMMANDS:
            return None
        module_name, attr = COMMANDS[cmd_name][0].split(":")
        module = importlib.import_module(f"commonplace.cli.{module_name}")
        command: click.Command = getattr(module, attr)
        return command

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        rows = [(name, summary) for name, (_, summary) in COMMANDS.items()]
        with formatter.section("Commands"):
            formatter.write_dl(rows)


@click.group(cls=LazyGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.option(
    "--config",
    "config_path",
    type=click.Path(dir_okay=False, path_type=Path),
    help="Config file (default: $COMMONPLACE_CONFIG or ~/.config/commonplace/commonplace.toml).",
)
@click.option("-v", "--verbose", count=True, help="More log output (-vv for debug).")
@click.version_option(__version__, prog_name="commonplace")
@click.pass_context
def cli(ctx: click.Context, config_path: Path | None, verbose: int) -> None:
    """Commonplace: a private, local AI companion for your Markdown vault."""
    ctx.ensure_object(dict)["config_path"] = config_path
    setup_logging(verbose)


def main() -> None:
    cli()
