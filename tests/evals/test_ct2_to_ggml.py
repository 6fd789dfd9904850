"""eval_suite/ct2_to_ggml.py on a small made-up model: names, layouts, the split of CTranslate2's
fused attention, dtypes, the header, the vocabulary and the mel filters, read back from the file
the way whisper.cpp reads it. (tests/speech/test_real_model.py transcribes with the real one.)"""

from __future__ import annotations

import importlib.util
import json
import struct
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import numpy as np
import pytest

SCRIPT = Path(__file__).resolve().parents[2] / "eval_suite" / "ct2_to_ggml.py"
STATE, MELS, VOCAB, AUDIO_CTX, TEXT_CTX = 8, 4, 51864, 6, 5


def load_script() -> ModuleType:
    """The script as a module (registered, as its dataclasses need), loaded once per process."""
    if "ct2_to_ggml" not in sys.modules:
        spec = importlib.util.spec_from_file_location("ct2_to_ggml", SCRIPT)
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        sys.modules["ct2_to_ggml"] = module
        spec.loader.exec_module(module)
    return sys.modules["ct2_to_ggml"]


def _string(s: str) -> bytes:
    raw = s.encode() + b"\0"
    return struct.pack("<H", len(raw)) + raw


def write_ct2(path: Path, variables: dict[str, np.ndarray], aliases: dict[str, str]) -> None:
    """CTranslate2's model.bin, as python/ctranslate2/specs/model_spec.py _serialize writes it."""
    ids = {np.dtype(np.float32): 0, np.dtype(np.int8): 1, np.dtype(np.int16): 2}
    ids[np.dtype(np.float16)] = 4
    out = struct.pack("<I", 6) + _string("WhisperSpec") + struct.pack("<I", 3)
    out += struct.pack("<I", len(variables))
    for name, value in variables.items():
        out += _string(name) + struct.pack("<B", value.ndim)
        out += b"".join(struct.pack("<I", d) for d in value.shape)
        out += struct.pack("<BI", ids[value.dtype], value.nbytes) + value.tobytes()
    out += struct.pack("<I", len(aliases))
    for alias, target in aliases.items():
        out += _string(alias) + _string(target)
    path.write_bytes(out)


def made_up_model(folder: Path, *, key_bias: float = 0.0) -> dict[str, np.ndarray]:
    """A one-layer Whisper in CTranslate2's layout, every value distinct so a wrong split shows."""
    rng = np.random.default_rng(7)

    def f16(*shape: int) -> np.ndarray:
        return rng.standard_normal(shape).astype(np.float16)

    v: dict[str, np.ndarray] = {
        "encoder/num_heads": np.array(2, dtype=np.int16),
        "decoder/num_heads": np.array(2, dtype=np.int16),
        "encoder/conv1/weight": f16(STATE, MELS, 3),
        "encoder/conv1/bias": f16(STATE),
        "encoder/conv2/weight": f16(STATE, STATE, 3),
        "encoder/conv2/bias": f16(STATE),
        "encoder/position_encodings/encodings": f16(AUDIO_CTX, STATE),
        "encoder/layer_norm/gamma": f16(STATE),
        "encoder/layer_norm/beta": f16(STATE),
        "decoder/embeddings/weight": f16(VOCAB, STATE),
        "decoder/position_encodings/encodings": f16(TEXT_CTX, STATE),
        "decoder/layer_norm/gamma": f16(STATE),
        "decoder/layer_norm/beta": f16(STATE),
    }
    qkv_bias = f16(3 * STATE)
    qkv_bias[STATE : 2 * STATE] = key_bias
    kv_bias = f16(2 * STATE)
    kv_bias[:STATE] = 0
    for side in ("encoder", "decoder"):
        p = f"{side}/layer_0"
        v[f"{p}/self_attention/linear_0/weight"] = f16(3 * STATE, STATE)
        v[f"{p}/self_attention/linear_0/bias"] = qkv_bias.copy()
        v[f"{p}/self_attention/linear_1/weight"] = f16(STATE, STATE)
        v[f"{p}/self_attention/linear_1/bias"] = f16(STATE)
        for norm in ("self_attention/layer_norm", "ffn/layer_norm"):
            v[f"{p}/{norm}/gamma"], v[f"{p}/{norm}/beta"] = f16(STATE), f16(STATE)
        v[f"{p}/ffn/linear_0/weight"], v[f"{p}/ffn/linear_0/bias"] = (
            f16(4 * STATE, STATE),
            f16(4 * STATE),
        )
        v[f"{p}/ffn/linear_1/weight"], v[f"{p}/ffn/linear_1/bias"] = (
            f16(STATE, 4 * STATE),
            f16(STATE),
        )
    p = "decoder/layer_0/attention"
    v[f"{p}/layer_norm/gamma"], v[f"{p}/layer_norm/beta"] = f16(STATE), f16(STATE)
    v[f"{p}/linear_0/weight"], v[f"{p}/linear_0/bias"] = f16(STATE, STATE), f16(STATE)
    v[f"{p}/linear_1/weight"], v[f"{p}/linear_1/bias"] = f16(2 * STATE, STATE), kv_bias
    v[f"{p}/linear_2/weight"], v[f"{p}/linear_2/bias"] = f16(STATE, STATE), f16(STATE)
    folder.mkdir(parents=True, exist_ok=True)
    write_ct2(folder / "model.bin", v, {"decoder/projection/weight": "decoder/embeddings/weight"})
    enc = load_script().bytes_to_unicode()
    vocab = {"".join(enc[b] for b in f"t{i}".encode()): i for i in range(50254)}
    vocab["".join(enc[b] for b in " é".encode())] = 50254  # 'Ġ' 'Ã' '©': one char per byte
    vocab["".join(enc[b] for b in " Zoë".encode())] = 50255
    vocab["<|endoftext|>"] = 50256
    (folder / "tokenizer.json").write_text(json.dumps({"model": {"vocab": vocab}}))
    return v


def read_ggml(path: Path) -> dict[str, Any]:
    """The file as whisper.cpp's whisper_model_load reads it."""
    data = path.read_bytes()
    pos = 0

    def ints(n: int) -> tuple[int, ...]:
        nonlocal pos
        values = struct.unpack_from(f"<{n}i", data, pos)
        pos += 4 * n
        return values

    (magic,) = ints(1)
    header = ints(11)
    n_mel, n_fft = ints(2)
    filters = np.frombuffer(data, "<f4", n_mel * n_fft, pos).reshape(n_mel, n_fft)
    pos += 4 * n_mel * n_fft
    (n_tokens,) = ints(1)
    tokens = []
    for _ in range(n_tokens):
        (length,) = ints(1)
        tokens.append(data[pos : pos + length])
        pos += length
    tensors: dict[str, tuple[int, np.ndarray]] = {}
    while pos < len(data):
        n_dims, length, ftype = ints(3)
        ne = ints(n_dims)
        name = data[pos : pos + length].decode()
        pos += length
        count = int(np.prod(ne))
        dtype = "<f4" if ftype == 0 else "<f2"
        array = np.frombuffer(data, dtype, count, pos).reshape(tuple(reversed(ne)))
        pos += array.nbytes
        tensors[name] = (ftype, array)
    return {
        "magic": magic,
        "header": header,
        "filters": filters,
        "tokens": tokens,
        "tensors": tensors,
    }


def test_the_tensors_are_named_split_and_laid_out_as_whisper_cpp_reads_them(tmp_path: Path) -> None:
    v = made_up_model(tmp_path / "ct2")
    count = load_script().convert(tmp_path / "ct2", tmp_path / "ggml.bin")
    got = read_ggml(tmp_path / "ggml.bin")
    assert got["magic"] == 0x67676D6C
    # n_vocab, n_audio_ctx, n_audio_state, n_audio_head, n_audio_layer, n_text_ctx,
    # n_text_state, n_text_head, n_text_layer, n_mels, ftype
    assert got["header"] == (VOCAB, AUDIO_CTX, STATE, 2, 1, TEXT_CTX, STATE, 2, 1, MELS, 1)
    t = got["tensors"]
    # whisper.cpp's count for 1+1 layers: 7 + 15 (encoder), 4 + 15 + 9 (decoder, cross attention)
    assert count == len(t) == 7 + 15 + 4 + 24

    qkv = v["encoder/layer_0/self_attention/linear_0/weight"]
    assert np.array_equal(t["encoder.blocks.0.attn.query.weight"][1], qkv[:STATE])
    assert np.array_equal(t["encoder.blocks.0.attn.key.weight"][1], qkv[STATE : 2 * STATE])
    assert np.array_equal(t["encoder.blocks.0.attn.value.weight"][1], qkv[2 * STATE :])
    bias = v["encoder/layer_0/self_attention/linear_0/bias"]
    assert np.array_equal(t["encoder.blocks.0.attn.value.bias"][1], bias[2 * STATE :])
    assert "encoder.blocks.0.attn.key.bias" not in t  # whisper's key has no bias
    kv = v["decoder/layer_0/attention/linear_1/weight"]
    assert np.array_equal(t["decoder.blocks.0.cross_attn.key.weight"][1], kv[:STATE])
    assert np.array_equal(t["decoder.blocks.0.cross_attn.value.weight"][1], kv[STATE:])
    out = v["decoder/layer_0/attention/linear_2/weight"]
    assert np.array_equal(t["decoder.blocks.0.cross_attn.out.weight"][1], out)
    ln = v["decoder/layer_0/attention/layer_norm/gamma"]
    assert np.array_equal(t["decoder.blocks.0.cross_attn_ln.weight"][1], ln.astype(np.float32))
    mlp = v["decoder/layer_0/ffn/linear_1/weight"]
    assert np.array_equal(t["decoder.blocks.0.mlp.2.weight"][1], mlp)

    # Shapes: whisper.cpp's ne[] are numpy's dims reversed (conv1 is ne = [3, n_mels, n_state]).
    assert t["encoder.conv1.weight"][1].shape == (STATE, MELS, 3)
    assert t["encoder.conv1.bias"][1].shape == (STATE, 1)
    assert t["decoder.token_embedding.weight"][1].shape == (VOCAB, STATE)
    # dtypes: matrices float16; vectors, conv biases and positional embeddings float32.
    assert t["decoder.token_embedding.weight"][0] == 1
    assert t["encoder.conv2.weight"][0] == 1
    for name in ("encoder.conv1.bias", "encoder.positional_embedding", "decoder.ln.bias"):
        assert t[name][0] == 0, name
    assert "decoder.proj.weight" not in t  # the alias: whisper.cpp reuses the embeddings


def test_the_vocabulary_is_bytes_without_the_special_tokens(tmp_path: Path) -> None:
    made_up_model(tmp_path / "ct2")
    load_script().convert(tmp_path / "ct2", tmp_path / "ggml.bin")
    tokens = read_ggml(tmp_path / "ggml.bin")["tokens"]
    assert len(tokens) == 50256  # <|endoftext|> and later are whisper.cpp's to make
    assert tokens[0] == b"t0" and tokens[50253] == b"t50253"
    assert tokens[50254] == b" \xc3\xa9"  # byte-level BPE characters back to their bytes
    assert tokens[50255] == " Zoë".encode()


def test_mel_filters_are_slaney_triangles_over_201_bins() -> None:
    filters = load_script().mel_filters()
    assert filters.shape == (80, 201) and filters.dtype == np.float32
    assert (filters >= 0).all()
    peaks = filters.argmax(axis=1)
    assert (np.diff(peaks) >= 0).all() and peaks[0] <= 2 and peaks[-1] >= 190
    # Slaney's normalisation: every triangle has the same area in Hz (2 / width * width / 2).
    hz = np.linspace(0, 8000, 201)
    areas = filters.sum(axis=1) * (hz[1] - hz[0])
    assert np.allclose(areas[10:], 1.0, rtol=0.1)
    # librosa.filters.mel(sr=16000, n_fft=400, n_mels=80), i.e. openai-whisper's mel_80:
    # [mel, FFT bin, value] from librosa itself (the numbers other ports test against).
    for mel, fft_bin, value in [
        (0, 1, 0.02486259490251541),
        (1, 1, 0.001990821911022067),
        (1, 2, 0.022871771827340126),
        (9, 10, 0.006945197004824877),
        (39, 41, 0.011486922390758991),
        (69, 131, 0.00487553421407938),
        (79, 190, 0.0022320549469441175),
        (79, 192, 0.0031647116411477327),
        (79, 199, 0.0004487590049393475),
    ]:
        assert filters[mel, fft_bin] == pytest.approx(value, rel=1e-5), (mel, fft_bin)
    assert filters[0, 0] == 0 and filters[0, 2:].max() == 0
    assert float(filters.sum()) == pytest.approx(1.999024, rel=1e-5)


def test_a_key_bias_that_is_not_zero_is_refused(tmp_path: Path) -> None:
    """whisper.cpp has no key bias; dropping a real one would change the model silently."""
    made_up_model(tmp_path / "ct2", key_bias=0.5)
    module = load_script()
    with pytest.raises(module.ConversionError, match="key's bias is not zero"):
        module.convert(tmp_path / "ct2", tmp_path / "ggml.bin")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["ct2"]  # no half-written file


def test_not_a_whisper_model_is_a_clear_error(tmp_path: Path) -> None:
    spec = struct.pack("<I", 6) + _string("TransformerSpec") + struct.pack("<II", 1, 0)
    (tmp_path / "model.bin").write_bytes(spec)
    module = load_script()
    with pytest.raises(module.ConversionError, match="not a Whisper model"):
        module.read_ct2(tmp_path / "model.bin")
    made_up_model(tmp_path / "cut")
    whole = (tmp_path / "cut" / "model.bin").read_bytes()
    (tmp_path / "cut" / "model.bin").write_bytes(whole[: len(whole) // 2])
    with pytest.raises(module.ConversionError, match="cut short"):
        module.read_ct2(tmp_path / "cut" / "model.bin")
    assert module.main(["--source", str(tmp_path), "--out", str(tmp_path / "x.bin")]) == 1
