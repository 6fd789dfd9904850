"""Ask: each question answered from the sample vault and the week's captures.

One fresh conversation per question (answer_question builds it from nothing). A question with
`asked_on` is asked on that day; the others on Monday 26 October 2026, the day after the
fixture's week, so a run gives the same prompt whatever day it is made.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import date
from pathlib import Path
from typing import Any

from commonplace.ask import answer_question
from commonplace.ask.answer import NO_PASSAGES, SEARCH_NOTE
from commonplace.ask.citations import DRAFT_REMOVED, NOT_SUPPORTED
from commonplace.evals import grading
from commonplace.evals.fixture import copy_vault, load_jsonl
from commonplace.evals.indexing import build_index, close_index
from commonplace.evals.sheets import SheetRow
from commonplace.evals.suite import Item, ItemResult, Suite, SuiteEnv

DEFAULT_DAY = date(2026, 10, 26)


def load(datasets: Path) -> list[Item]:
    return load_jsonl(datasets / "ask.jsonl", ("id", "question", "facts", "expected_notes"))


async def prepare(env: SuiteEnv) -> None:
    copy_vault(env.settings.vault, "keep")
    await build_index(env)


async def run_item(env: SuiteEnv, item: Item) -> ItemResult:
    asked_on = item.get("asked_on")
    today = date.fromisoformat(str(asked_on)) if asked_on else DEFAULT_DAY
    question = str(item["question"])
    answer = await answer_question(
        question, index=env.state["index"], llm=env.llm, settings=env.settings, today=today
    )
    cited_paths = [s.path for s in answer.sources]
    flags = answer_flags(answer.findings)
    grade = grading.grade_answer(item, answer.answer, answer.refused, cited_paths, flags)
    record = {
        "question": question,
        "today": today.isoformat(),
        "answer": answer.to_json(),
        "cited": list(answer.cited),
        "added": list(answer.added),  # the citations the program added where the model gave none
        "replaced": answer.replaced,  # the refusal shown in place of an unsupported answer
        "passages": [
            {"n": p.n, "path": p.path, "heading": p.heading, "note_date": p.note_date}
            for p in answer.passages
        ],
        "grade": grade,
    }
    when = f"\n(asked on {today:%A %d %B %Y})" if asked_on else ""
    sources = "\n".join(f"[{s.n}] {s.path} › {s.heading}: {s.text}" for s in answer.sources)
    row = SheetRow(
        str(item["id"]),
        {
            "question": question + when,
            "expected": _expected(item),
            "answer": answer.answer
            + ("\n— " + " ".join(answer.findings) if answer.findings else ""),
            "sources": sources,
        },
        grading.ask_verdict(grade),
    )
    return ItemResult(str(item["id"]), record, rows=(row,))


def answer_flags(findings: Sequence[str]) -> list[str]:
    """The program's findings about the answer itself (a citation matching no passage or
    holding none of its sentence's facts, no citation, a fact in no passage, markup removed,
    text after the refusal left out, cut short, no answer): each makes the answer wrong. Not
    counted: notices about the search (keywords only, nothing found: the eval's index, not the
    model), a removed reasoning draft (the answer after it is whole), and the note under a
    refusal the program gave in place of an answer no passage supported (what the owner is
    shown is the refusal; `figures` counts those apart, so the model's own refusals and the
    program's stay visible)."""
    return [
        f
        for f in findings
        if not f.startswith((SEARCH_NOTE, NOT_SUPPORTED)) and f not in (NO_PASSAGES, DRAFT_REMOVED)
    ]


def _expected(item: Mapping[str, Any]) -> str:
    if not item.get("answerable", True):
        return "no answer in the notes: the fixed refusal"
    facts = "; ".join(str(f) for f in item.get("facts") or [])
    notes = ", ".join(str(n) for n in item.get("expected_notes") or [])
    return f"facts: {facts}\nnotes: {notes}"


def figures(results: Sequence[ItemResult]) -> dict[str, Any]:
    """Over the whole dataset: a question the model failed on counts as not answered. Beside
    the grades, what the program carried: answers it cited for the model, and answers it
    replaced by the refusal (on questions the notes answer, and on those they do not)."""
    grades = [
        r.record["grade"]
        if r.error is None
        else {**grading.grade_answer(r.record["dataset"], "", False, []), "right": False}
        for r in results
    ]
    done = [r.record for r in results if r.error is None]
    return {
        **grading.ask_figures(grades, errors=sum(1 for r in results if r.error)),
        "citations_added": sum(1 for r in done if r.get("added")),
        "replaced_answerable": sum(
            1 for r in done if r.get("replaced") and r["grade"]["answerable"]
        ),
        "replaced_unanswerable": sum(
            1 for r in done if r.get("replaced") and not r["grade"]["answerable"]
        ),
    }


def report(f: Mapping[str, Any]) -> list[str]:
    return [
        f"right (program): {f['right']:g}/{f['questions']:g}",
        f"answerable: all facts found {f['facts_all_found']:g}/{f['answerable']:g}, "
        f"expected notes all cited {f['expected_all_cited']:g}/{f['answerable']:g}, "
        f"refused wrongly {f['false_refusals']:g}",
        f"unanswerable: refused {f['refused_right']:g}/{f['unanswerable']:g}; "
        f"answers the program flagged {f['flagged']:g}; model failures {f['errors']:g}",
        f"the program cited for the model in {f.get('citations_added', 0):g} answers; "
        f"replaced by the refusal: {f.get('replaced_unanswerable', 0):g} on unanswerable "
        f"questions, {f.get('replaced_answerable', 0):g} on answerable ones",
    ]


SUITE = Suite(
    name="ask",
    about="answers: expected facts present, no citation or text the program flagged, the fixed "
    "refusal exactly when the notes are silent",
    needs_chat=True,
    needs_embed=True,
    load=load,
    prepare=prepare,
    run_item=run_item,
    figures=figures,
    report=report,
    cleanup=close_index,
    sheet_columns=("question", "expected", "answer", "sources"),
    how_to_grade=(
        "Each row is one answer with the passages it cites. Grade it as the owner of the notes "
        "would: is it right for the day it was asked, and do the cited sources back it? Write "
        "`1` right, `0` wrong or `0.5` partly in the grade column; leave it empty to skip."
    ),
)
