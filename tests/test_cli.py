"""The command line as a user meets it: doctor, help, config errors, packaging."""

from __future__ import annotations

import subprocess
import sys
import zipfile
from pathlib import Path

import pytest
from click.testing import CliRunner

from commonplace.cli.main import cli
from tests.fakes.ollama import FakeOllama

REPO = Path(__file__).resolve().parents[1]


def test_doctor_reports_each_check(fake_ollama_thread: FakeOllama, vault: Path) -> None:
    result = CliRunner().invoke(cli, ["doctor"], env={"COMMONPLACE_VAULT": str(vault)})
    lines = result.output.splitlines()
    assert [line.split(":")[0] for line in lines] == [
        "ok   config",
        "ok   vault",
        "ok   data folder",
        "ok   timezone",
        "ok   ollama",
        "ok   chat model",
        "ok   embedding model",
    ]
    assert "24 notes" in result.output
    assert result.exit_code == 0


def test_doctor_names_the_model_to_pull(fake_ollama_thread: FakeOllama, vault: Path) -> None:
    env = {"COMMONPLACE_VAULT": str(vault), "COMMONPLACE_CHAT_MODEL": "qwen3.5:4b"}
    result = CliRunner().invoke(cli, ["doctor"], env=env)
    assert "FAIL chat model: qwen3.5:4b is not pulled; run: ollama pull qwen3.5:4b" in result.output
    assert "ok   embedding model" in result.output
    assert result.exit_code == 1


def test_doctor_with_ollama_down(dead_ollama_url: str, tmp_path: Path) -> None:
    env = {"OLLAMA_HOST": dead_ollama_url, "COMMONPLACE_VAULT": str(tmp_path / "missing")}
    result = CliRunner().invoke(cli, ["doctor"], env=env)
    assert "FAIL vault:" in result.output
    assert f"FAIL ollama: Ollama is not answering at {dead_ollama_url}" in result.output
    assert result.exit_code == 1


def test_bad_config_is_one_line_not_a_traceback(tmp_path: Path) -> None:
    config = tmp_path / "c.toml"
    config.write_text('flavor = "roam"\n')
    result = CliRunner().invoke(cli, ["--config", str(config), "doctor"])
    assert result.exit_code == 1
    assert result.output.strip().startswith("Error:")
    assert "flavor = 'roam' is not allowed" in result.output
    assert "Traceback" not in result.output


def test_every_command_has_help() -> None:
    runner = CliRunner()
    for name, command in cli.commands.items():
        assert command.help, f"command {name} has no help text"
        result = runner.invoke(cli, [name, "--help"])
        assert result.exit_code == 0, result.output


@pytest.mark.slow
def test_wheel_ships_the_phone_page_and_the_sample_vault(tmp_path: Path) -> None:
    subprocess.run(
        [sys.executable, "-m", "hatchling", "build", "-t", "wheel", "-d", str(tmp_path)],
        cwd=REPO,
        check=True,
        capture_output=True,
    )
    (wheel,) = tmp_path.glob("commonplace-*.whl")
    names = set(zipfile.ZipFile(wheel).namelist())
    assert "commonplace/_data/web/index.html" in names
    assert "commonplace/_data/vault_fixture/Home.md" in names
    assert "commonplace/prompts/__init__.py" in names
    assert any(n.startswith("commonplace/_data/vault_fixture/captures/") for n in names)
