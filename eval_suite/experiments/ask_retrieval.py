#!/usr/bin/env python3
"""Which passages should Ask give a small model: how many, how many from one note, in what order?

`collect` indexes the sample vault as `commonplace eval ask` does (the built-in engine's
embedding model, one thread) and keeps each question's first 30 hybrid results in
/tmp/ask-retrieval.json. `policies` then tries ways of choosing the passages from them (the
first K; at most M per note; ...) and counts the answerable questions whose expected facts all
stand in what the model would read, and the characters it would read. No chat model is called.

    COMMONPLACE_CONFIG=/tmp/eval.toml PYTHONPATH=daemon .venv/bin/python \
        eval_suite/experiments/ask_retrieval.py collect
    PYTHONPATH=daemon .venv/bin/python eval_suite/experiments/ask_retrieval.py policies [-v]
"""

from __future__ import annotations

import asyncio
import dataclasses
import json
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

from commonplace.ask.models import Passage
from commonplace.ask.passages import number_passages
from commonplace.ask.tighten import tighten_all
from commonplace.config import load_settings
from commonplace.evals import fixture
from commonplace.evals.grading import fact_present
from commonplace.index import Index
from commonplace.llm import make_llm

OUT = Path("/tmp/ask-retrieval.json")
DATASET = Path("eval_suite/datasets/ask.jsonl")
DEPTH = 60


def rows() -> list[dict[str, Any]]:
    return [json.loads(x) for x in DATASET.read_text().splitlines() if x]


async def collect() -> None:
    base = load_settings()
    with tempfile.TemporaryDirectory(prefix="ask-retrieval-") as tmp:
        work = Path(tmp)
        settings = fixture.eval_settings(base, work / "vault", work / "data", chat_model="",
                                         embed_model="")  # fmt: skip
        settings = dataclasses.replace(
            settings, model=dataclasses.replace(settings.model, backend="builtin")
        )
        fixture.share_models(base, settings.data_dir)
        fixture.copy_vault(settings.vault, "keep")
        llm = make_llm(settings)
        index = Index.open(settings, llm)
        try:
            await index.refresh()
            out: dict[str, Any] = {}
            for row in rows():
                for mode in ("hybrid", "keyword"):
                    response = await index.search(
                        row["question"], limit=DEPTH, mode=mode, exclude_folders=(),
                        exclude_pages=(),
                    )  # fmt: skip
                    key = row["id"] if mode == "hybrid" else f"{row['id']}:{mode}"
                    out[key] = [
                        {
                            "path": h.path,
                            "title": h.title,
                            "heading": h.heading,
                            "text": h.text,
                            "note_date": str(h.note_date),
                            "start_line": h.start_line,
                            "score": h.score,
                        }
                        for h in response.results
                    ]
        finally:
            index.close()
            await llm.aclose()
    write(out)


def write(out: dict[str, Any]) -> None:
    OUT.write_text(json.dumps(out, ensure_ascii=False), encoding="utf-8")
    print(f"wrote {OUT}")


Policy = Callable[[list[Passage], str], list[Passage]]


def first(k: int) -> Policy:
    return lambda ps, q: ps[:k]


def per_note(k: int, m: int) -> Policy:
    """The first k passages taking at most m from any one note."""

    def choose(ps: list[Passage], q: str) -> list[Passage]:
        out: list[Passage] = []
        count: dict[str, int] = {}
        for p in ps:
            if count.get(p.path, 0) < m:
                out.append(p)
                count[p.path] = count.get(p.path, 0) + 1
            if len(out) == k:
                break
        return out

    return choose


def policies(verbose: bool) -> None:
    found = json.loads(OUT.read_text(encoding="utf-8"))
    from commonplace.index.models import SearchResult

    table: dict[str, list[Passage]] = {}
    for qid, hits in found.items():
        results = [
            SearchResult(**{**h, "modified": 0.0, "ordinal": 0})  # type: ignore[arg-type]
            for h in hits
        ]
        table[qid] = number_passages(results, DEPTH)
    tried: list[tuple[str, Policy]] = [(f"first {k}", first(k)) for k in (4, 5, 6, 8, 10, 12)]
    tried += [
        (f"first {k}, at most {m} a note", per_note(k, m)) for k in (4, 5, 6, 8) for m in (1, 2, 3)
    ]
    print("| passages | chars each | facts all in the prompt | characters (mean) |")
    print("| --- | --- | --- | --- |")
    for name, choose in tried:
        for budget in (100_000, 600, 450):
            ok, chars, missed = 0, 0, []
            answerable = [r for r in rows() if r["answerable"]]
            for r in rows():
                given = tighten_all(choose(table[r["id"]], r["question"]), r["question"], budget)
                text = "\n".join(p.text for p in given)
                chars += len(text)
                if not r["answerable"]:
                    continue
                if all(fact_present(f, text) for f in r["facts"]):
                    ok += 1
                else:
                    missed.append(r["id"])
            each = "whole" if budget >= 100_000 else str(budget)
            print(f"| {name} | {each} | {ok}/{len(answerable)} | {chars / len(rows()):.0f} |")
            if verbose:
                print("    missed:", " ".join(missed))


if __name__ == "__main__":
    if sys.argv[1:2] == ["collect"]:
        asyncio.run(collect())
    else:
        policies("-v" in sys.argv)
