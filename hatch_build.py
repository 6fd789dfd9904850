"""Put the built Obsidian plugin into the wheel (commonplace/_data/obsidian-bridge/).

A hook rather than a force-include: the editable install that `make run` and `make test` make
before the plugin is built (and without Node.js, for `make run`) needs none of it, since from a
checkout the files are found in obsidian-bridge/ itself (commonplace/basics/resources.py). A
wheel for users must carry it, so building one without main.js stops, saying what to run.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from hatchling.builders.hooks.plugin.interface import BuildHookInterface

FILES = ("main.js", "manifest.json", "styles.css", "LICENSE")


class PluginBundle(BuildHookInterface):  # type: ignore[type-arg]
    PLUGIN_NAME = "custom"

    def initialize(self, version: str, build_data: dict[str, Any]) -> None:
        if version == "editable":
            return
        folder = Path(self.root) / "obsidian-bridge"
        missing = [name for name in FILES if not (folder / name).is_file()]
        if missing:
            raise FileNotFoundError(
                f"obsidian-bridge/{missing[0]} is missing: the wheel carries the built Obsidian "
                "plugin; run `make wheel` (it builds the plugin first), or `make plugin`"
            )
        for name in FILES:
            build_data["force_include"][str(folder / name)] = (
                f"commonplace/_data/obsidian-bridge/{name}"
            )
