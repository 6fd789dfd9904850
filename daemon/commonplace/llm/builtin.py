"""The built-in engine behind the seam: the OpenAI-compatible backend pointed at llama.cpp's
server, which the daemon runs as its own supervised child process (engine/process.py).

What differs from another OpenAI-compatible server is known, not probed: llama.cpp enforces a
JSON schema in `response_format`, takes tools through the model's own chat template (a model
that still prints its calls, as Qwen2.5-Coder 1.5B does, has them read back: textcalls.py),
and serves embeddings from a second server in the same child. Asking the status never starts
the engine (the page asks every few seconds, and an idle engine gives its memory back); the
first chat or embedding does. A failure to start says why in words (the CPU, the memory, a
model file) and what to do instead.

Which models: `[builtin] chat_model` / `embed_model` (an id from `commonplace models` or a GGUF
path), else `[model]`'s when it names a built-in model, else the defaults (engine/catalog.py).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import time
from collections.abc import AsyncIterator, Callable, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

from commonplace.config import BuiltinSettings, ModelSettings, Settings
from commonplace.engine import catalog, store
from commonplace.engine.api import Endpoints, EngineUnavailable
from commonplace.engine.process import AttentionSink, EngineProcess, preflight
from commonplace.llm import budget
from commonplace.llm.backend import ChatRequest
from commonplace.llm.errors import LLMError, ModelUnavailable
from commonplace.llm.openai import Endpoint, OpenAIBackend
from commonplace.llm.servers import Server
from commonplace.llm.types import Capabilities, Chunk, ModelStatus, Reply

BUILTIN = Server("builtin", "")
KNOWN = Capabilities(
    json_schema=True, json_object=True, tools=True, tool_calls_as_text=None, embeddings=True
)
PREFLIGHT_S = 60.0  # how long a look at the model files is trusted for the status
SHARED_FILE = "engine.json"  # the daemon's running engine, for the commands of this user
SHARED_S = 30.0  # how long a command trusts that the daemon's engine is still there
# The profile table (profiles.py) knows a model by its Ollama name.
PROFILE_NAMES = {catalog.ALL_MINILM_L6_V2.id: "all-minilm"}
# Codes of EngineUnavailable that only a change of settings or computer fixes.
FOR_GOOD = (
    "engine_cpu",
    "engine_no_gpu",
    "engine_model_missing",
    "engine_model_unreadable",
    "engine_no_model",
    "engine_closed",
)


class EngineError(ModelUnavailable):
    """The built-in engine cannot answer: why, and what to do."""

    def __init__(self, exc: EngineUnavailable) -> None:
        reason = str(exc) + (f"; {exc.action}" if exc.action else "")
        super().__init__(BUILTIN, reason)
        self.code = exc.code
        self.retryable = exc.code not in FOR_GOOD


def folders(settings: Settings) -> store.ModelFolders:
    return store.ModelFolders.of(settings.data_dir)


def configured(settings: Settings, role: str) -> str:
    """The model set for `role`: [builtin]'s, else [model]'s when it names a built-in model
    (a catalog id or a GGUF path: an Ollama name means nothing here), else '' (the default)."""
    own = settings.builtin.chat_model if role == "chat" else settings.builtin.embed_model
    if own:
        return own
    shared = settings.model.chat_model if role == "chat" else settings.model.embed_model
    if shared and (catalog.known(shared) or shared.endswith(".gguf")):
        return shared
    return ""


def engine_settings(settings: Settings) -> BuiltinSettings:
    b = settings.builtin
    return replace(
        b,
        chat_model=configured(settings, "chat"),
        embed_model=configured(settings, "embed"),
        context=b.context or settings.model.context,
    )


def resolver(settings: Settings) -> Callable[[str, str], Path | None]:
    where = folders(settings)

    def resolve(role: str, wanted: str) -> Path | None:
        return store.find(role, wanted, where)  # type: ignore[arg-type]

    return resolve


def models_ready(settings: Settings) -> bool:
    """Can the built-in engine run here with both its models (for `backend = "auto"`)?"""
    try:
        _, files, _ = preflight(engine_settings(settings), resolve=resolver(settings))
    except (EngineUnavailable, store.ModelProblem, OSError):
        return False
    return "chat" in files and "embed" in files


def builtin_name(settings: Settings, role: str) -> str:
    """The model's id as people see it (the catalog's, or the file's name)."""
    wanted = configured(settings, role) or catalog.DEFAULTS[role]  # type: ignore[index]
    return Path(wanted).stem if wanted.endswith(".gguf") else wanted


def builtin_backend(
    settings: Settings,
    model: ModelSettings,
    attention: AttentionSink | None,
    *,
    share: bool = False,
) -> BuiltinBackend:
    """`share`: the daemon's engine, published in the data folder for the commands run
    beside it (`commonplace ask` while `commonplace run` files captures uses the model already
    loaded, in turn, instead of loading a second one on the same cores)."""
    engine = EngineProcess(
        engine_settings(settings), resolve=resolver(settings), attention=attention
    )
    return BuiltinBackend(settings, model, engine, share=share)


class BuiltinBackend(OpenAIBackend):
    def __init__(
        self, settings: Settings, model: ModelSettings, engine: EngineProcess, *, share: bool
    ) -> None:
        self.engine = engine
        self._all = settings
        self._look: tuple[float, Any] | None = None  # (when, preflight's answer or error)
        self._share = share
        self._published: int | None = None  # the child's pid in the shared file
        self._shared: tuple[float, dict[str, Any] | None] | None = None
        super().__init__(
            model,
            self._chat_endpoint,
            BUILTIN,
            known=KNOWN,
            embed_endpoint=self._embed_endpoint,
        )

    # -- where the child answers ----------------------------------------------------------

    async def _endpoints(self) -> Endpoints:
        try:
            ep = await self.engine.endpoints()
        except EngineUnavailable as exc:
            raise EngineError(exc) from None
        if self._share and ep.pid != self._published:
            self._publish(ep)
        return ep

    async def _chat_endpoint(self) -> Endpoint:
        shared = await self._daemons()
        if shared is not None and shared.get("chat"):
            return Endpoint(str(shared["chat"]), str(shared["key"]))
        ep = await self._endpoints()
        if ep.chat is None:
            raise ModelUnavailable(BUILTIN, ep.missing.get("chat", "no chat model is set up"))
        return Endpoint(ep.chat.url, ep.api_key)

    async def _embed_endpoint(self) -> Endpoint:
        shared = await self._daemons()
        if shared is not None and shared.get("embed"):
            return Endpoint(str(shared["embed"]), str(shared["key"]))
        ep = await self._endpoints()
        if ep.embed is None:
            why = ep.missing.get("embed", "no embedding model is set up")
            raise ModelUnavailable(BUILTIN, why)
        return Endpoint(ep.embed.url, ep.api_key)

    # -- one engine for the daemon and the commands beside it ---------------------------------

    def _shared_path(self) -> Path:
        return self._all.data_path / SHARED_FILE

    def _publish(self, ep: Endpoints) -> None:
        """Where the daemon's child answers, readable by this user only (its key is in it)."""
        record = {
            "chat": ep.chat.url if ep.chat else "",
            "embed": ep.embed.url if ep.embed else "",
            "key": ep.api_key,
            "pid": ep.pid,
            "models": [
                ep.chat.path.name if ep.chat else "",
                ep.embed.path.name if ep.embed else "",
            ],
        }
        with contextlib.suppress(OSError):
            _write_private(self._shared_path(), json.dumps(record))
            self._published = ep.pid

    async def _daemons(self) -> dict[str, Any] | None:
        """The daemon's engine, when a command runs beside it and it is alive and serves the
        same model files; else None (the command starts its own)."""
        if self._share:
            return None
        now = time.monotonic()
        if self._shared is not None and now - self._shared[0] < SHARED_S:
            return self._shared[1]
        found = await _alive(self._shared_path(), self._wanted())
        self._shared = (now, found)
        return found

    def _wanted(self) -> list[str]:
        with contextlib.suppress(Exception):
            _, files, _ = self._preflight()
            return [files[r].path.name if r in files else "" for r in ("chat", "embed")]
        return []

    # -- what is known, not probed --------------------------------------------------------

    async def prepare(self, model: str) -> None:
        await self._endpoints()

    async def capabilities(self, model: str) -> Capabilities:
        ep = await self._endpoints()
        tools = ep.chat.tools if ep.chat else False
        context = ep.chat.n_ctx if ep.chat else None
        embed = ep.embed.n_ctx if ep.embed else None
        dims = ep.embed.n_embd if ep.embed else None
        return replace(
            KNOWN,
            tools=tools,
            context=context,
            embed_context=embed,
            embed_dimension=dims,
            embeddings=ep.embed is not None,
        )

    def _found(self) -> Capabilities:
        return self._known or KNOWN

    async def embed_context(self, model: str) -> int | None:
        """The tokens the embedding model takes (llama.cpp refuses more than its batch; the
        model itself was trained on fewer: the profile table says so for the known ones)."""
        ep = await self._endpoints()
        return ep.embed.n_ctx if ep.embed else None

    def context_tokens(self) -> int:
        """The chat context the prompts must fit: the running child's, else the one it will be
        started with (its plan, read from the model file without starting it)."""
        if self.settings.context:
            return self.settings.context
        with contextlib.suppress(Exception):
            plan, _, _ = self._preflight()
            for model in plan.models:
                if model.role == "chat":
                    return int(model.n_ctx)
        return budget.OLLAMA_DEFAULT_CTX

    def profile_name(self, model: str) -> str:
        """A catalog model whose file is the catalog's is known for certain; a user's own
        file, whatever its name, is not."""
        known = catalog.known(model)
        if known is None:
            return ""
        with contextlib.suppress(Exception):
            _, files, _ = self._preflight()
            embed = files.get("embed")
            if embed is not None and embed.path.stat().st_size == known.size:
                return PROFILE_NAMES.get(known.id, known.id)
        return ""

    async def identity(self, model: str) -> str:
        """The embedding file's SHA-256 when it is a catalog model's (checked by size here,
        by hash when installed), else its path, size and time: another file is another model."""
        try:
            _, files, _ = self._preflight()
        except EngineUnavailable as exc:
            raise EngineError(exc) from None
        embed = files.get("embed")
        if embed is None:
            raise ModelUnavailable(BUILTIN, "no embedding model is set up")
        known = catalog.known(model)
        size = embed.path.stat().st_size
        if known is not None and size == known.size:
            return f"builtin {known.id} sha256:{known.sha256[:16]}"
        mtime = int(embed.path.stat().st_mtime)
        return f"builtin {embed.path} {size} {mtime}"

    def _preflight(self) -> Any:
        """preflight(), remembered for a minute: the status and the budget ask often."""
        now = time.monotonic()
        if self._look is None or now - self._look[0] > PREFLIGHT_S:
            try:
                found: Any = preflight(self.engine.settings, resolve=self.engine_resolve())
            except (EngineUnavailable, store.ModelProblem) as exc:
                found = (
                    exc
                    if isinstance(exc, EngineUnavailable)
                    else EngineUnavailable(str(exc), code="engine_model_missing")
                )
            self._look = (now, found)
        if isinstance(self._look[1], EngineUnavailable):
            raise self._look[1]
        return self._look[1]

    def engine_resolve(self) -> Callable[[str, str], Path | None]:
        return resolver(self._all)

    # -- calls, counted as in flight so the idle stop never cuts one -------------------------

    async def chat(self, request: ChatRequest) -> Reply:
        async with self._in_use():
            return await super().chat(request)

    async def stream(self, request: ChatRequest) -> AsyncIterator[Chunk]:
        async with self._in_use():
            async for chunk in super().stream(request):
                yield chunk

    async def embed(self, model: str, texts: Sequence[str]) -> list[list[float]]:
        async with self._in_use():
            return await super().embed(model, texts)

    @contextlib.asynccontextmanager
    async def _in_use(self) -> AsyncIterator[None]:
        try:
            async with self.engine.use():
                yield
        except EngineUnavailable as exc:
            raise EngineError(exc) from None

    # -- status ---------------------------------------------------------------------------

    async def status(self) -> ModelStatus:
        """The engine as it is, without starting it: loaded, stopped (it starts at the first
        request), starting, or why it cannot run."""
        engine = self.engine.status()
        names = (builtin_name(self._all, "chat"), builtin_name(self._all, "embed"))
        error = ""
        if engine.state in ("crashed", "unavailable"):
            error = f"The built-in model is not running: {engine.why}"
        else:
            try:
                self._preflight()
            except EngineUnavailable as exc:
                error = str(EngineError(exc))
        return ModelStatus(
            reachable=not error,
            host="",
            backend="builtin",
            server="The built-in model",
            detail=engine.line(),
            models=names if not error else (),
            error=error,
            capabilities=KNOWN,
            device=engine.device or "CPU",
        )

    def translate(self, exc: BaseException, what: str, model: str, timeout: float) -> LLMError:
        if isinstance(exc, EngineUnavailable):
            return EngineError(exc)
        return super().translate(exc, what, model, timeout)

    async def aclose(self) -> None:
        if self._published is not None:
            with contextlib.suppress(OSError):
                self._shared_path().unlink()
        await self.engine.close()
        await super().aclose()


async def _alive(path: Path, wanted: list[str]) -> dict[str, Any] | None:
    """The published engine if its process lives, answers /health and serves `wanted`."""
    import httpx

    try:
        record = json.loads(await asyncio.to_thread(path.read_text, encoding="utf-8"))
        os.kill(int(record["pid"]), 0)
    except (OSError, ValueError, KeyError, TypeError):
        return None
    if not isinstance(record, dict) or record.get("models") != wanted:
        return None
    url = str(record.get("chat") or record.get("embed") or "").removesuffix("/v1")
    try:
        async with httpx.AsyncClient(timeout=2.0) as client:
            answer = await client.get(f"{url}/health")
    except httpx.HTTPError:
        return None
    return record if answer.status_code == 200 else None


def _write_private(path: Path, text: str) -> None:
    """Readable by its owner only from its first byte, and whole or not there (a rename)."""
    tmp = path.with_name(f"{path.name}.{os.getpid()}.tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as out:
        out.write(text)
    tmp.replace(path)
