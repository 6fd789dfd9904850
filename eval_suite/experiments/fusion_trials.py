"""Fifth round of search trials (eval_suite/README.md, rows K13, V27, V28, F23-F27).

Builds on `hubness_trials.py`: its `collect` keeps the vectors and each question's whole-note
BM25 ranking, and its work folder (printed nowhere: the newest /tmp/hubness-*) keeps the index
and the vault. `terms` adds each question's text and content words (the words
`keywords.note_query` searches for) with the notes holding each word; `outlines` embeds each
note's outline (title, aliases and headings) through the embedding server; `trials` replays the
project's search (CSLS on the meaning side, convex fusion, keyword depth 20, the meaning side's
notes past the depth keeping their BM25) with one change at a time and prints MRR@10 /
recall@10 per set for keyword mode (kw), vector mode (vec) and hybrid (hy). Unchanged, it
reproduces the project's figures (V26).

    OLLAMA_HOST=http://127.0.0.1:11435 .venv/bin/python \\
        eval_suite/experiments/hubness_trials.py collect ../shared/devsets/logseq-docs /tmp/dev.pkl
    .venv/bin/python eval_suite/experiments/fusion_trials.py terms /tmp/dev.pkl /tmp/hubness-XXXX \\
        ../shared/devsets/logseq-docs
    OLLAMA_HOST=... .venv/bin/python eval_suite/experiments/fusion_trials.py outlines \\
        /tmp/dev.pkl /tmp/hubness-XXXX logseq
    (the same for eval_suite/datasets (obsidian) and the exported devsets/obsidian-help)
    .venv/bin/python eval_suite/experiments/fusion_trials.py trials \\
        /tmp/dev.pkl /tmp/fix.pkl /tmp/third.pkl
"""

from __future__ import annotations

import json
import math
import os
import pickle
import sys
import urllib.request
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
from hubness_trials import POOL, figures, knn, load_sets, meaning, scaled

from commonplace.evals.suites.search import load as load_items
from commonplace.index import SearchFilter
from commonplace.index.keywords import KeywordIndex, _query_terms
from commonplace.vault import markdown
from commonplace.vault.notes import parse_note

DEPTH = 20  # the keyword list's depth (keyword_candidates)

Data = dict[str, Any]
Notes = dict[str, float]
Ranked = list[tuple[str, float]]


# -- collecting more than hubness_trials does ----------------------------------------------------


def add_terms(pkl: Path, work: Path, datasets: Path) -> None:
    """Each question's content words and, for each, the notes holding it (stemmed as indexed)."""
    d = pickle.loads(pkl.read_bytes())
    text = {item["id"]: item["query"] for item in load_items(datasets)}
    [folder] = (work / "data").glob("*/index/keywords")
    view = KeywordIndex(folder, writable=False).view()
    d["n_notes"] = len(set(d["paths"]))
    for q in d["q"]:
        q["query"] = text[q["id"]]
        _, words = _query_terms(q["query"])
        q["terms"] = {
            w: {p for p, _ in view.search_notes(w, 100_000, SearchFilter())} for w in words
        }
    pkl.write_bytes(pickle.dumps(d))


def add_outlines(pkl: Path, work: Path, flavor: str) -> None:
    """Each note's outline (its title and aliases, then its headings) embedded once."""
    d = pickle.loads(pkl.read_bytes())
    texts: dict[str, str] = {}
    for path in sorted(set(d["paths"])):
        note = parse_note(path, (work / "vault" / path).read_text(encoding="utf-8"), flavor)
        heads = [h.text for h in markdown.headings(note.body, outline=flavor == "logseq")]
        names = list(dict.fromkeys([note.title, *note.aliases]))
        texts[path] = "\n".join([" / ".join(names), *dict.fromkeys(heads)])[:1000]
    paths = list(texts)
    body = json.dumps({"model": "all-minilm", "input": [texts[p] for p in paths]}).encode()
    host = os.environ["OLLAMA_HOST"]
    req = urllib.request.Request(f"{host}/api/embed", body, {"Content-Type": "application/json"})
    with urllib.request.urlopen(req, timeout=600) as reply:
        vectors = np.asarray(json.load(reply)["embeddings"], dtype=np.float32)
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    d["outline"] = {p: vectors[i] for i, p in enumerate(paths)}
    pkl.write_bytes(pickle.dumps(d))


def load(files: list[Path]) -> dict[str, Data]:
    sets = load_sets(files)
    for d in sets.values():
        knn(10)(d)  # each chunk's r (CSLS), as hubness.py keeps it
        d["rows_of"] = {}
        for i, p in enumerate(d["paths"]):
            d["rows_of"].setdefault(p, []).append(i)
    return sets


# -- the project's search, replayed ------------------------------------------------------------


def csls(d: Data, q: Data, i: int) -> float:
    return float(q["sims"][i]) - float(d["r"][i]) / 2


def vector(d: Data, q: Data) -> Notes:
    """The meaning side's notes: each at its best chunk among the POOL nearest (CSLS)."""
    return meaning(d, q, csls)


def keyword_list(q: Data, notes: Notes, ranked: Ranked) -> Notes:
    """The keyword list to fuse: the first DEPTH notes, and, when the list is full, the
    meaning side's other notes with their BM25 (F12)."""
    listed = ranked[:DEPTH]
    words = dict(listed)
    if len(listed) == DEPTH:
        bm25 = dict(ranked)
        words.update({p: bm25[p] for p in notes if p not in words and p in bm25})
    return words


def combine(notes: Notes, sides: list[tuple[float, Notes]]) -> list[str]:
    """Notes by the weighted sum of their scaled scores; ties go to the better meaning rank."""
    rank = {p: i for i, p in enumerate(sorted(notes, key=lambda p: -notes[p]))}
    every = {p for _, side in sides for p in side}
    total = {p: sum(w * side.get(p, 0.0) for w, side in sides) for p in every}
    return sorted(total, key=lambda p: (-total[p], rank.get(p, 10**9)))


def fuse(q: Data, notes: Notes, ranked: Ranked | None = None) -> list[str]:
    """Searcher.run's hybrid: (meaning scaled worst..best + BM25 scaled 0..best) / 2."""
    words = keyword_list(q, notes, q["notes"] if ranked is None else ranked)
    return combine(notes, [(0.5, scaled(notes, None)), (0.5, scaled(words, 0.0))])


# -- printing ----------------------------------------------------------------------------------

Run = Callable[[Data, Data], list[str]]


def row(sets: dict[str, Data], label: str, runs: dict[str, Run]) -> None:
    """One line: each set's MRR@10 / recall@10 for each mode given."""
    line = [f"{label:<42}"]
    for name, d in sets.items():
        parts = []
        for mode, run in runs.items():
            f = figures(d, {q["id"]: run(d, q) for q in d["q"]})
            parts.append(f"{mode} {f['all'][0]:.3f}/{f['all'][1]:.3f}")
        line.append(f"{name}: {' '.join(parts)}")
    print(" | ".join(line), flush=True)


def by_score(notes: Notes) -> list[str]:
    return sorted(notes, key=lambda p: -notes[p])


# -- the variants ------------------------------------------------------------------------------


def rrf(q: Data, notes: Notes, k: int = 60) -> list[str]:
    """Equal-weight RRF over the same two note lists (the seed design's shape)."""
    words = keyword_list(q, notes, q["notes"])
    sides = []
    for side in (notes, words):
        sides.append((1.0, {p: 1 / (k + r) for r, p in enumerate(by_score(side), 1)}))
    return combine(notes, sides)


def coverage(d: Data, q: Data, path: str, *, idf: bool) -> float:
    """K13: the share of the question's content words the note holds (idf-weighted or not)."""
    if not q["terms"]:
        return 1.0
    n, total, held = d["n_notes"], 0.0, 0.0
    for holders in q["terms"].values():
        w = math.log(1 + (n - len(holders) + 0.5) / (len(holders) + 0.5)) if idf else 1.0
        total += w
        held += w if path in holders else 0.0
    return held / total if total > 0 else 1.0


def coord(d: Data, q: Data, power: float, *, idf: bool) -> Ranked:
    """BM25 × coverage^power (Lucene's classic coordination factor at power 1)."""
    out = [(p, s * coverage(d, q, p, idf=idf) ** power) for p, s in q["notes"]]
    return sorted(out, key=lambda item: -item[1])


def outline(d: Data, q: Data, depth: int | None = None) -> Notes:
    """F23, V27: the question's cosine to each note's outline vector (the best `depth`)."""
    if "outline_m" not in d:
        d["outline_p"] = list(d["outline"])
        d["outline_m"] = np.stack([d["outline"][p] for p in d["outline_p"]])
    sims = d["outline_m"] @ q["qv"]
    top = np.argsort(-sims, kind="stable")[:depth]
    return {d["outline_p"][i]: float(sims[i]) for i in top}


def fuse_outline(d: Data, q: Data, weight: float, depth: int) -> list[str]:
    """F23: the outline ranking as a third list, scaled worst..best, at `weight`."""
    notes = vector(d, q)
    words, third = keyword_list(q, notes, q["notes"]), outline(d, q, depth)
    share = 1 / (2 + weight)
    return combine(
        notes,
        [
            (share, scaled(notes, None)),
            (share, scaled(words, 0.0)),
            (weight * share, scaled(third, None)),
        ],
    )


def bound(d: Data, q: Data) -> float:
    """F24: the BM25 a note could reach on the text field at most, Σ idf · (k1 + 1)."""
    n = d["n_notes"]
    return sum(math.log(1 + (n - len(h) + 0.5) / (len(h) + 0.5)) * 2.2 for h in q["terms"].values())


def fuse_bound(d: Data, q: Data, power: float) -> list[str]:
    """F24: BM25 scaled 0..best as before, times (best / bound)^power."""
    notes = vector(d, q)
    words = keyword_list(q, notes, q["notes"])
    top = max(words.values(), default=0.0)
    factor = (top / (bound(d, q) or 1.0)) ** power
    k = {p: v * factor for p, v in scaled(words, 0.0).items()}
    return combine(notes, [(0.5, scaled(notes, None)), (0.5, k)])


def fuse_spread(d: Data, q: Data, ref: int | str) -> list[str]:
    """F25 (F21 again): each side weighted by its own spread over its scaled scores: 1 − its
    ref-th note's, 1 − the mean of its first 10 ("mean10"), or their deviation ("std10", the
    σ_k query-difficulty predictor of Pérez-Iglesias and Araujo 2010)."""
    notes = vector(d, q)
    m, k = scaled(notes, None), scaled(keyword_list(q, notes, q["notes"]), 0.0)

    def weight(side: Notes) -> float:
        values = sorted(side.values(), reverse=True)
        page = values[:10] + [0.0] * (10 - len(values[:10]))
        if ref == "mean10":
            return 1.0 - float(np.mean(page))
        if ref == "std10":
            return float(np.std(page))
        assert isinstance(ref, int)
        return 1.0 - (values[ref - 1] if len(values) >= ref else 0.0)

    return combine(notes, [(weight(m), m), (weight(k), k)])


def bonus(d: Data, q: Data, lam: float, how: str) -> Notes:
    """V28: a note's best chunk plus a small bonus for its other chunks among the POOL:
    + lam · (its second best − the pool's worst), or + lam · (its chunks in the pool − 1) / POOL."""
    order = np.argsort(-q["sims"], kind="stable")[:POOL]
    values = [csls(d, q, int(i)) for i in order]
    low, found = min(values), {}
    for i, v in zip(order, values, strict=True):
        found.setdefault(d["paths"][int(i)], []).append(v)
    out = {}
    for p, vs in found.items():
        vs.sort(reverse=True)
        if how == "second":
            out[p] = vs[0] + lam * ((vs[1] - low) if len(vs) > 1 else 0.0)
        else:
            out[p] = vs[0] + lam * (len(vs) - 1) / POOL
    return out


def filled(d: Data, q: Data) -> Notes:
    """F26: the keyword list's notes the meaning pool left out get their best chunk's CSLS
    score (at least the pool's floor) instead of counting as the floor: F12's mirror image."""
    notes = vector(d, q)
    low = min(notes.values())
    for p, _ in q["notes"][:DEPTH]:
        if p not in notes:
            notes[p] = max(low, max(csls(d, q, i) for i in d["rows_of"][p]))
    return notes


def fuse_floor(d: Data, q: Data, nth: int) -> list[str]:
    """F27: the meaning side scaled from its nth note (not the pool's worst) to its best."""
    notes = vector(d, q)
    values = sorted(notes.values(), reverse=True)
    low, top = values[min(nth, len(values)) - 1], values[0]
    m = {p: max(0.0, (v - low) / (top - low)) if top > low else 1.0 for p, v in notes.items()}
    return combine(notes, [(0.5, m), (0.5, scaled(keyword_list(q, notes, q["notes"]), 0.0))])


def reciprocal_ranks(d: Data, run: Run) -> list[float]:
    out = []
    for q in d["q"]:
        top, expected = run(d, q)[:10], set(q["answers"])
        out.append(next((1 / r for r, p in enumerate(top, 1) if p in expected), 0.0))
    return out


def paired(sets: dict[str, Data], label: str, run: Run, base: Run) -> None:
    """A variant against the project over every question of every set: questions up and down,
    the mean change of the reciprocal rank and its 95% interval (paired bootstrap, 10,000)."""
    diff = np.array(
        [
            a - b
            for d in sets.values()
            for a, b in zip(reciprocal_ranks(d, run), reciprocal_ranks(d, base), strict=True)
        ]
    )
    rng = np.random.default_rng(0)
    means = diff[rng.integers(0, len(diff), (10_000, len(diff)))].mean(axis=1)
    low, high = np.percentile(means, [2.5, 97.5])
    print(
        f"{label:<42} | {len(diff)} questions: {int((diff > 0).sum())} up, "
        f"{int((diff < 0).sum())} down, mean {diff.mean():+.4f} (95% {low:+.4f} to {high:+.4f})",
        flush=True,
    )


def main_trials(files: list[Path]) -> None:
    sets = load(files)
    cos = lambda d, q, i: float(q["sims"][i])  # noqa: E731
    kw: Run = lambda d, q: [p for p, _ in q["notes"]]  # noqa: E731
    row(
        sets,
        "V26 (main)",
        {
            "kw": kw,
            "vec": lambda d, q: by_score(vector(d, q)),
            "hy": lambda d, q: fuse(q, vector(d, q)),
        },
    )
    # Does the adopted design hold on a vault it was not made on? Each part left out in turn.
    row(sets, "without CSLS (cosine: K12)", {"hy": lambda d, q: fuse(q, meaning(d, q, cos))})
    row(sets, "without F12", {"hy": lambda d, q: fuse(q, vector(d, q), q["notes"][:DEPTH])})
    row(sets, "RRF k 60 instead of convex", {"hy": lambda d, q: rrf(q, vector(d, q))})
    for power in (0.5, 1.0, 2.0):
        for idf in (False, True):
            rank = lambda d, q, p=power, i=idf: coord(d, q, p, idf=i)  # noqa: E731
            row(
                sets,
                f"K13 coord^{power}{' idf' if idf else ''}",
                {
                    "kw": lambda d, q, r=rank: [p for p, _ in r(d, q)],
                    "hy": lambda d, q, r=rank: fuse(q, vector(d, q), r(d, q)),
                },
            )
    if all("outline" in d for d in sets.values()):
        row(sets, "F23 outline ranking alone", {"ol": lambda d, q: by_score(outline(d, q))})
        for weight in (0.25, 0.5, 1.0):
            for depth in (10, 20):
                row(
                    sets,
                    f"F23 outline list, weight {weight}, depth {depth}",
                    {"hy": lambda d, q, w=weight, n=depth: fuse_outline(d, q, w, n)},
                )
        for label, how in (
            ("max", max),
            ("+ 0.1 outline", lambda s, o: s + 0.1 * o),
            ("+ 0.25 outline", lambda s, o: s + 0.25 * o),
        ):

            def with_outline(d: Data, q: Data, how: Callable[..., float] = how) -> Notes:
                third = outline(d, q)
                return {p: how(s, third[p]) for p, s in vector(d, q).items()}

            row(
                sets,
                f"V27 best chunk {label}",
                {
                    "vec": lambda d, q, f=with_outline: by_score(f(d, q)),
                    "hy": lambda d, q, f=with_outline: fuse(q, f(d, q)),
                },
            )
    for power in (0.5, 1.0):
        row(
            sets,
            f"F24 BM25 × (best / bound)^{power}",
            {"hy": lambda d, q, p=power: fuse_bound(d, q, p)},
        )
    for ref in (2, 3, 5, 10, 20, "mean10", "std10"):
        row(sets, f"F25 spread weights, {ref}", {"hy": lambda d, q, r=ref: fuse_spread(d, q, r)})
    for how, lams in (("second", (0.1, 0.25)), ("count", (0.05, 0.1))):
        for lam in lams:
            row(
                sets,
                f"V28 best chunk + {lam} {how}",
                {
                    "vec": lambda d, q, a=lam, h=how: by_score(bonus(d, q, a, h)),
                    "hy": lambda d, q, a=lam, h=how: fuse(q, bonus(d, q, a, h)),
                },
            )
    row(sets, "F26 keyword notes' own CSLS", {"hy": lambda d, q: fuse(q, filled(d, q))})
    for nth in (10, 20):
        row(
            sets,
            f"F27 meaning floor at its note {nth}",
            {"hy": lambda d, q, n=nth: fuse_floor(d, q, n)},
        )
    # The ones that gained somewhere, against the project over all questions together.
    base: Run = lambda d, q: fuse(q, vector(d, q))  # noqa: E731
    for ref in (10, 20, "std10"):
        paired(sets, f"F25 spread weights, {ref}", lambda d, q, r=ref: fuse_spread(d, q, r), base)
    paired(sets, "F26 keyword notes' own CSLS", lambda d, q: fuse(q, filled(d, q)), base)
    paired(sets, "F27 meaning floor at its note 20", lambda d, q: fuse_floor(d, q, 20), base)
    coord_half: Run = lambda d, q: fuse(q, vector(d, q), coord(d, q, 0.5, idf=False))  # noqa: E731
    paired(sets, "K13 coord^0.5", coord_half, base)


if __name__ == "__main__":
    if sys.argv[1:2] == ["terms"]:
        add_terms(Path(sys.argv[2]), Path(sys.argv[3]), Path(sys.argv[4]))
    elif sys.argv[1:2] == ["outlines"]:
        add_outlines(Path(sys.argv[2]), Path(sys.argv[3]), sys.argv[4])
    else:
        main_trials([Path(a) for a in sys.argv[2:]])
