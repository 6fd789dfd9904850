"""The data folder's format (commonplace/daemon/dataformat.py): an older folder is brought
forward with the user's state kept, a newer one is refused in one line by every command."""

from __future__ import annotations

import json
from collections.abc import Iterator
from datetime import date, timedelta
from pathlib import Path

import pytest
from click.testing import CliRunner

from commonplace import __version__
from commonplace.cli.main import cli
from commonplace.config import load_settings
from commonplace.daemon import dataformat
from commonplace.daemon.dataformat import FORMAT, RECORD, Found, NewerDataFolder
from commonplace.index.manifest import INDEX_SCHEMA, Manifest
from commonplace.plugin.apitoken import get_or_create_token, token_path
from tests.daemon_process import Daemon, tidy_answer
from tests.fakes.ollama import FakeOllama

YESTERDAY = (date.today() - timedelta(days=1)).isoformat()


def make_format_1_folder(data_path: Path) -> dict[str, bytes]:
    """A data folder as commonplace wrote it before format.json: the user's state, and an
    index of an older layout. Returns the state files' bytes, by path relative to the folder."""
    data_path.mkdir(parents=True)
    get_or_create_token(token_path(data_path))
    push = data_path / "push"
    push.mkdir()
    (push / "subscriptions.json").write_text(
        json.dumps(
            [
                {
                    "endpoint": "https://push.example.org/send/abc",
                    "p256dh": "BPhone" + "A" * 81,
                    "auth": "c2VjcmV0c2VjcmV0c2VjcmV0",
                    "added": 1790000000.0,
                }
            ]
        )
    )
    days = data_path / "assistant"
    days.mkdir()
    (days / f"{YESTERDAY}.jsonl").write_text(
        json.dumps({"t": f"{YESTERDAY}T08:00:00+00:00", "kind": "user", "text": "hello"}) + "\n"
    )
    (data_path / "digests.json").write_text(
        json.dumps({"2026-W40": {"path": "Digests/2026-W40.md", "hash": "ab", "written": "x"}})
    )
    (data_path / "briefing.json").write_text(
        json.dumps({"days": {YESTERDAY: {"text": "Good morning", "made": "x", "sent": "x"}}})
    )
    index = data_path / "index"
    index.mkdir()
    manifest = Manifest(index / "manifest.sqlite")
    manifest.set_meta("schema", str(INDEX_SCHEMA - 1))
    manifest.close()
    kept = ("api-token", "push/subscriptions.json", f"assistant/{YESTERDAY}.jsonl")
    return {name: (data_path / name).read_bytes() for name in kept}


def records(data_path: Path) -> tuple[dict[str, object], dict[str, object]]:
    digests = json.loads((data_path / "digests.json").read_text())
    briefings = json.loads((data_path / "briefing.json").read_text())["days"]
    return digests, briefings


def test_a_new_folder_is_recorded_in_this_format_without_a_word(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    data = tmp_path / "data" / "vault-1234"
    found = dataformat.refuse_newer(data)
    assert found == Found(None)
    assert dataformat.bring_forward(data, found) == ""
    assert json.loads((data / RECORD).read_text()) == {"format": FORMAT, "version": __version__}
    assert dataformat.read_format(data) == Found(FORMAT, __version__)
    assert not caplog.records


def test_a_folder_with_only_what_comes_before_a_first_start_is_new(tmp_path: Path) -> None:
    data = tmp_path / "vault-1234"
    get_or_create_token(token_path(data))  # `commonplace token` before the first run
    (data / "daemon.lock").write_text("{}")
    assert dataformat.read_format(data) == Found(None)


def test_an_older_folder_is_brought_forward_once_and_its_state_kept(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    data = tmp_path / "vault-1234"
    state = make_format_1_folder(data)
    before = records(data)
    found = dataformat.refuse_newer(data)
    assert found == Found(1)
    caplog.clear()  # only what bringing it forward says
    message = dataformat.bring_forward(data, found)
    assert "format 1" in message and f"format {FORMAT}" in message
    assert [r.getMessage() for r in caplog.records] == [message]
    assert dataformat.read_format(data) == Found(FORMAT, __version__)
    assert {name: (data / name).read_bytes() for name in state} == state
    assert records(data) == before
    caplog.clear()
    assert dataformat.bring_forward(data, dataformat.refuse_newer(data)) == ""
    assert not caplog.records  # said once


def test_a_newer_folder_is_refused_in_one_line_naming_its_writer(tmp_path: Path) -> None:
    data = tmp_path / "vault-1234"
    data.mkdir()
    (data / RECORD).write_text(json.dumps({"format": FORMAT + 1, "version": "9.0.0"}))
    with pytest.raises(NewerDataFolder) as raised:
        dataformat.refuse_newer(data)
    text = str(raised.value)
    assert "\n" not in text
    assert "commonplace 9.0.0" in text and f"format {FORMAT + 1}" in text
    assert __version__ in text and "upgrade" in text


def test_an_unreadable_record_is_never_taken_for_an_older_format(tmp_path: Path) -> None:
    data = tmp_path / "vault-1234"
    data.mkdir()
    (data / RECORD).write_text("{not json")
    (data / "digests.json").write_text("{}")
    assert dataformat.read_format(data).format == FORMAT


def _newer(vault: Path, tmp_path: Path) -> Path:
    """The vault's data folder (as the commands find it), written by a newer commonplace."""
    env = {"COMMONPLACE_VAULT": str(vault), "COMMONPLACE_DATA": str(tmp_path / "data")}
    data_path = load_settings(env=env).data_path
    data_path.mkdir(parents=True)
    (data_path / RECORD).write_text(json.dumps({"format": FORMAT + 1, "version": "9.0.0"}))
    return data_path


@pytest.mark.parametrize("command", [["token"], ["index"], ["tidy"], ["run"]])
def test_every_command_stops_on_a_newer_folder_with_one_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, vault: Path, command: list[str]
) -> None:
    monkeypatch.setenv("COMMONPLACE_VAULT", str(vault))
    data_path = _newer(vault, tmp_path)
    result = CliRunner().invoke(cli, command)
    assert result.exit_code == 1
    lines = result.output.strip().splitlines()
    assert len(lines) == 1 and "commonplace 9.0.0" in lines[0], result.output
    assert [p.name for p in data_path.iterdir()] == [RECORD]  # nothing read, nothing made


def test_doctor_names_the_version_and_fails_on_a_newer_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, vault: Path
) -> None:
    monkeypatch.setenv("COMMONPLACE_VAULT", str(vault))
    monkeypatch.setenv("OLLAMA_HOST", "http://127.0.0.1:9")  # nothing answers there
    _newer(vault, tmp_path)
    result = CliRunner().invoke(cli, ["doctor"])
    assert f"ok   version: commonplace {__version__} (data format {FORMAT})" in result.output
    assert "FAIL data format: " in result.output and "9.0.0" in result.output


@pytest.fixture
def daemon(vault: Path, tmp_path: Path, fake_ollama_thread: FakeOllama) -> Iterator[Daemon]:
    fake_ollama_thread.chat_handler = tidy_answer("Filed thought")
    run = Daemon(vault=vault, data=tmp_path / "data", ollama_url=fake_ollama_thread.url)
    yield run
    run.stop()


@pytest.mark.slow
def test_the_daemon_brings_an_older_folder_forward_keeping_the_users_state(
    daemon: Daemon, vault: Path
) -> None:
    data_path = load_settings(
        env={"COMMONPLACE_VAULT": str(vault), "COMMONPLACE_DATA": str(daemon.data)}
    ).data_path
    state = make_format_1_folder(data_path)
    digests, briefings = records(data_path)
    token = (data_path / "api-token").read_text().strip()

    daemon.start()
    daemon.wait_until(
        lambda: (daemon.state() or {}).get("index", {}).get("notes", 0) > 0, "the index is rebuilt"
    )
    log = daemon.stop()
    assert log.count("brought forward to format") == 1, log
    assert "rebuilding the search index from the vault" in log  # the index's older layout
    assert dataformat.read_format(data_path) == Found(FORMAT, __version__)
    assert {name: (data_path / name).read_bytes() for name in state} == state
    now_digests, now_briefings = records(data_path)
    assert digests.items() <= now_digests.items()
    assert briefings.items() <= now_briefings.items()
    assert daemon.command("token").stdout.strip() == token

    daemon.start()
    log = daemon.stop()
    assert "brought forward" not in log  # said once, at the first start after the upgrade
