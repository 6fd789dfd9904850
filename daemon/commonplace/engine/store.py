"""Where the engine's models live, what is there, and which file a setting means.

Two folders hold model files:
- the user's: `<data folder>/models/` (Settings.data_dir, shared by every vault on the
  computer: a 1.1 GB file is kept once). `models get` downloads here; `models remove` deletes
  from here only.
- the program's: `<virtual environment>/share/commonplace/models/`, where `make run` and
  `make test` put the sample's models from their packages (packaged.py). They go with the
  virtual environment; nothing here deletes them.
A user's own GGUF anywhere on the disk is recorded in `<data folder>/models/added.json` by
`models add` (not copied unless asked): removing it forgets it and never deletes the user's
file.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import shutil
import sys
import tempfile
from collections.abc import Iterator
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Literal

from commonplace.engine.catalog import DEFAULTS, MODELS, Model, Role, known
from commonplace.engine.files import Progress, part_path, publish, sha256_file, size_text
from commonplace.engine.gguf_header import NotAGguf, looks_like_gguf, read_header

Where = Literal["user", "program", "added"]
REGISTRY = "added.json"
ROLE_WORDS: dict[str, str] = {"chat": "chat model", "embed": "embedding model"}
A_ROLE: dict[str, str] = {"chat": "a chat model", "embed": "an embedding model"}


class ModelProblem(Exception):
    """A model is missing, unknown or wrong; the message says what to run."""


@dataclass(frozen=True)
class ModelFolders:
    user: Path
    program: Path

    @classmethod
    def of(cls, data_dir: Path) -> ModelFolders:
        return cls(user=data_dir / "models", program=program_models_dir())


def program_models_dir() -> Path:
    """The sample's models, inside the running virtual environment."""
    return Path(sys.prefix) / "share" / "commonplace" / "models"


@dataclass(frozen=True)
class Added:
    """A user's own GGUF, as `models add` recorded it."""

    id: str
    path: str
    name: str
    architecture: str
    context: int | None
    size: int
    role: Role
    copied: bool


@dataclass(frozen=True)
class Installed:
    id: str
    role: Role
    path: Path
    where: Where
    model: Model | None  # the catalog's entry; None for a user's own file
    added: Added | None = None

    @property
    def size(self) -> int:
        return self.model.size if self.model else (self.added.size if self.added else 0)


@dataclass(frozen=True)
class Check:
    ok: bool
    message: str


# --- what is there --------------------------------------------------------------------------


def read_added(folders: ModelFolders) -> list[Added]:
    path = folders.user / REGISTRY
    if not path.is_file():
        return []
    try:
        rows = json.loads(path.read_text(encoding="utf-8"))
        return [Added(**row) for row in rows]
    except (ValueError, TypeError) as exc:
        raise ModelProblem(
            f"{path} is damaged ({exc}); move it away and add your own models again "
            "with `commonplace models add PATH`"
        ) from None


def write_added(folders: ModelFolders, rows: list[Added]) -> None:
    """Atomically, like every other write here: a crash leaves the old list or the new one."""
    folders.user.mkdir(parents=True, exist_ok=True)
    text = json.dumps([asdict(r) for r in rows], indent=2, ensure_ascii=False) + "\n"
    fd, tmp = tempfile.mkstemp(dir=folders.user, prefix=".added-", suffix=".tmp")
    with os.fdopen(fd, "w", encoding="utf-8") as f:
        f.write(text)
    publish(Path(tmp), folders.user / REGISTRY)


def installed(folders: ModelFolders) -> list[Installed]:
    """Every model file there is: the catalog's in each folder (user first), then added ones."""
    found: list[Installed] = []
    for model in MODELS:
        for where, folder in (("user", folders.user), ("program", folders.program)):
            path = folder / model.file_name
            if path.is_file():
                found.append(Installed(model.id, model.role, path, where, model))  # type: ignore[arg-type]
    for row in read_added(folders):
        found.append(Installed(row.id, row.role, Path(row.path), "added", None, row))
    return found


# --- checking ---------------------------------------------------------------------------------


def check(item: Installed, progress: Progress | None = None) -> Check:
    """A catalog model: its size, then its SHA-256 (seconds for 1 GB). A user's own file: that
    it is still there, the same size, and still reads as a GGUF."""
    if item.model is not None:
        return check_file(item.path, item.model, progress)
    assert item.added is not None
    if not item.path.is_file():
        return Check(False, f"{item.path} is gone; `commonplace models remove {item.id}`")
    try:
        header = read_header(item.path)
    except NotAGguf as exc:
        return Check(False, str(exc))
    if header.size != item.added.size:
        return Check(
            False,
            f"{item.path} changed size since it was added ({size_text(item.added.size)} -> "
            f"{size_text(header.size)}); add it again if that is meant",
        )
    return Check(True, f"a GGUF ({header.architecture}, {header.name!r}); no checksum known")


def check_file(path: Path, model: Model, progress: Progress | None = None) -> Check:
    size = path.stat().st_size
    if size != model.size:
        return Check(
            False,
            f"{path} has {size:,} bytes, {model.id} has {model.size:,}: a partial or "
            f"different file; {fix(model)}",
        )
    digest = sha256_file(path, progress)
    if digest != model.sha256:
        return Check(False, f"{path}'s SHA-256 is {digest}, not {model.sha256}; {fix(model)}")
    return Check(True, f"size and SHA-256 match ({size_text(size)})")


def fix(model: Model) -> str:
    """What to run to get a good copy."""
    if model.download:
        return f"run `commonplace models get {model.id}` ({size_text(model.download_size)})"
    return (
        "it comes with the sample: from a checkout, `make run` installs it "
        "(or `commonplace models install-packaged` once its packages are installed)"
    )


# --- removing and adding ------------------------------------------------------------------------


def remove(folders: ModelFolders, ident: str) -> str:
    """Deletes a downloaded model, forgets an added one; says what it did."""
    ident = ident.strip()
    rows = read_added(folders)
    for row in rows:
        if ident in (row.id, row.path):
            write_added(folders, [r for r in rows if r is not row])
            if row.copied:
                Path(row.path).unlink(missing_ok=True)
                return f"removed {row.id} and its copy {row.path}"
            return f"forgot {row.id}; your file {row.path} is untouched"
    model = known(ident)
    if model is None:
        raise ModelProblem(f"no model {ident!r} here; `commonplace models list` shows them")
    path = folders.user / model.file_name
    part = part_path(path)
    if path.is_file() or part.is_file():
        path.unlink(missing_ok=True)
        part.unlink(missing_ok=True)
        return f"removed {model.id} ({path})"
    if (folders.program / model.file_name).is_file():
        raise ModelProblem(
            f"{model.id} came with the program ({folders.program}); it goes when its virtual "
            "environment does (from a checkout: make clean)"
        )
    raise ModelProblem(f"{model.id} is not installed")


def added_id(path: Path) -> str:
    """A user's file is named by its file name, which tells models apart better than
    general.name (that leaves the quantization out)."""
    return re.sub(r"[^a-z0-9._-]+", "-", path.stem.lower()).strip("-") or "model"


def add(
    folders: ModelFolders, path: Path, *, role: Role | None = None, copy: bool = False
) -> Installed:
    """Record a user's GGUF (read its header first), or copy it into the user's folder."""
    path = path.expanduser().resolve()
    try:
        header = read_header(path)
    except NotAGguf as exc:
        raise ModelProblem(f"{exc}; nothing was added") from None
    ident = added_id(path)
    if known(ident) is not None:
        ident += "-own"
    rows = [r for r in read_added(folders) if r.id != ident]
    if copy:
        folders.user.mkdir(parents=True, exist_ok=True)
        dest = folders.user / path.name
        if dest.exists():
            raise ModelProblem(f"{dest} already exists; remove it first or add without --copy")
        part = part_path(dest)
        try:
            shutil.copyfile(path, part)
            publish(part, dest)
        finally:
            part.unlink(missing_ok=True)
        path = dest
    row = Added(
        id=ident,
        path=str(path),
        name=header.name,
        architecture=header.architecture,
        context=header.context,
        size=header.size,
        role=role or header.role,
        copied=copy,
    )
    write_added(folders, [*rows, row])
    return Installed(row.id, row.role, path, "added", None, row)


# --- which file a setting means ------------------------------------------------------------------


def looks_like_path(configured: str) -> bool:
    return "/" in configured or "\\" in configured or configured.lower().endswith(".gguf")


def catalog_file(folders: ModelFolders, model: Model) -> Path | None:
    """The model's file in the user's folder, else the program's; only a whole one (the size
    is right: the full hash is `models check`'s job, seconds the engine need not spend)."""
    for folder in (folders.user, folders.program):
        path = folder / model.file_name
        with contextlib.suppress(OSError):
            if path.stat().st_size == model.size:
                return path
    return None


def find(role: Role, configured: str, folders: ModelFolders) -> Path:
    """The file the engine loads for `role` when the setting says `configured`: a catalog id,
    the id of an added file, a path to a GGUF, or "" for the default. Raises ModelProblem with
    the command that fixes it."""
    wanted = configured.strip() or DEFAULTS[role]
    if looks_like_path(wanted):
        path = Path(wanted).expanduser()
        if not path.is_file():
            raise ModelProblem(
                f"the {ROLE_WORDS[role]} file {path} does not exist; fix the path in the config "
                "or `commonplace models list` for the models there are"
            )
        if not looks_like_gguf(path):
            raise ModelProblem(f"{path} is not a GGUF file; llama.cpp cannot load it")
        return path
    model = known(wanted)
    if model is not None:
        if model.role != role:
            raise ModelProblem(
                f"{model.id} is a {ROLE_WORDS[model.role]}, not {A_ROLE[role]}; "
                f"the default {ROLE_WORDS[role]} is {DEFAULTS[role]}"
            )
        path_found = catalog_file(folders, model)
        if path_found is None:
            raise ModelProblem(
                f"the built-in engine's {ROLE_WORDS[role]} {model.id} is not installed: "
                f"{fix(model)}"
            )
        return path_found
    for row in read_added(folders):
        if row.id == wanted.lower():
            if not Path(row.path).is_file():
                raise ModelProblem(
                    f"{row.id} was added from {row.path}, which is gone; "
                    f"`commonplace models add` it again from where it is now"
                )
            return Path(row.path)
    raise ModelProblem(
        f"no model {wanted!r}: `commonplace models list` shows the ones there are, "
        "and `commonplace models add PATH` adds a GGUF of your own"
    )


def ids(folders: ModelFolders) -> Iterator[str]:
    yield from (m.id for m in MODELS)
    yield from (r.id for r in read_added(folders))
