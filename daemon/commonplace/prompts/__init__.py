"""Prompts are product code: one Markdown file each in this folder, rendered by one function.

Placeholders are `$name` (string.Template). A missing variable is an error, never an empty
hole in a prompt that a small model would then fill with a guess.

May import: nothing of commonplace.
"""

from __future__ import annotations

import string
from functools import cache
from pathlib import Path

_FOLDER = Path(__file__).parent


class MissingVariables(KeyError):
    pass


@cache
def template(name: str) -> string.Template:
    return string.Template((_FOLDER / f"{name}.md").read_text(encoding="utf-8"))


def variables(name: str) -> set[str]:
    return set(template(name).get_identifiers())


def render(name: str, **values: object) -> str:
    """Render prompt `name` with every one of its variables given."""
    missing = variables(name) - values.keys()
    if missing:
        raise MissingVariables(f"prompt {name!r} needs {sorted(missing)}")
    return template(name).substitute({k: str(v) for k, v in values.items()})


def names() -> list[str]:
    return sorted(p.stem for p in _FOLDER.glob("*.md"))


def sections(name: str) -> dict[str, str]:
    """A prompt file of '## name' sections (short messages of one kind each), by name.

    Text before the first heading is a comment for the reader, never sent to a model.
    """
    found: dict[str, str] = {}
    current: str | None = None
    lines: list[str] = []
    text = (_FOLDER / f"{name}.md").read_text(encoding="utf-8")
    for line in [*text.splitlines(), "## "]:
        if line.startswith("## "):
            if current is not None:
                found[current] = "\n".join(lines).strip()
            current, lines = line[3:].strip(), []
        else:
            lines.append(line)
    found.pop("", None)
    return found
