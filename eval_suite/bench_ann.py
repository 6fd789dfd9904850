"""LanceDB's vector index at search time: how far its answers are from the exact ones, and what
they cost, for settings of its query (ef, nprobes, refine_factor). Prints JSON.

    .venv/bin/python eval_suite/bench_ann.py --vectors DATA/index/vectors --queries Q.jsonl

Reuses an index bench_index.py built (--work keeps it: DATA is its data folder's vault-*
folder): building one at 50,000 notes takes minutes, asking it seconds. The queries are the
bench's questions embedded as bench_index.py embeds them (the fake Ollama's hashed bag of words,
the nomic query prefix), so the figures are of the same searches. Exact answers: every stored
vector compared with the query (numpy). The store is asked as a search asks it (VectorStore:
the meaning side's pool of candidates, every result column), past the memory budget.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from tests.fakes.embedding import hashed_embedding  # noqa: E402

from commonplace.index import vectors  # noqa: E402
from commonplace.index.filters import SearchFilter  # noqa: E402
from commonplace.index.searching import CHUNKS_PER_NOTE, VECTOR_POOL  # noqa: E402
from commonplace.llm.profiles import known_profile  # noqa: E402

TIE = 1e-5  # cosines this close are the same rank
SETTINGS: list[dict[str, int]] = [
    {},  # as the store asks now (vectors.EF_PER_RESULT)
    {"ef": 120},  # 2 per result, the earlier setting
    {"ef": 240},
    {"ef": 480},
    {"ef": 960},
    {"ef": 1920},
    {"refine_factor": 2},
    {"nprobes": 40},
    {"bypass_vector_index": 1},  # LanceDB's exact scan, for comparison
]


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--vectors", required=True, help="an index's vectors folder (LanceDB)")
    p.add_argument("--queries", required=True, help="queries.jsonl of the bench's vault")
    p.add_argument("--rounds", type=int, default=3, help="timed searches per query and setting")
    args = p.parse_args()
    store = vectors.VectorStore(Path(args.vectors), memory_bytes=0)
    dim = store.dim or 0
    profile = known_profile("nomic-embed-text")
    texts = [json.loads(r)["query"] for r in Path(args.queries).read_text().splitlines() if r]
    queries = [hashed_embedding(profile.query(t) if profile else t, dim) for t in texts]
    pool = max(10 * CHUNKS_PER_NOTE, VECTOR_POOL)
    table = store._table.search().select(["path", "ordinal", "vector"]).limit(None).to_arrow()
    keys = list(
        zip(table.column("path").to_pylist(), table.column("ordinal").to_pylist(), strict=True)
    )
    matrix = vectors._unit(vectors._matrix(table.column("vector")))
    del table
    exact = []
    for q in queries:
        unit = np.asarray(q, dtype=np.float32) / np.linalg.norm(q)
        scores = matrix @ unit
        top = np.argsort(-scores)[:pool]
        exact.append([(keys[i], float(scores[i])) for i in top])
    del matrix
    out: dict[str, Any] = {"rows": store.rows, "queries": len(queries), "pool": pool}
    out["vector_index"] = {"segments": store.index_segments, "unindexed": store.pending_rows}
    real_query = store._query
    names = [",".join(f"{k}={v}" for k, v in s.items()) or "as now" for s in SETTINGS]
    times: dict[str, list[float]] = {n: [] for n in names}
    scores: dict[str, list[tuple[float, float, bool, list[float]]]] = {n: [] for n in names}
    for q, truth in zip(queries, exact, strict=True):
        cos = dict(truth)
        for name, setting in zip(names, SETTINGS, strict=True):  # interleaved: same load

            def query(vector: Any, limit: int, setting: dict[str, int] = setting) -> Any:
                built = real_query(vector, limit)
                for key, value in setting.items():
                    built = getattr(built, key)(*([] if key == "bypass_vector_index" else [value]))
                return built

            store._query = query  # type: ignore[method-assign]
            for _ in range(args.rounds):
                t0 = time.perf_counter()
                hits = store.search(q, pool, SearchFilter())
                times[name].append(time.perf_counter() - t0)
            got = [((h.path, h.ordinal), h.score) for h in hits]
            # a hit counts if its exact cosine is as good as the exact k-th (ties count)
            at10 = sum(cos.get(k, -2.0) >= truth[9][1] - TIE for k, _ in got[:10]) / 10
            atpool = sum(cos.get(k, -2.0) >= truth[-1][1] - TIE for k, _ in got) / pool
            pairs = zip(got, truth, strict=False)
            same = [abs(cos.get(k, -2.0) - c) <= TIE for (k, _), (_, c) in pairs]
            error = [abs(s - cos[k]) for k, s in got if k in cos]
            scores[name].append((at10, atpool, all(same[:10]), error))
    for name in names:
        rows = scores[name]
        out[name] = {
            "p50_ms": round(1000 * statistics.median(times[name]), 2),
            "recall@10": round(statistics.mean(r[0] for r in rows), 3),
            f"recall@{pool}": round(statistics.mean(r[1] for r in rows), 3),
            "top10_exact_order": round(statistics.mean(r[2] for r in rows), 3),
            "max_score_error": round(max(max(r[3], default=0.0) for r in rows), 5),
        }
        print(name, out[name], file=sys.stderr, flush=True)
    print(json.dumps(out, indent=2))


if __name__ == "__main__":
    main()
