"""What a GGUF file says about itself: its name, architecture and trained context.

A user's own file has no catalog entry to check it against, so this is what `models add` and
`models check` can say about it before llama.cpp is asked to load it: a file that is not a GGUF
(an HTML error page saved as .gguf, a truncated download) is refused here in one sentence
instead of failing inside the engine. Read with the `gguf` package, llama.cpp's own reader.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from commonplace.engine.catalog import Role

MAGIC = b"GGUF"
# Architectures llama.cpp runs as embedding models (its encoder-only ones).
EMBEDDING_ARCHITECTURES = frozenset(
    {"bert", "nomic-bert", "nomic-bert-moe", "jina-bert-v2", "t5encoder", "modern-bert", "neo-bert"}
)


class NotAGguf(Exception):
    """The file is not a GGUF llama.cpp can read; the message says why."""


@dataclass(frozen=True)
class GgufHeader:
    name: str  # general.name, or the file's stem when it has none
    architecture: str
    context: int | None  # <architecture>.context_length
    size: int

    @property
    def role(self) -> Role:
        return "embed" if self.architecture in EMBEDDING_ARCHITECTURES else "chat"


def looks_like_gguf(path: Path) -> bool:
    """The four magic bytes only: cheap enough for every start of the engine."""
    try:
        with path.open("rb") as f:
            return f.read(4) == MAGIC
    except OSError:
        return False


def read_header(path: Path) -> GgufHeader:
    """Raises NotAGguf (a missing file, another format, a cut-off file)."""
    import gguf  # a few hundred ms to import: only when a header is read

    if not path.is_file():
        raise NotAGguf(f"{path} does not exist")
    if not looks_like_gguf(path):
        raise NotAGguf(f"{path} is not a GGUF file (it does not start with 'GGUF')")
    try:
        reader = gguf.GGUFReader(path)
    except (ValueError, IndexError, OSError) as exc:  # how GGUFReader says "cut off"
        raise NotAGguf(f"{path} is a damaged GGUF file ({exc}); download it again") from None

    def field(key: str) -> object:
        found = reader.fields.get(key)
        return None if found is None else found.contents()

    architecture = str(field("general.architecture") or "")
    if not architecture:
        raise NotAGguf(f"{path} has no general.architecture: not a model llama.cpp can run")
    context = field(f"{architecture}.context_length")
    name = field("general.name")
    return GgufHeader(
        name=str(name) if name else path.stem,
        architecture=architecture,
        context=int(context) if isinstance(context, int) else None,
        size=path.stat().st_size,
    )
