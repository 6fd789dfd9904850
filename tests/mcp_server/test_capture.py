"""capture writes exactly one new file in the inbox, with the words exactly, and nothing else."""

from __future__ import annotations

import pytest

from commonplace.config import Settings
from commonplace.mcp.local import LocalBackend
from tests.mcp_server.conftest import connected, error_text, structured, vault_hashes

HEAD = "---\ncaptured: 2026-10-26T09:00\nvia: mcp\n---\n"


async def test_capture_writes_one_new_inbox_file_and_changes_nothing_else(
    mcp_settings: Settings, bare_backend: LocalBackend
) -> None:
    vault = mcp_settings.vault
    (vault / ".obsidian").mkdir()
    (vault / ".obsidian/app.json").write_text("{}")
    before = vault_hashes(vault)
    words = "  Ring the garage about the MOT — Thursday, not Friday.\r\n\n- [ ] ask about tyres\n"
    async with connected(mcp_settings, bare_backend, client_name="Claude Desktop") as client:
        saved = structured(await client.call_tool("capture", {"text": words}))
    after = vault_hashes(vault)
    assert saved["path"] == "Inbox/2026-10-26 0900.md"
    assert set(after) - set(before) == {"Inbox/2026-10-26 0900.md"}
    assert {k: after[k] for k in before} == before  # every other file, byte for byte
    assert (vault / saved["path"]).read_bytes() == (HEAD + words).encode("utf-8")


@pytest.mark.parametrize(
    "words",
    [
        "---\ntitle: looks like frontmatter\n---\nbut is the owner's text",
        "emoji 🌱 and Zoë Martín, right-to-left שלום",
        "x" * 100_000,
        "[[Passport]] ![[secret.png]] <script>alert(1)</script>",
    ],
)
async def test_the_words_are_kept_exactly(
    mcp_settings: Settings, bare_backend: LocalBackend, words: str
) -> None:
    async with connected(mcp_settings, bare_backend) as client:
        saved = structured(await client.call_tool("capture", {"text": words}))
    assert (mcp_settings.vault / saved["path"]).read_text(encoding="utf-8") == HEAD + words


async def test_two_captures_in_one_minute_are_two_files(
    mcp_settings: Settings, bare_backend: LocalBackend
) -> None:
    async with connected(mcp_settings, bare_backend) as client:
        first = structured(await client.call_tool("capture", {"text": "one"}))
        second = structured(await client.call_tool("capture", {"text": "two"}))
    assert (first["path"], second["path"]) == (
        "Inbox/2026-10-26 0900.md",
        "Inbox/2026-10-26 0900 2.md",
    )


@pytest.mark.parametrize(("words", "says"), [("   \n", "empty"), ("x" * 100_001, "100000")])
async def test_an_empty_or_huge_capture_is_refused_and_nothing_is_written(
    mcp_settings: Settings, bare_backend: LocalBackend, words: str, says: str
) -> None:
    before = vault_hashes(mcp_settings.vault)
    async with connected(mcp_settings, bare_backend) as client:
        result = await client.call_tool("capture", {"text": words})
    assert says in error_text(result)
    assert vault_hashes(mcp_settings.vault) == before
