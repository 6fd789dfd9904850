"""Ask's prompt through the built-in engine: what the model reads, and how long it takes, for
the prompt a kept ask run sent against the one the program builds today. Prints JSON.

    PYTHONPATH=daemon .venv/bin/python eval_suite/experiments/bench_ask_prompt.py \
        --run eval_suite/runs/2026-12-07-qwen2.5-coder-1.5b-instruct-ask [--threads 1] [--limit 43]

The kept run fixed the search: each question's passages are read back from its prompt, and the
prompt of today (ask/answer.py: `given`, then `build_messages`, with today's [ask] defaults) is
built from the same passages, so only the prompt differs. The two are sent in blocks that take
turns (--block questions of the old, the same of the new, ...), as an owner's questions come
one after another: inside a block the rules at the top come from llama.cpp's prompt cache, as
they do in the daemon. llama.cpp's own timings say how many prompt tokens were read
(`prompt_n`), taken from the cache (`cache_n`) and generated (`predicted_n`), and how long
each took; the load average is printed too, as on a shared machine only figures taken at
similar loads compare. The token counts do not depend on the load.
"""

from __future__ import annotations

import argparse
import ast
import asyncio
import json
import os
import statistics
import sys
import time
from datetime import date
from pathlib import Path
from typing import Any

import aiohttp

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "daemon"))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from ask_regrade import replies  # noqa: E402

from commonplace.ask.answer import build_messages, given  # noqa: E402
from commonplace.config import BuiltinSettings, Settings  # noqa: E402
from commonplace.engine.api import Endpoints  # noqa: E402
from commonplace.engine.process import EngineProcess  # noqa: E402

MODELS = Path(sys.prefix) / "share" / "commonplace" / "models"
DEFAULT_MODEL = MODELS / "qwen2.5-coder-1.5b-instruct-q4_k_m.gguf"


async def post(endpoints: Endpoints, messages: list[dict[str, Any]]) -> dict[str, Any]:
    assert endpoints.chat is not None
    body = {"messages": messages, "max_tokens": 256, "temperature": 0}
    started = time.perf_counter()
    async with (
        aiohttp.ClientSession(headers=endpoints.headers()) as session,
        session.post(f"{endpoints.chat.url}/chat/completions", json=body) as response,
    ):
        answer: dict[str, Any] = await response.json()
    t = answer["timings"]
    return {
        "wall_s": round(time.perf_counter() - started, 2),
        "prompt_read": t["prompt_n"],
        "from_cache": t.get("cache_n", 0),
        "prompt_s": round(t["prompt_ms"] / 1000, 2),
        "generated": t["predicted_n"],
        "generate_s": round(t["predicted_ms"] / 1000, 2),
        "reply": answer["choices"][0]["message"]["content"],
    }


def summary(rows: list[dict[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {"questions": len(rows)}
    for key in ("prompt_read", "from_cache", "generated", "prompt_s", "generate_s", "wall_s"):
        values = [r[key] for r in rows]
        out[key] = {
            "mean": round(statistics.mean(values), 2),
            "median": round(statistics.median(values), 2),
        }
    return out


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--run", type=Path, required=True, help="a kept ask run folder")
    parser.add_argument("--model", type=Path, default=DEFAULT_MODEL)
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--limit", type=int, default=43)
    parser.add_argument("--block", type=int, default=5, help="questions per block")
    args = parser.parse_args()
    run = args.run / "run-1.jsonl"
    requests: dict[str, list[dict[str, Any]]] = {}
    for line in run.read_text(encoding="utf-8").splitlines():
        r = json.loads(line)
        if r["type"] == "llm_call":
            req = ast.literal_eval(r["request"]) if isinstance(r["request"], str) else r["request"]
            requests[r["item"]] = req["messages"]
    settings = Settings()
    items = replies(run)[: args.limit]
    pairs = []
    for it in items:
        today = date.fromisoformat(it["today"])
        passages = given(it["given"], it["question"], settings, today)
        new = build_messages(it["question"], passages, today)
        pairs.append((it["item"], requests[it["item"]], new))
    engine = EngineProcess(
        BuiltinSettings(chat_model=str(args.model), threads=args.threads, idle_stop_s=0)
    )
    endpoints = await engine.endpoints()
    load_before = [round(x, 2) for x in os.getloadavg()]
    rows: dict[str, list[dict[str, Any]]] = {"old": [], "new": []}
    try:
        for start in range(0, len(pairs), args.block):
            block = pairs[start : start + args.block]
            for side, index in (("old", 1), ("new", 2)):
                for pair in block:
                    row = await post(endpoints, pair[index])  # type: ignore[arg-type]
                    rows[side].append({"item": pair[0], **row})
    finally:
        await engine.close()
    report = {
        "model": args.model.name,
        "threads": args.threads,
        "run": args.run.name,
        "load_before": load_before,
        "load_after": [round(x, 2) for x in os.getloadavg()],
        **{side: summary(rows[side]) for side in rows},
        "items": {side: rows[side] for side in rows},
    }
    print(json.dumps(report, indent=1, ensure_ascii=False))


if __name__ == "__main__":
    asyncio.run(main())
