"""The daemon's log file (runtime/logfile.py) and `commonplace logs`: in the platform's place,
bounded in size, readable by its owner only, and followed across a rotation."""

from __future__ import annotations

import logging
from pathlib import Path

import pytest
from click.testing import CliRunner

from commonplace.cli.main import cli
from commonplace.config import Settings
from commonplace.runtime import logfile
from commonplace.runtime.logfile import follow, log_path, logging_to_file, tail


def test_the_log_file_is_in_xdg_state_home_one_per_vault(
    settings: Settings, tmp_path: Path
) -> None:
    path = log_path(settings)
    assert path == tmp_path / "xdg-state" / "commonplace" / f"{settings.data_path.name}.log"


def test_the_log_file_holds_the_daemons_records_and_stays_bounded(
    settings: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(logfile, "MAX_BYTES", 2000)
    log = logging.getLogger("commonplace.test")
    with logging_to_file(settings) as path:
        assert path is not None
        for n in range(400):
            log.warning("line %d of the log", n)
    log.warning("after the block: not in the file")
    files = logfile.log_files(path)
    assert len(files) == logfile.BACKUPS + 1  # rotated, the oldest dropped
    assert all(f.stat().st_size <= 2000 + 200 for f in files)
    assert all(f.stat().st_mode & 0o077 == 0 for f in files)  # the rotated ones too
    assert path.parent.stat().st_mode & 0o077 == 0
    last = tail(path, 3)
    assert [line.rsplit(": ", 1)[1] for line in last] == [
        f"line {n} of the log\n" for n in (397, 398, 399)
    ]
    assert "not in the file" not in "".join(f.read_text() for f in files)


def test_follow_shows_new_lines_and_follows_a_rotation(tmp_path: Path) -> None:
    path = tmp_path / "x.log"
    path.write_text("old line\n")
    out: list[str] = []
    steps = iter(
        [
            lambda: path.open("a").write("one\n"),
            lambda: (path.rename(tmp_path / "x.log.1"), path.write_text("two\n")),
            lambda: path.open("a").write("three\n"),
        ]
    )
    rounds = [0]

    def sleep(_: float) -> None:
        rounds[0] += 1
        step = next(steps, None)
        if step is not None:
            step()

    follow(path, out.append, sleep=sleep, keep_going=lambda: rounds[0] < 5)
    assert "".join(out) == "one\ntwo\nthree\n"  # from the end as found, then every line


def test_logs_command_prints_the_tail_and_says_where(settings: Settings, tmp_path: Path) -> None:
    path = log_path(settings)
    env = {"COMMONPLACE_VAULT": str(settings.vault), "COMMONPLACE_DATA": str(tmp_path / "data")}
    missing = CliRunner().invoke(cli, ["logs"], env=env)
    assert missing.exit_code == 1 and f"no log yet at {path}" in missing.output
    path.parent.mkdir(parents=True)
    path.write_text("".join(f"line {n}\n" for n in range(100)))
    result = CliRunner().invoke(cli, ["logs", "-n", "2"], env=env)
    assert result.exit_code == 0, result.output
    assert result.output.endswith("line 98\nline 99\n")
    assert str(path) in result.output  # on stderr, mixed in by CliRunner
