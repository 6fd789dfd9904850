"""Benchmark of the search index: speed, size, memory, and retrieval quality. Prints JSON.

    .venv/bin/python eval_suite/bench_index.py --notes 2000 --seed 1
    .venv/bin/python eval_suite/bench_index.py --notes 2000 --quality \
        --ollama-host http://127.0.0.1:11435 --embed-model all-minilm

The vault comes from ../shared/tools/make_vault.py (--tools-dir or COMMONPLACE_SHARED_TOOLS),
run as a subprocess. Without --ollama-host the fake Ollama (hashed bag-of-words embeddings)
runs in a thread of this process, so anyone can run it here; its CPU time is then part of the
"waiting for embeddings" figure, and its memory part of the peak RSS.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import dataclasses
import json
import os
import resource
import secrets
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from tests.fakes.ollama import FakeOllama, run_in_thread  # noqa: E402

from commonplace.config import Settings, load_settings  # noqa: E402
from commonplace.daemon.watcher import VaultWatcher  # noqa: E402
from commonplace.index import Index, IndexService, SearchFilter, hubness  # noqa: E402
from commonplace.llm import make_llm  # noqa: E402


def main() -> None:
    args = parse_args()
    work = Path(args.work or tempfile.mkdtemp(prefix="bench-index-"))
    vault, queries = make_vault(args, work)
    with embedder(args) as host:
        settings = make_settings(args, vault, work / "data", host)
        report: dict[str, Any] = {
            "notes": args.notes,
            "seed": args.seed,
            "embedder": host if args.ollama_host else "fake (hashed bag of words, in-process)",
            "embed_model": settings.model.embed_model or "nomic-embed-text",
            "cpu_count": os.cpu_count(),
        }
        if args.quality:
            report["quality"] = asyncio.run(quality(settings, queries, args))
        else:
            report.update(asyncio.run(speed(settings, queries, args)))
        report["peak_rss_mb"] = round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024)
    print(json.dumps(report, indent=2))
    if not args.work and not args.keep:
        shutil.rmtree(work, ignore_errors=True)


def parse_args() -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--notes", type=int, default=2000)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--tools-dir", default=os.environ.get("COMMONPLACE_SHARED_TOOLS"))
    p.add_argument("--work", help="folder for the vault and the index (default: a temp folder)")
    p.add_argument("--keep", action="store_true", help="keep the temp folder")
    p.add_argument("--ollama-host", help="an Ollama-compatible embedder instead of the fake")
    p.add_argument("--embed-model", help="default: all-minilm with --ollama-host, else nomic")
    p.add_argument("--quality", action="store_true", help="MRR@10 and recall@10 per mode")
    p.add_argument("--fixture", action="store_true", help="quality on vault_fixture instead")
    p.add_argument("--searches", type=int, default=200, help="timed searches per mode")
    p.add_argument("--chunk-tokens", type=int)
    p.add_argument("--keyword-candidates", type=int)
    p.add_argument("--keyword-weight", type=float)
    p.add_argument("--rrf-k", type=int)
    p.add_argument("--vector-index-rows", type=int, help="chunks past which LanceDB's ANN is built")
    p.add_argument("--no-embed-titles", action="store_true")
    p.add_argument("--fusion-grid", action="store_true", help="hybrid for several k/candidates")
    p.add_argument(
        "--vector-process",
        action="store_true",
        help="the vector store in a child process, as the daemon runs it (vector_process.py)",
    )
    return p.parse_args()


def make_vault(args: argparse.Namespace, work: Path) -> tuple[Path, list[dict[str, Any]]]:
    if args.fixture:
        vault = work / "vault"
        if not vault.exists():
            shutil.copytree(REPO / "vault_fixture", vault)
        rows = (REPO / "eval_suite/datasets/search.jsonl").read_text().splitlines()
        return vault, [json.loads(r) for r in rows if r.strip()]
    tools = Path(args.tools_dir) if args.tools_dir else REPO.parent / "shared" / "tools"
    vault = work / "vault"
    if not (work / "queries.jsonl").exists():
        subprocess.run(
            [
                sys.executable,
                str(tools / "make_vault.py"),
                str(vault),
                "--notes",
                str(args.notes),
                "--seed",
                str(args.seed),
            ],
            check=True,
            stdout=subprocess.DEVNULL,
        )
    rows = (work / "queries.jsonl").read_text().splitlines()
    return vault, [json.loads(r) for r in rows if r.strip()]


@contextlib.contextmanager
def embedder(args: argparse.Namespace) -> Iterator[str]:
    if args.ollama_host:
        yield args.ollama_host
        return
    fake = FakeOllama()
    fake.record = False
    with run_in_thread(fake) as url:
        yield url


def make_settings(args: argparse.Namespace, vault: Path, data: Path, host: str) -> Settings:
    model = args.embed_model or ("all-minilm" if args.ollama_host else "nomic-embed-text")
    env = {"COMMONPLACE_VAULT": str(vault), "COMMONPLACE_DATA": str(data), "OLLAMA_HOST": host}
    s = load_settings(env=env | {"COMMONPLACE_EMBED_MODEL": model})
    changes: dict[str, Any] = {}
    if args.chunk_tokens:
        changes["chunk_tokens"] = args.chunk_tokens
    if args.keyword_candidates is not None:
        changes["keyword_candidates"] = args.keyword_candidates
    if args.keyword_weight is not None:
        changes["keyword_weight"] = args.keyword_weight
    if args.vector_index_rows is not None:
        changes["vector_index_rows"] = args.vector_index_rows
    if args.rrf_k:
        changes["rrf_k"] = args.rrf_k
    if args.no_embed_titles:
        changes["embed_titles"] = False
    return dataclasses.replace(s, index=dataclasses.replace(s.index, **changes))


def folder_size(path: Path) -> int:
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file())


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


async def speed(
    settings: Settings, queries: list[dict[str, Any]], args: argparse.Namespace
) -> dict[str, Any]:
    out: dict[str, Any] = {}
    index = Index.open(settings, make_llm(settings), daemon=args.vector_process)
    started = time.perf_counter()
    with timed_calls(hubness, "update") as neighbourhoods_s:
        stats = await index.refresh()
    out["full_index_s"] = round(time.perf_counter() - started, 2)
    out["full_index_neighbourhoods_s"] = round(neighbourhoods_s[0], 2)  # hubness.py's pass
    out["full_index_embed_wait_s"] = round(stats.embed_seconds, 2)
    out["non_embedding_share"] = round(1 - stats.embed_seconds / out["full_index_s"], 3)
    out["chunks"] = stats.chunks
    out["indexed_notes"] = stats.notes

    # What a search pays for freshness when the watcher has kept up: nothing pending.
    out["refresh_nothing_changed_ms"] = round(
        1000 * await timed(lambda: index.refresh(paths=[]), 50), 3
    )
    # A full reconciliation (every file stat-ed against the manifest), as at start-up.
    out["reconcile_nothing_changed_ms"] = round(1000 * await timed(index.refresh, 5), 1)

    texts = [q["query"] for q in queries]
    for text in texts:  # embed every query once; the timed searches use the cached vectors
        await index.searcher.query_vector(text)
    flt = SearchFilter.make(exclude=("Inbox", "Filed"))
    for mode in ("hybrid", "vector", "keyword"):
        times = []
        for i in range(args.searches):
            t0 = time.perf_counter()
            await index.search(texts[i % len(texts)], limit=10, mode=mode)
            times.append(time.perf_counter() - t0)
        out[f"search_{mode}_p50_ms"] = round(1000 * statistics.median(times), 2)
        out[f"search_{mode}_p95_ms"] = round(1000 * pct(times, 0.95), 2)
    times = []
    for i in range(args.searches):
        t0 = time.perf_counter()
        index.searcher.run(
            texts[i % len(texts)],
            await index.searcher.query_vector(texts[i % len(texts)]),
            "hybrid",
            10,
            flt,
        )
        times.append(time.perf_counter() - t0)
    out["search_hybrid_filtered_p50_ms"] = round(1000 * statistics.median(times), 2)

    if args.vector_process:
        out.update(await cold_searches(index, texts))
    out["edit_refresh_search_ms"] = round(1000 * await edit_and_search(index, settings), 1)
    out["edit_to_searchable_watcher_s"] = round(await edit_through_watcher(index, settings), 2)
    index.close()

    data = settings.data_path / "index"
    out["index_bytes"] = folder_size(data)
    out["index_bytes_per_chunk"] = round(out["index_bytes"] / max(1, out["chunks"]))
    started = time.perf_counter()
    reopened = Index.open(settings, make_llm(settings), daemon=args.vector_process)
    again = await reopened.refresh()
    out["startup_nothing_changed_s"] = round(time.perf_counter() - started, 3)
    out["startup_reembedded"] = again.embedded
    reopened.close()
    return out


@contextlib.contextmanager
def timed_calls(module: Any, name: str) -> Iterator[list[float]]:
    """The seconds spent in module.name while the block runs (list[0], updated live)."""
    spent = [0.0]
    real = getattr(module, name)

    def timed(*args: Any, **kwargs: Any) -> Any:
        t0 = time.perf_counter()
        try:
            return real(*args, **kwargs)
        finally:
            spent[0] += time.perf_counter() - t0

    setattr(module, name, timed)
    try:
        yield spent
    finally:
        setattr(module, name, real)


async def cold_searches(index: Index, texts: list[str], rounds: int = 3) -> dict[str, Any]:
    """The child's memory, then what a search pays when the child has stopped (idle): a new
    process, LanceDB's import, the table opened and its vectors read."""
    vectors: Any = index.stores.vectors  # a VectorProcess
    out: dict[str, Any] = {"vector_process_mb": process_mb(vectors.pid)}
    times = []
    for i in range(rounds):
        vectors.stop()
        t0 = time.perf_counter()
        await index.search(texts[i], limit=10, mode="hybrid")
        times.append(time.perf_counter() - t0)
    out["search_cold_ms"] = [round(1000 * t) for t in times]
    return out


def process_mb(pid: int | None) -> dict[str, float]:
    """VmRSS and VmHWM (peak) of a process, MB (Linux)."""
    out: dict[str, float] = {}
    with contextlib.suppress(OSError):
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            key, _, value = line.partition(":")
            if key in ("VmRSS", "VmHWM"):
                out[key] = round(int(value.split()[0]) / 1024, 1)
    return out


async def timed(call: Any, rounds: int) -> float:
    times = []
    for _ in range(rounds):
        t0 = time.perf_counter()
        await call()
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def pick_note(settings: Settings) -> Path:
    return next(p for p in sorted(settings.vault.rglob("*.md")) if "Projects" in p.parts)


async def edit_and_search(index: Index, settings: Settings) -> float:
    """Save one note, mark it (as the watcher would), search until it is found."""
    note = pick_note(settings)
    word = "marker" + secrets.token_hex(6)  # new on every run, even in a reused vault
    note.write_text(note.read_text() + f"\nThe {word} was added.\n")
    t0 = time.perf_counter()
    index.mark_dirty([note.relative_to(settings.vault).as_posix()])
    resp = await index.search(word, limit=1, mode="keyword")
    elapsed = time.perf_counter() - t0
    assert resp.results and resp.results[0].path == note.relative_to(settings.vault).as_posix()
    return elapsed


async def edit_through_watcher(index: Index, settings: Settings) -> float:
    """Save one note and poll search until it is found: watcher debounce included."""
    service = IndexService(index, settings)
    watcher = VaultWatcher(settings.vault, service.on_changes)
    await watcher.start()
    await asyncio.sleep(0.5)
    note = pick_note(settings)
    rel = note.relative_to(settings.vault).as_posix()
    word = "flag" + secrets.token_hex(6)
    try:
        note.write_text(note.read_text() + f"\nThe {word} was added.\n")
        saved = time.perf_counter()
        while time.perf_counter() - saved < 30:
            hits = index.searcher.run(word, None, "keyword", 1, SearchFilter())
            if hits and hits[0].path == rel:
                return time.perf_counter() - saved
            await asyncio.sleep(0.01)
        return float("nan")
    finally:
        await watcher.stop()
        await index.refresh()  # let the watcher's last refresh settle before closing


async def quality(
    settings: Settings, queries: list[dict[str, Any]], args: argparse.Namespace
) -> dict[str, Any]:
    index = Index.open(settings, make_llm(settings))
    stats = await index.refresh()
    out: dict[str, Any] = {"chunks": stats.chunks, "queries": len(queries)}
    for mode in ("vector", "keyword", "hybrid"):
        out[mode] = await score(index, queries, mode)
    if args.fusion_grid:
        base = index.settings
        grid = {}
        for candidates in (5, 10, 20, 40):
            for k in (10, 30, 60):
                cfg = dataclasses.replace(base.index, keyword_candidates=candidates, rrf_k=k)
                index.settings = dataclasses.replace(base, index=cfg)
                grid[f"candidates={candidates},k={k}"] = await score(index, queries, "hybrid")
        index.settings = base
        out["hybrid_grid"] = grid
    index.close()
    return out


async def score(index: Index, queries: list[dict[str, Any]], mode: str) -> dict[str, float]:
    """MRR@10 and recall@10 over notes (chunks grouped by note)."""
    rr, recall = [], []
    for q in queries:
        resp = await index.search(q["query"], limit=10, mode=mode, group_by_note=True)
        paths = [r.path for r in resp.results]
        answers = set(q["answers"])
        rank = next((i for i, p in enumerate(paths, 1) if p in answers), None)
        rr.append(1 / rank if rank else 0.0)
        recall.append(len(answers & set(paths)) / len(answers))
    return {"mrr@10": round(statistics.mean(rr), 3), "recall@10": round(statistics.mean(recall), 3)}


if __name__ == "__main__":
    main()
