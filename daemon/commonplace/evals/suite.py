"""What a suite is: a dataset, a set-up, one function per item, figures and a report.

A suite is a `Suite` value built from plain functions; the runner does the rest (repeats,
fresh conversations, JSON Lines, the summary, the sheet). Adding one is a new module in
suites/ and a line in suites/__init__.py.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from commonplace.config import Settings
from commonplace.evals.sheets import SheetRow
from commonplace.llm import LLM

Item = dict[str, Any]


@dataclass
class SuiteEnv:
    """What a suite's functions get: settings for a temporary vault, the model, a work folder.

    `state` holds what `prepare` built (an index, a catalog) for the items to use; it is the
    same for every run, so runs differ only by what the model says. `info` is JSON-able facts
    about that set-up (index counts), kept in summary.json. `folder` and `run` let a suite keep
    a file of its own next to the run's JSON Lines.
    """

    settings: Settings
    llm: LLM
    datasets: Path
    workdir: Path
    folder: Path
    run: int = 0
    state: dict[str, Any] = field(default_factory=dict)
    info: dict[str, Any] = field(default_factory=dict)


class EvalError(Exception):
    """The eval cannot start or go on; the message says what to do."""


@dataclass(frozen=True)
class ItemResult:
    """One item's outputs and the program's grade, kept in the run's JSON Lines."""

    item: str
    record: dict[str, Any]  # output, the program's decisions, the program's grade
    rows: tuple[SheetRow, ...] = ()  # what a person grades (none for search)
    error: str | None = None  # the model failed on this item; it counts as not answered
    line: str = ""  # a few words for the progress line (default: the first row's grade)


async def _nothing(env: SuiteEnv) -> None:
    return None


@dataclass(frozen=True)
class Suite:
    name: str
    about: str  # one line: what it measures
    needs_chat: bool  # a chat model (search needs only the embedding model)
    needs_embed: bool  # an index over the vault
    load: Callable[[Path], list[Item]]  # the dataset's items, each with an "id"
    run_item: Callable[[SuiteEnv, Item], Awaitable[ItemResult]]
    figures: Callable[[Sequence[ItemResult]], dict[str, Any]]  # one run's figures
    report: Callable[[Mapping[str, Any]], list[str]]  # lines to print for those figures
    prepare: Callable[[SuiteEnv], Awaitable[None]] = _nothing  # once per invocation
    cleanup: Callable[[SuiteEnv], Awaitable[None]] = _nothing
    sheet_columns: tuple[str, ...] = ()  # empty: this suite writes no grading sheet
    how_to_grade: str = ""  # the sheet's instructions for the person grading
