"""Packaging: every import is a declared dependency, every module imports, and the
constraints file pins the set that was tested.

`make check-install` goes further where time allows (CI): a fresh virtualenv with only the
declared dependencies, installed from constraints.txt, then `pip check` and every module
imported there.
"""

from __future__ import annotations

import ast
import functools
import json
import re
import subprocess
import sys
import tomllib
from importlib.metadata import packages_distributions
from pathlib import Path

import commonplace
from commonplace.doctor import imports as importcheck

REPO = Path(__file__).resolve().parents[1]
PYPROJECT = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))
CONSTRAINTS = (REPO / "constraints.txt").read_text(encoding="utf-8")


def _norm(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def _declared(group: list[str]) -> set[str]:
    return {_norm(re.split(r"[<>=!~;\[ ]", req, maxsplit=1)[0]) for req in group}


RUNTIME = _declared(PYPROJECT["project"]["dependencies"])
TEST = _declared(PYPROJECT["project"]["optional-dependencies"]["test"])
# Extras a user installs for one command (`commonplace[eval]`): imported only inside the
# function that needs them, which says what to install when they are missing.
EXTRAS = {
    _norm(req)
    for name, group in PYPROJECT["project"]["optional-dependencies"].items()
    if name != "test"
    for req in _declared(group)
}
PINNED = {
    _norm(line.split("==")[0]): line.split("==")[1]
    for line in CONSTRAINTS.splitlines()
    if "==" in line and not line.startswith("#")
}


@functools.cache
def _distributions() -> dict[str, list[str]]:
    """Which installed distributions provide each top-level module: it reads the metadata of
    every installed package (seconds), so the two tests below share one reading."""
    return dict(packages_distributions())


def _third_party_imports(folder: Path, *, module_level: bool = False) -> dict[str, str]:
    """Top-level module name -> a file importing it, for modules outside the standard library
    (only the imports at a module's top level with `module_level`)."""
    found: dict[str, str] = {}
    for path in sorted(folder.rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in tree.body if module_level else ast.walk(tree):
            names: list[str] = []
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                names = [node.module]
            for name in names:
                top = name.split(".")[0]
                own = ("commonplace", "tests", "docsgen")
                if top not in sys.stdlib_module_names and top not in own:
                    found.setdefault(top, str(path.relative_to(REPO)))
    return found


def test_every_import_of_the_package_is_a_declared_dependency() -> None:
    dists = _distributions()
    package = REPO / "daemon" / "commonplace"
    at_top = _third_party_imports(package, module_level=True)
    for module, where in _third_party_imports(package).items():
        owners = {_norm(d) for d in dists.get(module, [])}
        if owners & EXTRAS and module not in at_top:
            continue  # an optional extra, imported where it is used
        assert owners & RUNTIME, f"{where} imports {module}, which pyproject.toml does not declare"


def test_every_import_of_the_tests_is_declared() -> None:
    dists = _distributions()
    for module, where in _third_party_imports(REPO / "tests").items():
        owners = {_norm(d) for d in dists.get(module, [])}
        assert owners & (RUNTIME | TEST), f"{where} imports {module}, declared nowhere"


def test_every_module_imports() -> None:
    assert importcheck.import_all() == []
    assert len(importcheck.module_names()) > 50


def test_constraints_pin_every_declared_dependency_at_the_installed_version() -> None:
    from importlib.metadata import version

    for name in sorted(RUNTIME | TEST):
        assert name in PINNED, f"constraints.txt does not pin {name}: run make upgrade"
        assert PINNED[name] == version(name), f"{name} differs from constraints.txt: make test"


def test_pip_check_passes() -> None:
    result = subprocess.run(
        [sys.executable, "-m", "pip", "check"], capture_output=True, text=True, check=False
    )
    assert result.returncode == 0, result.stdout + result.stderr


def test_one_version_number() -> None:
    from importlib.metadata import version

    assert "version" in PYPROJECT["project"]["dynamic"]
    assert version(PYPROJECT["project"]["name"]) == commonplace.__version__
    plugin = json.loads((REPO / "obsidian-bridge" / "manifest.json").read_text(encoding="utf-8"))
    assert plugin["version"] == commonplace.__version__  # the plugin ships inside the wheel
    versions = json.loads((REPO / "obsidian-bridge" / "versions.json").read_text(encoding="utf-8"))
    assert commonplace.__version__ in versions


def test_the_licence_the_metadata_names_is_there() -> None:
    """pyproject says MIT; the wheel carries LICENSE, and so does the plugin's folder, as
    Obsidian's plugin directory requires."""
    assert PYPROJECT["project"]["license"] == "MIT"  # an SPDX expression
    assert PYPROJECT["project"]["license-files"] == ["LICENSE"]
    text = (REPO / "LICENSE").read_text(encoding="utf-8")
    assert text.startswith("MIT License") and "The Commonplace developers" in text
    assert (REPO / "obsidian-bridge" / "LICENSE").read_text(encoding="utf-8") == text


def test_the_distribution_is_not_the_index_s_other_commonplace() -> None:
    """`commonplace` on the package index is another project: pipx install commonplace would
    install someone else's program. The command and the import package keep the name."""
    assert PYPROJECT["project"]["name"] == "commonplace-vault"
    assert PYPROJECT["project"]["scripts"] == {"commonplace": "commonplace.cli.main:main"}
