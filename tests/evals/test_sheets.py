"""Grading sheets: written with an empty grade column, filled by a person, read back, tallied."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from commonplace.evals.sheets import (
    NOT_THE_TRUTH,
    SheetError,
    SheetRow,
    format_table,
    read_sheet,
    tally,
    write_sheet,
)

META = {"suite": "ask", "model": "qwen3.5:9b", "runs": 2}


def fill(path: Path, grades: dict[tuple[str, str], str]) -> None:
    """What a person does: write a grade (and a comment) into rows of the table."""
    lines = []
    for line in path.read_text(encoding="utf-8").splitlines():
        match = re.match(r"^\| (\d+) \| (\w+) \|", line)
        if match and (match[1], match[2]) in grades:
            assert line.endswith("|  |  |"), "the grade and comment cells start empty"
            line = line[: -len("|  |  |")] + f"| {grades[match[1], match[2]]} | checked |"
        lines.append(line)
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


def sample_rows() -> list[SheetRow]:
    return [
        SheetRow("a01", {"answer": "It expires on\n9 Feb 2027 [1]"}, "right (facts 1/1)", run=1),
        SheetRow("a02", {"answer": "A | pipe"}, "wrong (facts 0/2)", run=1),
        SheetRow("a01", {"answer": "9 February 2027"}, "right (facts 1/1)", run=2),
        SheetRow("a02", {"answer": "10 years"}, "wrong (facts 1/2)", run=2),
    ]


def test_round_trip_with_a_persons_grades(tmp_path: Path) -> None:
    path = write_sheet(tmp_path / "sheet.md", META, ["answer"], sample_rows(), "Grade it.")
    text = path.read_text(encoding="utf-8")
    assert NOT_THE_TRUTH in text
    assert "| run | item | answer | program | grade | comment |" in text
    fill(path, {("1", "a01"): "1", ("1", "a02"): "0.5", ("2", "a01"): "0"})
    sheet = read_sheet(path)
    assert sheet.meta["model"] == "qwen3.5:9b"
    assert sheet.rows[0]["answer"] == "It expires on\n9 Feb 2027 [1]"
    assert sheet.rows[1]["answer"] == "A | pipe"
    assert [r["grade"] for r in sheet.rows] == ["1", "0.5", "0", ""]
    assert sheet.rows[0]["comment"] == "checked"
    run1, run2 = tally(sheet)
    assert (run1.program, run1.program_graded, run1.person, run1.person_graded) == (1, 2, 1.5, 2)
    assert run1.disagree == ["a02 (run 1)"]
    assert (run2.person, run2.person_graded, run2.disagree) == (0, 1, ["a01 (run 2)"])
    table = format_table([run1, run2])
    header = [c.strip() for c in table[0].split("|")]
    assert header == ["model", "run", "graded by the program", "graded by a person"]
    assert re.search(r"qwen3\.5:9b \| 1\s+\| 1/2 \(50%\)\s+\| 1\.5/2 \(75%\)", table[2])
    assert re.search(r"\| 2\s+\| 1/2 \(50%\)\s+\| 0/1 \(0%\), 1 of 2 graded", table[3])
    assert any("disagree on 1: a02 (run 1)" in line for line in table)


def test_ungraded_sheet_says_so(tmp_path: Path) -> None:
    path = write_sheet(tmp_path / "sheet.md", META, ["answer"], sample_rows()[:1], "Grade it.")
    (only,) = tally(read_sheet(path))
    assert "not graded yet" in format_table([only])[2]


def test_a_grade_that_is_not_one_names_the_row(tmp_path: Path) -> None:
    path = write_sheet(tmp_path / "sheet.md", META, ["answer"], sample_rows(), "Grade it.")
    fill(path, {("2", "a02"): "maybe"})
    with pytest.raises(SheetError, match=r"row a02 \(run 2\): 'maybe' is not a grade"):
        tally(read_sheet(path))


def test_a_file_without_a_table(tmp_path: Path) -> None:
    path = tmp_path / "notes.md"
    path.write_text("# Just a note\n", encoding="utf-8")
    with pytest.raises(SheetError, match="no grading table found"):
        read_sheet(path)
