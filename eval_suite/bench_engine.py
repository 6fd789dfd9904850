"""The built-in engine measured: what the child process costs, what the prompt cache buys, and
the memory it holds and gives back. Prints JSON.

    .venv/bin/python eval_suite/bench_engine.py [--model GGUF] [--prompts 4] [--tokens 64]

1. Memory: the child's resident memory (VmRSS) once loaded and after a batch of requests, and
   this process's (the daemon's side) before, while and after; once stopped the child is gone,
   and nothing of llama.cpp was ever in this process.
2. The cache: a batch of tidy-like prompts that share their long instructions (the same system
   prompt, a different capture each): the first request's time against the second's, and how
   many prompt tokens the second took from the cache.
3. The engine's overhead: the same prompts, greedy and `ignore_eos` (so both sides generate
   exactly --tokens tokens), through the child's HTTP server (EngineProcess, aiohttp) and
   through xllamacpp called in this process (`Server.handle_chat_completions`) with the same
   parameters, alternating request by request (with --gap seconds between) so a machine busy
   with other work slows both alike. Overhead = wall time through the child / wall time direct
   - 1 (goal: <= 5 %), of the totals and as the median of the pairs (steadier on a busy
   machine); llama.cpp's own generation speed on each side shows how busy it was.

Where the machine is shared, its load average is printed with the figures: compare figures
taken at similar loads only.
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

import aiohttp

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "daemon"))

from commonplace.config import BuiltinSettings  # noqa: E402
from commonplace.engine import child as engine_child  # noqa: E402
from commonplace.engine.api import Endpoints  # noqa: E402
from commonplace.engine.process import EngineProcess  # noqa: E402

MODELS = Path(sys.prefix) / "share" / "commonplace" / "models"
DEFAULT_MODEL = MODELS / "qwen2.5-coder-1.5b-instruct-q4_k_m.gguf"
RULES = "\n".join(
    f"{i}. Tags are simple lowercase words, five at most; links name notes that exist; "
    "due dates are between the capture's day and a year later."
    for i in range(1, 25)
)
CAPTURES = [
    "Call Priya about the quarterly report before Friday.",
    "Buy pears, oat milk and a birthday card for Sam.",
    "Idea: a reading group on the history of commonplace books.",
    "Renew the passport; the form needs two photos.",
    "Fix the bike's back brake before the weekend ride.",
    "Ask Jonas whether the lease includes the garden.",
]
TOPICS = ["rivers", "bread", "clocks", "moss", "lighthouses", "paper", "bees", "glass"]


def rss_mib(pid: int) -> float | None:
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return None
    for line in status.splitlines():
        if line.startswith("VmRSS:"):
            return round(int(line.split()[1]) / 1024, 1)
    return None


def load() -> list[float]:
    return [round(x, 2) for x in os.getloadavg()]


async def post(endpoints: Endpoints, body: dict[str, Any]) -> tuple[float, dict[str, Any]]:
    assert endpoints.chat is not None
    started = time.perf_counter()
    async with (
        aiohttp.ClientSession(headers=endpoints.headers()) as session,
        session.post(f"{endpoints.chat.url}/chat/completions", json=body) as response,
    ):
        answer: dict[str, Any] = await response.json()
    return time.perf_counter() - started, answer


def tidy_body(capture: str, tokens: int) -> dict[str, Any]:
    return {
        "messages": [
            {"role": "system", "content": f"You file captured notes.\n{RULES}"},
            {"role": "user", "content": f"Capture: {capture}\nPropose a title and tags."},
        ],
        "max_tokens": tokens,
        "temperature": 0,
    }


def plain_body(topic: str, tokens: int) -> dict[str, Any]:
    return {
        "messages": [{"role": "user", "content": f"Write a few sentences about {topic}."}],
        "max_tokens": tokens,
        "temperature": 0,
        "ignore_eos": True,
        "cache_prompt": False,  # the same on both sides: every prompt read in full
    }


async def child_part(settings: BuiltinSettings, args: argparse.Namespace) -> dict[str, Any]:
    me = os.getpid()
    out: dict[str, Any] = {"daemon_rss_mib_before": rss_mib(me)}
    engine = EngineProcess(settings)
    started = time.perf_counter()
    endpoints = await engine.endpoints()
    out["start_s"] = round(time.perf_counter() - started, 2)
    out["status"] = engine.status().line()
    out["child_rss_mib_loaded"] = rss_mib(endpoints.pid)
    cache = []
    for capture in CAPTURES[: args.prompts]:
        wall, answer = await post(endpoints, tidy_body(capture, 16))
        t = answer["timings"]
        cache.append(
            {
                "wall_s": round(wall, 2),
                "prompt_tokens": t["prompt_n"] + t["cache_n"],
                "from_cache": t["cache_n"],
                "prompt_ms": round(t["prompt_ms"]),
            }
        )
    out["cache"] = {
        "requests": cache,
        "second_vs_first": round(cache[1]["wall_s"] / cache[0]["wall_s"], 3),
    }
    out["child_rss_mib_after_requests"] = rss_mib(endpoints.pid)
    out["daemon_rss_mib_while_loaded"] = rss_mib(me)
    pid = endpoints.pid
    await engine.stop()
    out["child_rss_mib_after_stop"] = rss_mib(pid)  # None: the process is gone
    out["daemon_rss_mib_after_stop"] = rss_mib(me)
    out["_engine"] = engine
    return out


async def overhead_part(
    engine: EngineProcess, settings: BuiltinSettings, args: argparse.Namespace
) -> dict[str, Any]:
    import xllamacpp

    endpoints = await engine.endpoints()
    assert endpoints.chat is not None
    plan_model = {
        "path": str(endpoints.chat.path),
        "alias": endpoints.chat.alias,
        "n_ctx": endpoints.chat.n_ctx,
        "cache_ram_mib": 0,
        "embedding": False,
        "pooling": None,
    }
    config = {"key": "bench", "threads": endpoints.threads, "gpu": settings.gpu, "log_level": 30}
    direct = xllamacpp.Server(
        engine_child._params(xllamacpp, plan_model, config, endpoints.device)  # the same params
    )
    rows: list[dict[str, Any]] = []
    for i, topic in enumerate(TOPICS[: args.prompts + 1]):
        body = plain_body(topic, args.tokens)
        order = ("child", "direct") if i % 2 else ("direct", "child")
        row: dict[str, Any] = {}
        for side in order:
            await asyncio.sleep(args.gap)  # the other side's threads settle first
            if side == "child":
                wall, answer = await post(endpoints, body)
            else:
                started = time.perf_counter()
                answer = direct.handle_chat_completions(body)
                wall = time.perf_counter() - started
            row[side] = {
                "wall_s": wall,
                "tokens": answer["usage"]["completion_tokens"],
                "llama_gen_tps": answer["timings"]["predicted_per_second"],
            }
        rows.append(row)
    rows = rows[1:]  # the first pair warms both up (first-use allocations)
    sums = {s: sum(r[s]["wall_s"] for r in rows) for s in ("child", "direct")}
    tokens = {s: sum(r[s]["tokens"] for r in rows) for s in ("child", "direct")}
    del direct
    return {
        "requests": len(rows),
        "tokens_each": args.tokens,
        "child_tokens_per_s": round(tokens["child"] / sums["child"], 2),
        "direct_tokens_per_s": round(tokens["direct"] / sums["direct"], 2),
        "child_llama_gen_tps": round(statistics.mean(r["child"]["llama_gen_tps"] for r in rows), 2),
        "direct_llama_gen_tps": round(
            statistics.mean(r["direct"]["llama_gen_tps"] for r in rows), 2
        ),
        "overhead_of_totals": round(sums["child"] / sums["direct"] - 1, 4),
        "overhead_median_pair": round(
            statistics.median(r["child"]["wall_s"] / r["direct"]["wall_s"] for r in rows) - 1, 4
        ),
        "pairs": [{s: round(r[s]["wall_s"], 3) for s in ("direct", "child")} for r in rows],
    }


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--model", type=Path, default=DEFAULT_MODEL)
    parser.add_argument("--prompts", type=int, default=4, help="requests per part (2 or more)")
    parser.add_argument("--tokens", type=int, default=64, help="tokens generated per request")
    parser.add_argument("--context", type=int, default=4096)
    parser.add_argument("--threads", type=int, default=0)
    parser.add_argument("--gap", type=float, default=1.0, help="seconds between requests")
    args = parser.parse_args()
    settings = BuiltinSettings(
        chat_model=str(args.model), context=args.context, threads=args.threads, idle_stop_s=0
    )
    report: dict[str, Any] = {
        "model": args.model.name,
        "cpus": os.cpu_count(),
        "load_before": load(),
    }
    memory = await child_part(settings, args)
    engine: EngineProcess = memory.pop("_engine")
    report["memory_and_cache"] = memory
    report["overhead"] = await overhead_part(engine, settings, args)
    await engine.close()
    report["load_after"] = load()
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    asyncio.run(main())
