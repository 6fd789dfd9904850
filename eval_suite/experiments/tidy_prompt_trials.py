"""Which way of asking gets a small model's links, tags and to-dos right (issue 43)?

Each variant is a prompt and a schema for the same tidy call; the model's answer goes through
the program's checks (tidy/validate.py) and the eval's grade (evals/grading.py), one line per
capture and variant. One index and one engine serve every variant, so trying three ways on
eight captures costs the model calls only. What wins goes into the product and is measured
with `commonplace eval tidy` (3 runs); these lines are the lab notebook, not the figures.

    COMMONPLACE_CONFIG=/tmp/me.toml PYTHONPATH=daemon .venv/bin/python \\
        eval_suite/experiments/tidy_prompt_trials.py --variants v0,v1 --captures 0805,1248
"""

from __future__ import annotations

import argparse
import asyncio
import dataclasses
import json
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import pydantic

from commonplace.capture.inbox import Capture, read_capture
from commonplace.config import load_settings
from commonplace.evals import fixture, grading
from commonplace.index import Index
from commonplace.llm import LLM, make_llm
from commonplace.tidy import evidence, support
from commonplace.tidy.candidates import find_candidates
from commonplace.tidy.catalog import VaultCatalog, VaultFacts
from commonplace.tidy.models import Candidate, Proposal
from commonplace.tidy.proposal import build_messages, days_line, days_named, fence, proposal_schema
from commonplace.tidy.validate import decide

TIDY = Path(__file__).resolve().parents[1] / "datasets" / "tidy.jsonl"
HERE = Path(__file__).resolve().parent


class Loose(pydantic.RootModel[dict[str, Any]]):
    pass


Variant = Callable[
    [Capture, Sequence[Candidate], VaultFacts], tuple[list[dict[str, str]], dict[str, Any]]
]


def v0(capture: Capture, cands: Sequence[Candidate], facts: VaultFacts) -> Any:
    """The product as it is."""
    return build_messages(capture, cands, facts.top_tags()), proposal_schema(
        cands, days_named(capture)
    )


def _note_tags(title: str, facts: VaultFacts) -> list[str]:
    return list(facts.note_tags.get(title.casefold(), ()))


def _v1_prompt(
    capture: Capture,
    cands: Sequence[Candidate],
    facts: VaultFacts,
    system: str,
    *,
    marks: bool = False,
) -> list[dict[str, str]]:
    lines = []
    own = support.owners_words(capture.body)
    for c in cands:
        tags = _note_tags(c.title, facts)
        line = f"- {c.title}" + (f" ({', '.join(tags)})" if tags else "")
        named = evidence.named_in(c.title, own, facts) if marks else None
        lines.append(line + (f' - the capture names it: "{named}"' if named else ""))
    tags = _offered_tags(cands, facts)
    user = (
        "Notes:\n" + ("\n".join(lines) or "(none)") + "\n\n"
        f"Tags: {', '.join(tags) or '(none)'}\n"
        f"Days the capture names: {days_line(days_named(capture))}\n\n"
        f"<capture>\n{fence(capture.body.strip())}\n</capture>"
    )
    return [{"role": "system", "content": system}, {"role": "user", "content": user}]


def _offered_tags(cands: Sequence[Candidate], facts: VaultFacts, n: int = 15) -> list[str]:
    out: list[str] = []
    for c in cands:
        for t in _note_tags(c.title, facts):
            if t not in out:
                out.append(t)
    for t in facts.top_tags():
        if t not in out:
            out.append(t)
    return out[:n]


def _schema(
    cands: Sequence[Candidate], capture: Capture, facts: VaultFacts, *, bools: bool
) -> dict[str, Any]:
    schema = proposal_schema(cands, days_named(capture))
    props = schema["properties"]
    props["tags"] = {
        "type": "array",
        "items": {"type": "string", "enum": _offered_tags(cands, facts)},
        "maxItems": 3,
    }
    if bools and cands:
        props["links"] = {
            "type": "object",
            "properties": {c.title: {"type": "boolean"} for c in cands},
            "required": [c.title for c in cands],
        }
    return schema


def v1(capture: Capture, cands: Sequence[Candidate], facts: VaultFacts) -> Any:
    system = (HERE / "tidy_v1_system.md").read_text()
    return _v1_prompt(capture, cands, facts, system), _schema(cands, capture, facts, bools=False)


def v2(capture: Capture, cands: Sequence[Candidate], facts: VaultFacts) -> Any:
    system = (HERE / "tidy_v2_system.md").read_text()
    return _v1_prompt(capture, cands, facts, system), _schema(cands, capture, facts, bools=True)


def v3(capture: Capture, cands: Sequence[Candidate], facts: VaultFacts) -> Any:
    system = (HERE / "tidy_v1_system.md").read_text()
    messages = _v1_prompt(capture, cands, facts, system, marks=True)
    return messages, _schema(cands, capture, facts, bools=False)


VARIANTS: dict[str, Variant] = {"v0": v0, "v1": v1, "v2": v2, "v3": v3}


def as_proposal(value: dict[str, Any]) -> Proposal:
    links = value.get("links")
    if isinstance(links, dict):
        value = {**value, "links": [k for k, v in links.items() if v is True]}
    return Proposal.model_validate(value)


async def trial(
    llm: LLM,
    variant: Variant,
    capture: Capture,
    cands: list[Candidate],
    facts: VaultFacts,
    row: dict[str, Any],
    titles: list[str],
) -> str:
    messages, schema = variant(capture, cands, facts)
    started = time.monotonic()
    answer = await llm.chat_json(messages, Loose, schema=schema)
    took = time.monotonic() - started
    proposal = as_proposal(answer.root)
    d = decide(proposal, capture, facts, candidates=cands)
    grade = grading.grade_filing(
        row,
        links=d.links,
        tags=d.tags,
        todos=[{"text": t.text, "due": t.due.isoformat() if t.due else None} for t in d.todos],
        known_titles=titles,
    )
    mark = "RIGHT" if grade["right_after_checks"] else "wrong"
    return (
        f"{mark} {took:4.0f}s links {list(d.links)} (proposed {proposal.links}) "
        f"tags {list(d.tags)} "
        f"(proposed {proposal.tags}) todos {[(t.text, str(t.due)) for t in d.todos]} "
        f"(proposed {[(t.text, t.when) for t in proposal.todos]})"
    )


async def main(variants: list[str], wanted: list[str]) -> None:
    work = Path(tempfile.mkdtemp(prefix="tidy-trials-"))
    base = load_settings()
    s = fixture.eval_settings(base, work / "vault", work / "data", chat_model="", embed_model="")
    s = dataclasses.replace(s, model=dataclasses.replace(s.model, backend="builtin"))
    fixture.share_models(base, s.data_dir)
    fixture.copy_vault(s.vault, "inbox")
    llm = make_llm(s)
    index = Index.open(s, llm)
    try:
        await index.refresh()
        facts = VaultCatalog(s).facts()
        titles = sorted(set(facts.titles.values()))
        rows = [json.loads(line) for line in TIDY.read_text(encoding="utf-8").splitlines()]
        for row in rows:
            if wanted and not any(w in row["capture"] for w in wanted):
                continue
            capture = read_capture(s.vault, f"Inbox/{row['capture']}", s.tz)
            found = await find_candidates(index, capture.body, s.daemon_folders())
            cands = evidence.with_named(found, support.owners_words(capture.body), facts)
            print(
                f"== {row['capture']} expected links {row['links']} todos "
                f"{[(t['text'][:30], t['due']) for t in row['todos']]}",
                flush=True,
            )
            for name in variants:
                line = await trial(llm, VARIANTS[name], capture, cands, facts, row, titles)
                print(f"  {name}: {line}", flush=True)
    finally:
        index.close()
        await llm.aclose()


if __name__ == "__main__":
    p = argparse.ArgumentParser()
    p.add_argument("--variants", default="v0,v1,v2")
    p.add_argument("--captures", default="")
    a = p.parse_args()
    asyncio.run(main(a.variants.split(","), [c for c in a.captures.split(",") if c]))
