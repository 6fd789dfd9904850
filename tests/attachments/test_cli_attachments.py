"""`commonplace index` reads the attachments and names the broken ones; `search` names pages."""

from __future__ import annotations

from pathlib import Path

from click.testing import CliRunner

from commonplace.cli.main import cli
from tests.attachments import makefiles
from tests.attachments.conftest import pages
from tests.fakes.ollama import FakeOllama


def test_index_reads_attachments_and_search_names_the_page(
    fake_ollama_thread: FakeOllama, vault: Path, tmp_path: Path
) -> None:
    env = {"COMMONPLACE_VAULT": str(vault), "OLLAMA_HOST": fake_ollama_thread.url}
    makefiles.text_pdf(vault / "Docs/Manual.pdf", pages())
    makefiles.encrypted_pdf(vault / "Locked.pdf")
    result = CliRunner().invoke(cli, ["index"], env=env)
    assert result.exit_code == 0, result.output
    assert "reading 2 attachment(s)" in result.output
    assert "1 attachments indexed" in result.output
    assert "attachment Locked.pdf: password-protected: not read" in result.output
    found = CliRunner().invoke(cli, ["search", "beekeeper quince hedge"], env=env)
    assert "1. Manual.pdf, page 3  (Docs/Manual.pdf," in found.output
