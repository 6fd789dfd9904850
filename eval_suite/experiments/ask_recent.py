#!/usr/bin/env python3
"""Do the owner's latest notes of one day (ask/recent.py) bring the answer into the prompt?

Indexes the sample vault as `commonplace eval ask` does (the built-in engine's embedding
model) and, for each question, builds the passages the model would read with and without the
recent notes of one day (ask/answer.py: retrieve, then recent_passages, then `given`), and
counts the answerable questions whose expected facts all stand in them, the characters read,
and which notes were added. No chat model is called.

    COMMONPLACE_CONFIG=/tmp/eval.toml PYTHONPATH=daemon .venv/bin/python \
        eval_suite/experiments/ask_recent.py
"""

from __future__ import annotations

import asyncio
import dataclasses
import json
import tempfile
from datetime import date
from pathlib import Path
from typing import Any

from commonplace.ask.answer import given
from commonplace.ask.passages import retrieve
from commonplace.ask.recent import recent_passages, with_recent
from commonplace.config import load_settings
from commonplace.evals import fixture
from commonplace.evals.grading import fact_present
from commonplace.index import Index
from commonplace.llm import make_llm

DATASET = Path("eval_suite/datasets/ask.jsonl")
FIXTURE_TODAY = date(2026, 10, 26)


async def main(rows: list[dict[str, Any]]) -> None:
    base = load_settings()
    with tempfile.TemporaryDirectory(prefix="ask-recent-") as tmp:
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
        limit = settings.ask.passages
        found = {"before": 0, "after": 0}
        chars = {"before": 0, "after": 0}
        try:
            await index.refresh()
            for row in rows:
                today = date.fromisoformat(row["asked_on"]) if row["asked_on"] else FIXTURE_TODAY
                q = row["question"]
                searched, _ = await retrieve(q, index, limit=limit)
                recent = await recent_passages(q, index, today, searched)
                for name, ps in (
                    ("before", searched),
                    ("after", with_recent(searched, recent, limit)),
                ):
                    text = "\n".join(p.text for p in given(ps, q, settings, today))
                    chars[name] += len(text)
                    ok = row["answerable"] and all(fact_present(f, text) for f in row["facts"])
                    found[name] += ok
                    if name == "after":
                        print(row["id"], "facts in prompt:", ok, "added:", [p.path for p in recent])
        finally:
            index.close()
            await llm.aclose()
    n = len(rows)
    print(f"answerable with all facts in the prompt: {found['before']} -> {found['after']} of 40")
    print(f"characters read (mean): {chars['before'] / n:.0f} -> {chars['after'] / n:.0f}")


if __name__ == "__main__":
    asyncio.run(main([json.loads(x) for x in DATASET.read_text().splitlines() if x.strip()]))
