"""`doctor` says what OCR adds and how to install it when Tesseract is missing."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from commonplace.attachments import ocr
from commonplace.cli.main import cli
from tests.attachments import makefiles
from tests.attachments.conftest import needs_tesseract, pages
from tests.fakes.ollama import FakeOllama


def test_without_tesseract_doctor_says_what_ocr_would_add(
    fake_ollama_thread: FakeOllama, vault: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    makefiles.text_pdf(vault / "Manual.pdf", pages())
    makefiles.screenshot(vault / "shot.png", "words")
    monkeypatch.setenv("PATH", str(vault / "no-programs-here"))
    ocr.ocr_status.cache_clear()
    try:
        out = CliRunner().invoke(cli, ["doctor"], env={"COMMONPLACE_VAULT": str(vault)}).output
    finally:
        ocr.ocr_status.cache_clear()
    assert (
        "warn attachments: 1 PDF(s) and 1 image(s) in the vault; Tesseract is not installed" in out
    )
    assert "scanned pages and images are not (OCR would make their words searchable)" in out
    assert "apt-get install tesseract-ocr" in out


@needs_tesseract
def test_with_tesseract_doctor_says_ocr_runs(fake_ollama_thread: FakeOllama, vault: Path) -> None:
    ocr.ocr_status.cache_clear()
    out = CliRunner().invoke(cli, ["doctor"], env={"COMMONPLACE_VAULT": str(vault)}).output
    assert "ok   attachments: 0 PDF(s) and 0 image(s) in the vault; OCR by Tesseract (eng)" in out


@needs_tesseract
def test_a_missing_language_is_named(monkeypatch: pytest.MonkeyPatch) -> None:
    ocr.ocr_status.cache_clear()
    status = ocr.ocr_status(("eng", "xyz"))
    assert not status.available
    assert "no data for xyz" in status.problem and "tesseract-ocr-xyz" in status.action
