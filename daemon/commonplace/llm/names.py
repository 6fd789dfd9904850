"""Model names as Ollama reads them, for the backends that must compare them."""

from __future__ import annotations

from collections.abc import Sequence


def same_model(name: str, available: Sequence[str]) -> bool:
    """The same model to Ollama: 'nomic-embed-text' is 'nomic-embed-text:latest', and
    'Qwen3.5:9B' or 'registry.ollama.ai/library/qwen3.5:9b' is 'qwen3.5:9b' (`model.ParseName`
    fills in the default host, namespace and tag; `getExistingName` ignores case)."""

    def norm(n: str) -> str:
        parts = n.split("/")
        parts = [*["registry.ollama.ai", "library"][: max(0, 3 - len(parts))], *parts]
        if ":" not in parts[-1]:
            parts[-1] += ":latest"
        return "/".join(parts).casefold()

    return norm(name) in {norm(a) for a in available}
