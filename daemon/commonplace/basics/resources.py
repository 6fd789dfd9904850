"""Find the files that ship with the program (the phone page, the sample vault, the built
Obsidian plugin).

From a checkout they are at the repository's top level; from an installed wheel they are
package data under commonplace/_data/ (see pyproject.toml), so an installed program never
looks for the repository.
"""

from __future__ import annotations

from pathlib import Path

_PACKAGE = Path(__file__).resolve().parents[1]  # commonplace/, the package itself

# The files Obsidian loads from .obsidian/plugins/commonplace/: `make plugin` builds main.js.
PLUGIN_FILES = ("main.js", "manifest.json", "styles.css")


def resource_dir(name: str) -> Path:
    """`name` is 'web', 'vault_fixture' or 'obsidian-bridge'."""
    for candidate in (_PACKAGE / "_data" / name, _PACKAGE.parents[1] / name):
        if candidate.is_dir():
            return candidate
    raise FileNotFoundError(f"the program's '{name}' folder is missing; reinstall commonplace")


def plugin_files() -> dict[str, Path]:
    """The built Obsidian plugin's files that are there, by name. From a checkout main.js
    exists only after `make plugin`; an installed wheel always carries all three."""
    try:
        folder = resource_dir("obsidian-bridge")
    except FileNotFoundError:
        return {}
    return {name: folder / name for name in PLUGIN_FILES if (folder / name).is_file()}
