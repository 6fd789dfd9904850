"""Which GGUF file serves each role (chat, embed): the setting resolved, the header read.

The settings name a model by id or by path; ids are the model store's (engine/store.py, the
models' part of this package) to resolve, so the supervisor takes the resolving function, and
`explicit_paths` is the one that needs no store: paths only.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from commonplace.config import BuiltinSettings
from commonplace.engine.api import EngineUnavailable
from commonplace.engine.gguf import ModelFile, NotGGUF, read_model_file

ROLES = ("chat", "embed")
ROLE_WORDS = {"chat": "chat model", "embed": "embedding model"}
CHOOSE = "give the path of a GGUF model file, or a model id from `commonplace models`"

# (role, configured) -> the GGUF file, or None for no model in that role. It raises with a
# sentence that says what to do (EngineUnavailable, or any exception: engine.store's
# ModelProblem), which becomes the engine's EngineUnavailable.
Resolve = Callable[[str, str], Path | None]


def explicit_paths(role: str, configured: str) -> Path | None:
    """Models given as paths of GGUF files ([builtin] chat_model = "~/models/x.gguf"); an
    empty setting: no model for that role."""
    if not configured.strip():
        return None
    path = Path(configured).expanduser()
    if not path.is_file():
        raise EngineUnavailable(
            f"[builtin] {role}_model = {configured!r} is not a file",
            code="engine_model_missing",
            action=CHOOSE,
        )
    return path


def model_files(
    settings: BuiltinSettings, resolve: Resolve
) -> tuple[dict[str, ModelFile], dict[str, str]]:
    """role -> its file's header, and role -> why it has none. EngineUnavailable when a file
    cannot be read as a model, or no role has one."""
    files: dict[str, ModelFile] = {}
    missing: dict[str, str] = {}
    for role in ROLES:
        try:
            path = resolve(role, getattr(settings, f"{role}_model"))
        except EngineUnavailable:
            raise
        except Exception as exc:  # the store's ModelProblem: a sentence with what to run
            raise EngineUnavailable(str(exc), code="engine_model_missing") from None
        if path is None:
            missing[role] = f"no {ROLE_WORDS[role]} is set up for the built-in engine"
            continue
        try:
            files[role] = read_model_file(path)
        except NotGGUF as exc:
            raise EngineUnavailable(
                f"[builtin] {role}_model: {exc}", code="engine_model_unreadable", action=CHOOSE
            ) from None
    if not files:
        raise EngineUnavailable(
            "no model is set up for the built-in engine",
            code="engine_no_model",
            action="get one with `commonplace models get`, or set [builtin] chat_model to a "
            "GGUF file",
        )
    return files, missing
