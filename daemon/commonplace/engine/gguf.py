"""What a GGUF file says about its model, read from its header without loading it: the name,
the architecture, the context it was trained with, and what one token of context costs in
memory. The engine sizes its context and checks the memory from these before the child loads
anything (sizing.py), so a model too big for the computer is refused with a sentence instead of
being killed by the kernel halfway through loading.

Only the key-value header is read (a few hundred kilobytes at the start of the file, mapped, not
copied); the tensors are never touched. The format is llama.cpp's docs/gguf.md: magic `GGUF`,
a version, the tensor and key counts, then the keys, each a string, a type and a value.
"""

from __future__ import annotations

import mmap
import struct
from dataclasses import dataclass
from pathlib import Path
from typing import Any

MAGIC = b"GGUF"
KV_BYTES = 2  # one f16 per element: llama.cpp's default KV cache type (cache_type_k/v)

# type code -> struct format of one value (8: string, 9: array are read apart)
_SCALARS = {
    0: "<B",
    1: "<b",
    2: "<H",
    3: "<h",
    4: "<I",
    5: "<i",
    6: "<f",
    7: "<?",
    10: "<Q",
    11: "<q",
    12: "<d",
}
_STRING, _ARRAY = 8, 9


class NotGGUF(ValueError):
    """The file is not a GGUF model llama.cpp can read; the message says which file and why."""


@dataclass(frozen=True)
class ModelFile:
    """The facts of one GGUF file that sizing needs, and its name for people."""

    path: Path
    size: int  # bytes on disk: what its weights take in memory
    architecture: str  # "qwen2", "gemma3", "bert", ...
    name: str  # general.name, or the file's stem when the file has none
    context_trained: int  # <arch>.context_length; 0 when the file does not say
    layers: int
    kv_heads: int
    key_length: int
    value_length: int
    pooling: int | None  # <arch>.pooling_type (embedding models); None when absent

    @property
    def kv_bytes_per_token(self) -> int:
        """Memory one token of context takes: keys and values of every layer, in f16. An
        over-estimate for models with a sliding window (Gemma 3), which is the safe side."""
        return self.layers * self.kv_heads * (self.key_length + self.value_length) * KV_BYTES


def read_model_file(path: Path) -> ModelFile:
    """The header's facts; NotGGUF when the file is missing, unreadable or not GGUF."""
    try:
        with path.open("rb") as f, mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ) as data:
            meta = read_metadata(data)
            size = len(data)
    except FileNotFoundError:
        raise NotGGUF(f"{path}: no such file") from None
    except (OSError, ValueError) as exc:  # a folder, no permission, an empty file (mmap)
        if isinstance(exc, NotGGUF):
            raise
        raise NotGGUF(f"{path}: cannot be read ({exc})") from None
    arch = str(meta.get("general.architecture", ""))
    if not arch:
        raise NotGGUF(f"{path}: a GGUF file without general.architecture, not a model")

    def number(key: str, default: int = 0) -> int:
        value = meta.get(f"{arch}.{key}", default)
        if isinstance(value, list):  # per-layer values (some models): the largest counts
            value = max(value, default=default)
        return int(value)

    heads = number("attention.head_count", 1) or 1
    embedding = number("embedding_length")
    head_size = embedding // heads if embedding else 0
    pooling = meta.get(f"{arch}.pooling_type")
    return ModelFile(
        path=path,
        size=size,
        architecture=arch,
        name=str(meta.get("general.name") or path.stem),
        context_trained=number("context_length"),
        layers=number("block_count"),
        kv_heads=number("attention.head_count_kv", heads) or heads,
        key_length=number("attention.key_length", head_size),
        value_length=number("attention.value_length", head_size),
        pooling=None if pooling is None else int(pooling),
    )


def read_metadata(data: bytes | mmap.mmap) -> dict[str, Any]:
    """Every key of the header with its value; arrays of strings (the vocabulary) are skipped
    over and given as their length only, which is all anyone here needs of them."""
    if data[:4] != MAGIC:
        raise NotGGUF("not a GGUF file (it does not start with 'GGUF')")
    (version,) = struct.unpack_from("<I", data, 4)
    if version < 2:
        raise NotGGUF(f"GGUF version {version} is too old for llama.cpp; convert it again")
    _tensors, count = struct.unpack_from("<QQ", data, 8)
    reader = _Reader(data, 24)
    meta: dict[str, Any] = {}
    try:
        for _ in range(count):
            key = reader.string()
            meta[key] = reader.value(reader.u32())
    except (struct.error, IndexError, UnicodeDecodeError) as exc:
        raise NotGGUF(f"the GGUF header is cut short or damaged ({exc})") from None
    return meta


class _Reader:
    def __init__(self, data: bytes | mmap.mmap, at: int) -> None:
        self.data = data
        self.at = at

    def u32(self) -> int:
        (value,) = struct.unpack_from("<I", self.data, self.at)
        self.at += 4
        return int(value)

    def u64(self) -> int:
        (value,) = struct.unpack_from("<Q", self.data, self.at)
        self.at += 8
        return int(value)

    def string(self) -> str:
        n = self.u64()
        if self.at + n > len(self.data):
            raise IndexError("a string runs past the end of the file")
        text = bytes(self.data[self.at : self.at + n]).decode("utf-8")
        self.at += n
        return text

    def value(self, kind: int) -> Any:
        if kind == _STRING:
            return self.string()
        if kind == _ARRAY:
            item, n = self.u32(), self.u64()
            if item == _STRING:  # the vocabulary: skipped, 150-260 thousand entries
                for _ in range(n):
                    length = self.u64()
                    self.at += length
                return n
            if item not in _SCALARS:
                raise NotGGUF(f"an array of unknown type {item} in the GGUF header")
            fmt = _SCALARS[item]
            size = struct.calcsize(fmt)
            if n > 4096:  # token types, scores, merges: not needed, skipped
                self.at += size * n
                return n
            values = list(struct.unpack_from(f"<{n}{fmt[1]}", self.data, self.at))
            self.at += size * n
            return values
        if kind not in _SCALARS:
            raise NotGGUF(f"a value of unknown type {kind} in the GGUF header")
        fmt = _SCALARS[kind]
        (value,) = struct.unpack_from(fmt, self.data, self.at)
        self.at += struct.calcsize(fmt)
        return value
