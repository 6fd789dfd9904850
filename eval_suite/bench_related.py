"""Benchmark of related notes (GET /api/related, the Obsidian plugin's side view). Prints JSON.

    .venv/bin/python eval_suite/bench_related.py --notes 2000 --tools-dir ../shared/tools

Builds the synthetic vault and its index as bench_index.py does (the fake Ollama's hashed
embeddings unless --ollama-host is given), then times `related_notes` for --rounds notes picked
at random: the part the daemon runs after reading the note, with no model call.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import bench_index

from commonplace.config import Settings
from commonplace.index import Index, SearchFilter
from commonplace.index.related import related_notes
from commonplace.llm import make_llm
from commonplace.vault import iter_note_paths, read_note


def parse_args() -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--notes", type=int, default=2000)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--rounds", type=int, default=100, help="notes whose related notes are timed")
    p.add_argument("--tools-dir", default=os.environ.get("COMMONPLACE_SHARED_TOOLS"))
    p.add_argument("--work", help="folder for the vault and the index (default: a temp folder)")
    p.add_argument("--ollama-host", help="an Ollama-compatible embedder instead of the fake")
    p.add_argument("--embed-model")
    args = p.parse_args()
    # what bench_index's helpers read
    for name in ("chunk_tokens", "keyword_candidates", "vector_index_rows", "rrf_k"):
        setattr(args, name, None)
    args.fixture = args.no_embed_titles = False
    return args


async def run(settings: Settings, rounds: int, seed: int) -> dict[str, Any]:
    index = Index.open(settings, make_llm(settings))
    try:
        start = time.perf_counter()
        await index.refresh()
        built = time.perf_counter() - start
        paths = sorted(iter_note_paths(settings.vault))  # vault-relative
        picked = random.Random(seed).sample(paths, min(rounds, len(paths)))
        times: list[float] = []
        found: list[int] = []
        for rel in picked:
            note = read_note(settings.vault, rel, settings.flavor)
            t0 = time.perf_counter()
            response = related_notes(
                index.stores, rel, note.title, note.body, limit=10, flt=SearchFilter()
            )
            times.append((time.perf_counter() - t0) * 1000)
            found.append(len(response.results))
        return {
            "index_build_s": round(built, 1),
            "chunks": index.status()["chunks"],
            "related_ms_p50": round(bench_index.pct(times, 0.5), 1),
            "related_ms_p95": round(bench_index.pct(times, 0.95), 1),
            "related_ms_max": round(max(times), 1),
            "results_min": min(found),
        }
    finally:
        index.close()


def main() -> None:
    args = parse_args()
    work = Path(args.work or tempfile.mkdtemp(prefix="bench-related-"))
    vault, _ = bench_index.make_vault(args, work)
    with bench_index.embedder(args) as host:
        settings = bench_index.make_settings(args, vault, work / "data", host)
        report = {"notes": args.notes, "rounds": args.rounds, "cpu_count": os.cpu_count()}
        report.update(asyncio.run(run(settings, args.rounds, args.seed)))
    print(json.dumps(report, indent=1))


if __name__ == "__main__":
    main()
