"""Hubness reductions tried on the meaning side (eval_suite/README.md, rows V19-V25).

Two steps. `collect` builds the project's own index over a dataset with a real embedding model
(as `commonplace eval search` does) and keeps every chunk's vector, every question's vector and
its whole-note BM25 ranking; `trials` then rescores the meaning side's 60 candidate chunks in
each way and fuses them with the keyword side as `Searcher.run` does (convex, keyword depth 20,
the notes past the depth keep their BM25), printing MRR@10 / recall@10 per mode. Without any
rescoring it reproduces the project's figures (K12: dev hybrid 0.861 / 0.950, fixture 0.873).

    OLLAMA_HOST=http://127.0.0.1:11435 .venv/bin/python \\
        eval_suite/experiments/hubness_trials.py collect ../shared/devsets/logseq-docs /tmp/dev.pkl
    OLLAMA_HOST=... .venv/bin/python eval_suite/experiments/hubness_trials.py collect \\
        eval_suite/datasets /tmp/fix.pkl
    .venv/bin/python eval_suite/experiments/hubness_trials.py trials /tmp/dev.pkl /tmp/fix.pkl
    .venv/bin/python eval_suite/experiments/hubness_trials.py skew /tmp/dev.pkl /tmp/fix.pkl

`EMBED_MODEL=all-mpnet` (with its server's OLLAMA_HOST) collects with another model.
"""

from __future__ import annotations

import asyncio
import dataclasses
import math
import os
import pickle
import statistics
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from commonplace.config import Settings
from commonplace.evals import fixture
from commonplace.evals.fixture import on_ollama
from commonplace.evals.suites.search import copy_notes, is_vault_set, load, vault_flavor
from commonplace.index import Index, SearchFilter
from commonplace.index.hybrid import _scaled
from commonplace.llm import make_llm

POOL = 60  # the meaning side's candidate chunks (searching.VECTOR_POOL)
DEPTH = 20  # the keyword list's depth (keyword_candidates)

Data = dict[str, Any]
Score = Callable[[Data, Data, int], float]  # (dataset, question, chunk row) -> score


async def collect(datasets: Path) -> Data:
    work = Path(tempfile.mkdtemp(prefix="hubness-"))
    base = Settings()
    base = on_ollama(base, os.environ["OLLAMA_HOST"])
    s = fixture.eval_settings(
        base,
        work / "vault",
        work / "data",
        chat_model="-",
        embed_model=os.environ.get("EMBED_MODEL", "all-minilm"),
    )
    if is_vault_set(datasets):
        copy_notes(datasets / "vault", s.vault)
        s = dataclasses.replace(s, flavor=vault_flavor(datasets / "vault"))
    else:
        fixture.copy_vault(s.vault, "keep")
    index = Index.open(s, make_llm(s))
    await index.refresh()
    memory = index.stores.vectors._in_memory()  # the vectors as searched (unit length)
    assert memory is not None
    rows = memory.rows.to_pylist()
    view = index.stores.keywords.view()
    questions = []
    for item in load(datasets):
        qv = np.asarray(await index.searcher.query_vector(item["query"]), dtype=np.float32)
        questions.append(
            {
                "id": item["id"],
                "answers": list(item["answers"]),
                "kind": item.get("scope", ""),
                "qv": qv / np.linalg.norm(qv),
                "notes": view.search_notes(item["query"], 5000, SearchFilter()),
            }
        )
    index.close()
    return {"paths": [r["path"] for r in rows], "matrix": memory.matrix, "q": questions}


# -- fusion and figures (as Searcher.run and hybrid.fuse do, over notes) -----------------------


def scaled(items: dict[str, float], floor: float | None) -> dict[str, float]:
    """The project's own scaling (hybrid._scaled), so the replay fuses exactly as search does."""
    return _scaled(list(items.items()), floor=floor)


def meaning(d: Data, q: Data, score: Score | None) -> dict[str, float]:
    """Each note's best score among the POOL chunks nearest by cosine."""
    best: dict[str, float] = {}
    for i in np.argsort(-q["sims"], kind="stable")[:POOL]:
        path = d["paths"][i]
        value = float(q["sims"][i]) if score is None else score(d, q, int(i))
        if path not in best or value > best[path]:
            best[path] = value
    return best


def hybrid(q: Data, notes: dict[str, float]) -> list[str]:
    listed = q["notes"][:DEPTH]
    words = dict(listed)
    if len(listed) == DEPTH:
        bm25 = dict(q["notes"])
        words.update({p: bm25[p] for p in notes if p not in words and p in bm25})
    m, k = scaled(notes, None), scaled(words, 0.0)
    rank = {p: i for i, p in enumerate(sorted(notes, key=lambda p: -notes[p]))}
    total = {p: (m.get(p, 0.0) + k.get(p, 0.0)) / 2 for p in {*notes, *words}}
    return sorted(total, key=lambda p: (-total[p], rank.get(p, 10**9)))


def figures(d: Data, ranked: dict[str, list[str]]) -> dict[str, tuple[float, float]]:
    rows: dict[str, list[tuple[float, float]]] = {}
    for q in d["q"]:
        top, expected = ranked[q["id"]][:10], set(q["answers"])
        rr = next((1 / r for r, p in enumerate(top, 1) if p in expected), 0.0)
        found = len(expected & set(top)) / len(expected)
        for kind in ("all", q["kind"]):
            rows.setdefault(kind, []).append((rr, found))
    return {
        k: (statistics.mean(a for a, _ in v), statistics.mean(b for _, b in v))
        for k, v in rows.items()
    }


def trial(
    sets: dict[str, Data],
    label: str,
    score: Score | None,
    prep: Callable[[Data], None] | None = None,
) -> None:
    line = [f"{label:<44}"]
    for name, d in sets.items():
        if prep is not None:
            prep(d)
        vec, hy = {}, {}
        for q in d["q"]:
            notes = meaning(d, q, score)
            vec[q["id"]] = sorted(notes, key=lambda p: -notes[p])
            hy[q["id"]] = hybrid(q, notes)
        fv, fh = figures(d, vec), figures(d, hy)
        para = f" para {fh['paraphrase'][0]:.3f}" if "paraphrase" in fh else ""
        vec_fig = f"vec {fv['all'][0]:.3f}/{fv['all'][1]:.3f}"
        line.append(f"{name}: {vec_fig} hy {fh['all'][0]:.3f}/{fh['all'][1]:.3f}{para}")
    print(" | ".join(line), flush=True)


# -- the statistics --------------------------------------------------------------------------


def others_only(d: Data, columns: np.ndarray | None = None) -> np.ndarray:
    """Cosines of every chunk to every chunk (or to `columns`), own note's masked out."""
    m, paths = d["matrix"], d["paths_np"]
    cols = np.arange(len(m)) if columns is None else columns
    sims = m @ m[cols].T
    return np.where(paths[:, None] == paths[cols][None, :], -np.inf, sims)


def knn(
    k: int, *, own: bool = False, sample: int | None = None, seed: int = 0
) -> Callable[[Data], None]:
    def prep(d: Data) -> None:
        n = len(d["matrix"])
        cols = None
        if sample is not None and sample < n:
            cols = np.sort(np.random.default_rng(seed).choice(n, sample, replace=False))
        if own:
            sims = d["matrix"] @ d["matrix"].T
            np.fill_diagonal(sims, -np.inf)
        else:
            sims = others_only(d, cols)
        top = -np.sort(-sims, axis=1)[:, :k]
        d["r"] = top.mean(axis=1)  # CSLS: mean cosine of the k nearest
        d["mean_dist"] = np.maximum((1 - top).mean(axis=1), 1e-3)  # NICDM
        d["kth_dist"] = np.maximum(1 - top[:, k - 1], 1e-3)  # local scaling

    return prep


def gaussian(d: Data) -> None:
    """Each chunk's (and each question's) mean and deviation of its cosine to all chunks."""
    m = d["matrix"]
    sims = m @ m.T
    np.fill_diagonal(sims, np.nan)
    d["mu"], d["sd"] = np.nanmean(sims, axis=1), np.nanstd(sims, axis=1)
    for q in d["q"]:
        q["mu"], q["sd"] = float(q["sims"].mean()), float(q["sims"].std())


def per_note_null(d: Data) -> None:
    """Each note's best-chunk cosine to a random chunk of another note: mean and deviation."""
    m, paths = d["matrix"], d["paths_np"]
    sims = m @ m.T
    d["note_mu"], d["note_sd"] = {}, {}
    for path in set(d["paths"]):
        rows = np.where(paths == path)[0]
        best = sims[rows].max(axis=0)[paths != path]
        d["note_mu"][path], d["note_sd"][path] = float(best.mean()), float(best.std())
    for q in d["q"]:
        q["mu"], q["sd"] = float(q["sims"].mean()), float(q["sims"].std())


def per_note_knn(k: int, how: str) -> Callable[[Data], None]:
    """V22: r, mean and k-th distance per note, from its chunks' mean vector ("mean") or its
    closest pair of chunks ("pair") to the other notes; every chunk of the note gets them."""

    def prep(d: Data) -> None:
        m, paths = d["matrix"], d["paths_np"]
        notes = sorted(set(d["paths"]))
        rows = [np.where(paths == p)[0] for p in notes]
        if how == "mean":
            v = np.stack([m[r].mean(axis=0) for r in rows])
            v /= np.linalg.norm(v, axis=1, keepdims=True)
            sims = v @ v.T
        else:
            chunk = m @ m.T
            best = np.stack([chunk[r].max(axis=0) for r in rows])  # note x chunk
            sims = np.stack([best[:, r].max(axis=1) for r in rows], axis=1)
        np.fill_diagonal(sims, -np.inf)
        top = -np.sort(-sims, axis=1)[:, :k]
        by_note = {p: a for a, p in enumerate(notes)}
        at = np.array([by_note[p] for p in d["paths"]])
        d["r"] = top.mean(axis=1)[at]
        d["mean_dist"] = np.maximum((1 - top).mean(axis=1), 1e-3)[at]
        d["kth_dist"] = np.maximum(1 - top[:, k - 1], 1e-3)[at]

    return prep


def sf(z: float) -> float:
    return 0.5 * math.erfc(z / math.sqrt(2))


def mp(d: Data, q: Data, i: int, mu: float, sd: float, *, log: bool) -> float:
    s = float(q["sims"][i])
    a, b = sf((s - q["mu"]) / q["sd"]), sf((s - mu) / sd)
    miss = a + b - a * b  # 1 − F_q · F_c
    return -math.log(max(miss, 1e-300)) if log else 1 - miss


def load_sets(files: list[Path]) -> dict[str, Data]:
    """The collected data sets by file stem, each question's cosines to every chunk computed."""
    sets: dict[str, Data] = {}
    for f in files:
        d = pickle.loads(f.read_bytes())
        d["paths_np"] = np.array(d["paths"])
        for q in d["q"]:
            q["sims"] = d["matrix"] @ q["qv"]
        sets[f.stem] = d
    return sets


def main_trials(files: list[Path]) -> None:
    sets = load_sets(files)
    cos = lambda d, q, i: float(q["sims"][i])  # noqa: E731
    trial(sets, "cosine (K12)", None)
    trial(
        sets,
        "V19 MP per chunk",
        lambda d, q, i: mp(d, q, i, d["mu"][i], d["sd"][i], log=False),
        gaussian,
    )
    trial(
        sets,
        "V19 MP per chunk, -log(1-MP)",
        lambda d, q, i: mp(d, q, i, d["mu"][i], d["sd"][i], log=True),
        gaussian,
    )
    trial(
        sets,
        "V19 z-score per chunk",
        lambda d, q, i: (cos(d, q, i) - d["mu"][i]) / d["sd"][i],
        gaussian,
    )

    def note(d: Data, i: int) -> tuple[float, float]:
        p = d["paths"][i]
        return d["note_mu"][p], d["note_sd"][p]

    trial(
        sets,
        "V20 MP per note (best-chunk null)",
        lambda d, q, i: mp(d, q, i, *note(d, i), log=False),
        per_note_null,
    )
    trial(
        sets,
        "V20 z-score per note",
        lambda d, q, i: (cos(d, q, i) - note(d, i)[0]) / note(d, i)[1],
        per_note_null,
    )
    trial(
        sets,
        "V20 cosine - mean per note",
        lambda d, q, i: cos(d, q, i) - note(d, i)[0],
        per_note_null,
    )
    ls = lambda d, q, i: math.exp(-((1 - cos(d, q, i)) ** 2) / d["kth_dist"][i])  # noqa: E731
    nicdm = lambda d, q, i: -(1 - cos(d, q, i)) / math.sqrt(d["mean_dist"][i])  # noqa: E731
    csls = lambda d, q, i: cos(d, q, i) - d["r"][i] / 2  # noqa: E731
    trial(sets, "V21 local scaling k10, other notes", ls, knn(10))
    trial(sets, "V21 NICDM k10, other notes", nicdm, knn(10))
    for how in ("mean", "pair"):
        trial(sets, f"V22 CSLS per note ({how})", csls, per_note_knn(10, how))
        trial(sets, f"V22 NICDM per note ({how})", nicdm, per_note_knn(10, how))
        trial(sets, f"V22 local scaling per note ({how})", ls, per_note_knn(10, how))
    trial(sets, "V23 CSLS k10, other notes", csls, knn(10))
    trial(sets, "V23b CSLS k10, any chunk", csls, knn(10, own=True))
    for k in (5, 20, 50):
        trial(sets, f"V24 CSLS k{k}", csls, knn(k))
    for size in (128, 256, 512, 1024):
        for seed in (0, 1, 2):
            trial(
                sets,
                f"V25 CSLS k10, sample {size} seed {seed}",
                csls,
                knn(10, sample=size, seed=seed),
            )


def main_skew(files: list[Path], k: int = 10) -> None:
    """How hubby each collected index is (Radovanović et al. 2010): the skewness of N_k, the
    number of times each passage is among the k nearest (other notes' passages only, as the
    correction's neighbourhoods are) of the others. High skew: a few passages are near
    everything. Measured to see whether it says when the correction helps (M3)."""
    for file in files:
        d = pickle.loads(file.read_bytes())
        m = np.asarray(d["matrix"], dtype=np.float32)
        ids = {p: i for i, p in enumerate(dict.fromkeys(d["paths"]))}
        note = np.array([ids[p] for p in d["paths"]])
        sims = m @ m.T
        sims[note[:, None] == note[None, :]] = -np.inf
        nearest = np.argpartition(-sims, k, axis=1)[:, :k]
        n_k = np.bincount(nearest.ravel(), minlength=len(note)).astype(float)
        skew = float(((n_k - n_k.mean()) ** 3).mean() / n_k.std() ** 3)
        print(
            f"{file.name}: {len(note)} passages, N{k} skewness {skew:.2f}, largest N{k} "
            f"{n_k.max():.0f}, never a neighbour {np.mean(n_k == 0):.2f}"
        )


if __name__ == "__main__":
    if sys.argv[1:2] == ["collect"]:
        Path(sys.argv[3]).write_bytes(pickle.dumps(asyncio.run(collect(Path(sys.argv[2])))))
    elif sys.argv[1:2] == ["skew"]:
        main_skew([Path(a) for a in sys.argv[2:]])
    else:
        main_trials([Path(a) for a in sys.argv[2:]])
