"""What the handlers get from the daemon: settings, the model client and the running services.

Handlers reach these through typed app keys (`request.app[SERVICES]`), never through globals,
so a test builds an app with exactly the services it wants.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from aiohttp import web
from aiohttp.abc import AbstractResolver

from commonplace.assistant import Assistant
from commonplace.assistant.tasks import TaskReader
from commonplace.capture.pagefetch import Rule
from commonplace.config import Settings
from commonplace.index import Index
from commonplace.llm import LLM, ModelStatus
from commonplace.runtime.attention import Attention
from commonplace.server.sent import SentCaptures
from commonplace.speech import Transcriber


class StatusSource(Protocol):
    def status(self) -> Mapping[str, Any]: ...


class JobCounts(Protocol):
    running: str  # what runs now: "index: 3 changes"
    last: str  # the last job and how it went
    done: int
    failed: int


class JobQueueView(Protocol):
    """What /api/state reads of the daemon's job queue (daemon/jobs.py), which the server
    never runs: said here so that the server does not depend on what runs it."""

    @property
    def pending(self) -> int: ...

    @property
    def stats(self) -> JobCounts: ...


@dataclass
class Services:
    """The daemon's parts the API uses; any may be missing (the API then says so)."""

    index: Index | None = None
    jobs: JobQueueView | None = None
    transcriber: Transcriber | None = None
    assistant: Assistant | None = None
    tasks: TaskReader | None = None  # the daemon's reader of the to-dos, kept read (GET /api/tasks)
    stages: Mapping[str, StatusSource] = field(default_factory=dict)  # name -> status()
    attention: Attention = field(default_factory=Attention)  # skipped / failing, with why
    started: float = field(default_factory=time.time)
    notes: Sequence[str] = ()  # start-up remarks shown in /api/state ("no whisper model", ...)
    model_cache: tuple[float, ModelStatus] | None = None  # (monotonic time, status)
    model_refresh: asyncio.Task[ModelStatus] | None = None  # a refresh of it under way
    hint_cache: tuple[float, str] | None = None  # (monotonic time, dictation name hint)
    # A shared link's page fetch (capture/pagefetch.py): the name lookup and the address rule,
    # replaced by tests only (None: the system's resolver, public addresses only).
    page_resolver: AbstractResolver | None = None
    page_rule: Rule | None = None


SETTINGS = web.AppKey("settings", Settings)
LLM_KEY = web.AppKey("llm", LLM)
SERVICES = web.AppKey("services", Services)
SENT = web.AppKey("sent_captures", SentCaptures)
