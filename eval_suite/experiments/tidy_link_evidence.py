"""What evidence tells the links a capture should get from the candidates it is offered?

Issue 43: a small model links a capture to every candidate. This prints, for each fixture
capture, its candidates with the evidence the program can see without a chat model (the hybrid,
meaning and keyword scores of the search, the note's title or alias named in the capture) and
marks which the dataset (tidy.jsonl) requires (R) or accepts (a). Run with the built-in engine
(embeddings only; one thread):

    COMMONPLACE_CONFIG=/tmp/me.toml PYTHONPATH=daemon .venv/bin/python \\
        eval_suite/experiments/tidy_link_evidence.py
"""

from __future__ import annotations

import asyncio
import dataclasses
import json
import tempfile
from pathlib import Path

from commonplace.config import load_settings
from commonplace.evals import fixture, grading
from commonplace.index import Index
from commonplace.llm import make_llm
from commonplace.tidy import evidence
from commonplace.tidy.candidates import find_candidates
from commonplace.tidy.catalog import VaultCatalog
from commonplace.vault.markdown import split_frontmatter

TIDY = Path(__file__).resolve().parents[1] / "datasets" / "tidy.jsonl"


async def measure() -> None:
    work = Path(tempfile.mkdtemp(prefix="tidy-evidence-"))
    base = load_settings()
    s = fixture.eval_settings(base, work / "vault", work / "data", chat_model="", embed_model="")
    s = dataclasses.replace(s, model=dataclasses.replace(s.model, backend="builtin"))
    fixture.share_models(base, s.data_dir)
    fixture.copy_vault(s.vault, "none")
    captures = fixture.capture_files()
    llm = make_llm(s)
    index = Index.open(s, llm)
    try:
        await index.refresh()
        facts = VaultCatalog(s).facts()
        titles = sorted(set(facts.titles.values()))
        for line in TIDY.read_text(encoding="utf-8").splitlines():
            item = json.loads(line)
            required = {t.casefold() for t in item.get("links") or ()}
            ok = grading.acceptable_links(item, titles)
            _, body, _ = split_frontmatter(captures[item["capture"]].decode("utf-8"))
            cands = await find_candidates(index, body, s.daemon_folders())
            modes = {}
            for mode in ("vector", "keyword"):
                found = await index.search(
                    body,
                    limit=30,
                    mode=mode,
                    exclude_folders=s.daemon_folders(),
                    group_by_note=True,
                )
                modes[mode] = {r.title: r.score for r in found.results}
            print(f"== {item['capture']}  {body.strip()[:90]!r}")
            for c in cands:
                t = c.title.casefold()
                mark = "R" if t in required else "a" if t in ok else "."
                named = evidence.named_in(c.title, body, facts)
                vec = modes["vector"].get(c.title, 0.0)
                kw = modes["keyword"].get(c.title, 0.0)
                print(
                    f"  {mark} fused {c.score or 0.0:5.3f} vec {vec:5.3f} kw {kw:6.2f} "
                    f"{c.title:28s} named={named!r}"
                )
    finally:
        index.close()
        await llm.aclose()


if __name__ == "__main__":
    asyncio.run(measure())
