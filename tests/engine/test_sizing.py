"""The child's plan (threads, context, prompt cache) from a model's GGUF header and the
computer's readings; the header reader on real and broken files; the [builtin] settings."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from pathlib import Path

import pytest

from commonplace.config import BuiltinSettings, ConfigError, load_settings
from commonplace.engine import sizing
from commonplace.engine.gguf import ModelFile, NotGGUF, read_model_file
from tests.engine.conftest import gguf_bytes

GB = 1_000_000_000
MIB = 1 << 20
# The headers of Qwen2.5-Coder 1.5B and all-MiniLM-L6-v2 (f16), as read_model_file reads them
# (checked below on the real files).
QWEN = ModelFile(
    path=Path("/m/qwen2.5-coder-1.5b-instruct-q4_k_m.gguf"),
    size=1_117_320_768,
    architecture="qwen2",
    name="Qwen2.5 Coder 1.5B Instruct GGUF",
    context_trained=32768,
    layers=28,
    kv_heads=2,
    key_length=128,
    value_length=128,
    pooling=None,
)
MINILM = dataclasses.replace(
    QWEN,
    path=Path("/m/all-MiniLM-L6-v2.gguf"),
    size=46_223_392,
    architecture="bert",
    name="all-MiniLM-L6-v2",
    context_trained=512,
    layers=6,
    kv_heads=12,
    key_length=32,
    value_length=32,
    pooling=1,
)


def plan(settings: BuiltinSettings | None = None, available: int | None = None) -> sizing.Plan:
    return sizing.plan(
        settings or BuiltinSettings(),
        {"chat": QWEN, "embed": MINILM},
        cores=4,
        flags=None,
        machine="arm64",
        available=available,
    )


def test_the_header_of_a_real_model_is_read(gguf: Callable[[str], Path]) -> None:
    qwen = read_model_file(gguf("qwen"))
    assert qwen == dataclasses.replace(QWEN, path=gguf("qwen"))
    assert qwen.kv_bytes_per_token == 28 * 2 * (128 + 128) * 2  # llama.cpp: 224 MiB at 8192
    assert read_model_file(gguf("minilm")) == dataclasses.replace(MINILM, path=gguf("minilm"))
    gemma = read_model_file(gguf("gemma"))
    assert (gemma.architecture, gemma.name, gemma.context_trained) == (
        "gemma3",
        "Gemma 3 270m",
        32768,
    )


@pytest.mark.parametrize(
    ("content", "said"),
    [
        (b"", "cannot be read"),
        (b"# a Markdown note\n", "not a GGUF file"),
        (gguf_bytes({"general.architecture": "llama"})[:-3], "cut short or damaged"),
        (gguf_bytes({"general.name": "no architecture"}), "without general.architecture"),
    ],
)
def test_a_file_that_is_not_a_model_says_why(tmp_path: Path, content: bytes, said: str) -> None:
    path = tmp_path / "x.gguf"
    path.write_bytes(content)
    with pytest.raises(NotGGUF, match=said):
        read_model_file(path)
    with pytest.raises(NotGGUF, match="no such file"):
        read_model_file(tmp_path / "missing.gguf")


def test_automatic_context_is_the_trained_one_up_to_8192() -> None:
    chosen = plan()
    chat, embed = chosen.models
    assert (chat.role, chat.n_ctx, chat.alias) == (
        "chat",
        8192,
        "qwen2.5-coder-1.5b-instruct-q4_k_m",
    )
    assert chat.cache_ram_mib == 224  # one full context's KV cache: 28672 bytes a token
    assert (embed.role, embed.n_ctx, embed.embedding, embed.pooling) == ("embed", 512, True, None)
    assert chosen.threads == 4
    assert chosen.why == [
        "4 threads (one per physical core)",
        "context 8192 tokens (automatic: at most 8192), prompt cache 224 MiB",
    ]
    small = dataclasses.replace(QWEN, context_trained=2048)
    alone = sizing.plan(
        BuiltinSettings(), {"chat": small}, cores=2, flags=None, machine=None, available=None
    )
    assert alone.models[0].n_ctx == 2048


def test_short_memory_halves_the_automatic_context_before_refusing() -> None:
    full = plan().need
    assert full > 2 * GB  # weights, KV, prompt cache, and the overheads
    chat = plan(available=full - 100 * MIB).models[0]
    assert chat.n_ctx == 4096 and chat.cache_ram_mib == 112
    with pytest.raises(sizing.NotRunnable) as refused:
        plan(available=GB)
    assert refused.value.code == "memory"
    said = str(refused.value)
    assert said.startswith("The built-in model needs about 2.0 GB of free memory ")
    assert "(Qwen2.5 Coder 1.5B Instruct GGUF (1.1 GB) and all-MiniLM-L6-v2 (0.0 GB))" in said
    assert "pick a smaller model ([builtin] chat_model)" in said and "Ollama" in said


def test_a_context_the_owner_set_is_kept_or_refused_never_shrunk() -> None:
    chosen = plan(BuiltinSettings(context=16384, threads=1))
    assert chosen.models[0].n_ctx == 16384 and chosen.threads == 1
    assert chosen.why[0] == "1 thread ([builtin] threads)"
    assert plan(BuiltinSettings(context=65536)).models[0].n_ctx == 32768  # what it was trained on
    with pytest.raises(sizing.NotRunnable, match=r"set \[builtin\] context lower"):
        plan(BuiltinSettings(context=16384), available=plan().need)


def test_an_embedding_model_without_pooling_is_averaged_and_its_context_capped() -> None:
    decoder = dataclasses.replace(QWEN, context_trained=32768, pooling=None)
    chosen = sizing.plan(
        BuiltinSettings(), {"embed": decoder}, cores=2, flags=None, machine=None, available=None
    )
    (embed,) = chosen.models
    assert (embed.n_ctx, embed.pooling, embed.cache_ram_mib) == (2048, sizing.POOLING_MEAN, 0)


def test_a_processor_without_avx2_is_refused_before_the_memory_is_counted() -> None:
    with pytest.raises(sizing.NotRunnable) as refused:
        sizing.plan(
            BuiltinSettings(),
            {"chat": QWEN},
            cores=2,
            flags=frozenset({"avx", "fma", "f16c", "bmi2"}),
            machine="x86_64",
            available=1,
        )
    assert refused.value.code == "cpu" and "lacks AVX2" in str(refused.value)


def test_the_builtin_section_is_read_and_checked(tmp_path: Path) -> None:
    config = tmp_path / "commonplace.toml"
    config.write_text('[builtin]\nchat_model = "~/m.gguf"\nthreads = 2\ngpu = "off"\n')
    builtin = load_settings(config, env={}).builtin
    assert (builtin.chat_model, builtin.threads, builtin.gpu, builtin.context) == (
        "~/m.gguf",
        2,
        "off",
        0,
    )
    config.write_text("[builtin]\ncontext = 100\n")
    with pytest.raises(ConfigError, match=r"builtin.context = 100 is too small; use 0"):
        load_settings(config, env={})
    config.write_text('[builtin]\ngpu = "yes"\n')
    with pytest.raises(ConfigError, match=r"builtin.gpu"):
        load_settings(config, env={})
