"""The eval's inputs: the datasets, temporary copies of the sample vault, and their settings.

Every suite works on a throwaway copy of vault_fixture/ with its own data folder, so an eval
never touches the user's vault or index, and two suites never share state.
"""

from __future__ import annotations

import contextlib
import dataclasses
import hashlib
import json
import shutil
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Literal

from commonplace.basics.resources import resource_dir
from commonplace.config import Folders, Settings

REPO = Path(__file__).resolve().parents[3]
FIXTURE_TZ = "Europe/London"  # the fixture's owner lives in Bristol (fixture_guide.md)
CAPTURES = "captures"


class DatasetError(ValueError):
    """A dataset is missing or malformed; the message names the file and line."""


def datasets_dir(given: Path | None = None) -> Path:
    folder = given or REPO / "eval_suite" / "datasets"
    if not folder.is_dir():
        raise DatasetError(
            f"no eval datasets at {folder}; run from a source checkout of commonplace "
            "or pass --datasets DIR"
        )
    return folder


def runs_dir(given: Path | None = None) -> Path:
    """Where run folders go: --out, else eval_suite/runs/ of the checkout (or of cwd)."""
    if given is not None:
        return given
    base = REPO if (REPO / "eval_suite").is_dir() else Path.cwd()
    return base / "eval_suite" / "runs"


def load_jsonl(path: Path, required: Sequence[str]) -> list[dict[str, Any]]:
    """Rows of a JSON Lines dataset, each checked for the keys the suite reads."""
    if not path.is_file():
        raise DatasetError(f"{path}: no such dataset")
    rows: list[dict[str, Any]] = []
    for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
        except json.JSONDecodeError as exc:
            raise DatasetError(f"{path.name} line {n}: not JSON ({exc.msg})") from None
        if not isinstance(row, dict):
            raise DatasetError(f"{path.name} line {n}: not a JSON object")
        missing = [k for k in required if k not in row]
        if missing:
            raise DatasetError(f"{path.name} line {n}: missing {', '.join(missing)}")
        rows.append(row)
    return rows


def file_digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()[:16]


def copy_vault(dest: Path, captures: Literal["keep", "none", "inbox"]) -> Path:
    """A copy of the sample vault. `keep`: the week's captures stay under captures/ (the paths
    search.jsonl and ask.jsonl expect); `none`: without them; `inbox`: moved to Inbox/."""
    source = resource_dir("vault_fixture")
    shutil.copytree(source, dest, ignore=shutil.ignore_patterns(".obsidian", ".trash"))
    if captures != "keep":
        week = dest / CAPTURES
        if captures == "inbox":
            shutil.copytree(week, dest / Folders().inbox)
        shutil.rmtree(week)
    return dest


def capture_files(vault_source: Path | None = None) -> dict[str, bytes]:
    """The week's capture files by name, as they are in the fixture."""
    folder = (vault_source or resource_dir("vault_fixture")) / CAPTURES
    return {p.name: p.read_bytes() for p in sorted(folder.glob("*.md"))}


def eval_settings(
    base: Settings, vault: Path, data: Path, *, chat_model: str, embed_model: str
) -> Settings:
    """The throwaway vault with the fixture's timezone, flavour and folders, and the user's
    Model, index and ask settings (so a setting can be measured; summary.json records them).
    Other tables stay at their defaults."""
    fresh = Settings()
    return dataclasses.replace(
        fresh,
        vault=vault,
        data_dir=data,
        timezone=FIXTURE_TZ,
        model=dataclasses.replace(base.model, chat_model=chat_model, embed_model=embed_model),
        ollama=base.ollama,
        openai=base.openai,
        builtin=base.builtin,
        index=base.index,
        ask=base.ask,
    )


def share_models(base: Settings, data: Path) -> None:
    """The built-in engine finds a user's downloaded models in the data folder's `models/`;
    the eval's throwaway data folder links to the user's, so `--model` takes the same ids."""
    models = base.data_dir / "models"
    if models.is_dir():
        data.mkdir(parents=True, exist_ok=True)
        with contextlib.suppress(FileExistsError):
            (data / "models").symlink_to(models, target_is_directory=True)


def on_ollama(settings: Settings, host: str, embed_model: str = "") -> Settings:
    """Settings that talk to the Ollama (or the stand-in) at `host`, whatever `auto` would
    choose: the measurement scripts name their server."""
    return dataclasses.replace(
        settings,
        ollama=dataclasses.replace(settings.ollama, host=host),
        model=dataclasses.replace(
            settings.model, backend="ollama", embed_model=embed_model or settings.model.embed_model
        ),
    )
