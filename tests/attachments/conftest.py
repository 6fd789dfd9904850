"""Attachments: the real pypdfium2 and the real Tesseract (skipped where it is not installed)."""

from __future__ import annotations

import dataclasses
import shutil

import pytest

from commonplace.config import Settings

needs_tesseract = pytest.mark.skipif(
    shutil.which("tesseract") is None, reason="Tesseract is not installed (make test installs it)"
)

PHRASES = {
    1: "The orchard ledger lists forty pear trees planted along the northern wall.",
    2: "Irrigation runs from the spring cistern every second morning in July.",
    3: "The beekeeper moves the third hive beside the quince hedge before the frost arrives.",
}


def pages(prefix: str = "") -> list[str]:
    """Three pages, each with more text than the OCR threshold, page 3 saying the phrase."""
    return [f"{prefix}Page {n}. {PHRASES[n]} " * 2 for n in (1, 2, 3)]


def fast(settings: Settings, **attachments: object) -> Settings:
    return dataclasses.replace(
        settings, attachments=dataclasses.replace(settings.attachments, **attachments)
    )


from tests.index.conftest import isettings, open_index  # noqa: E402, F401  (the index fixtures)
from tests.server.conftest import make_client, web_settings  # noqa: E402, F401  (the server's)
