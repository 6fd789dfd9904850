"""State files in the data folder: a broken file is read as empty, writes are atomic and private
files are the owner's alone from the first byte."""

from __future__ import annotations

import stat
from pathlib import Path

import pytest

from commonplace.runtime.statefile import read_json, write_json


def test_round_trip_keeps_order(tmp_path: Path) -> None:
    path = tmp_path / "sub" / "state.json"
    write_json(path, {"b": 1, "a": [1, "é"]})
    assert list(read_json(path)) == ["b", "a"]
    assert read_json(path) == {"b": 1, "a": [1, "é"]}
    assert [p.name for p in path.parent.iterdir()] == ["state.json"]  # no temp file left


def test_missing_file_is_none(tmp_path: Path) -> None:
    assert read_json(tmp_path / "nope.json") is None


def test_unreadable_file_is_none_and_logged(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    path = tmp_path / "state.json"
    path.write_text("{half a file")
    assert read_json(path) is None
    assert "cannot be read" in caplog.text


def test_private_file_is_owner_only(tmp_path: Path) -> None:
    path = tmp_path / "subscriptions.json"
    write_json(path, [{"endpoint": "https://push.example/x"}], private=True)
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    write_json(path, [], private=True)  # replacing keeps it private
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
