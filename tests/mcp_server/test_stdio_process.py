"""`commonplace mcp` as a desktop client starts it: a subprocess on stdio with a near-empty
environment, while a real daemon (`commonplace run`) serves the same vault."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from mcp import Client, StdioServerParameters

from tests.daemon_process import Daemon
from tests.fakes.ollama import FakeOllama
from tests.mcp_server.conftest import structured


@pytest.mark.slow
async def test_commonplace_mcp_on_stdio_lists_the_tools_and_uses_the_daemon(
    vault: Path, tmp_path: Path, fake_ollama_thread: FakeOllama
) -> None:
    daemon = Daemon(vault, tmp_path / "data", fake_ollama_thread.url).start()
    try:
        # Only what a config entry's "env" gives it: the SDK passes PATH, HOME and the like.
        params = StdioServerParameters(
            command=sys.executable,
            args=["-m", "commonplace", "mcp"],
            env={
                "COMMONPLACE_CONFIG": str(daemon.data.parent / "commonplace.toml"),
                "COMMONPLACE_VAULT": str(vault),
                "COMMONPLACE_DATA": str(daemon.data),
                "COMMONPLACE_WEB_PORT": "0",  # as the daemon has it: its lock says where
                "COMMONPLACE_TIMEZONE": "Europe/London",
                "OLLAMA_HOST": fake_ollama_thread.url,
            },
        )
        async with Client(params, mode="legacy") as client:
            names = {t.name for t in (await client.list_tools()).tools}
            saved = structured(await client.call_tool("capture", {"text": "from a desktop app"}))
    finally:
        log = daemon.stop()
    assert names == {
        "search_notes",
        "ask_notes",
        "read_note",
        "list_tasks",
        "capture",
        "propose_add_task",
        "propose_complete_task",
        "propose_remember",
        "propose_forget",
    }
    # The capture went through the daemon (its log, not the MCP process's, has the line).
    assert f"capture saved: {saved['path']} (via mcp" in log


async def test_a_request_holding_half_a_character_is_answered_not_dropped(
    vault: Path, tmp_path: Path, dead_ollama_url: str
) -> None:
    """`"\\ud800"` is valid JSON (JavaScript writes a cut emoji so) but no text: the SDK's
    stdio reader dropped such a request without a word and the client waited for ever
    (audit10). It gets an error for its id now; nothing is saved; the next request is served."""
    import asyncio
    import json

    lines = [
        {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "initialize",
            "params": {
                "protocolVersion": "2025-06-18",
                "capabilities": {},
                "clientInfo": {"name": "probe", "version": "1"},
            },
        },
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {"jsonrpc": "2.0", "id": 2, "method": "tools/call",
         "params": {"name": "capture", "arguments": {"text": "cut \ud83d"}}},
        {"jsonrpc": "2.0", "id": 3, "method": "tools/list"},
    ]  # fmt: skip
    process = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "commonplace",
        "mcp",
        stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.DEVNULL,
        env={
            "COMMONPLACE_VAULT": str(vault),
            "COMMONPLACE_DATA": str(tmp_path / "data"),
            "COMMONPLACE_TIMEZONE": "Europe/London",
            "OLLAMA_HOST": dead_ollama_url,
            "HOME": str(tmp_path),
        },
    )
    assert process.stdin is not None and process.stdout is not None
    inbox_before = sorted((vault / "Inbox").iterdir()) if (vault / "Inbox").exists() else []
    process.stdin.write("".join(json.dumps(line) + "\n" for line in lines).encode())
    await process.stdin.drain()
    answers: dict[int, dict[str, object]] = {}
    try:
        async with asyncio.timeout(60):
            while 3 not in answers:
                answer = json.loads(await process.stdout.readline())
                answers[answer["id"]] = answer
    finally:
        process.stdin.close()
        await process.wait()
    error = answers[2]["error"]
    assert isinstance(error, dict) and error["code"] == -32602
    assert "half a character" in str(error["message"]) and "nothing was done" in error["message"]
    assert "result" in answers[3]
    inbox_after = sorted((vault / "Inbox").iterdir()) if (vault / "Inbox").exists() else []
    assert inbox_after == inbox_before
