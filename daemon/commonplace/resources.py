"""Find the files that ship with the program (the phone page, the sample vault).

From a checkout they are at the repository's top level; from an installed wheel they are
package data under commonplace/_data/ (see pyproject.toml).
"""

from __future__ import annotations

from pathlib import Path

_PACKAGE = Path(__file__).resolve().parent


def resource_dir(name: str) -> Path:
    """`name` is 'web' or 'vault_fixture'."""
    for candidate in (_PACKAGE / "_data" / name, _PACKAGE.parents[1] / name):
        if candidate.is_dir():
            return candidate
    raise FileNotFoundError(f"the program's '{name}' folder is missing; reinstall commonplace")
