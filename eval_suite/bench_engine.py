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
   through xllamacpp called in this process (`Server.handle_chat_completions`) with the
   child's own parameters, in blocks that take turns (child, direct, child, direct: --rounds),
   one side loaded at a time (with both loaded at once, llama.cpp's own speed differed between
   them by up to a half here; each alone, they computed alike: 56-58 and 56 tokens/s for
   Gemma 3 270M). Overhead = the median request's wall time through the child / direct - 1 (goal:
   <= 5 %); and from the time each request spent outside llama.cpp's own computing (wall time
   - its prompt_ms - predicted_ms: HTTP, JSON, the process boundary), which a busy machine
   barely changes. llama.cpp's own generation speed on each side shows how busy it was.

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

    bodies = [plain_body(topic, args.tokens) for topic in TOPICS[: args.prompts + 1]]
    rows: dict[str, list[dict[str, float]]] = {"child": [], "direct": []}
    for _ in range(args.rounds):
        endpoints = await engine.endpoints()
        assert endpoints.chat is not None
        for n, body in enumerate(bodies):
            wall, answer = await post(endpoints, body)
            if n:  # the first request of a block warms it up (first-use allocations)
                rows["child"].append(_row(wall, answer))
        await engine.stop()  # one side at a time: two loaded servers slowed each other
        model = {
            "path": str(endpoints.chat.path),
            "alias": endpoints.chat.alias,
            "n_ctx": endpoints.chat.n_ctx,
            "cache_ram_mib": 0,
            "embedding": False,
            "pooling": None,
        }
        config = {"key": "bench", "threads": endpoints.threads, "gpu": settings.gpu}
        direct = xllamacpp.Server(  # the child's own parameters
            engine_child._params(xllamacpp, model, {**config, "log_level": 30}, endpoints.device)
        )
        for n, body in enumerate(bodies):
            started = time.perf_counter()
            answer = direct.handle_chat_completions(body)
            if n:
                rows["direct"].append(_row(time.perf_counter() - started, answer))
        del direct
    walls = {side: statistics.median(r["wall_s"] for r in rows[side]) for side in rows}
    extra = {side: statistics.median(r["extra_ms"] for r in rows[side]) for side in rows}
    return {
        "requests_each": len(rows["child"]),
        "tokens_each": args.tokens,
        **{
            f"{side}_tokens_per_s": round(
                sum(r["tokens"] for r in rows[side]) / sum(r["wall_s"] for r in rows[side]), 2
            )
            for side in rows
        },
        **{
            f"{side}_llama_gen_tps_median": round(
                statistics.median(r["gen_tps"] for r in rows[side]), 2
            )
            for side in rows
        },
        "child_wall_s_median": round(walls["child"], 3),
        "direct_wall_s_median": round(walls["direct"], 3),
        "overhead_median": round(walls["child"] / walls["direct"] - 1, 4),
        "child_extra_ms_median": round(extra["child"], 1),
        "direct_extra_ms_median": round(extra["direct"], 1),
        # Outside llama.cpp's computing, which a busy machine slows on both sides alike:
        # the steadiest measure of what the child adds, as a share of a direct request.
        "overhead_outside_computing": round(
            (extra["child"] - extra["direct"]) / 1000 / walls["direct"], 4
        ),
    }


def _row(wall: float, answer: dict[str, Any]) -> dict[str, float]:
    timings = answer["timings"]
    return {
        "wall_s": wall,
        "tokens": answer["usage"]["completion_tokens"],
        "gen_tps": timings["predicted_per_second"],
        # the time outside llama.cpp's own computing: HTTP, JSON, the process boundary
        "extra_ms": wall * 1000 - timings["prompt_ms"] - timings["predicted_ms"],
    }


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--model", type=Path, default=DEFAULT_MODEL)
    parser.add_argument("--prompts", type=int, default=4, help="requests per part (2 or more)")
    parser.add_argument("--tokens", type=int, default=64, help="tokens generated per request")
    parser.add_argument("--context", type=int, default=4096)
    parser.add_argument("--threads", type=int, default=0)
    parser.add_argument("--rounds", type=int, default=2, help="blocks of requests per side")
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
