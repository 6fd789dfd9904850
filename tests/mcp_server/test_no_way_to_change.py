"""Read from the source: the MCP package writes to the vault only through write_capture, and no
path in it can answer the owner's questions or run a change.

The runtime tests show what the tools do; this shows there is no other code that could.
"""

from __future__ import annotations

import ast
from pathlib import Path

import commonplace.mcp
from tests.assistant.test_one_gate import WRITERS, called_name, functions

PACKAGE = Path(commonplace.mcp.__file__).parent
SOURCES = sorted(PACKAGE.glob("*.py"))
ANSWERS = {"answer", "_answer", "confirm", "respond"}  # the owner's Yes, a chat turn


def test_the_package_is_what_this_test_reads() -> None:
    assert {p.name for p in SOURCES} >= {"server.py", "local.py", "daemon_client.py", "http.py"}


def test_the_only_vault_write_is_a_new_capture() -> None:
    calls = [
        f"{path.name}:{'.'.join(where)}:{called_name(call)}"
        for path in SOURCES
        for where, call in functions(ast.parse(path.read_text()))
        if called_name(call) in WRITERS
    ]
    assert calls == []
    # write_capture is handed to a worker thread: every mention of a writer, by name.
    mentions = [
        path.name
        for path in SOURCES
        for node in ast.walk(ast.parse(path.read_text()))
        if isinstance(node, ast.Name) and node.id in WRITERS | {"write_capture"}
    ]
    assert mentions == ["local.py"]  # LocalBackend.capture; the daemon path POSTs /api/capture


def test_nothing_can_answer_a_question_or_run_a_change() -> None:
    for path in SOURCES:
        for where, call in functions(ast.parse(path.read_text())):
            assert called_name(call) not in ANSWERS, f"{path.name}:{'.'.join(where)}"
    daemon_paths = {
        node.value
        for path in SOURCES
        for node in ast.walk(ast.parse(path.read_text()))
        if isinstance(node, ast.Constant)
        and isinstance(node.value, str)
        and node.value.startswith("/api/")
    }
    assert daemon_paths == {
        "/api/search",
        "/api/ask",
        "/api/tasks",  # a read of the daemon's kept list
        "/api/capture",
        "/api/assistant/propose",
    }
