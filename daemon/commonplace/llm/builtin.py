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

import contextlib
import time
from collections.abc import AsyncIterator, Callable, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

from commonplace.config import BuiltinSettings, ModelSettings, Settings
from commonplace.engine import catalog, store
from commonplace.engine.api import Endpoints, EngineUnavailable
from commonplace.engine.process import EngineProcess, preflight
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
Trouble = Callable[[str], None]


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
    settings: Settings, model: ModelSettings, on_trouble: Trouble | None
) -> BuiltinBackend:
    engine = EngineProcess(
        engine_settings(settings), resolve=resolver(settings), attention=_Attention(on_trouble)
    )
    return BuiltinBackend(settings, model, engine)


class _Attention:
    """The engine's reports, for the daemon's attention list (through `on_trouble`)."""

    def __init__(self, on_trouble: Trouble | None) -> None:
        self.on_trouble = on_trouble

    def report(self, source: str, path: str, code: str, reason: str, **_: Any) -> None:
        if self.on_trouble is not None:
            self.on_trouble(reason)

    def clear(self, source: str, path: str = "") -> None:
        return None


class BuiltinBackend(OpenAIBackend):
    def __init__(self, settings: Settings, model: ModelSettings, engine: EngineProcess) -> None:
        self.engine = engine
        self._all = settings
        self._look: tuple[float, Any] | None = None  # (when, preflight's answer or error)
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
            return await self.engine.endpoints()
        except EngineUnavailable as exc:
            raise EngineError(exc) from None

    async def _chat_endpoint(self) -> Endpoint:
        ep = await self._endpoints()
        if ep.chat is None:
            raise ModelUnavailable(BUILTIN, ep.missing.get("chat", "no chat model is set up"))
        return Endpoint(ep.chat.url, ep.api_key)

    async def _embed_endpoint(self) -> Endpoint:
        ep = await self._endpoints()
        if ep.embed is None:
            why = ep.missing.get("embed", "no embedding model is set up")
            raise ModelUnavailable(BUILTIN, why)
        return Endpoint(ep.embed.url, ep.api_key)

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
            version=engine.line(),
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
        await self.engine.close()
        await super().aclose()
