"""The package's layout, read from its source: the root shows the architecture, each package
says what it may import and keeps to it, and no module imports back up.

A package's rule is the `May import:` paragraph of its `__init__` docstring, so the rule a
reader sees is the rule that holds: a new import across packages fails here until the
docstring says so, and the rules together must still go one way (no two packages lean on each
other). Every import counts, a type-only or a function's own import too.
"""

from __future__ import annotations

import ast
import graphlib
import re
from collections import defaultdict
from pathlib import Path

import commonplace

PACKAGE = Path(commonplace.__file__).parent
ROOT_FILES = {"__init__.py", "__main__.py"}
LONGEST_MODULE = 700  # lines: past this a module is doing more than one job
EVERY_OTHER = "every other package"


def module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


MODULES = {module_name(p): p for p in PACKAGE.rglob("*.py")}
PACKAGES = sorted(p.name for p in PACKAGE.iterdir() if (p / "__init__.py").is_file())


def imports_of(path: Path) -> set[str]:
    """The commonplace modules `path` imports, anywhere in it."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom) and node.module and not node.level:
            if node.module.split(".")[0] != "commonplace":
                continue
            for alias in node.names:
                full = f"{node.module}.{alias.name}"
                found.add(full if full in MODULES else node.module)
        elif isinstance(node, ast.Import):
            found |= {a.name for a in node.names if a.name in MODULES}
    return found


def package_of(module: str) -> str:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 and parts[1] in PACKAGES else ""


def may_import(package: str) -> set[str] | None:
    """The packages its docstring allows; None when it allows every other one."""
    doc = ast.get_docstring(ast.parse((PACKAGE / package / "__init__.py").read_text())) or ""
    match = re.search(r"^May import: (.+?)\.?\s*(?:\n\n|\Z)", doc, re.M | re.S)
    assert match, f"{package}/__init__.py does not say what it may import ('May import: ...')"
    said = " ".join(match.group(1).split())
    if said.startswith(EVERY_OTHER):
        return None
    if said == "nothing of commonplace":
        return set()
    return {name.strip() for name in said.split(",")}


def package_imports() -> dict[str, dict[str, set[str]]]:
    """package -> imported package -> the files that import it."""
    found: dict[str, dict[str, set[str]]] = defaultdict(lambda: defaultdict(set))
    for name, path in MODULES.items():
        source = package_of(name)
        for target in imports_of(path):
            imported = package_of(target)
            if source and imported and imported != source:
                found[source][imported].add(str(path.relative_to(PACKAGE)))
    return found


def test_the_root_holds_packages_only() -> None:
    loose = sorted(p.name for p in PACKAGE.glob("*.py") if p.name not in ROOT_FILES)
    assert loose == [], f"modules at the package's root, put them in a package: {loose}"


def test_every_package_says_what_it_is_for() -> None:
    for package in PACKAGES:
        doc = ast.get_docstring(ast.parse((PACKAGE / package / "__init__.py").read_text()))
        assert doc and not doc.startswith("May import"), f"{package}/__init__.py has no purpose"


def test_every_package_imports_only_what_its_docstring_allows() -> None:
    found = package_imports()
    broken = []
    for package in PACKAGES:
        allowed = may_import(package)
        if allowed is None:
            continue
        unknown = allowed - set(PACKAGES)
        assert not unknown, f"{package} may import packages that do not exist: {unknown}"
        for imported, files in sorted(found[package].items()):
            if imported not in allowed:
                broken.append(f"{package} imports {imported} ({', '.join(sorted(files))})")
    assert broken == [], "imports the docstrings do not allow:\n" + "\n".join(broken)


def test_the_rules_go_one_way() -> None:
    """No two packages may lean on each other, even by way of others."""
    graph = {p: (may_import(p) or set()) for p in PACKAGES if may_import(p) is not None}
    graphlib.TopologicalSorter(graph).static_order()  # raises CycleError on a cycle


def test_no_module_imports_another_that_imports_it_back() -> None:
    graph = {name: imports_of(path) - {name} for name, path in MODULES.items()}
    try:
        list(graphlib.TopologicalSorter(graph).static_order())
    except graphlib.CycleError as exc:
        raise AssertionError(f"an import cycle: {' -> '.join(exc.args[1])}") from None


def test_no_module_is_over_about_700_lines() -> None:
    long = {
        str(p.relative_to(PACKAGE)): n
        for p in MODULES.values()
        if (n := len(p.read_text().splitlines())) > LONGEST_MODULE
    }
    assert long == {}, f"split these along what they do: {long}"


def test_a_wrong_import_is_caught(tmp_path: Path) -> None:
    """The rule reader and the import reader see what they must: a docstring's list, and an
    import inside a function or under TYPE_CHECKING."""
    module = tmp_path / "m.py"
    module.write_text(
        "from typing import TYPE_CHECKING\n"
        "if TYPE_CHECKING:\n    from commonplace.daemon.jobs import JobQueue\n"
        "def f():\n    from commonplace.config import Settings\n"
    )
    assert imports_of(module) == {"commonplace.daemon.jobs", "commonplace.config"}
    assert may_import("vault") == {"basics"}
    assert may_import("cli") is None
