"""`commonplace plugin install`: the built plugin's release files into a vault's plugin folder.

Obsidian loads a community plugin from `<vault>/.obsidian/plugins/<id>/` (main.js, manifest.json,
styles.css); the user then enables it under Settings > Community plugins, which stays theirs to
do (Obsidian's restricted mode is their choice). The plugin's own settings there (data.json) are
never touched. A different version already there is replaced only with `force`, so a newer one
installed by hand or by BRAT is not downgraded by accident. Each file is written beside its place
and renamed over it, manifest.json last, so Obsidian never reads a half-copied plugin.
"""

from __future__ import annotations

import json
import shutil
from dataclasses import dataclass
from pathlib import Path

from commonplace.basics.resources import PLUGIN_FILES, plugin_files, resource_dir

CONFIG_DIR = ".obsidian"  # Obsidian's default; a vault may name another (then: --config-dir)
# An install made from a checkout without Node.js (`uv tool install .`, hatch_build.py).
NOT_IN_THIS_INSTALL = (
    "this commonplace was installed without the Obsidian plugin: its main.js is built with "
    "Node.js, and the checkout it was installed from had not built it. Either build it there "
    "(`make plugin`, which needs Node.js 20+) and install commonplace again from the checkout "
    "(`uv tool install --reinstall .`), or copy main.js, manifest.json and styles.css from a "
    "release of the plugin into <vault>/.obsidian/plugins/commonplace/ "
    "(docs/how-to/obsidian-plugin.md)"
)


class InstallError(Exception):
    """Said to the user as is: what happened and what to do."""


@dataclass(frozen=True)
class Installed:
    plugin_id: str
    version: str
    folder: Path
    replaced: str  # the version that was there before ("" when none)
    unchanged: bool  # the same files were already there


def manifest_of(path: Path) -> dict[str, object]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise InstallError(f"{path} cannot be read: {exc}") from None
    if not isinstance(data, dict) or not isinstance(data.get("id"), str):
        raise InstallError(f"{path} is not an Obsidian plugin manifest (no id)")
    return data


def install_plugin(
    vault: Path,
    *,
    force: bool = False,
    config_dir: str = CONFIG_DIR,
    files: dict[str, Path] | None = None,
) -> Installed:
    files = plugin_files() if files is None else files
    missing = [name for name in PLUGIN_FILES if name not in files]
    if missing:
        raise InstallError(not_built(missing))
    if not vault.is_dir():
        raise InstallError(f"the vault {vault} is not a folder")
    if not (vault / config_dir).is_dir() and not force:
        raise InstallError(
            f"{vault} has no {config_dir} folder: open it in Obsidian once (then it is a vault), "
            "or pass --force to install anyway"
        )
    manifest = manifest_of(files["manifest.json"])
    plugin_id, version = str(manifest["id"]), str(manifest.get("version", ""))
    folder = vault / config_dir / "plugins" / plugin_id
    replaced = ""
    if (folder / "manifest.json").is_file():
        try:
            replaced = str(manifest_of(folder / "manifest.json").get("version", ""))
        except InstallError:
            replaced = "an unreadable version"
        if replaced != version and not force:
            raise InstallError(
                f"version {replaced} of the plugin is installed in {folder}; this is {version}. "
                "Run again with --force to replace it"
            )
    unchanged = all(
        (folder / name).is_file() and (folder / name).read_bytes() == files[name].read_bytes()
        for name in PLUGIN_FILES
    )
    if not unchanged:
        folder.mkdir(parents=True, exist_ok=True)
        for name in sorted(PLUGIN_FILES, key=lambda n: n == "manifest.json"):
            tmp = folder / f".{name}.installing"
            shutil.copyfile(files[name], tmp)
            tmp.replace(folder / name)
    return Installed(plugin_id, version, folder, replaced if replaced != version else "", unchanged)


def not_built(missing: list[str]) -> str:
    """Why the plugin's files are not there, and what to do: in a checkout, build them; in a
    program installed without them, build and install again, or take a release's files."""
    try:
        resource_dir("obsidian-bridge")
    except FileNotFoundError:
        return NOT_IN_THIS_INSTALL
    verb = "is" if len(missing) == 1 else "are"
    return (
        f"the plugin's {', '.join(missing)} {verb} not built: run 'make plugin' in the checkout "
        "(it needs Node.js 20+)"
    )


def plugin_in_this_install() -> str:
    """ "" when the built plugin is here to install; else why not, and what to do."""
    missing = [name for name in PLUGIN_FILES if name not in plugin_files()]
    return not_built(missing) if missing else ""
