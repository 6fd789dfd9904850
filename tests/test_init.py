"""`commonplace init` on a fake home folder holding Obsidian's and Logseq's lists of vaults,
with a fake `tailscale` on PATH and the fake Ollama: what it finds, asks and writes."""

from __future__ import annotations

import json
import os
import shlex
import shutil
import tomllib
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from commonplace.cli.main import cli
from commonplace.config import load_settings, local_timezone_name
from commonplace.firstrun.vaults import find_vaults, logseq_graph_path, obsidian_vaults
from tests.conftest import FIXTURE
from tests.fakes.ollama import FakeOllama
from tests.fakes.service_tools import FakeTools, make_fake_tools


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A home folder where Obsidian knows two vaults (Notes opened last) and Logseq one graph."""
    home = tmp_path / "home"
    notes, old = home / "Notes", home / "Old vault"
    for vault in (notes, old):
        shutil.copytree(FIXTURE, vault, ignore=shutil.ignore_patterns("captures", "calendar"))
        (vault / ".obsidian").mkdir(exist_ok=True)
    graph = home / "graphs" / "My graph"
    (graph / "logseq").mkdir(parents=True)
    (graph / "logseq" / "config.edn").write_text('{:journal/page-title-format "MMM do, yyyy"}')
    (graph / "pages").mkdir()
    obsidian = tmp_path / "xdg-config" / "obsidian"  # $XDG_CONFIG_HOME/obsidian on Linux
    obsidian.mkdir(parents=True)
    listed = {
        "vaults": {
            "a1b2c3d4e5f60718": {"path": str(old), "ts": 1_700_000_000_000},
            "0f1e2d3c4b5a6978": {"path": str(notes), "ts": 1_764_000_000_000, "open": True},
            "deadbeefdeadbeef": {"path": str(home / "Gone"), "ts": 1_765_000_000_000},
        }
    }
    (obsidian / "obsidian.json").write_text(json.dumps(listed))
    graphs = home / ".logseq" / "graphs"
    graphs.mkdir(parents=True)
    cache = graphs / ("logseq_local_" + str(graph).replace("/", "++") + ".transit")
    cache.write_text("[]")
    os.utime(cache, (1_600_000_000, 1_600_000_000))  # opened long ago: listed last
    monkeypatch.setenv("HOME", str(home))
    return home


@pytest.fixture
def fake(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> FakeTools:
    return make_fake_tools(tmp_path, monkeypatch, tailscale=True)


def config_file(tmp_path: Path) -> Path:
    return tmp_path / "xdg-config" / "commonplace" / "commonplace.toml"


def init(*args: str, input: str | None = None) -> Result:
    return CliRunner().invoke(cli, ["init", *args], input=input)


def test_yes_takes_the_last_opened_vault_and_writes_only_what_was_chosen(
    home: Path, tmp_path: Path, fake: FakeTools, fake_ollama_thread: FakeOllama
) -> None:
    result = init("--yes")
    assert result.exit_code == 0, result.output
    path = config_file(tmp_path)
    raw = tomllib.loads(path.read_text())
    assert set(raw) == {"vault", "flavor", "timezone", "web"}
    assert raw["web"] == {"ts_name": "laptop.tail1234.ts.net", "owner_login": "you@example.com"}
    settings = load_settings(path, env={})
    assert settings.vault == home / "Notes" and settings.flavor == "obsidian"
    assert settings.timezone == local_timezone_name()
    assert path.stat().st_mode & 0o077 == 0
    out = result.output
    assert "3 vaults found; taking the last opened" in out  # Gone/ is not a folder any more
    assert "ok   chat model: qwen3.5:9b is pulled" in out and "ollama pull" not in out
    assert "tailscale serve --bg 8765" in out
    assert "https://laptop.tail1234.ts.net/" in out and "▀" in out  # the QR code
    assert "commonplace service install" in out and "Add to Home Screen" in out
    assert "commonplace plugin install --vault" in out and "commonplace plugin pair" in out
    assert fake.calls("tailscale") == [["status", "--json"]]
    text = path.read_text()
    assert "from Obsidian's list of vaults" in text and "an Obsidian vault" in text


def test_it_asks_which_vault_and_recognises_a_logseq_graph(
    home: Path, tmp_path: Path, fake: FakeTools, fake_ollama_thread: FakeOllama
) -> None:
    result = init(input="3\nEurope/Lisbon\nn\n")  # the graph; a zone; no Tailscale
    assert result.exit_code == 0, result.output
    assert "1. " + str(home / "Notes") in result.output
    assert "3. " + str(home / "graphs" / "My graph") + "  (Logseq" in result.output
    settings = load_settings(config_file(tmp_path), env={})
    assert settings.vault == home / "graphs" / "My graph"
    assert settings.flavor == "logseq" and settings.timezone == "Europe/Lisbon"
    assert settings.web.ts_name == "" and "[web]" not in config_file(tmp_path).read_text()
    assert "in Obsidian" not in result.output  # a Logseq graph has no plugin


def test_each_missing_model_gets_its_pull_line(
    home: Path, tmp_path: Path, fake: FakeTools, fake_ollama_thread: FakeOllama
) -> None:
    fake_ollama_thread.models = ["nomic-embed-text:latest"]
    result = init("--yes", "--chat-model", "llama3.2:3b")
    assert result.exit_code == 0, result.output
    assert "run: ollama pull llama3.2:3b" in result.output
    assert "ollama pull nomic-embed-text" not in result.output
    assert "get Ollama ready" in result.output
    assert tomllib.loads(config_file(tmp_path).read_text())["model"] == {
        "chat_model": "llama3.2:3b"
    }


def test_no_ollama_says_so_and_names_both_pulls(
    home: Path, fake: FakeTools, dead_ollama_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With neither Ollama nor the built-in model, one message names both ways."""
    monkeypatch.setenv("OLLAMA_HOST", dead_ollama_url)
    monkeypatch.setattr("commonplace.llm.builtin.models_ready", lambda settings: False)
    result = init("--yes")
    assert result.exit_code == 0, result.output
    assert f"FAIL model: No model is available: Ollama is not answering at {dead_ollama_url}" in (
        result.output
    )
    assert "ollama pull qwen3.5:9b" in result.output
    assert "ollama pull nomic-embed-text" in result.output
    assert "commonplace models get" in result.output
    assert "get the model ready" in result.output


def test_an_existing_config_is_kept_unless_forced_and_then_backed_up(
    home: Path, tmp_path: Path, fake: FakeTools, fake_ollama_thread: FakeOllama
) -> None:
    path = config_file(tmp_path)
    path.parent.mkdir(parents=True)
    path.write_text('vault = "~/Mine"\n# my own notes on this file\n')
    refused = init("--yes")
    assert refused.exit_code == 1 and "--force" in refused.output
    assert path.read_text() == 'vault = "~/Mine"\n# my own notes on this file\n'
    forced = init("--yes", "--force")
    assert forced.exit_code == 0, forced.output
    (backup,) = path.parent.glob("commonplace.toml.*.bak")
    assert backup.read_text() == 'vault = "~/Mine"\n# my own notes on this file\n'
    assert f"kept as {backup}" in forced.output
    assert load_settings(path, env={}).vault == home / "Notes"


def test_every_question_has_a_flag(
    home: Path, tmp_path: Path, fake: FakeTools, fake_ollama_thread: FakeOllama
) -> None:
    plain = tmp_path / "plain"
    plain.mkdir()
    result = init(
        "--vault", str(plain), "--timezone", "Asia/Tokyo", "--port", "8770",
        "--ts-name", "box.tail9.ts.net.", "--owner-login", "me@example.org",
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    raw = tomllib.loads(config_file(tmp_path).read_text())
    assert raw["vault"] == str(plain) and raw["flavor"] == "obsidian"
    assert raw["timezone"] == "Asia/Tokyo"
    assert raw["web"] == {
        "port": 8770,
        "ts_name": "box.tail9.ts.net",
        "owner_login": "me@example.org",
    }
    assert "plain folder of Markdown" in config_file(tmp_path).read_text()
    assert "tailscale serve --bg 8770" in result.output
    assert fake.calls("tailscale") == []  # given: Tailscale is not asked


def test_without_tailscale_the_page_is_said_to_be_local(
    home: Path, tmp_path: Path, fake: FakeTools, fake_ollama_thread: FakeOllama,
    monkeypatch: pytest.MonkeyPatch,
) -> None:  # fmt: skip
    fake.only_fakes(monkeypatch)
    (fake.bin_dir / "tailscale").unlink()
    result = init("--yes")
    assert result.exit_code == 0, result.output
    assert "tailscale is not installed, so the phone page is on this computer only" in (
        result.output
    )
    assert "[web]" not in config_file(tmp_path).read_text()


def test_nothing_found_and_yes_asks_for_the_vault(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, fake: FakeTools
) -> None:
    empty = tmp_path / "empty-home"
    empty.mkdir()
    monkeypatch.setenv("HOME", str(empty))
    result = init("--yes")
    assert result.exit_code == 1 and "--vault PATH" in result.output
    assert not config_file(tmp_path).exists()


def test_a_bad_timezone_is_refused_before_anything_is_written(
    home: Path, tmp_path: Path, fake: FakeTools
) -> None:
    result = init("--yes", "--timezone", "Mars/Olympus")
    assert result.exit_code == 1 and "not a known zone" in result.output
    assert not config_file(tmp_path).exists()


def test_the_lists_as_each_platform_keeps_them(tmp_path: Path) -> None:
    mac = tmp_path / "Library" / "Application Support" / "obsidian"
    mac.mkdir(parents=True)
    (mac / "obsidian.json").write_text(json.dumps({"vaults": {"x": {"path": "/Users/me/V"}}}))
    (found,) = obsidian_vaults(tmp_path, {}, "darwin")
    assert found.path == Path("/Users/me/V")
    appdata = tmp_path / "AppData" / "Roaming"
    (appdata / "obsidian").mkdir(parents=True)
    (appdata / "obsidian" / "obsidian.json").write_text(
        json.dumps({"vaults": {"y": {"path": "C:\\Users\\me\\V", "ts": 5}}})
    )
    (found,) = obsidian_vaults(tmp_path, {"APPDATA": str(appdata)}, "win32")
    assert found.app == "Obsidian" and found.last_opened == 0.005
    assert logseq_graph_path("logseq_local_++home++me++notes.transit") == Path("/home/me/notes")
    assert logseq_graph_path("logseq_local_C+3A+++Users++me.transit") == Path("C:/Users/me")
    assert logseq_graph_path("something-else.transit") is None
    (tmp_path / ".config" / "obsidian").mkdir(parents=True)
    (tmp_path / ".config" / "obsidian" / "obsidian.json").write_text("not json")
    assert find_vaults(tmp_path, {}, "linux") == []  # a broken list is no vault, no crash


def test_the_plugin_step_installs_the_plugin_into_the_vault(
    home: Path,
    tmp_path: Path,
    fake: FakeTools,
    fake_ollama_thread: FakeOllama,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The plugin is not in Obsidian's plugin directory: the step's command line installs the
    copy the program carries into the vault (a folder with a space in its name too)."""
    vault = home / "Old vault"
    result = init("--yes", "--vault", str(vault), "--port", "8799")
    assert result.exit_code == 0, result.output
    assert "install the Commonplace plugin (Settings > Community plugins)" not in result.output
    line = next(
        ln.split(": ", 1)[1]
        for ln in result.output.splitlines()
        if "commonplace plugin install" in ln
    )
    argv = shlex.split(line)
    assert argv[:3] == ["commonplace", "plugin", "install"]
    built = tmp_path / "built"
    built.mkdir()
    (built / "main.js").write_text("/* main */\n")
    (built / "styles.css").write_text("")
    (built / "manifest.json").write_text('{"id": "commonplace", "version": "0.1.0"}')
    files = {name: built / name for name in ("main.js", "manifest.json", "styles.css")}
    monkeypatch.setattr("commonplace.plugin.install.plugin_files", lambda: files)
    installed = CliRunner().invoke(cli, argv[1:])
    assert installed.exit_code == 0, installed.output
    plugin = vault / ".obsidian" / "plugins" / "commonplace"
    assert (plugin / "main.js").read_text() == "/* main */\n"
    assert "Settings > Community plugins" in result.output
    assert "commonplace plugin pair" in result.output
