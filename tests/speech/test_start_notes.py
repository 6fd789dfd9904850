"""What the daemon says about dictation at start-up: quiet when it was never set up."""

from __future__ import annotations

import dataclasses
import logging
from pathlib import Path

import pytest

from commonplace.config import Settings
from commonplace.daemon.run import start_notes


def test_dictation_never_set_up_is_one_info_line_and_no_warning(
    settings: Settings, caplog: pytest.LogCaptureFixture
) -> None:
    """Every start warned, in a 300-character line, and the phone page's More view and the
    Obsidian plugin's status showed it twice or as a warning; an unset model is a choice."""
    with caplog.at_level(logging.INFO, logger="commonplace"):
        notes = start_notes(settings)
    assert notes == []
    (record,) = [r for r in caplog.records if "dictation" in r.getMessage().lower()]
    assert record.levelno == logging.INFO and len(record.getMessage()) < 100


def test_a_whisper_model_set_but_missing_is_a_note(settings: Settings, tmp_path: Path) -> None:
    missing = tmp_path / "ggml-base.en.bin"
    speech = dataclasses.replace(settings.speech, whisper_model=str(missing))
    (note,) = start_notes(dataclasses.replace(settings, speech=speech))
    assert note.startswith("Dictation is off: the whisper model") and str(missing) in note
