"""Benchmark of a first run's neighbourhoods (hubness.py, nearest.py): every passage's mean
cosine to its 10 nearest passages of other notes, asked BATCH passages (whole notes) a call as
hubness.update asks them, each call on its own against calls sharing one pass. Prints JSON.

    .venv/bin/python eval_suite/bench_neighbours.py --passages 30000 --memory-bytes 0

Vectors are random (clusters of notes around shared topics), not embeddings: this measures
speed, and that both ways give the same figures. --memory-bytes 0 streams the table from
LanceDB as past the memory budget; the default keeps it in memory while it fits.
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time
from pathlib import Path

import numpy as np

from commonplace.index import hubness
from commonplace.index.chunking import IndexedChunk
from commonplace.index.vectors import VectorStore


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--passages", type=int, default=20000)
    p.add_argument("--dim", type=int, default=768)
    p.add_argument("--memory-bytes", type=int, help="default: the store's own budget")
    p.add_argument("--seed", type=int, default=1)
    args = p.parse_args()
    rng = np.random.default_rng(args.seed)
    sizes = rng.integers(1, 4, size=args.passages)  # passages per note
    owners = np.repeat(np.arange(len(sizes)), sizes)[: args.passages]
    topics = rng.standard_normal((256, args.dim)).astype(np.float32)
    matrix = topics[rng.integers(0, 256, size=len(owners))] + rng.standard_normal(
        (len(owners), args.dim), dtype=np.float32
    )
    ordinals = np.arange(len(owners)) - np.searchsorted(owners, owners)  # owners: sorted
    rows = [
        IndexedChunk(f"Notes/{o}.md", f"{o}", "", "", int(n), 1, "", 0.0, "", f"{i}")
        for i, (o, n) in enumerate(zip(owners, ordinals, strict=True))
    ]
    calls: list[list[int]] = [[]]
    for i in range(len(rows)):  # whole notes, about BATCH passages a call
        if len(calls[-1]) >= hubness.BATCH and ordinals[i] == 0:
            calls.append([])
        calls[-1].append(i)
    with tempfile.TemporaryDirectory() as folder:
        store = VectorStore(Path(folder) / "vectors", memory_bytes=args.memory_bytes)
        for start in range(0, len(rows), 20000):
            store.replace([], rows[start : start + 20000], matrix[start : start + 20000])
        out: dict[str, object] = {"passages": len(rows), "calls": len(calls)}
        results = {}
        for share in (False, True):
            means: list[float | None] = []
            t0 = time.perf_counter()
            for at in calls:
                paths = [rows[i].path for i in at]
                asked = [rows[i].ordinal for i in at]
                means += store.neighbour_means(paths, matrix[at], hubness.K, asked, share=share)
            out["pass_s" if share else "alone_s"] = round(time.perf_counter() - t0, 2)
            results[share] = np.array(means, dtype=float)
        out["in_memory"] = store._memory is not None
        out["max_difference"] = float(np.nanmax(np.abs(results[True] - results[False])))
    print(json.dumps(out, indent=2))


if __name__ == "__main__":
    main()
