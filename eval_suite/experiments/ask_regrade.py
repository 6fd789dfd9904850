#!/usr/bin/env python3
"""What would the program's checks of today make of the answers a kept ask run got?

The checks (ask/citations.py, ask/support.py) are pure functions of the model's reply, the
passages it was given and the question, so a kept run can be checked again without a model:
the same replies, today's program. This separates what the checks are worth from what a new
prompt or new passages are worth. Prints the program's figures as the eval does, and with -v
each answer whose grade changed, before and after.

    PYTHONPATH=daemon .venv/bin/python eval_suite/experiments/ask_regrade.py RUN_FOLDER [-v]
"""

from __future__ import annotations

import ast
import json
import re
import sys
from datetime import date
from pathlib import Path
from typing import Any

from commonplace.ask.answer import context_for
from commonplace.ask.citations import check_answer
from commonplace.ask.models import Passage
from commonplace.evals import grading
from commonplace.evals.suites.ask import answer_flags

PASSAGE = re.compile(r'<passage n="(\d+)"[^>]*>\n(.*?)\n</passage>', re.S)
DATASET = Path("eval_suite/datasets/ask.jsonl")


def replies(path: Path) -> list[dict[str, Any]]:
    """Each item of a run with the reply the model gave and the passages it was given."""
    calls: dict[str, dict[str, Any]] = {}
    out: list[dict[str, Any]] = []
    for line in path.read_text(encoding="utf-8").splitlines():
        r = json.loads(line)
        if r["type"] == "llm_call":
            req = r["request"]
            req = ast.literal_eval(req) if isinstance(req, str) else req
            calls[r["item"]] = {"prompt": req["messages"][-1]["content"], "reply": r["reply"]}
        elif r["type"] == "item" and r["item"] in calls:
            call = calls[r["item"]]
            texts = dict(PASSAGE.findall(call["prompt"]))
            passages = [
                Passage(
                    p["n"],
                    p["path"],
                    p["path"].rsplit("/", 1)[-1][:-3],
                    p["heading"],
                    _unmarked(texts[str(p["n"])]),
                    p["note_date"],
                )
                for p in r["passages"]
            ]
            out.append({**r, "reply": call["reply"], "given": passages})
    return out


def _unmarked(text: str) -> str:
    """The owner's text back: without the dates the program wrote beside day words."""
    day = r"(?:Mon|Tues|Wednes|Thurs|Fri|Satur|Sun)day \d{1,2}"
    return re.sub(rf" \[{day}(?: \w+)?(?: \d{{4}})?(?: – {day} \w+ \d{{4}})?\]", "", text)


def main() -> None:
    folder = Path(sys.argv[1])
    verbose = "-v" in sys.argv
    rows = {json.loads(x)["id"]: json.loads(x) for x in DATASET.read_text().splitlines() if x}
    for run in sorted(folder.glob("run-*.jsonl")):
        before, after = [], []
        added = replaced = 0
        for it in replies(run):
            row = rows[it["item"]]
            old = it["grade"]
            answer = check_answer(
                it["question"],
                it["reply"],
                it["given"],
                context=context_for(it["question"], date.fromisoformat(it["today"])),
            )
            new = grading.grade_answer(
                row,
                answer.answer,
                answer.refused,
                [s.path for s in answer.sources],
                answer_flags(answer.findings),
            )
            added += bool(answer.added)
            replaced += answer.replaced
            before.append(old)
            after.append(new)
            if verbose and (old["right"] != new["right"] or answer.replaced):
                print(f"{run.stem} {it['item']}: {old['right']} -> {new['right']}")
                print(f"    reply:  {it['reply'][:300]!r}")
                print(f"    shown:  {answer.answer[:300]!r}")
                for f in answer.findings:
                    print(f"    check:  {f}")
        b = grading.ask_figures(before, errors=0)
        a = grading.ask_figures(after, errors=0)
        print(
            f"{run.stem}: right (program) {b['right']} -> {a['right']} of {a['questions']}; "
            f"unanswerable refused {b['refused_right']} -> {a['refused_right']}; "
            f"refused wrongly {b['false_refusals']} -> {a['false_refusals']}; "
            f"flagged {b['flagged']} -> {a['flagged']}; citations added to {added}; "
            f"replaced by the refusal {replaced}"
        )


if __name__ == "__main__":
    main()
