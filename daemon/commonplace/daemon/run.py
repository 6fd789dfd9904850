"""`commonplace run`: one process that serves the phone page and runs the vault's jobs.

The flow is watcher -> job queue -> stage -> atomic write. The server starts first, so the page
answers (and captures are saved) while the start-up catch-up runs as ordinary jobs. Nothing
here needs the model to be up: stages wait and retry, search falls back to keywords.

Shutdown (SIGINT/SIGTERM) runs in reverse: the watcher stops (no new work), the job in hand
finishes or is abandoned after a grace period (writes are atomic, so nothing is half-written),
the stages and the server close, and the lock is released last.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import errno
import functools
import logging
import signal
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from aiohttp import web

from commonplace.ask.asknote import ask_root as asknote_root
from commonplace.ask.asknote import ask_rule, is_ask_note
from commonplace.ask.service import AskService
from commonplace.assistant import build_assistant
from commonplace.assistant.tasks import TaskReader, warm_in_background
from commonplace.briefing import briefing_job
from commonplace.calendar import CalendarClient
from commonplace.config import Settings, set_vault
from commonplace.daemon.conflicts import watch_conflicts
from commonplace.daemon.datafolder import keep_lock
from commonplace.daemon.dataformat import NewerDataFolder, bring_forward, refuse_newer
from commonplace.daemon.jobs import ChangeRouter, Job, JobQueue, Stage
from commonplace.daemon.lease import VaultLease, check_lease, keep_lease
from commonplace.daemon.leftovers import keep_putting_back, put_back_left_aside
from commonplace.daemon.scans import Scans
from commonplace.daemon.vault_access import keep_checking_access
from commonplace.daemon.watcher import PollPlan, VaultWatcher
from commonplace.digest.service import digest_job
from commonplace.index import Index, IndexBusy, IndexService
from commonplace.llm import LLM, ModelGate, make_llm
from commonplace.llm.health import startup_warnings
from commonplace.llm.report import status_path, status_record
from commonplace.plugin.discovery import remove_discovery, write_discovery
from commonplace.runtime.attention import Attention, attention_file
from commonplace.runtime.changes import Change
from commonplace.runtime.daemon_notes import left_in_earlier_pages
from commonplace.runtime.lock import LockHeld, VaultLock
from commonplace.runtime.scheduler import Job as ScheduledJob
from commonplace.runtime.scheduler import Scheduler
from commonplace.runtime.statefile import write_json
from commonplace.runtime.supervise import start_supervised
from commonplace.server import create_app
from commonplace.server.app import IDLE_TIMEOUT_S, MAX_LINE_BYTES
from commonplace.server.badrequests import quiet_malformed_requests
from commonplace.server.context import Services, StatusSource
from commonplace.server.security import is_loopback
from commonplace.speech import SpeechUnavailable, WhisperTranscriber, model_path
from commonplace.tidy.service import TidyService
from commonplace.vault import in_folder
from commonplace.vault.obsidian_settings import inbox_clashes

log = logging.getLogger(__name__)

WATCH_DEBOUNCE_S = 0.5
ACCESS_CHECK_S = 60.0  # a permission granted in System Settings is noticed within a minute


class DaemonError(Exception):
    """The daemon cannot start; the message says why and what to do."""


@dataclass
class Parts:
    """Everything the daemon started, so shutdown can stop each in turn."""

    settings: Settings
    attention: Attention = field(default_factory=Attention)  # what needs the owner, with why
    stages: dict[str, Stage] = field(default_factory=dict)  # get startup() and changes
    status: dict[str, StatusSource] = field(default_factory=dict)  # shown in /api/state
    closers: list[Callable[[], Awaitable[None]]] = field(default_factory=list)
    tasks: list[asyncio.Task[Any]] = field(default_factory=list)
    index: Index | None = None
    watcher: VaultWatcher | None = None
    scans: Scans | None = None
    lease: VaultLease | None = None
    calendar: CalendarClient | None = None  # one per daemon: the briefing and the assistant
    task_reader: TaskReader | None = None  # one per daemon, read ahead: the same two


async def run_daemon(
    settings: Settings, *, ready: asyncio.Event | None = None, stop: asyncio.Event | None = None
) -> None:
    """Serve until SIGINT/SIGTERM (or `stop` is set), then shut down cleanly."""
    if not settings.vault.is_dir():
        raise DaemonError(
            f"the vault folder {settings.vault} does not exist; {set_vault(settings)}"
        )
    try:
        found = refuse_newer(settings.data_path)  # before the lock: nothing written there yet
    except NewerDataFolder as exc:
        raise DaemonError(str(exc)) from None
    try:
        lock = VaultLock.acquire(settings.data_path, vault=settings.vault.absolute())
    except LockHeld as exc:
        raise DaemonError(str(exc)) from None
    try:
        await asyncio.to_thread(bring_forward, settings.data_path, found)
        await _run_locked(settings, ready, stop or asyncio.Event(), lock)
    finally:
        lock.release()


async def _run_locked(
    settings: Settings, ready: asyncio.Event | None, stop: asyncio.Event, lock: VaultLock
) -> None:
    await asyncio.to_thread(clean_up_after_a_crash, settings)
    attention = Attention(attention_file(settings.data_path))
    # `auto` asks whether a model server answers (a second at most): off the event loop.
    llm = await asyncio.to_thread(
        functools.partial(
            make_llm,
            settings,
            gate=ModelGate(settings.limits.model_wait_s),
            attention=attention,
            share_engine=True,
        )
    )
    log.info("model: %s (%s)", llm.server.name, llm.why)
    jobs = JobQueue(attention=attention)
    parts = await build_parts(settings, llm, attention)
    scans = parts.scans = Scans(jobs, parts.stages, settings.index.reconcile_minutes * 60)
    parts.watcher = make_watcher(settings, jobs, parts)
    parts.status["watcher"] = parts.watcher
    reader = parts.task_reader = TaskReader(settings)
    services = Services(
        index=parts.index,
        jobs=jobs,
        attention=attention,
        transcriber=WhisperTranscriber(settings.speech),
        assistant=build_assistant(settings, llm, calendar=parts.calendar, tasks=reader),
        tasks=reader,
        stages=dict(parts.status),
        notes=start_notes(settings),
    )
    for note in services.notes:
        log.warning("%s", note)
    runner = await start_server(settings, create_app(settings, llm, services))
    lock.record_port(listening_port(runner))  # `[web] port = 0`: where the system put it
    # Where the Obsidian plugin on this computer finds us (an address, never a token).
    found_at = write_discovery(
        settings.vault, settings.web.host, listening_port(runner), settings.web.ts_name.strip()
    )
    parts.tasks.append(asyncio.create_task(warn_about_model(settings, llm, services)))
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        with contextlib.suppress(NotImplementedError, RuntimeError):
            loop.add_signal_handler(sig, stop.set)
    try:
        jobs.start()
        scans.queue("start-up", first=True)
        jobs.put(Job("assistant", "read the task list ahead", _read_ahead(reader, parts)))
        await parts.watcher.start()
        parts.tasks.extend(start_background(settings, llm, parts))
        keep = functools.partial(keep_lock, lock, attention)
        parts.tasks.append(start_supervised("data folder check", keep, attention))
        if ready is not None:
            ready.set()
        await stop.wait()
        log.info("stopping")
    finally:
        for sig in (signal.SIGINT, signal.SIGTERM):
            with contextlib.suppress(NotImplementedError, RuntimeError):
                loop.remove_signal_handler(sig)
        remove_discovery(found_at)
        try:
            await shutdown(parts, jobs, runner)
        finally:
            await llm.aclose()  # the built-in engine stops with the daemon


def _read_ahead(reader: TaskReader, parts: Parts) -> Callable[[], Awaitable[None]]:
    """Queued behind the start-up index run (one job at a time: it starts once the index is
    ready), it only starts the read-ahead (tasks.py `warm`) in a thread and returns."""

    async def start() -> None:
        stop = warm_in_background(reader)

        async def stopped() -> None:
            stop.set()

        parts.closers.append(stopped)

    return start


def clean_up_after_a_crash(settings: Settings) -> None:
    """Temp files a crash left between writing and renaming, in the vault and the data folder,
    and files left moved aside by a delete (before anything else runs: nothing may index or
    file one meanwhile). Those too young now are cleared later, while it runs (leftovers.py)."""
    put_back_left_aside(settings)


async def build_parts(settings: Settings, llm: LLM, attention: Attention | None = None) -> Parts:
    """Open the index and make the stage services (they start working in their startup job)."""
    parts = Parts(settings=settings, attention=attention or Attention())
    try:
        index = await asyncio.to_thread(functools.partial(Index.open, settings, llm, daemon=True))
    except IndexBusy:
        raise DaemonError(
            f"the search index in {settings.data_path} is being written by another program "
            "(a 'commonplace index' run?); wait for it to finish, then start again"
        ) from None
    parts.index = index
    parts.closers.append(_to_async(index.close))
    lease = parts.lease = VaultLease(settings.vault, settings.data_path, settings.lease)
    await check_lease(lease, parts.attention)  # before any stage starts
    service = IndexService(index, settings, attention=parts.attention)
    parts.closers.append(service.close)  # closers run last-first: before the index closes
    tidy = TidyService(settings, llm, index, attention=parts.attention, may_work=lambda: lease.held)
    ask = AskService(settings, llm, index, attention=parts.attention, may_work=lambda: lease.held)
    parts.stages.update(index=service, tidy=tidy, ask=ask)
    parts.status.update(index=index, tidy=tidy, ask=ask, lease=lease)
    parts.closers.extend([tidy.close, ask.close])
    parts.calendar = CalendarClient(settings)
    return parts


def make_watcher(settings: Settings, jobs: JobQueue, parts: Parts) -> VaultWatcher:
    """The vault's watcher; the inbox and the Ask notes are polled if events go missing."""
    router = ChangeRouter(jobs, parts.stages, settings)

    async def on_changes(changes: list[Change]) -> None:
        # Searches apply dirty paths first, so a saved note is found at once even while the
        # queue is busy with a slow model call; the queued index job is then cheap.
        if parts.index is not None:
            parts.index.mark_dirty(c.path for c in changes)
        router.put(changes)

    def on_lost(reason: str) -> None:
        _scan(parts, reason)

    return VaultWatcher(
        settings.vault,
        on_changes,
        debounce_s=WATCH_DEBOUNCE_S,
        poll=functools.partial(poll_plan, settings),
        on_lost=on_lost,
        attention=parts.attention,
    )


def poll_plan(settings: Settings) -> PollPlan:
    """What the watcher polls when file events go missing: the inbox and the Ask notes, as the
    settings name them now. Asked at every round: a Logseq graph's `:pages-directory`, read
    again when logseq/config.edn changes, moves both while the daemon runs, and a capture in
    the new inbox must not wait for the next periodic scan (or a restart)."""
    inbox, rule = settings.folder("inbox"), ask_rule(settings)
    ask_root = asknote_root(*rule)  # Logseq: all of the pages directory (namespace pages)

    def wanted(path: str) -> bool:
        return in_folder(path, inbox) or is_ask_note(path, *rule)

    return PollPlan((inbox, ask_root), wanted)


def start_background(settings: Settings, llm: LLM, parts: Parts) -> list[asyncio.Task[Any]]:
    """The periodic scan, the lease's heartbeat, the scheduler (weekly digest, morning briefing)
    and the look-out
    for sync conflict copies, each supervised: a loop that fails is logged, shown in attention
    and restarted, never silently gone."""
    tasks = []
    if parts.scans is not None:
        tasks.append(start_supervised("periodic scan", parts.scans.run_forever, parts.attention))
    aside = functools.partial(keep_putting_back, settings, settings.index.reconcile_minutes * 60)
    tasks.append(start_supervised("crash leftovers", aside, parts.attention))
    lease = parts.lease
    if lease is not None:
        keep = functools.partial(
            keep_lease,
            lease,
            lambda: _scan(parts, "this computer took the vault's lease"),
            parts.attention,
        )
        tasks.append(start_supervised("lease", keep, parts.attention))
    digest = digest_job(settings, llm)
    if lease is not None:
        digest = leased(digest, lease)
    jobs = [digest]
    if parts.calendar is not None:
        briefing = briefing_job(settings, parts.calendar, tasks=parts.task_reader)
        jobs.append(leased(briefing, lease) if lease is not None else briefing)
    scheduler = Scheduler(jobs, settings.data_path, attention=parts.attention)
    tasks.append(start_supervised("scheduler", scheduler.run_forever, parts.attention))
    conflicts = functools.partial(watch_conflicts, settings, parts.attention)
    tasks.append(start_supervised("conflict check", conflicts, parts.attention))
    access = functools.partial(
        keep_checking_access, settings.vault, parts.attention, ACCESS_CHECK_S
    )
    tasks.append(start_supervised("vault access", access, parts.attention))
    return tasks


def _scan(parts: Parts, reason: str) -> None:
    if parts.scans is not None:
        parts.scans.queue(reason)


def leased(job: ScheduledJob, lease: VaultLease) -> ScheduledJob:
    """The job runs only where the vault's lease is held (a digest is written once)."""

    async def run(scheduled: datetime) -> None:
        if not lease.held:
            other = lease.other.who() if lease.other else "another computer"
            log.info("%s: left to the daemon on %s, which holds the vault's lease", job.name, other)
            return
        await job.run(scheduled)

    return dataclasses.replace(job, run=run)


async def warn_about_model(settings: Settings, llm: LLM, services: Services) -> None:
    """At start-up, without holding it up: what the model server's health says (llm/health.py:
    too old an Ollama, a cloud model, notes that would cross a network unencrypted), logged
    and listed in /api/state's notes; and the server as seen, for `service status`."""
    status, found = await startup_warnings(settings, llm)
    record = status_record(status, llm.chat_model, llm.embed_model)
    await asyncio.to_thread(write_json, status_path(settings), record)
    for text in found:
        log.warning("%s", text)
        services.notes = [*services.notes, text]


def start_notes(settings: Settings) -> list[str]:
    """What the owner should hear about at start-up (logged as warnings, shown in /api/state).
    Dictation left unset is a choice, not a problem: one INFO line, and the page's Dictation row
    and its Dictate button say what to download; a model that is set but missing is a warning."""
    notes = []
    if not settings.speech.whisper_model.strip():
        log.info("dictation: off (no [speech] whisper_model set; see the docs' Dictation how-to)")
    else:
        try:
            model_path(settings.speech)
        except SpeechUnavailable as exc:
            notes.append(f"Dictation is off: {exc}")
    if not is_loopback(settings.web.host):
        notes.append(
            f"The server listens on {settings.web.host}, reachable from other computers; they are "
            "refused unless they send the API token ('commonplace token'): the phone page is "
            "for this computer and for tailscale serve only"
        )
    left = left_in_earlier_pages(settings)  # captures and questions nothing would look at
    if left:
        notes.append(left)
    notes += inbox_clashes(settings.vault, settings.folder("inbox"))  # new notes filed away
    return notes


async def start_server(
    settings: Settings, app: web.Application, *, idle_timeout_s: float = IDLE_TIMEOUT_S
) -> web.AppRunner:
    quiet_malformed_requests()  # a refused request is one WARNING line, not a traceback
    runner = web.AppRunner(
        app,
        access_log=None,
        shutdown_timeout=5.0,
        max_line_size=MAX_LINE_BYTES,
        keepalive_timeout=idle_timeout_s,  # also bounds a request whose headers never end
    )
    await runner.setup()
    site = web.TCPSite(runner, settings.web.host, settings.web.port)
    try:
        await site.start()
    except OSError as exc:
        await runner.cleanup()
        if exc.errno == errno.EADDRINUSE:
            raise DaemonError(
                f"port {settings.web.port} on {settings.web.host} is already in use; is another "
                "commonplace running? Stop it or set [web] port in commonplace.toml"
            ) from None
        raise DaemonError(
            f"cannot listen on {settings.web.host}:{settings.web.port}: {exc}"
        ) from None
    if not is_loopback(settings.web.host):
        log.warning(
            "listening on %s, reachable from other computers (refused without the API token)",
            settings.web.host,
        )
    log.info("serving the phone page at http://%s:%d/", settings.web.host, listening_port(runner))
    return runner


def listening_port(runner: web.AppRunner) -> int:
    """The port the server got: the configured one, or the free one the system picked for
    `[web] port = 0` (a host naming several addresses gets one per address: the first)."""
    for address in runner.addresses:
        if isinstance(address, tuple) and len(address) >= 2:
            return int(address[1])
    return 0


async def shutdown(parts: Parts, jobs: JobQueue, runner: web.AppRunner) -> None:
    """Reverse order of start; each step is guarded so one failure cannot skip the rest."""
    steps: list[tuple[str, Callable[[], Awaitable[None]]]] = []
    if parts.watcher is not None:
        steps.append(("watcher", parts.watcher.stop))
    steps.append(("jobs", jobs.stop))
    steps.append(("background tasks", lambda: _cancel(parts.tasks)))
    steps.extend(("stage", closer) for closer in reversed(parts.closers))
    steps.append(("server", runner.cleanup))
    if parts.lease is not None:
        steps.append(("lease", _to_async(parts.lease.release)))
    for name, step in steps:
        try:
            await step()
        except Exception:
            log.exception("while stopping the %s", name)
    log.info("stopped")


def _to_async(fn: Callable[[], object]) -> Callable[[], Awaitable[None]]:
    async def call() -> None:
        await asyncio.to_thread(fn)

    return call


async def _cancel(tasks: list[asyncio.Task[Any]]) -> None:
    for task in tasks:
        task.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)
