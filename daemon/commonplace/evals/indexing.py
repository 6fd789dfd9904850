"""Build the search index of an eval's throwaway vault, and refuse a half-built one.

An index whose embeddings failed would quietly measure keyword search under the name of
hybrid search; the eval stops instead and says why.
"""

from __future__ import annotations

from commonplace.evals.suite import EvalError, SuiteEnv
from commonplace.index import Index


async def build_index(env: SuiteEnv) -> Index:
    index = Index.open(env.settings, env.llm)
    try:
        stats = await index.refresh()
    except BaseException:
        index.close()
        raise
    if stats.errors or stats.vectors_pending:
        index.close()
        problems = "; ".join(stats.errors[:3]) or f"{stats.vectors_pending} notes without vectors"
        raise EvalError(f"the eval's index could not be built completely: {problems}")
    env.state["index"] = index
    env.info["index"] = {
        "notes": stats.notes,
        "chunks": stats.chunks,
        "skipped": stats.skipped,
        "seconds": round(stats.seconds, 2),
        "embed_seconds": round(stats.embed_seconds, 2),
    }
    return index


async def close_index(env: SuiteEnv) -> None:
    index = env.state.pop("index", None)
    if isinstance(index, Index):
        index.close()
