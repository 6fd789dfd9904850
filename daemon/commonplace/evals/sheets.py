"""Grading sheets: one Markdown table per run folder, filled in by a person, read back.

Markdown, because the person grading keeps notes in Obsidian: the table is editable there (or
in any editor), with the model's output, its sources and the program's guess on each row and
an empty `grade` column. `commonplace eval grade SHEET` reads it back and sets the person's
grades beside the program's, per model and run.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from commonplace.evals.grading import parse_grade

FIXED_BEFORE = ("run", "item")
FIXED_AFTER = ("program", "grade", "comment")
_CELL_SPLIT = re.compile(r"(?<!\\)\|")
NOT_THE_TRUTH = (
    "The program's grade is a first guess made by simple rules (text found, notes cited); it is "
    "not the truth. A person's grade is the reference."
)


class SheetError(ValueError):
    """A sheet cannot be read; the message names the file and the row."""


@dataclass(frozen=True)
class SheetRow:
    """One row to grade: an item's output (one answer, one filing, one digest sentence)."""

    item: str
    cells: Mapping[str, str]  # the suite's own columns
    program: str  # the program's verdict, its first word a grade ("right", "unsupported")
    run: int = 0


@dataclass(frozen=True)
class Sheet:
    meta: dict[str, Any]
    columns: tuple[str, ...]
    rows: tuple[dict[str, str], ...]
    path: Path | None = None


@dataclass
class Tally:
    """Program and person grades of one model's run."""

    model: str
    run: str
    rows: int = 0
    program: float = 0.0
    program_graded: int = 0
    person: float = 0.0
    person_graded: int = 0
    disagree: list[str] = field(default_factory=list)


def _cell(text: str) -> str:
    flat = text.replace("\r\n", "\n").strip().replace("\n", "<br>")
    return flat.replace("|", "\\|")


def _uncell(text: str) -> str:
    return text.strip().replace("\\|", "|").replace("<br>", "\n")


def write_sheet(
    path: Path,
    meta: Mapping[str, Any],
    columns: Sequence[str],
    rows: Sequence[SheetRow],
    how_to_grade: str,
) -> Path:
    """Write the sheet; `columns` are the suite's own, between item and program."""
    header = [*FIXED_BEFORE, *columns, *FIXED_AFTER]
    head = yaml.safe_dump(dict(meta), sort_keys=False, allow_unicode=True)
    title = f"# Grading sheet: {meta.get('suite', '')}, {meta.get('model', '')}"
    lines = [
        "---",
        head.rstrip("\n"),
        "---",
        title,
        "",
        NOT_THE_TRUTH,
        "",
        how_to_grade,
        "",
        "Then run `commonplace eval grade " + path.name + "` (with the path to this file).",
        "",
        "| " + " | ".join(header) + " |",
        "|" + "|".join(" --- " for _ in header) + "|",
    ]
    for row in rows:
        values = [str(row.run), row.item, *(row.cells.get(c, "") for c in columns), row.program]
        lines.append("| " + " | ".join(_cell(v) for v in values) + " |  |  |")
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def read_sheet(path: Path) -> Sheet:
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise SheetError(f"{path}: cannot be read ({exc})") from None
    meta: dict[str, Any] = {}
    body = text
    if text.startswith("---\n"):
        end = text.find("\n---\n", 4)
        if end > 0:
            try:
                loaded = yaml.safe_load(text[4:end])
            except yaml.YAMLError as exc:
                raise SheetError(f"{path}: the block between the --- lines is not YAML") from exc
            meta = loaded if isinstance(loaded, dict) else {}
            body = text[end + 5 :]
    table = [ln for ln in body.splitlines() if ln.strip().startswith("|")]
    if len(table) < 2:
        raise SheetError(f"{path}: no grading table found (a Markdown table starting with '|')")
    columns = tuple(c.strip().lower() for c in _split(table[0]))
    missing = [c for c in (*FIXED_BEFORE, "program", "grade") if c not in columns]
    if missing:
        raise SheetError(f"{path}: the table has no {', '.join(missing)} column")
    rows = []
    for n, line in enumerate(table[2:], start=1):
        cells = [_uncell(c) for c in _split(line)]
        if len(cells) < len(columns):
            cells += [""] * (len(columns) - len(cells))
        rows.append(dict(zip(columns, cells, strict=False)))
        if not rows[-1]["item"]:
            raise SheetError(f"{path}: table row {n} has no item")
    return Sheet(meta, columns, tuple(rows), path)


def _split(line: str) -> list[str]:
    inner = line.strip()
    inner = inner[1:] if inner.startswith("|") else inner
    inner = inner[:-1] if inner.endswith("|") and not inner.endswith("\\|") else inner
    return _CELL_SPLIT.split(inner)


def tally(sheet: Sheet) -> list[Tally]:
    """Per run: the program's grades and the person's, and where they disagree."""
    model = str(sheet.meta.get("model") or "?")
    by_run: dict[str, Tally] = {}
    where = sheet.path or "sheet"
    for row in sheet.rows:
        t = by_run.setdefault(row["run"], Tally(model, row["run"]))
        t.rows += 1
        label = f"{row['item']} (run {row['run']})"
        try:
            program = parse_grade(row["program"])
            person = parse_grade(row["grade"])
        except ValueError as exc:
            raise SheetError(f"{where}: row {label}: {exc}") from None
        if program is not None:
            t.program += program
            t.program_graded += 1
        if person is not None:
            t.person += person
            t.person_graded += 1
            if program is not None and program != person:
                t.disagree.append(label)
    return list(by_run.values())


def _score(points: float, graded: int, rows: int, *, person: bool) -> str:
    if graded == 0:
        return "not graded yet" if person else "-"
    shown = f"{points:g}/{graded} ({100 * points / graded:.0f}%)"
    return shown + (f", {graded} of {rows} graded" if person and graded < rows else "")


def format_table(tallies: Sequence[Tally]) -> list[str]:
    """The table 'model | run | graded by the program | graded by a person', then disagreements."""
    header = ("model", "run", "graded by the program", "graded by a person")
    body = [
        (
            t.model,
            t.run,
            _score(t.program, t.program_graded, t.rows, person=False),
            _score(t.person, t.person_graded, t.rows, person=True),
        )
        for t in tallies
    ]
    widths = [max(len(r[i]) for r in (header, *body)) for i in range(len(header))]
    lines = [
        " | ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)).rstrip()
        for r in (header, *body)
    ]
    lines.insert(1, "-|-".join("-" * w for w in widths))
    for t in tallies:
        if t.disagree:
            lines.append(
                f"{t.model} run {t.run}: the program and the person disagree on "
                f"{len(t.disagree)}: {', '.join(t.disagree)}"
            )
    return lines
