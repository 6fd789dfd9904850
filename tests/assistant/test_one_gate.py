"""All writes go through the one gate: read from the source, so a new tool cannot slip past it.

The assistant's code may write to the vault only inside an action's `run`, and only the gate's
`confirm` may call `run` (after the owner's Yes and the re-check).
"""

from __future__ import annotations

import ast
from pathlib import Path

import commonplace.assistant

PACKAGE = Path(commonplace.assistant.__file__).parent
WRITERS = {"atomic_write", "replace_file", "write_lines", "write_text", "write_bytes", "unlink"}
CALENDAR_WRITERS = {"add", "move", "delete"}  # CalendarClient's changes


def functions(tree: ast.AST) -> list[tuple[list[str], ast.AST]]:
    """Every call node with the names of the functions and classes it sits in."""
    found: list[tuple[list[str], ast.AST]] = []

    def visit(node: ast.AST, where: list[str]) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
                visit(child, [*where, child.name])
            else:
                if isinstance(child, ast.Call):
                    found.append((where, child))
                visit(child, where)

    visit(tree, [])
    return found


def called_name(call: ast.AST) -> str:
    assert isinstance(call, ast.Call)
    fn = call.func
    return fn.attr if isinstance(fn, ast.Attribute) else fn.id if isinstance(fn, ast.Name) else ""


def test_vault_writes_happen_only_inside_an_actions_run() -> None:
    offenders = []
    for path in PACKAGE.glob("*.py"):
        if path.name in ("vaultfiles.py", "conversation.py"):  # the write helper; the day log
            continue
        for where, call in functions(ast.parse(path.read_text())):
            if called_name(call) in WRITERS and "run" not in where:
                offenders.append(f"{path.name}: {'.'.join(where)} calls {called_name(call)}")
    assert offenders == []


def test_calendar_changes_happen_only_inside_an_actions_run() -> None:
    offenders, seen = [], 0
    for path in PACKAGE.glob("*.py"):
        for where, call in functions(ast.parse(path.read_text())):
            fn = call.func  # type: ignore[attr-defined]
            is_write = isinstance(fn, ast.Attribute) and fn.attr in CALENDAR_WRITERS
            if is_write and "calendar" in ast.unparse(fn.value):
                seen += 1
                if "run" not in where:
                    offenders.append(f"{path.name}: {'.'.join(where)} calls {fn.attr}")
    assert offenders == []
    assert seen == 3  # move, delete and add, each in its action's run


def test_only_the_gate_calls_an_actions_run() -> None:
    callers = []
    for path in PACKAGE.glob("*.py"):
        for where, call in functions(ast.parse(path.read_text())):
            fn = call.func  # type: ignore[attr-defined]
            if isinstance(fn, ast.Attribute) and fn.attr == "run":
                target = ast.unparse(fn.value)
                if target != "tool":  # a tool's run is a read or a Propose, never a change
                    callers.append(f"{path.name}:{'.'.join(where)}:{target}")
    assert callers == ["gate.py:confirm:action"]
