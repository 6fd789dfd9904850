"""Tidy's candidate notes against the links the fixture's captures should get (tidy.jsonl).

Tidy shows the model up to 8 candidate notes, found by a hybrid search with the capture's text
(tidy/candidates.py); a link the model is never shown cannot be made. This measures that step
alone, with a real embedding model and no chat model: for each capture with expected links, how
many are among the candidates, and the reciprocal rank of the first. Used to check that a change
to search does not cost tidying (eval_suite/README.md, Q1).

    OLLAMA_HOST=http://127.0.0.1:11435 .venv/bin/python eval_suite/tidy_candidates.py \\
        --embed-model all-minilm
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import tempfile
from pathlib import Path

from commonplace.config import Settings
from commonplace.evals import fixture
from commonplace.evals.fixture import on_ollama
from commonplace.index import Index
from commonplace.llm import make_llm
from commonplace.tidy.candidates import MAX_CANDIDATES, find_candidates
from commonplace.vault.markdown import split_frontmatter

TIDY = Path(__file__).resolve().parent / "datasets" / "tidy.jsonl"


async def measure(embed_model: str, host: str, verbose: bool) -> None:
    work = Path(tempfile.mkdtemp(prefix="tidy-candidates-"))
    base = Settings()
    base = on_ollama(base, host)
    s = fixture.eval_settings(
        base, work / "vault", work / "data", chat_model="-", embed_model=embed_model
    )
    fixture.copy_vault(s.vault, "none")  # the notes, as the week begins
    captures = fixture.capture_files()
    index = Index.open(s, make_llm(s))
    try:
        await index.refresh()
        found = wanted = 0
        reciprocal: list[float] = []
        for line in TIDY.read_text(encoding="utf-8").splitlines():
            item = json.loads(line)
            links = set(item.get("links") or ())
            if not links:
                continue
            _, body, _ = split_frontmatter(captures[item["capture"]].decode("utf-8"))
            titles = [c.title for c in await find_candidates(index, body, s.daemon_folders())]
            ranks = [i for i, title in enumerate(titles, 1) if title in links]
            found, wanted = found + len(ranks), wanted + len(links)
            reciprocal.append(1 / ranks[0] if ranks else 0.0)
            if verbose or len(ranks) < len(links):
                print(f"  {item['capture']}: links at {ranks or '-'} of {sorted(links)}; {titles}")
        print(
            f"{len(reciprocal)} captures with links: {found}/{wanted} links among the "
            f"{MAX_CANDIDATES} candidates, first link's MRR {sum(reciprocal) / len(reciprocal):.3f}"
        )
    finally:
        index.close()


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--embed-model", default="all-minilm")
    p.add_argument("--ollama-host", default=os.environ.get("OLLAMA_HOST", "http://127.0.0.1:11434"))
    p.add_argument("-v", "--verbose", action="store_true", help="every capture's candidates")
    a = p.parse_args()
    asyncio.run(measure(a.embed_model, a.ollama_host, a.verbose))


if __name__ == "__main__":
    main()
