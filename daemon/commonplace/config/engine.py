"""The `[builtin]` section: the built-in engine, llama.cpp's server run by the daemon as a child
process (engine/). Every key says what it does in `metadata["doc"]`, which the reference is
generated from.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from commonplace.config.values import ConfigError, bounds, one_of

MIN_CONTEXT = 512  # below this not even a tidy prompt and its reply fit


@dataclass(frozen=True)
class BuiltinSettings:
    """Which models the built-in engine serves and how it runs them."""

    chat_model: str = field(
        default="",
        metadata={
            "doc": "The chat model: a model id from `commonplace models` or the path of a "
            "GGUF file; empty: the default chat model."
        },
    )
    embed_model: str = field(
        default="",
        metadata={
            "doc": "The embedding model, an id or a GGUF path like chat_model; empty: the "
            "default embedding model."
        },
    )
    threads: int = field(
        default=0,
        metadata={
            **bounds(0, 512),
            "doc": "CPU threads the engine computes with; 0: one per physical core (hyper-"
            "threads slow llama.cpp down rather than help).",
        },
    )
    context: int = field(
        default=0,
        metadata={
            **bounds(0, 1_048_576),
            "doc": "The chat model's context in tokens; 0: automatic, the model's trained "
            "context up to 8192, less when memory is short.",
        },
    )
    gpu: str = field(
        default="auto",
        metadata={
            **one_of("auto", "on", "off"),
            "doc": "'auto' uses the GPU the installed llama.cpp build has (Metal on Apple "
            "silicon, CUDA with xllamacpp's CUDA wheels) and the CPU otherwise; 'on' refuses "
            "to run without one; 'off' computes on the CPU only.",
        },
    )
    idle_stop_s: float = field(
        default=600.0,
        metadata={
            **bounds(0, 7 * 86400),
            "doc": "Seconds without a request after which the engine stops and gives its "
            "memory back (the next request starts it again, in a few seconds); 0: never.",
        },
    )
    start_timeout_s: float = field(
        default=180.0,
        metadata={
            **bounds(5, 3600),
            "doc": "Longest wait for the engine to load its models (a big model from a slow disk).",
        },
    )

    def __post_init__(self) -> None:
        if 0 < self.context < MIN_CONTEXT:
            raise ConfigError(
                f"builtin.context = {self.context} is too small; use 0 (automatic) or "
                f"{MIN_CONTEXT}+"
            )
