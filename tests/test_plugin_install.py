"""`commonplace plugin install`: the release files into a vault's .obsidian/plugins/<id>/,
never over a different version without --force, never touching the plugin's own settings."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from commonplace.basics.resources import PLUGIN_FILES, plugin_files
from commonplace.cli.main import cli
from commonplace.plugin.install import InstallError, install_plugin


def built(tmp_path: Path, version: str = "0.2.0") -> dict[str, Path]:
    folder = tmp_path / f"build-{version}"
    folder.mkdir(parents=True)
    (folder / "main.js").write_text(f"/* main {version} */\n")
    (folder / "styles.css").write_text(".commonplace {}\n")
    manifest = {"id": "commonplace", "name": "Commonplace", "version": version}
    (folder / "manifest.json").write_text(json.dumps(manifest))
    return {name: folder / name for name in PLUGIN_FILES}


@pytest.fixture
def obsidian_vault(tmp_path: Path) -> Path:
    vault = tmp_path / "Notes"
    (vault / ".obsidian").mkdir(parents=True)
    return vault


def test_installs_the_three_files_and_keeps_the_plugins_settings(
    obsidian_vault: Path, tmp_path: Path
) -> None:
    folder = obsidian_vault / ".obsidian" / "plugins" / "commonplace"
    folder.mkdir(parents=True)
    (folder / "data.json").write_text('{"daemonUrl": "https://laptop.ts.net"}')
    done = install_plugin(obsidian_vault, files=built(tmp_path))
    assert done.folder == folder and done.version == "0.2.0" and not done.unchanged
    assert sorted(p.name for p in folder.iterdir()) == [
        "data.json",
        "main.js",
        "manifest.json",
        "styles.css",
    ]
    assert (folder / "data.json").read_text() == '{"daemonUrl": "https://laptop.ts.net"}'
    assert install_plugin(obsidian_vault, files=built(tmp_path / "again")).unchanged


def test_a_different_version_is_replaced_only_with_force(
    obsidian_vault: Path, tmp_path: Path
) -> None:
    install_plugin(obsidian_vault, files=built(tmp_path, "0.3.0"))
    with pytest.raises(InstallError, match=r"version 0\.3\.0 .* this is 0\.2\.0.*--force"):
        install_plugin(obsidian_vault, files=built(tmp_path, "0.2.0"))
    main = obsidian_vault / ".obsidian" / "plugins" / "commonplace" / "main.js"
    assert main.read_text() == "/* main 0.3.0 */\n"  # untouched
    done = install_plugin(obsidian_vault, files=built(tmp_path / "f", "0.2.0"), force=True)
    assert done.replaced == "0.3.0" and main.read_text() == "/* main 0.2.0 */\n"


def test_a_folder_that_is_no_vault_and_an_unbuilt_plugin_say_what_to_do(tmp_path: Path) -> None:
    plain = tmp_path / "plain"
    plain.mkdir()
    with pytest.raises(InstallError, match=r"no \.obsidian folder: open it in Obsidian once"):
        install_plugin(plain, files=built(tmp_path))
    files = built(tmp_path / "x")
    del files["main.js"]
    with pytest.raises(InstallError, match=r"main\.js is not built: run 'make plugin'"):
        install_plugin(plain, files=files)


def test_the_command_installs_and_says_to_enable_it(
    obsidian_vault: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("commonplace.plugin.install.plugin_files", lambda: built(tmp_path))
    runner = CliRunner()
    result = runner.invoke(cli, ["plugin", "install", "--vault", str(obsidian_vault)])
    assert result.exit_code == 0, result.output
    assert "Installed Commonplace 0.2.0" in result.output
    assert "Community plugins" in result.output and "enable" in result.output
    assert "commonplace plugin pair" in result.output
    monkeypatch.setattr("commonplace.plugin.install.plugin_files", lambda: built(tmp_path, "0.1.0"))
    refused = runner.invoke(cli, ["plugin", "install", "--vault", str(obsidian_vault)])
    assert refused.exit_code == 1 and "--force" in refused.output


def test_the_built_plugin_installs_into_a_temporary_vault(obsidian_vault: Path) -> None:
    """The real release files (`make plugin` builds main.js before the Python tests run)."""
    files = plugin_files()
    if "main.js" not in files:
        pytest.skip("obsidian-bridge/main.js is not built: make plugin (make test runs it first)")
    done = install_plugin(obsidian_vault)
    manifest = json.loads((done.folder / "manifest.json").read_text())
    assert manifest["id"] == "commonplace" and manifest["isDesktopOnly"] is False
    assert (done.folder / "main.js").read_bytes() == files["main.js"].read_bytes()
