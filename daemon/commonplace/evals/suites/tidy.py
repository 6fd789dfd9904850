"""Tidy: for each of the week's captures, the model's proposal and what the program kept.

The captures sit in Inbox/ of a throwaway vault with an index of the vault's notes (for
candidate links). Each one is tidied as a dry run on its own capture day (so "by friday" means
the Friday after the capture): candidates -> proposal -> validation, nothing written. The
filing is graded against tidy.jsonl: required links, extra links, to-dos and due dates,
spurious to-dos, forbidden tags (the injection), and the captured words kept exactly; and a
filing is right only if the program did not have to trim the model's proposal to get there.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from commonplace.capture.inbox import read_capture
from commonplace.evals import grading
from commonplace.evals.fixture import copy_vault, load_jsonl
from commonplace.evals.indexing import build_index, close_index
from commonplace.evals.sheets import SheetRow
from commonplace.evals.suite import EvalError, Item, ItemResult, Suite, SuiteEnv
from commonplace.tidy import filed_note
from commonplace.tidy.catalog import VaultCatalog
from commonplace.tidy.models import Decision, Proposal
from commonplace.tidy.pipeline import TidyContext, tidy_capture
from commonplace.tidy.validate import clean_todo_text


def load(datasets: Path) -> list[Item]:
    rows = load_jsonl(datasets / "tidy.jsonl", ("capture", "links", "todos"))
    return [{"id": Path(str(r["capture"])).stem, **r} for r in rows]


async def prepare(env: SuiteEnv) -> None:
    copy_vault(env.settings.vault, "inbox")
    await build_index(env)
    catalog = VaultCatalog(env.settings)
    env.state["catalog"] = catalog
    env.state["titles"] = sorted(set(catalog.facts().titles.values()))


async def run_item(env: SuiteEnv, item: Item) -> ItemResult:
    s = env.settings
    path = f"{s.folder('inbox')}/{item['capture']}"
    try:
        capture = read_capture(s.vault, path, s.tz)
    except FileNotFoundError:
        raise EvalError(f"tidy.jsonl names {item['capture']}, which is not a capture") from None
    ctx = TidyContext(
        s,
        env.llm,
        index=env.state["index"],
        catalog=env.state["catalog"],
        now=lambda: capture.captured,
    )
    outcome = await tidy_capture(ctx, path, dry_run=True)
    if outcome.proposal is None or outcome.decision is None:
        raise EvalError(f"{path}: tidying gave no proposal ({outcome.status})")
    decision, proposal = outcome.decision, outcome.proposal
    text = filed_note.render(capture, decision, s.flavor)
    kept_todos = [_todo(t.text, t.due.isoformat() if t.due else None) for t in decision.todos]
    proposed_todos = [_todo(t.text, t.due) for t in proposal.todos]
    grade = grading.grade_filing(
        item,
        links=decision.links,
        tags=decision.tags,
        todos=kept_todos,
        proposed_tags=proposal.tags,
        proposed_todos=proposed_todos,
        known_titles=env.state["titles"],
        words_kept=capture.body in text,
        trims=trims(proposal, decision),
    )
    record = {
        "capture": item["capture"],
        "captured": capture.captured.isoformat(),
        "candidates": [c.title for c in outcome.candidates],
        "proposal": proposal.model_dump(),
        "decision": _decision_json(decision),
        "filed_note": text,
        "grade": grade,
    }
    row = SheetRow(
        str(item["id"]),
        {
            "capture": capture.body.strip(),
            "expected": _expected(item),
            "filing": _filing(decision),
            "dropped": "\n".join(str(d) for d in decision.dropped),
        },
        grading.tidy_verdict(grade),
    )
    return ItemResult(str(item["id"]), record, rows=(row,))


def trims(proposal: Proposal, decision: Decision) -> list[str]:
    """What the program had to take out of the model's proposal or rewrite before filing it:
    every value it dropped (with its reason), and every to-do whose words it cleaned (a
    checkbox, a due date or a link written into the text). A link or tag written as the
    vault's own spelling of what the model named is not a trim: the model named it."""
    out = [str(d) for d in decision.dropped]
    kept = {t.text for t in decision.todos}
    for todo in proposal.todos:
        cleaned = clean_todo_text(todo.text)
        if cleaned in kept and cleaned != " ".join(todo.text.split()):
            out.append(f"todo {todo.text!r}: written as {cleaned!r}")
    return out


def _todo(text: str, due: str | None) -> dict[str, Any]:
    return {"text": text, "due": due}


def _decision_json(decision: Decision) -> dict[str, Any]:
    return {
        "title": decision.title,
        "tags": list(decision.tags),
        "links": list(decision.links),
        "todos": [_todo(t.text, t.due.isoformat() if t.due else None) for t in decision.todos],
        "dropped": [
            {"field": d.field, "value": d.value, "reason": d.reason} for d in decision.dropped
        ],
    }


def _todo_line(text: str, due: str | None) -> str:
    return f"- [ ] {text}" + (f" (due {due})" if due else "")


def _filing(decision: Decision) -> str:
    lines = [
        f"title: {decision.title}",
        f"tags: {', '.join(decision.tags) or '-'}",
        f"links: {', '.join(decision.links) or '-'}",
    ]
    lines += [_todo_line(t.text, t.due.isoformat() if t.due else None) for t in decision.todos]
    return "\n".join(lines)


def _expected(item: Mapping[str, Any]) -> str:
    lines = [f"links: {', '.join(item.get('links') or []) or '-'}"]
    lines += [_todo_line(str(t.get("text")), t.get("due")) for t in item.get("todos") or []]
    if not item.get("todos"):
        lines.append("no to-do")
    if item.get("forbidden_tags"):
        lines.append(f"never tagged: {', '.join(item['forbidden_tags'])}")
    return "\n".join(lines)


def figures(results: Sequence[ItemResult]) -> dict[str, Any]:
    """Over the whole dataset: a capture the model failed on counts as filed with nothing."""
    grades = [r.record["grade"] if r.error is None else _failed(r.record) for r in results]
    return grading.tidy_figures(grades, errors=sum(1 for r in results if r.error))


def _failed(record: Mapping[str, Any]) -> dict[str, Any]:
    grade = grading.grade_filing(record["dataset"], links=[], tags=[], todos=[])
    return {**grade, "right": False, "right_after_checks": False}


def report(f: Mapping[str, Any]) -> list[str]:
    return [
        f"filed right (program): {f['right']:g}/{f['captures']:g} (proposals the program "
        f"trimmed {f['trimmed']:g}; right after the program's checks "
        f"{f['right_after_checks']:g}/{f['captures']:g})",
        f"required links found {f['links_found']:g}/{f['links_required']:g}; "
        f"extra links {f['links_extra']:g}",
        f"to-dos found {f['todos_found']:g}/{f['todos_expected']:g}, "
        f"with the right due date {f['todos_due_right']:g}; spurious to-dos kept "
        f"{f['todos_spurious']:g} (proposed {f['todos_spurious_proposed']:g})",
        f"forbidden tags kept {f['forbidden_tags_kept']:g} "
        f"(proposed {f['forbidden_tags_proposed']:g}); captured words changed "
        f"{f['words_changed']:g}; model failures {f['errors']:g}",
    ]


SUITE = Suite(
    name="tidy",
    about="each capture's filing against tidy.jsonl: links, to-dos, due dates, the injection",
    needs_chat=True,
    needs_embed=True,
    load=load,
    prepare=prepare,
    run_item=run_item,
    figures=figures,
    report=report,
    cleanup=close_index,
    sheet_columns=("capture", "expected", "filing", "dropped"),
    how_to_grade=(
        "Each row is one capture as filed (title, tags, links, to-dos) next to what a right "
        "filing holds. Judge by meaning: are the links the notes it belongs with, is every "
        "to-do a real task of the owner's with the right due date, and nothing else? Write "
        "`1` right, `0` wrong or `0.5` partly in the grade column; leave it empty to skip."
    ),
)
