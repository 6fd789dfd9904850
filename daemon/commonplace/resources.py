"""Find the files that ship with the program (the phone page, the sample vault).

From a checkout they are at the repository's top level; from an installed wheel they are
package data under commonplace/_data/ (see pyproject.toml).
"""

from __future__ import annotations

from pathlib import Path

_PACKAGE = Path(__file__).resolve().parent


def resource_dir(name: str) -> Path:
    """`name` is 'web', 'vault_fixture' or 'obsidian-bridge'."""
    for candidate in (_PACKAGE / "_data" / name, _PACKAGE.parents[1] / name):
        if candidate.is_dir():
            return candidate
    raise FileNotFoundError(f"the program's '{name}' folder is missing; reinstall commonplace")


PLUGIN_FILES = ("main.js", "manifest.json", "styles.css")


def plugin_files() -> dict[str, Path]:
    """The built Obsidian plugin's release files, by name (from the checkout's obsidian-bridge/
    after `make plugin`, or from the wheel's commonplace/_data/obsidian-bridge/). A file not
    built yet is missing from the answer: the caller says what to run."""
    folder = resource_dir("obsidian-bridge")
    return {name: folder / name for name in PLUGIN_FILES if (folder / name).is_file()}
