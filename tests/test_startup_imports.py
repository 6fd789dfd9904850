"""What the daemon loads at start-up: libraries it uses only for some requests wait until then.

Each module held costs memory for as long as the daemon runs (README, "What holds the memory").
The checks run in a fresh interpreter: the test process has imported everything already.
"""

from __future__ import annotations

import importlib
import json
import subprocess
import sys
from pathlib import Path

import pytest

from commonplace.index.lance import defer_package_init

# Loaded only when used: the REST client of LanceDB's namespace service (never, for a local
# table), urllib3 with it, caldav and its HTTP client (the calendar), cryptography (push keys).
# LanceDB and pyarrow never: the daemon's vector store runs in a child (vector_process.py).
NOT_AT_START = [
    "lancedb",
    "pyarrow",
    "lance_namespace_urllib3_client.api",
    "lance_namespace_urllib3_client.api_client",
    "urllib3",
    "caldav",
    "niquests",
    "cryptography",
    "pywebpush",
    "av",
    "mcp",
    "pypdfium2",  # attachments are read in a child process (attachments/child.py)
    "PIL",
    "pytesseract",
]


def _fresh(code: str) -> object:
    """What `code`, run in a new interpreter, printed last (as JSON)."""
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=120
    )
    return json.loads(out.stdout.strip().splitlines()[-1])


def test_the_daemon_starts_without_the_libraries_it_uses_only_on_request() -> None:
    code = (
        "import json, sys\nimport commonplace.daemon.run\n"
        f"print(json.dumps([m for m in {NOT_AT_START!r} if m in sys.modules]))"
    )
    assert _fresh(code) == []


def test_lancedb_works_and_its_rest_client_answers_when_asked(tmp_path: Path) -> None:
    code = f"""
import json, sys
import numpy as np
from commonplace.index.lance import lancedb
db = lancedb.connect({str(tmp_path)!r})
table = db.create_table("t", data=[{{"vector": np.ones(4, dtype=np.float32), "n": 1}}])
rows = table.search(np.ones(4, dtype=np.float32)).limit(1).to_list()
before = "lance_namespace_urllib3_client.api" in sys.modules
import lance_namespace_urllib3_client as client
api_client = client.ApiClient.__name__  # asking the package runs its __init__
print(json.dumps({{"n": rows[0]["n"], "api_before": before, "api_client": api_client,
                  "api_after": "lance_namespace_urllib3_client.api" in sys.modules}}))
"""
    assert _fresh(code) == {
        "n": 1,
        "api_before": False,
        "api_client": "ApiClient",
        "api_after": True,
    }


@pytest.fixture
def package(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> str:
    """A package whose __init__ counts its runs, with one submodule."""
    root = tmp_path / "deferred_pkg"
    root.mkdir()
    (root / "__init__.py").write_text(
        "import builtins\nbuiltins.deferred_runs = getattr(builtins, 'deferred_runs', 0) + 1\n"
        "NAME = 'from init'\n"
    )
    (root / "part.py").write_text("VALUE = 42\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.delitem(sys.modules, "deferred_pkg", raising=False)
    monkeypatch.delitem(sys.modules, "deferred_pkg.part", raising=False)
    return "deferred_pkg"


def test_a_deferred_package_runs_its_init_once_on_first_use(package: str) -> None:
    import builtins

    assert defer_package_init(package)
    assert not defer_package_init(package)  # already in sys.modules: left alone
    part = importlib.import_module(f"{package}.part")

    assert part.VALUE == 42
    assert getattr(builtins, "deferred_runs", 0) == 0  # a submodule does not need the __init__
    module = sys.modules[package]
    assert module.NAME == "from init"
    assert module.NAME == "from init"
    assert builtins.deferred_runs == 1
    with pytest.raises(AttributeError, match="has no attribute 'missing'"):
        _ = module.missing
    del builtins.deferred_runs


def test_nothing_is_deferred_for_a_module_that_is_not_a_package() -> None:
    assert not defer_package_init("no_such_package_here")
    assert "no_such_package_here" not in sys.modules
