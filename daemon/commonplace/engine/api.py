"""What the engine's users see of it: the addresses of its models (Endpoints), its state in
one line (EngineStatus), and the one error it raises (EngineUnavailable).

The model backend (llm/) is an OpenAI-compatible client pointed at `Endpoints.chat.url` and
`Endpoints.embed.url` with `Endpoints.api_key`; a call that fails because the child died under
it (a connection reset or refused) is that client's own retryable error, and the next
`endpoints()` starts a new child.
"""

from __future__ import annotations

import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, Literal

SOURCE = "built-in model"  # its entries in attention, and the start of its status line

State = Literal["stopped", "starting", "loaded", "crashed", "unavailable"]


class EngineUnavailable(Exception):
    """The engine cannot answer now. The message says why in words; `action` what the owner
    can do ("" when it sorts itself out); `retry_at` (wall-clock time) when it is tried again
    by itself, None when only a change of settings or computer helps."""

    def __init__(
        self, message: str, *, code: str, action: str = "", retry_at: float | None = None
    ) -> None:
        super().__init__(message)
        self.code = code
        self.action = action
        self.retry_at = retry_at


@dataclass(frozen=True)
class ModelFacts:
    """One model the child serves, as llama.cpp reports it once loaded."""

    role: str  # "chat" | "embed"
    url: str  # "http://127.0.0.1:PORT/v1": an OpenAI-compatible base URL
    alias: str  # the model name its server answers to (/v1/models); send it as `model`
    name: str  # general.name from the file, for people
    path: Path
    n_ctx: int  # the context it runs with: prompts must fit (with the reply) in it
    n_ctx_train: int
    n_embd: int  # the embedding model's dimension
    tools: bool  # its chat template takes `tools` (llama.cpp's chat_template_caps)

    @property
    def root(self) -> str:
        """The server's own address, without /v1 (/health, /props)."""
        return self.url.removesuffix("/v1")


@dataclass(frozen=True)
class Endpoints:
    """Where the running child answers. `chat` or `embed` is None when no model is set up
    for that role (then `missing[role]` says so in words)."""

    chat: ModelFacts | None
    embed: ModelFacts | None
    api_key: str  # send as "Authorization: Bearer <key>"; only this daemon has it
    device: str  # "CPU", "Metal", "CUDA0"
    threads: int
    pid: int
    missing: dict[str, str]

    def headers(self) -> dict[str, str]:
        return {"Authorization": f"Bearer {self.api_key}"}


@dataclass(frozen=True)
class EngineStatus:
    state: State
    device: str  # "" until a child has loaded once
    threads: int
    chat_model: str  # the models' names ("" when none)
    embed_model: str
    why: str  # crashed, unavailable, stopped: why, in words; "" when loaded
    pid: int | None
    starts: int  # children started since the daemon started
    since: float  # wall-clock time of the last change of state

    def line(self) -> str:
        """ "built-in model · CPU · 2 threads · loaded", for the page's header and doctor."""
        parts = [SOURCE]
        if self.device:
            parts.append(self.device)
        if self.threads:
            parts.append(f"{self.threads} thread" + ("s" if self.threads != 1 else ""))
        state = f"{self.state}: {self.why}" if self.why else self.state
        return " · ".join([*parts, state])

    def as_json(self) -> dict[str, Any]:
        return {**asdict(self), "line": self.line()}


def now() -> float:
    return time.time()
