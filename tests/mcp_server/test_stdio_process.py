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
