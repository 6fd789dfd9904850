"""Put the built Obsidian plugin into the wheel (commonplace/_data/obsidian-bridge/), when it is
built.

A hook rather than a force-include: the editable install that `make run` and `make test` make
before the plugin is built (and without Node.js, for `make run`) needs none of it, since from a
checkout the files are found in obsidian-bridge/ itself (commonplace/basics/resources.py).

The plugin's main.js is built by Node.js (`make plugin`), and a user installing from a checkout
(`uv tool install .`, `pipx install .`, the README's first command) must not need Node.js: a
checkout without main.js builds a wheel without the plugin, and says so here (the program says
it again when asked for the plugin: plugin/install.py). The wheel made for publishing must carry
it: `make wheel` sets COMMONPLACE_WHEEL_NEEDS_PLUGIN=1, and then a missing main.js stops the
build, saying what to run.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from hatchling.builders.hooks.plugin.interface import BuildHookInterface

FILES = ("main.js", "manifest.json", "styles.css", "LICENSE")
NEEDS_PLUGIN = "COMMONPLACE_WHEEL_NEEDS_PLUGIN"
WITHOUT_PLUGIN = (
    "obsidian-bridge/main.js is not built, so this wheel has no Obsidian plugin in it (the rest "
    "of Commonplace is all there). To add it: `make plugin` (it needs Node.js 20+), then build "
    "or install again; or use the plugin's release files (docs/how-to/obsidian-plugin.md)"
)


class PluginBundle(BuildHookInterface):  # type: ignore[type-arg]
    PLUGIN_NAME = "custom"

    def initialize(self, version: str, build_data: dict[str, Any]) -> None:
        if version == "editable":
            return
        folder = Path(self.root) / "obsidian-bridge"
        missing = [name for name in FILES if not (folder / name).is_file()]
        if missing and os.environ.get(NEEDS_PLUGIN, "") not in ("", "0"):
            raise FileNotFoundError(
                f"obsidian-bridge/{missing[0]} is missing: the wheel carries the built Obsidian "
                "plugin; run `make wheel` (it builds the plugin first), or `make plugin`"
            )
        if missing:
            self.app.display_warning(WITHOUT_PLUGIN)
            return
        for name in FILES:
            build_data["force_include"][str(folder / name)] = (
                f"commonplace/_data/obsidian-bridge/{name}"
            )
