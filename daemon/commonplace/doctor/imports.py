"""Import every module of the package: `python -m commonplace.doctor.imports`.

Run in a virtualenv holding only the declared dependencies (`make check-install`), it fails on
any import of a package that pyproject.toml does not declare, which the test environment (with
the test tools installed too) would hide.
"""

from __future__ import annotations

import importlib
import pkgutil
import sys

import commonplace


def module_names() -> list[str]:
    prefix = f"{commonplace.__name__}."
    names = [m.name for m in pkgutil.walk_packages(commonplace.__path__, prefix)]
    return sorted(n for n in names if not n.endswith(".__main__"))


def import_all() -> list[str]:
    """Import every module; return the names of those that failed, with why."""
    failed = []
    for name in module_names():
        try:
            importlib.import_module(name)
        except Exception as exc:
            failed.append(f"{name}: {type(exc).__name__}: {exc}")
    return failed


def main() -> int:
    failed = import_all()
    for line in failed:
        print(f"FAIL {line}", file=sys.stderr)  # noqa: T201
    print(f"imported {len(module_names()) - len(failed)} of {len(module_names())} modules")  # noqa: T201
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
