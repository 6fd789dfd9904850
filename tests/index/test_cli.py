"""`commonplace index` and `commonplace search` through click's CliRunner and the fake Ollama."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from commonplace.cli.main import cli
from tests.fakes.ollama import FakeOllama


@pytest.fixture
def env(vault: Path, tmp_path: Path, fake_ollama_thread: FakeOllama) -> dict[str, str]:
    return {
        "COMMONPLACE_VAULT": str(vault),
        "COMMONPLACE_DATA": str(tmp_path / "data"),
        "OLLAMA_HOST": fake_ollama_thread.url,
    }


def test_index_prints_counts_and_reuses_on_the_second_run(env: dict[str, str]) -> None:
    runner = CliRunner()
    first = runner.invoke(cli, ["index"], env=env)
    assert first.exit_code == 0, first.output
    assert "24 notes" in first.output and "chunks embedded now" in first.output

    again = runner.invoke(cli, ["index", "--full", "--json"], env=env)
    assert again.exit_code == 0, again.output
    stats = json.loads(again.output)
    assert stats["notes"] == 24 and stats["embedded"] == 0
    assert stats["reused"] == stats["chunks"] > 0 and stats["seconds"] >= 0


def test_search_json_lists_results(env: dict[str, str]) -> None:
    runner = CliRunner()
    result = runner.invoke(cli, ["search", "EZY6041", "--json", "--limit", "3"], env=env)
    assert result.exit_code == 0, result.output
    rows = json.loads(result.output)
    assert 1 <= len(rows) <= 3
    assert rows[0]["path"] == "Travel/Lisbon Trip.md"
    assert {"path", "title", "heading", "text", "score", "note_date"} <= set(rows[0])


def test_search_groups_by_note_unless_chunks_are_asked_for(env: dict[str, str]) -> None:
    runner = CliRunner()
    args = ["search", "sourdough", "starter", "feeding", "--json", "-n", "8"]
    grouped = json.loads(runner.invoke(cli, args, env=env).output)
    paths = [r["path"] for r in grouped]
    assert paths[0] == "Recipes/Sourdough Loaf.md" and len(set(paths)) == len(paths)
    first = grouped[0]
    assert [first["snippet"][a:b].lower() for a, b in first["marks"]]  # words are marked
    chunks = json.loads(runner.invoke(cli, [*args, "--chunks"], env=env).output)
    chunk_paths = [r["path"] for r in chunks]
    assert len(set(chunk_paths)) < len(chunk_paths)  # several passages of one note


def test_search_text_output_and_modes(env: dict[str, str]) -> None:
    runner = CliRunner()
    result = runner.invoke(
        cli, ["search", "parkrun", "PB", "--mode", "keyword", "-n", "2"], env=env
    )
    assert result.exit_code == 0, result.output
    assert "Log/Running Log.md" in result.output and "keyword" in result.output
    assert "1. Running Log" in result.output  # title (› heading), then path, score and mode
    bad = runner.invoke(cli, ["search", "x", "--mode", "fuzzy"], env=env)
    assert bad.exit_code != 0 and "fuzzy" in bad.output


@pytest.mark.parametrize("words", [[""], ["  ", "\t"]])
def test_an_empty_search_says_so_and_fails(env: dict[str, str], words: list[str]) -> None:
    """It printed "No matches." and succeeded, where the API answers 400 with this sentence."""
    result = CliRunner().invoke(cli, ["search", *words], env=env)
    assert result.exit_code == 2, result.output
    assert "the search is empty: give some words to search for" in result.output
    assert "No matches" not in result.output


def test_search_without_ollama_falls_back_with_a_note(
    vault: Path, tmp_path: Path, dead_ollama_url: str
) -> None:
    config = tmp_path / "fast.toml"
    config.write_text("[ollama]\nretries = 0\n")  # no backoff waits in a test
    env = {
        "COMMONPLACE_VAULT": str(vault),
        "COMMONPLACE_DATA": str(tmp_path / "d"),
        "OLLAMA_HOST": dead_ollama_url,
        "COMMONPLACE_CONFIG": str(config),
    }
    result = CliRunner().invoke(cli, ["search", "Pimiento", "--json"], env=env)
    assert result.exit_code == 0, result.output
    assert "keyword matches only" in result.stderr
    assert json.loads(result.stdout)[0]["path"] == "People/Zoë Martín.md"


def test_without_ollama_the_search_says_so_once(
    vault: Path, tmp_path: Path, dead_ollama_url: str
) -> None:
    """As a user runs it (its own process, its own log set-up): the index's warning and the
    search's note held the same sentence, printed twice. A keyword search, which has no note,
    still gets the warning (the index could not embed the notes)."""
    env = {
        **os.environ,
        "COMMONPLACE_VAULT": str(vault),
        "COMMONPLACE_DATA": str(tmp_path / "d"),
        "OLLAMA_HOST": dead_ollama_url,
    }
    for mode, says in [("hybrid", "note: Showing keyword matches only"), ("keyword", "WARNING")]:
        run = subprocess.run(
            [sys.executable, "-m", "commonplace", "search", "Pimiento", "--mode", mode],
            env=env, capture_output=True, text=True, timeout=120, check=True,
        )  # fmt: skip
        assert "Zoë Martín" in run.stdout
        assert run.stderr.count("Ollama is not answering") == 1, run.stderr
        assert says in run.stderr


def test_an_index_upgrade_waiting_for_a_running_daemon_says_to_restart_it(
    env: dict[str, str], tmp_path: Path
) -> None:
    """After an upgrade while the daemon runs, the index is still in the running daemon's
    (older) layout and only a writer may upgrade it: the search said "run 'commonplace index'
    or start the daemon", though one was running and the index command is refused while it
    runs. It says to restart the daemon now; with no daemon running, the advice is as before."""
    import sqlite3

    from commonplace.index.keywords import KeywordIndex
    from commonplace.index.store import MANIFEST
    from commonplace.runtime.lock import VaultLock

    runner = CliRunner()
    assert runner.invoke(cli, ["index"], env=env).exit_code == 0
    [data] = (tmp_path / "data").iterdir()  # this vault's data folder
    with sqlite3.connect(data / "index" / MANIFEST) as db:  # the older daemon's layout
        db.execute("UPDATE meta SET value = '1' WHERE key = 'keywords'")
    daemon = VaultLock.acquire(data)  # a daemon runs on this vault: this process stands in
    writer = KeywordIndex(data / "index" / "keywords", writable=True)  # and writes the index
    try:
        result = runner.invoke(cli, ["search", "sourdough"], env=env)
        assert result.exit_code == 1
        said = " ".join(result.output.split())
        assert "older layout" in said and f"pid {os.getpid()}" in said
        assert "still runs the version of commonplace it was started with: restart it" in said
        assert "run 'commonplace index'" not in said
        daemon.release()  # a 'commonplace index' run writes it, no daemon: as before
        result = runner.invoke(cli, ["search", "sourdough"], env=env)
        assert "run 'commonplace index' or start the daemon" in result.output
    finally:
        writer.close()
        daemon.release()


def test_missing_vault_is_a_clear_error(tmp_path: Path) -> None:
    env = {"COMMONPLACE_VAULT": str(tmp_path / "nope"), "COMMONPLACE_DATA": str(tmp_path / "d")}
    result = CliRunner().invoke(cli, ["index"], env=env)
    assert result.exit_code == 1 and "does not exist" in result.output
