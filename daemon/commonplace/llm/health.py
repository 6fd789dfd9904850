"""The model server's health, in lines a person can act on: which server answers and why, what
the probe found, each model there and fit for its job, too old an Ollama, a cloud model, and notes
that would cross a network unencrypted. `commonplace doctor` and `init` print these lines; the
daemon logs the start-up warnings. Here, beside the backends, because what to check is each
server's own (Ollama's /api/show, its versions and cloud models)."""

from __future__ import annotations

import contextlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Literal

from commonplace.config import Settings
from commonplace.llm.client import LLM
from commonplace.llm.errors import LLMError
from commonplace.llm.factory import make_llm
from commonplace.llm.servers import Server
from commonplace.llm.support import (
    Lookup,
    addresses,
    host_warning,
    system_lookup,
    version_warnings,
)
from commonplace.llm.types import ModelStatus

Level = Literal["ok", "warn", "fail"]


@dataclass(frozen=True)
class Check:
    """One line of `commonplace doctor`: its level, what it checks, and what it says."""

    level: Level
    name: str
    message: str

    def line(self) -> str:
        mark = {"ok": "ok  ", "warn": "warn", "fail": "FAIL"}[self.level]
        return f"{mark} {self.name}: {self.message}"


async def model_server_checks(settings: Settings) -> list[Check]:
    """Every model line of doctor, the server asked once (no retries: doctor says what it
    finds now)."""
    llm = make_llm(settings, retries=0)
    try:
        status = await llm.status()
        capabilities = await model_capabilities(llm, status)
        checks = model_checks(
            settings, status, capabilities, chat_model=llm.chat_model, embed_model=llm.embed_model
        )
        servers = (llm.server, llm.embed_server)
        return checks + await model_warning_checks(settings, status, servers=servers)
    finally:
        await llm.aclose()


def model_checks(
    settings: Settings,
    status: ModelStatus,
    capabilities: Mapping[str, Sequence[str]] | None = None,
    *,
    chat_model: str,
    embed_model: str,
) -> list[Check]:
    """The model server answers, and each model is there and can do its job (`capabilities`:
    what the server lists for each model, where it says: Ollama's /api/show)."""
    why = f"; {status.why}" if status.why else ""
    if not status.reachable and status.backend == "ollama":
        return [Check("fail", "ollama", f"{status.error}{why}")]
    if not status.reachable:
        return [Check("fail", "model", f"{status.error}{why}")]
    if status.backend == "ollama":
        version = status.version or "unknown"
        checks = [Check("ok", "ollama", f"{status.host} (version {version}){why}")]
    elif status.backend == "builtin":
        checks = [Check("ok", "model", f"the built-in model ({status.device or 'CPU'}){why}")]
    else:
        found = status.capabilities.line()
        checks = [
            Check("ok", "model", f"{status.server} at {status.host}{why}"),
            Check("ok", "probe", found or "nothing found out (the probe could not ask)"),
        ]
        checks += [Check("warn", "probe", note) for note in status.capabilities.notes]
    for role, model in (("chat model", chat_model), ("embedding model", embed_model)):
        checks.append(_model_present(settings, status, role, model, capabilities))
    return checks


def _model_present(
    settings: Settings,
    status: ModelStatus,
    role: str,
    model: str,
    capabilities: Mapping[str, Sequence[str]] | None,
) -> Check:
    key = "chat_model" if role == "chat model" else "embed_model"
    if not model:
        return Check("fail", role, f"{status.server} lists none; set [model] {key}")
    if status.remote_host(model):
        return Check(
            "fail",
            role,
            f"{model} is a cloud model: Ollama sends its requests, with your notes, to "
            f"{status.remote_host(model)}; pick a model that runs on this computer",
        )
    if status.backend == "builtin":
        return Check("ok", role, f"{model} is installed")
    if status.has_model(model):
        caps = (capabilities or {}).get(model)
        if status.backend == "ollama":
            return _model_check(settings, role, model, caps)
        return Check("ok", role, f"{model} is loaded")
    if status.backend == "ollama":
        return Check("fail", role, f"{model} is not pulled; run: ollama pull {model}")
    listed = ", ".join(status.models) or "none"
    return Check(
        "fail",
        role,
        f"{model} is not among {status.server}'s models ({listed}); load it "
        f"there or set [model] {key} to one of them",
    )


def _model_check(settings: Settings, role: str, model: str, caps: Sequence[str] | None) -> Check:
    """A pulled model in the wrong role. Ollama refuses chat to an embedding model (400), and
    loads a chat model for embeddings only to have its runner refuse them (501), so both are
    said here, before a capture or a search meets them."""
    if not caps:
        return Check("ok", role, f"{model} is pulled")
    listed = ", ".join(caps)
    if role == "chat model" and "completion" not in caps:
        return Check(
            "fail",
            role,
            f"{model} is pulled but is not a chat model (Ollama lists it as: {listed}); set "
            "[model] chat_model to one, e.g. qwen3.5:9b",
        )
    if role == "chat model" and settings.model.think == "on" and "thinking" not in caps:
        return Check(
            "fail",
            role,
            f'{model} cannot think, and Ollama refuses think = "on" for it; set [model] '
            'think = "off" or pick a model that can think',
        )
    if role == "chat model" and "tools" not in caps:
        return Check(
            "warn",
            role,
            f"{model} is pulled but cannot call tools, so the assistant cannot use it (tidy, "
            "ask and the digest can)",
        )
    if role == "embedding model" and "embedding" not in caps:
        return Check(
            "fail",
            role,
            f"{model} is pulled but is not an embedding model (Ollama lists it as: {listed}); "
            "set [model] embed_model to one, e.g. nomic-embed-text",
        )
    return Check("ok", role, f"{model} is pulled")


async def model_capabilities(llm: LLM, status: ModelStatus) -> dict[str, list[str]]:
    """What the server lists of the chat and embedding models (Ollama's /api/show); a model
    it cannot describe now is left out (the presence check still stands)."""
    if not status.reachable or status.backend != "ollama":
        return {}
    found: dict[str, list[str]] = {}
    for model in {llm.chat_model, llm.embed_model}:
        if model and status.has_model(model):
            with contextlib.suppress(LLMError):
                found[model] = list(await llm.capabilities(model) or ())
    return found


async def model_warning_checks(
    settings: Settings,
    status: ModelStatus,
    lookup: Lookup = system_lookup,
    servers: Sequence[Server] = (),
) -> list[Check]:
    """Too old an Ollama, and notes crossing a network unencrypted (llm/support.py), for each
    server notes go to (`servers`; by default the one `status` describes)."""
    if status.backend == "builtin" and not servers:
        return []
    found = []
    if status.backend == "ollama" and status.reachable:
        found = version_warnings(settings.model.think, status.version)
    if not servers:
        kind = "ollama" if status.backend == "ollama" else "openai"
        servers = [Server(kind, settings.ollama.host if kind == "ollama" else status.host)]
    hosts = [await host_warning(url, lookup, name) for name, url in addresses(settings, *servers)]
    texts = [*found, *(h for h in hosts if h)]
    if status.backend == "ollama":
        return [Check("warn", "ollama", text) for text in texts]
    return [Check("warn", "model", text) for text in texts]


async def startup_warnings(settings: Settings, llm: LLM) -> tuple[ModelStatus, list[str]]:
    """What the daemon says at start-up: too old an Ollama, a model Ollama runs elsewhere (a
    pulled cloud model, which the backend refuses), notes that would cross a network
    unencrypted."""
    status = await llm.status()
    found: list[str] = []
    if status.backend == "ollama" and status.reachable:
        found = version_warnings(settings.model.think, status.version)
    for key, model in (("chat_model", llm.chat_model), ("embed_model", llm.embed_model)):
        if remote := status.remote_host(model):
            found.append(
                f"{model} is a cloud model: Ollama would send its requests, with your notes, "
                f"to {remote}, so nothing is sent to it; set [model] {key} to a model that "
                "runs on this computer"
            )
    for name, url in addresses(settings, llm.server, llm.embed_server):
        warning = await host_warning(url, name=name)
        if warning:
            found.append(warning)
    return status, found
