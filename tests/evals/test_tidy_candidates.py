"""eval_suite/tidy_candidates.py: tidy's candidate step measured on the fixture (fake Ollama)."""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path
from types import ModuleType

import pytest

from tests.fakes.ollama import FakeOllama

SCRIPT = Path(__file__).resolve().parents[2] / "eval_suite" / "tidy_candidates.py"


def load_script() -> ModuleType:
    spec = importlib.util.spec_from_file_location("tidy_candidates", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


async def test_it_counts_each_captures_expected_links_among_the_candidates(
    fake_ollama: FakeOllama, capsys: pytest.CaptureFixture[str]
) -> None:
    await load_script().measure("nomic-embed-text", fake_ollama.url, verbose=True)
    out = capsys.readouterr().out
    summary = re.search(r"(\d+) captures with links: (\d+)/(\d+) links among the 8 candidates", out)
    assert summary is not None, out
    captures, found, wanted = map(int, summary.groups())
    assert (captures, wanted) == (19, 27)  # tidy.jsonl's captures that should link somewhere
    # Bag-of-words vectors and BM25 still find most links (a name in the capture is the title).
    assert found >= 20
    # Each capture's line names the notes it was shown, never a daemon folder's.
    assert "2026-10-19 0742.md: links at" in out and "Inbox/" not in out
