#!/usr/bin/env python3
"""How few and how tight can Ask's passages be before the answer's facts leave the prompt?

Reads the passages each question was given in a kept ask run (`run-1.jsonl`: the prompts are
in its llm_call records), and for each setting (passages kept, characters per passage after
tighten.py) counts the answerable questions whose expected facts all stand in what the model
would read, and the characters it would read. No model is called: the run fixed the search.

    PYTHONPATH=daemon .venv/bin/python eval_suite/experiments/ask_passages.py \
        eval_suite/runs/2026-12-07-qwen2.5-coder-1.5b-instruct-ask [-v]
"""

from __future__ import annotations

import ast
import json
import re
import sys
from pathlib import Path
from typing import Any

from commonplace.ask.models import Passage
from commonplace.ask.tighten import tighten_all
from commonplace.evals.grading import fact_present

PASSAGE = re.compile(r'<passage n="(\d+)"[^>]*>\n(.*?)\n</passage>', re.S)


def load(folder: Path) -> list[dict[str, Any]]:
    """Each item of run 1 with its dataset row and the passages it was given, in order."""
    calls: dict[str, str] = {}
    items: list[dict[str, Any]] = []
    for line in (folder / "run-1.jsonl").read_text(encoding="utf-8").splitlines():
        r = json.loads(line)
        if r["type"] == "llm_call":
            req = r["request"]
            req = ast.literal_eval(req) if isinstance(req, str) else req
            calls[r["item"]] = req["messages"][-1]["content"]
        elif r["type"] == "item" and r["item"] in calls:
            texts = dict(PASSAGE.findall(calls[r["item"]]))
            passages = [
                Passage(
                    p["n"],
                    p["path"],
                    p["path"].rsplit("/", 1)[-1][:-3],
                    p["heading"],
                    texts[str(p["n"])],
                    p["note_date"],
                )
                for p in r["passages"]
            ]
            items.append({**r, "given": passages})
    return items


def dataset(folder: Path) -> dict[str, dict[str, Any]]:
    path = Path("eval_suite/datasets/ask.jsonl")
    return {json.loads(x)["id"]: json.loads(x) for x in path.read_text().splitlines() if x}


def main() -> None:
    folder = Path(sys.argv[1])
    verbose = "-v" in sys.argv
    rows = dataset(folder)
    items = load(folder)
    print(f"{len(items)} questions from {folder.name}")
    print("| passages | chars each | facts all in the prompt | passages' characters (mean) |")
    print("| --- | --- | --- | --- |")
    for k in (8, 6, 5, 4, 3):
        for budget in (100_000, 900, 600, 450, 350):
            found, chars, missed = 0, 0, []
            answerable = 0
            for it in items:
                row = rows[it["item"]]
                given = tighten_all(it["given"][:k], it["question"], budget)
                text = "\n".join(p.text for p in given)
                chars += len(text)
                if not row["answerable"]:
                    continue
                answerable += 1
                if all(fact_present(f, text) for f in row["facts"]):
                    found += 1
                else:
                    missed.append(it["item"])
            each = "whole" if budget >= 100_000 else str(budget)
            print(f"| {k} | {each} | {found}/{answerable} | {chars / len(items):.0f} |")
            if verbose and missed:
                print("    missed:", " ".join(missed))


if __name__ == "__main__":
    main()
