"""Search: does each mode find the notes that answer a question? Needs only an embedding model.

The index covers the sample vault and the week's captures (under captures/, as search.jsonl's
answers expect). Each question is searched in every mode; chunks are folded into notes in the
rank of each note's best chunk, and the first 10 notes are graded.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from commonplace.evals import grading
from commonplace.evals.fixture import copy_vault, load_jsonl
from commonplace.evals.indexing import build_index, close_index
from commonplace.evals.suite import Item, ItemResult, Suite, SuiteEnv
from commonplace.index import SEARCH_MODES, Index

CHUNKS = 60  # chunks asked for per search: enough to fill 10 distinct notes
NOTES = max(grading.KS)
MODES = ("vector", "keyword", "hybrid")
assert set(MODES) == set(SEARCH_MODES)


def load(datasets: Path) -> list[Item]:
    return load_jsonl(datasets / "search.jsonl", ("id", "query", "answers"))


async def prepare(env: SuiteEnv) -> None:
    copy_vault(env.settings.vault, "keep")
    await build_index(env)


async def run_item(env: SuiteEnv, item: Item) -> ItemResult:
    index: Index = env.state["index"]
    answers = [str(a) for a in item["answers"]]
    modes: dict[str, Any] = {}
    for mode in MODES:
        response = await index.search(str(item["query"]), limit=CHUNKS, mode=mode)
        ranked = grading.distinct_notes(r.path for r in response.results)[:NOTES]
        modes[mode] = {
            "used": response.mode,
            "notice": response.notice,
            "notes": ranked,
            "chunks": [
                {"path": r.path, "heading": r.heading, "score": round(r.score, 5)}
                for r in response.results[:NOTES]
            ],
            **grading.grade_ranking(ranked, answers),
        }
    record = {"query": item["query"], "scope": item.get("scope", ""), "answers": answers}
    line = ", ".join(f"{m} {_ranks(modes[m]['ranks'])}" for m in MODES)
    return ItemResult(str(item["id"]), {**record, "modes": modes}, line=line)


def _ranks(ranks: Mapping[str, int | None]) -> str:
    """'rank 1', 'ranks 2+7', 'not found', 'ranks 3+-'."""
    shown = ["-" if r is None else str(r) for r in ranks.values()]
    if all(s == "-" for s in shown):
        return "not found"
    return ("rank " if len(shown) == 1 else "ranks ") + "+".join(shown)


def figures(results: Sequence[ItemResult]) -> dict[str, Any]:
    """Per mode: the retrieval figures overall and for each scope (vault, week)."""
    done = [r for r in results if r.error is None]
    out: dict[str, Any] = {"questions": len(results), "errors": len(results) - len(done)}
    scopes = sorted({str(r.record.get("scope") or "all") for r in done})
    for mode in MODES:
        grades = [r.record["modes"][mode] for r in done]
        table = grading.retrieval_figures(grades)
        table["fell_back"] = sum(1 for g in grades if g["used"] != mode)
        table["by_scope"] = {
            scope: grading.retrieval_figures(
                [r.record["modes"][mode] for r in done if (r.record.get("scope") or "all") == scope]
            )
            for scope in scopes
        }
        out[mode] = table
    return out


def report(figs: Mapping[str, Any]) -> list[str]:
    head = f"{'mode':<8} {'notes found':>12} {'all found':>10} {'MRR@10':>7} {'R@5':>6} {'R@10':>6}"
    lines = [head]
    for mode in MODES:
        t = figs[mode]
        lines.append(
            f"{mode:<8} {_of(t['notes_found'], t['notes_expected']):>12} "
            f"{_of(t['all_found'], t['questions']):>10} {t['mrr@10']:>7.3f} "
            f"{t['recall@5']:>6.3f} {t['recall@10']:>6.3f}"
        )
        for scope, s in t["by_scope"].items():
            lines.append(
                f"  {scope:<6} {_of(s['notes_found'], s['notes_expected']):>12} "
                f"{_of(s['all_found'], s['questions']):>10} {s['mrr@10']:>7.3f} "
                f"{s['recall@5']:>6.3f} {s['recall@10']:>6.3f}"
            )
        if t["fell_back"]:
            lines.append(f"  ({t['fell_back']} searches fell back from {mode} to keywords)")
    if figs.get("errors"):
        lines.append(f"{figs['errors']} questions failed")
    return lines


def _of(n: float, total: float) -> str:
    return f"{n:g}/{total:g}"


SUITE = Suite(
    name="search",
    about="notes found per search mode (vector, keyword, hybrid): recall@5/10, MRR@10",
    needs_chat=False,
    needs_embed=True,
    load=load,
    prepare=prepare,
    run_item=run_item,
    figures=figures,
    report=report,
    cleanup=close_index,
)
