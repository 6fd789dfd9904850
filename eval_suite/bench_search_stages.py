"""Where a hybrid search's time goes, stage by stage (p50 / p95 ms). Prints JSON.

    .venv/bin/python eval_suite/bench_index.py --notes 50000 --seed 1 --vector-process \
        --work /tmp/bench-50k                       # builds the index once (kept)
    .venv/bin/python eval_suite/bench_search_stages.py --work /tmp/bench-50k --vector-process

The stages are those of `Searcher.run` in hybrid mode, in its order: the meaning search sent
(`send`; in one process it runs when awaited), the keyword lists searched meanwhile (`notes`:
whole-note BM25, `words`: chunk BM25), the meaning side's answer awaited (`wait`: the vector
store's query, less what overlapped), its CSLS rescoring (`rescore`), the whole-note BM25 of the
meaning notes past the keyword list (`beyond`), a chunk for the notes only the keyword list
found (`best_chunks`), the fusion (`fuse`), and the text of the meaning hits shown, which past
the vector store's memory budget come as keys only (`read`). Each search is run once staged and
checked to give what `Searcher.run` gives (so the stages cannot drift from the search); then the
same query is run once through `Searcher.run` in hybrid mode (`run`) and in vector mode
(`vector`).
The query vectors come from the fake embedder, as in bench_index.py, and are cached first.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import sys
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from tests.fakes.ollama import FakeOllama, run_in_thread  # noqa: E402

from commonplace.config import load_settings  # noqa: E402
from commonplace.index import Index, SearchFilter  # noqa: E402
from commonplace.index.hybrid import fuse  # noqa: E402
from commonplace.index.searching import CHUNKS_PER_NOTE, VECTOR_POOL, _beyond_the_list  # noqa: E402
from commonplace.llm import make_llm  # noqa: E402

STAGES = ["send", "notes", "words", "wait", "rescore", "beyond", "best_chunks", "fuse", "read"]


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--work", required=True, help="a folder bench_index.py --work built")
    p.add_argument("--searches", type=int, default=300)
    p.add_argument("--limit", type=int, default=10)
    p.add_argument("--vector-process", action="store_true", help="as the daemon runs it")
    args = p.parse_args()
    out = asyncio.run(stages(args))
    print("{\n" + ",\n".join(f"  {json.dumps(k)}: {json.dumps(v)}" for k, v in out.items()) + "\n}")


async def stages(args: argparse.Namespace) -> dict[str, Any]:
    work = Path(args.work)
    fake = FakeOllama()
    fake.record = False
    with run_in_thread(fake) as url:
        env = {
            "COMMONPLACE_VAULT": str(work / "vault"),
            "COMMONPLACE_DATA": str(work / "data"),
            "OLLAMA_HOST": url,
            "COMMONPLACE_EMBED_MODEL": "nomic-embed-text",
        }
        settings = load_settings(env=env)
        index = Index.open(settings, make_llm(settings), daemon=args.vector_process)
        try:
            index.neighbourhoods.loaded.wait(120)
            rows = (work / "queries.jsonl").read_text().splitlines()
            texts = [json.loads(r)["query"] for r in rows if r.strip()]
            vectors = [await index.searcher.query_vector(t) for t in texts]
            times: dict[str, list[float]] = {s: [] for s in [*STAGES, "staged", "run", "vector"]}
            for i in range(args.searches + 5):  # the first five warm the caches up
                text, vector = texts[i % len(texts)], vectors[i % len(texts)]
                spent = staged(index, text, vector, args.limit, times if i >= 5 else None)
                if i >= 5:
                    times["staged"].append(spent)
                flt = SearchFilter()
                t0 = time.perf_counter()
                index.searcher.run(text, vector, "hybrid", args.limit, flt)
                t1 = time.perf_counter()
                index.searcher.run(text, vector, "vector", args.limit, flt)
                t2 = time.perf_counter()
                if i >= 5:
                    times["run"].append(t1 - t0)
                    times["vector"].append(t2 - t1)
        finally:
            index.close()
    out: dict[str, Any] = {
        "work": str(work),
        "searches": args.searches,
        "vector_process": args.vector_process,
        "chunks": index.status()["chunks"],
        "load_average": [round(x, 2) for x in os.getloadavg()],
    }
    for name, values in times.items():
        ordered = sorted(values)
        p95 = ordered[min(len(ordered) - 1, int(0.95 * len(ordered)))]
        out[name] = [round(1000 * statistics.median(values), 2), round(1000 * p95, 2)]
    return out


def staged(
    index: Index, text: str, vector: list[float], limit: int, times: dict[str, list[float]] | None
) -> float:
    """Searcher.run's hybrid path, timed stage by stage; checked against Searcher.run."""
    st, cfg, hubs = index.stores, index.settings.index, index.neighbourhoods
    flt = SearchFilter()
    pool = max(limit * CHUNKS_PER_NOTE, VECTOR_POOL)
    depth = cfg.keyword_candidates
    marks = [time.perf_counter()]
    later = st.vectors.search_later(vector, pool, flt, texts=False)
    marks.append(time.perf_counter())
    keywords = st.keywords.view()
    notes = keywords.search_notes(text, depth, flt)
    marks.append(time.perf_counter())
    words = keywords.search(text, depth * CHUNKS_PER_NOTE, flt)
    marks.append(time.perf_counter())
    answer = later()
    marks.append(time.perf_counter())
    meaning = hubs.rescore(answer)
    marks.append(time.perf_counter())
    if meaning and 0 < depth == len(notes):
        notes += _beyond_the_list(keywords, text, meaning, notes)
    marks.append(time.perf_counter())
    shown = {h.path for h in [*meaning, *words]}
    extra = keywords.best_chunks(text, [p for p, _ in notes if p not in shown])
    marks.append(time.perf_counter())
    fused = fuse(
        vector=meaning,
        keyword=words,
        notes=notes,
        note_chunks=extra,
        method="rrf" if cfg.fusion == "rrf" else "convex",
        k=cfg.rrf_k,
        keyword_weight=cfg.keyword_weight if meaning else 1.0,
        limit=limit,
    )
    marks.append(time.perf_counter())
    results = index.searcher._read(fused.chunks, keywords)
    marks.append(time.perf_counter())
    expected = index.searcher.run(text, vector, "hybrid", limit, flt)
    if results != expected:
        raise SystemExit(f"the staged search and Searcher.run differ for {text!r}: update STAGES")
    if times is not None:
        for name, start, end in zip(STAGES, marks[:-1], marks[1:], strict=True):
            times[name].append(end - start)
    return marks[-1] - marks[0]


if __name__ == "__main__":
    main()
