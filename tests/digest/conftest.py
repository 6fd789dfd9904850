"""Digest fixtures: the sample vault with the fixture week filed, in either flavour."""

from __future__ import annotations

import dataclasses
import shutil
from pathlib import Path

import pytest

from commonplace.config import Settings
from tests.digest.week_fixture import Filed, file_week
from tests.push.conftest import receiver, receiver_thread

__all__ = ["receiver", "receiver_thread"]  # the push service on loopback, shared


@pytest.fixture
def week(settings: Settings) -> list[Filed]:
    """The fixture week filed into the Obsidian vault."""
    return file_week(settings)


@pytest.fixture
def logseq_settings(settings: Settings, tmp_path: Path) -> Settings:
    """The same vault as a Logseq graph: user notes under pages/, daemon folders too."""
    pages = settings.vault / "pages"
    pages.mkdir()
    for item in list(settings.vault.iterdir()):
        if item.name != "pages":
            shutil.move(str(item), pages / item.name)
    return dataclasses.replace(settings, flavor="logseq")
