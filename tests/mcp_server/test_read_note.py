"""read_note stays inside the vault: what a client may not read, whatever path it sends."""

from __future__ import annotations

import asyncio
import os
from pathlib import Path

import pytest

from commonplace.config import Settings
from commonplace.mcp.local import LocalBackend
from tests.mcp_server.conftest import connected, error_text

SECRET = "the words of a file outside the vault"


@pytest.fixture
def outside(mcp_settings: Settings, tmp_path: Path) -> Path:
    """A folder next to the vault, with a Markdown file, and links to it from inside the vault."""
    folder = tmp_path / "outside"
    folder.mkdir()
    (folder / "secret.md").write_text(SECRET, encoding="utf-8")
    vault = mcp_settings.vault
    (vault / "Linked secret.md").symlink_to(folder / "secret.md")
    (vault / "Linked folder").symlink_to(folder)
    (vault / ".obsidian").mkdir(exist_ok=True)
    (vault / ".obsidian/workspace.md").write_text("open panes", encoding="utf-8")
    (vault / "People/.draft.md").write_text("a hidden draft", encoding="utf-8")
    (vault / "Attachments").mkdir()
    (vault / "Attachments/scan.png").write_bytes(b"\x89PNG\r\n\x1a\n")
    return folder


@pytest.mark.parametrize(
    ("path", "says"),
    [
        ("../outside/secret.md", "inside the vault"),
        ("People/../../outside/secret.md", "inside the vault"),
        ("/etc/passwd", "inside the vault"),
        ("~/.ssh/id_rsa.md", "inside the vault"),
        ("Linked secret.md", "out of the vault"),
        ("Linked folder/secret.md", "out of the vault"),
        (".obsidian/workspace.md", "never read"),
        ("People/.draft.md", "never read"),
        ("Attachments/scan.png", "never read"),
        ("People\\Maya Collins.md", "give a note's path"),
        ("", "give a note's path"),
        ("People/Nobody.md", "no note"),
    ],
)
async def test_read_note_refuses(
    mcp_settings: Settings, bare_backend: LocalBackend, outside: Path, path: str, says: str
) -> None:
    async with connected(mcp_settings, bare_backend) as client:
        result = await client.call_tool("read_note", {"path": path})
    text = error_text(result)
    assert says in text
    assert SECRET not in text


async def test_a_fifo_named_like_a_note_is_refused_at_once(
    mcp_settings: Settings, bare_backend: LocalBackend
) -> None:
    """Opening a FIFO for reading waits for a writer that never comes."""
    os.mkfifo(mcp_settings.vault / "Pipe.md")
    async with connected(mcp_settings, bare_backend) as client:
        result = await asyncio.wait_for(client.call_tool("read_note", {"path": "Pipe.md"}), 10)
    assert "not an ordinary file" in error_text(result)
