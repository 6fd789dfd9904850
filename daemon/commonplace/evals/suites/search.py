"""Search: does each mode find the notes that answer a question? Needs only an embedding model.

Two kinds of dataset folder (`--datasets`):

- the project's own (eval_suite/datasets/): `search.jsonl` over the sample vault and the week's
  captures (under captures/, as its answers expect);
- a vault dev set such as ../shared/devsets/logseq-docs/: `questions.jsonl` (`id`, `q`,
  `expected`, `kind`) over the real vault in `vault/` beside it. The vault is copied, its
  flavour (Logseq or Obsidian) recognised, and `kind` is reported like a scope.

Each question is searched in every mode, with results grouped by note as people see them (the
API's and the CLI's default), and the first 10 notes are graded. Each mode's ranking is also
written as `ranked-<mode>-run-N.jsonl` (`{"id", "paths"}` lines), the format a dev set's own
scorer reads.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from commonplace.evals import grading
from commonplace.evals.fixture import DatasetError, copy_vault, load_jsonl
from commonplace.evals.indexing import build_index, close_index
from commonplace.evals.suite import Item, ItemResult, Suite, SuiteEnv
from commonplace.index import SEARCH_MODES, Index

NOTES = max(grading.KS)
MODES = ("vector", "keyword", "hybrid")
assert set(MODES) == set(SEARCH_MODES)


QUESTIONS = "questions.jsonl"  # a vault dev set's questions; its vault is in vault/


def is_vault_set(datasets: Path) -> bool:
    return (datasets / QUESTIONS).is_file() and (datasets / "vault").is_dir()


def load(datasets: Path) -> list[Item]:
    if not is_vault_set(datasets):
        return load_jsonl(datasets / "search.jsonl", ("id", "query", "answers"))
    rows = load_jsonl(datasets / QUESTIONS, ("id", "q", "expected"))
    vault = datasets / "vault"
    missing = sorted({str(a) for r in rows for a in r["expected"] if not (vault / a).is_file()})
    if missing:
        raise DatasetError(f"{QUESTIONS}: expected notes not in vault/: {', '.join(missing)}")
    return [
        {"id": r["id"], "query": r["q"], "answers": r["expected"], "scope": r.get("kind", "")}
        for r in rows
    ]


async def prepare(env: SuiteEnv) -> None:
    if is_vault_set(env.datasets):
        source = env.datasets / "vault"
        copy_notes(source, env.settings.vault)
        flavor = vault_flavor(source)
        env.settings = dataclasses.replace(env.settings, flavor=flavor)
        env.info["vault"] = {"source": str(source), "flavor": flavor}
    else:
        copy_vault(env.settings.vault, "keep")
    await build_index(env)


def copy_notes(source: Path, dest: Path) -> None:
    """Copy a vault's files as plain writable files (a dev set may be read-only, and its modes
    would make the temporary copy hard to delete)."""
    for path in sorted(source.rglob("*")):
        if path.is_file() and ".git" not in path.relative_to(source).parts:
            target = dest / path.relative_to(source)
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(path.read_bytes())


def vault_flavor(vault: Path) -> str:
    """A Logseq graph has a logseq/ folder (config.edn) or pages/ and journals/ (without
    config.edn its pages directory can only be Logseq's default, so pages/ is the one to see;
    one that sets `:pages-directory` has a logseq/ folder)."""
    if (vault / "logseq").is_dir() or (
        (vault / "pages").is_dir() and (vault / "journals").is_dir()
    ):
        return "logseq"
    return "obsidian"


async def run_item(env: SuiteEnv, item: Item) -> ItemResult:
    index: Index = env.state["index"]
    answers = [str(a) for a in item["answers"]]
    modes: dict[str, Any] = {}
    for mode in MODES:
        response = await index.search(
            str(item["query"]), limit=NOTES, mode=mode, group_by_note=True
        )
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
    for mode in MODES:
        line = json.dumps({"id": item["id"], "paths": modes[mode]["notes"]}, ensure_ascii=False)
        with (env.folder / f"ranked-{mode}-run-{env.run}.jsonl").open("a", encoding="utf-8") as f:
            f.write(line + "\n")
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
