"""How the child runs its models on this computer: threads, context, prompt cache, GPU, and the
check that the computer can take it, decided before anything is loaded.

- Threads: one per physical core (hardware.physical_cores), or [builtin] threads. llama.cpp is
  bound by memory bandwidth and core count; hyper-threads of a busy core only compete. Its
  threads wait for each other at every step, spinning, so on a computer whose cores are busy
  with other work fewer threads win: measured with Qwen2.5 1.5B on 2 cores, 2 threads made 25
  tokens a second when quiet and 8 beside one busy process, 1 thread 15 and 14. The default is
  for the quiet case (the engine works while the owner does not); a busy computer sets
  [builtin] threads lower.
- Chat context: [builtin] context, or automatic: the model's trained context, but never more
  than CONTEXT_CAP. The stages fit every prompt into the context they are told (llm/budget.py),
  and Ollama's own default of 4096 is what they were measured with; 8192 gives Ask's passages
  and a long capture twice that room, while a CPU reading prompts at 50-75 tokens a second
  would take two minutes to fill even that, so more buys only memory use and waiting. When
  memory is short, the automatic context is halved down to MIN_AUTO_CONTEXT before anything
  is refused; a context the owner set is kept as set, or refused.
- Prompt cache: one slot (n_parallel 1), so consecutive calls share one KV cache and the shared
  beginning of two prompts (the same instructions, a batch of tidies) is read once
  (cache_prompt). llama.cpp also keeps the state of earlier prompts in RAM (cache_ram_mib,
  8192 MiB by default: more than many computers have), so that tidy, Ask and the assistant
  taking turns each find their own beginning again; it is capped at the size of one full
  context's KV cache, so the most it adds is what the context itself takes.
- Embeddings: their own server, with a context of the model's (a MiniLM: 512), at most
  EMBED_CONTEXT_CAP: chunks are 400 tokens by default, and an embedding needs all of its input
  in one batch, whose buffers grow with it.
- Memory: the files' sizes (the weights are read into memory), the KV caches, the prompt
  cache and OVERHEAD per model must fit in the free memory (hardware.available_memory).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from commonplace.config import BuiltinSettings
from commonplace.engine.gguf import ModelFile
from commonplace.engine.hardware import cpu_problem, gb, memory_problem

CONTEXT_CAP = 8192
MIN_AUTO_CONTEXT = 2048
EMBED_CONTEXT_CAP = 2048
CONTEXT_STEP = 256  # contexts are multiples of this (llama.cpp pads to 256 anyway)
MIB = 1 << 20
# Per model: llama.cpp's compute buffers (they grow with the vocabulary: Gemma's 262,144
# tokens) and its code; measured 80-250 MB on the models here, so 300 MB to be safe.
OVERHEAD = 300 * MIB
PROCESS = 60 * MIB  # the child's Python
POOLING_MEAN = 1  # llama_pooling_type: a model without its own pooling is averaged


class NotRunnable(Exception):
    """This computer cannot run the engine as configured; the message says what to do."""

    def __init__(self, message: str, code: str) -> None:
        super().__init__(message)
        self.code = code  # "cpu" | "memory"


@dataclass(frozen=True)
class ModelPlan:
    """One model as the child loads it (sent to the child as JSON)."""

    role: str  # "chat" | "embed"
    path: str
    alias: str  # the name the server answers to in /v1/models and requests
    name: str  # general.name, for people
    n_ctx: int
    cache_ram_mib: int
    embedding: bool
    pooling: int | None  # llama_pooling_type for embeddings; None: the model's own
    need: int  # bytes of memory it is expected to take


@dataclass(frozen=True)
class Plan:
    threads: int
    gpu: str
    models: tuple[ModelPlan, ...]
    need: int
    why: list[str] = field(default_factory=list, compare=False)  # how each choice was made

    def child_config(self, key: str, log_level: int) -> dict[str, Any]:
        return {
            "key": key,
            "threads": self.threads,
            "gpu": self.gpu,
            "log_level": log_level,
            "models": [m.__dict__ for m in self.models],
        }


def plan(
    settings: BuiltinSettings,
    models: dict[str, ModelFile],
    *,
    cores: int,
    flags: frozenset[str] | None,
    machine: str | None,
    available: int | None,
) -> Plan:
    """The plan for `models` (role -> file) on this computer, or NotRunnable."""
    problem = cpu_problem(flags, machine)
    if problem:
        raise NotRunnable(problem, "cpu")
    threads = settings.threads or cores
    plural = "s" if threads != 1 else ""
    origin = "[builtin] threads" if settings.threads else "one per physical core"
    why = [f"{threads} thread{plural} ({origin})"]
    embed = models.get("embed")
    embed_plan = _embed_plan(embed) if embed is not None else None
    fixed = PROCESS + (embed_plan.need if embed_plan else 0)
    chat = models.get("chat")
    chat_plan = None
    if chat is not None:
        chat_plan = _chat_plan(settings, chat, fixed, available, why)
    chosen = tuple(p for p in (chat_plan, embed_plan) if p is not None)
    need = PROCESS + sum(p.need for p in chosen)
    what = " and ".join(f"{p.name} ({gb(_size(models, p.role))})" for p in chosen)
    problem = memory_problem(need, available, what, fix=_smaller(settings))
    if problem:
        raise NotRunnable(problem, "memory")
    return Plan(threads=threads, gpu=settings.gpu, models=chosen, need=need, why=why)


def _chat_plan(
    settings: BuiltinSettings,
    model: ModelFile,
    fixed: int,
    available: int | None,
    why: list[str],
) -> ModelPlan:
    trained = model.context_trained or CONTEXT_CAP
    if settings.context:
        n_ctx = settings.context
        if model.context_trained and n_ctx > model.context_trained:
            n_ctx = model.context_trained
            why.append(f"context {n_ctx} tokens (the model's trained context; more was set)")
        else:
            why.append(f"context {n_ctx} tokens ([builtin] context)")
        return _chat_model_plan(model, n_ctx)
    n_ctx = _steps(min(trained, CONTEXT_CAP))
    reason = "the model's trained context" if trained <= CONTEXT_CAP else "at most 8192"
    while n_ctx > MIN_AUTO_CONTEXT and available is not None:
        if fixed + _chat_model_plan(model, n_ctx).need <= available:
            break
        n_ctx = max(MIN_AUTO_CONTEXT, _steps(n_ctx // 2))
        reason = f"less free memory than {CONTEXT_CAP} tokens need"
    planned = _chat_model_plan(model, n_ctx)
    why.append(
        f"context {n_ctx} tokens (automatic: {reason}), prompt cache {planned.cache_ram_mib} MiB"
    )
    return planned


def _chat_model_plan(model: ModelFile, n_ctx: int) -> ModelPlan:
    kv = model.kv_bytes_per_token * n_ctx
    cache_mib = max(1, -(-kv // MIB))
    return ModelPlan(
        role="chat",
        path=str(model.path),
        alias=alias(model),
        name=model.name,
        n_ctx=n_ctx,
        cache_ram_mib=cache_mib,
        embedding=False,
        pooling=None,
        need=model.size + kv + cache_mib * MIB + OVERHEAD,
    )


def _embed_plan(model: ModelFile) -> ModelPlan:
    n_ctx = _steps(min(model.context_trained or EMBED_CONTEXT_CAP, EMBED_CONTEXT_CAP))
    return ModelPlan(
        role="embed",
        path=str(model.path),
        alias=alias(model),
        name=model.name,
        n_ctx=n_ctx,
        cache_ram_mib=0,  # nothing to reuse: every text is embedded once
        embedding=True,
        pooling=None if model.pooling is not None else POOLING_MEAN,
        need=model.size + model.kv_bytes_per_token * n_ctx + OVERHEAD,
    )


def _steps(n: int) -> int:
    """`n` rounded down to a multiple of CONTEXT_STEP, but never below one step (a model
    trained on 512 tokens keeps 512)."""
    return max(CONTEXT_STEP, n - n % CONTEXT_STEP) if n >= CONTEXT_STEP else n


def _size(models: dict[str, ModelFile], role: str) -> int:
    return models[role].size


def _smaller(settings: BuiltinSettings) -> str:
    if settings.context:
        return "set [builtin] context lower (0: automatic), pick a smaller model"
    return "pick a smaller model ([builtin] chat_model)"


def alias(model: ModelFile) -> str:
    """The name the server answers to: the file's stem ("qwen2.5-coder-1.5b-instruct-q4_k_m"),
    never its full path, which names the owner's folders."""
    return re.sub(r"\.gguf$", "", model.path.name, flags=re.I)
