"""The built-in engine as the daemon sees it: a child process (child.py) started on first need,
watched, started again after a crash, stopped when idle and with the daemon.

Why a process: llama.cpp is C++ that can crash (a bad file, a bug), be killed by the kernel when
memory runs out, or stop at an instruction the processor lacks; in the daemon's process any of
these would end the daemon with it. In a child they end one request, which the caller retries.
Its memory (the weights, 0.3-4 GB) is given back whole when it stops, as only the end of a
process can (the vector child's reason too: index/vector_process.py is the same pattern).

How, in order:
- `endpoints()` (or `use()`, which also counts the call as in flight) returns the running
  child's addresses, or starts one: the models resolved (`resolve`), their headers read, the
  plan made and checked against this computer (sizing.py: a processor without AVX2 or too
  little memory is refused here, with a sentence), then `python -m commonplace.engine.child`
  started with a pipe on its stdin, the plan and a new random API key written into it, and its
  one JSON line awaited (start_timeout_s). Callers arriving meanwhile wait for the same start.
- While it runs, a watcher waits for its exit, asks /health every HEALTH_EVERY_S (a server that
  fails HEALTH_FAILURES times in a row is ended), and stops it once no call has come for
  [builtin] idle_stop_s and none is in flight. (llama.cpp's own sleep_idle_seconds would
  unload the weights but keep the process, its code and its buffers: ending it gives back all.)
- An exit nobody asked for is a crash: its reason in words (reasons.py: a SIGKILL is likely the
  memory running out, a SIGILL a processor that lacks an instruction) goes to the log and to
  attention, and the next start waits a backoff that doubles while starts keep failing
  (basics/backoff.py), up to MAX_WAIT_S; a call meanwhile waits for it if it ends within
  WAIT_FOR_RESTART_S, and is refused with the reason otherwise. Once a new child has run well
  for RUNNING_WELL_S, the entry leaves attention. A SIGILL, or a refusal the child cannot get
  past (no AVX2, gpu 'on' without a GPU), is never tried again until the daemon restarts.
- `close()` ends the child with the daemon: its stdin is closed, it reads EOF and exits. A
  daemon killed outright closes the pipe all the same (the kernel does), so the child never
  outlives it.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import secrets
import sys
import time
from collections.abc import AsyncIterator, Callable, Sequence
from typing import Any, Protocol

import aiohttp

from commonplace.basics.backoff import backoff_s
from commonplace.config import BuiltinSettings
from commonplace.engine import hardware, reasons, sizing
from commonplace.engine.api import (
    SOURCE,
    Endpoints,
    EngineStatus,
    EngineUnavailable,
    ModelFacts,
    State,
)
from commonplace.engine.gguf import ModelFile
from commonplace.engine.resolve import Resolve, explicit_paths, model_files

log = logging.getLogger(__name__)
child_log = logging.getLogger("commonplace.engine.child")

CHILD = (sys.executable, "-m", "commonplace.engine.child")
STOP_WAIT_S = 10.0  # for the child to exit once its stdin is closed, before it is killed
FIRST_WAIT_S = 1.0
MAX_WAIT_S = 300.0
WAIT_FOR_RESTART_S = 10.0  # a call waits this long for a backoff to end, else is refused
HEALTHY_AFTER_S = 600.0  # a child that ran this long resets the backoff when it crashes
RUNNING_WELL_S = 60.0  # a new child this long without failing clears the attention entry
HEALTH_EVERY_S = 30.0
HEALTH_TIMEOUT_S = 10.0
HEALTH_FAILURES = 3  # /health failing this many times in a row ends the child
LINE_LIMIT = 1 << 20  # longest line of llama.cpp's log read at once


class AttentionSink(Protocol):
    """What the engine needs of the daemon's attention list (runtime/attention.py)."""

    def report(
        self,
        source: str,
        path: str,
        code: str,
        reason: str,
        *,
        action: str = "",
        retry_at: float | None = None,
    ) -> object: ...

    def clear(self, source: str, path: str = "") -> None: ...


class _Child:
    """One child process: its pipes, its exit, what it serves."""

    def __init__(self, proc: asyncio.subprocess.Process) -> None:
        self.proc = proc
        self.started = time.monotonic()
        self.endpoints: Endpoints | None = None
        self.ended: str | None = None  # why we ended it; None: still ours, or it crashed
        self.unanswered = False  # ended because /health stopped answering
        self.failed_call = False  # a call to it (use()) ended in an error
        self.exited: asyncio.Future[int] = asyncio.ensure_future(proc.wait())
        self.forwarding = asyncio.ensure_future(_forward(proc.stderr))
        self.watch: asyncio.Future[None] | None = None

    def running(self) -> bool:
        return self.ended is None and self.proc.returncode is None and not self.exited.done()

    async def end(self, why: str) -> None:
        """Close its stdin (it exits at EOF); kill it if it has not exited in STOP_WAIT_S."""
        if self.ended is None:
            self.ended = why
        if self.proc.stdin is not None:
            self.proc.stdin.close()
        try:
            await asyncio.wait_for(asyncio.shield(self.exited), STOP_WAIT_S)
        except TimeoutError:
            with contextlib.suppress(ProcessLookupError):
                self.proc.kill()
            await self.exited
        with contextlib.suppress(asyncio.TimeoutError):
            await asyncio.wait_for(self.forwarding, 5)


async def _forward(stream: asyncio.StreamReader | None) -> None:
    """llama.cpp's log, line by line, to the daemon's at debug (it may quote requests)."""
    if stream is None:
        return
    while True:
        try:
            line = await stream.readline()
        except ValueError:  # a line past LINE_LIMIT: its start was dropped by the reader
            continue
        if not line:
            return
        child_log.debug("%s", line.decode("utf-8", "replace").rstrip())


class EngineProcess:
    """The built-in engine for one daemon. Use from one event loop."""

    def __init__(
        self,
        settings: BuiltinSettings,
        *,
        resolve: Resolve = explicit_paths,
        attention: AttentionSink | None = None,
        readings: Callable[[], hardware.Readings] = hardware.read,
        command: Sequence[str] = CHILD,
    ) -> None:
        self.settings = settings
        self._resolve = resolve
        self._attention = attention
        self._readings = readings
        self._command = tuple(command)
        self._child: _Child | None = None
        self._starting: asyncio.Task[Endpoints] | None = None
        self._last: Endpoints | None = None  # the last child's, for the status
        self._closed = False
        self._fatal: reasons.Stopped | None = None
        self._failures = 0
        self._next_start = 0.0  # monotonic time before which no start is tried
        self._inflight = 0
        self._last_used = time.monotonic()
        self._state: State = "stopped"
        self._why = "it starts at the first request"
        self._since = time.time()
        self.starts = 0  # children started (for the tests and the benchmark)

    # -- for the model backend ------------------------------------------------------------

    async def endpoints(self) -> Endpoints:
        """The running child's addresses; starts it if none runs. Raises EngineUnavailable
        with the reason when it cannot start (now, or on this computer)."""
        self._last_used = time.monotonic()
        child = self._child
        if child is not None and child.running() and child.endpoints is not None:
            return child.endpoints
        if self._starting is None or self._starting.done():
            self._starting = asyncio.create_task(self._start(), name="engine-start")
            self._starting.add_done_callback(_retrieved)
        endpoints = await asyncio.shield(self._starting)
        self._last_used = time.monotonic()
        return endpoints

    @contextlib.asynccontextmanager
    async def use(self) -> AsyncIterator[Endpoints]:
        """`endpoints()` for one call, counted as in flight until the block ends, so that the
        idle stop never ends a child in the middle of a long answer."""
        endpoints = await self.endpoints()
        child = self._child
        self._inflight += 1
        try:
            yield endpoints
        except BaseException:
            if child is not None:  # if the child is found dead next, it died under this call
                child.failed_call = True
            raise
        finally:
            self._inflight -= 1
            self._last_used = time.monotonic()

    async def check(self) -> bool:
        """Whether the running child answers /health now (False when none runs)."""
        child = self._child
        if child is None or not child.running() or child.endpoints is None:
            return False
        return await _healthy(child.endpoints)

    def status(self) -> EngineStatus:
        last = self._last
        child = self._child
        return EngineStatus(
            state=self._state,
            device=last.device if last else "",
            threads=last.threads if last else 0,
            chat_model=last.chat.name if last and last.chat else "",
            embed_model=last.embed.name if last and last.embed else "",
            why=self._why,
            pid=child.proc.pid if child is not None and child.running() else None,
            starts=self.starts,
            since=self._since,
        )

    @property
    def pid(self) -> int | None:
        return self.status().pid

    async def stop(self) -> None:
        """End the child now, as when idle; the next call starts another."""
        child, self._child = self._child, None
        if child is not None:
            self._set_state("stopped", "stopped; it starts again at the next request")
            await child.end("stopped")

    async def close(self) -> None:
        """End the child for good (the daemon stops); later calls raise EngineUnavailable."""
        self._closed = True
        starting = self._starting
        if starting is not None and not starting.done():
            starting.cancel()
            with contextlib.suppress(BaseException):
                await starting
        child, self._child = self._child, None
        if child is not None:
            await child.end("closed")
        self._set_state("stopped", "the daemon stopped")

    # -- starting -------------------------------------------------------------------------

    async def _start(self) -> Endpoints:
        if self._closed:
            raise EngineUnavailable("the daemon is stopping", code="engine_closed")
        if self._fatal is not None:
            raise EngineUnavailable(
                self._fatal.reason, code=self._fatal.code, action=self._fatal.action
            )
        wait = self._next_start - time.monotonic()
        if wait > WAIT_FOR_RESTART_S:
            raise EngineUnavailable(self._why, code="engine_waiting", retry_at=time.time() + wait)
        if wait > 0:
            await asyncio.sleep(wait)
        self._set_state("starting", "")
        plan, files, missing = self._plan()
        key = secrets.token_urlsafe(32)
        started = time.monotonic()
        try:
            proc = await asyncio.create_subprocess_exec(
                *self._command,
                stdin=asyncio.subprocess.PIPE,
                stdout=asyncio.subprocess.PIPE,
                stderr=asyncio.subprocess.PIPE,
                limit=LINE_LIMIT,
            )
        except OSError as exc:  # no Python at sys.executable any more (an upgrade), no fds
            raise self._failed(reasons.not_started(exc), started) from None
        child = _Child(proc)
        try:
            endpoints = await self._handshake(child, plan, files, key, missing)
        except BaseException:  # refused, timed out, cancelled by close(): nothing left behind
            await child.end("could not start")
            raise
        child.endpoints = endpoints
        self._child = child
        self._last = endpoints
        self.starts += 1
        self._set_state("loaded", "")
        asyncio.get_running_loop().call_later(RUNNING_WELL_S, self._running_well, child)
        child.watch = asyncio.ensure_future(self._watch(child))
        served = (endpoints.chat, endpoints.embed)
        loaded = " and ".join(f"{m.name} ({m.role})" for m in served if m)
        log.info(
            "%s: process %d loaded %s in %.1f s: %s, %s",
            SOURCE,
            proc.pid,
            loaded,
            time.monotonic() - child.started,
            endpoints.device,
            "; ".join(plan.why),
        )
        return endpoints

    def _plan(self) -> tuple[sizing.Plan, dict[str, ModelFile], dict[str, str]]:
        """The models and the plan, or EngineUnavailable (reported) with what to do."""
        try:
            return preflight(self.settings, resolve=self._resolve, readings=self._readings)
        except EngineUnavailable as exc:
            if exc.code == "engine_cpu":  # no processor grows AVX2: never tried again
                self._fatal = reasons.Stopped(exc.code, str(exc), exc.action, fatal=True)
            self._unavailable(exc)
            raise

    async def _handshake(
        self,
        child: _Child,
        plan: sizing.Plan,
        files: dict[str, ModelFile],
        key: str,
        missing: dict[str, str],
    ) -> Endpoints:
        """Send the plan, await the one line; a refusal or an early exit is reported."""
        assert child.proc.stdin is not None and child.proc.stdout is not None
        level = logging.getLogger("commonplace").getEffectiveLevel()
        child.proc.stdin.write(json.dumps(plan.child_config(key, level)).encode() + b"\n")
        with contextlib.suppress(ConnectionError):  # it died at once: its exit says why
            await child.proc.stdin.drain()
        try:
            line = await asyncio.wait_for(
                child.proc.stdout.readline(), self.settings.start_timeout_s
            )
        except TimeoutError:
            stopped = reasons.Stopped(
                "engine_slow",
                f"its models did not load within {self.settings.start_timeout_s:.0f} s",
                "set [builtin] start_timeout_s higher if the disk is slow, or pick a smaller model",
                fatal=False,
            )
            raise self._failed(stopped, child.started) from None
        try:
            message = json.loads(line) if line.strip() else {}
        except ValueError:
            message = {}
        if "ready" in message:
            return _endpoints(message["ready"], files, key, missing)
        if "error" in message:
            stopped = reasons.refused(str(message["error"]), str(message.get("message", "")))
            raise self._failed(stopped, child.started)
        try:  # its stdout closed (it is dying), or it said something else (then it is ended)
            returncode = await asyncio.wait_for(asyncio.shield(child.exited), STOP_WAIT_S)
        except TimeoutError:
            stopped = reasons.garbled()
        else:
            stopped = reasons.exit_reason(returncode, during="while loading its models")
        raise self._failed(stopped, child.started)

    # -- while it runs --------------------------------------------------------------------

    async def _watch(self, child: _Child) -> None:
        """Until the child exits: stop it when idle, end it when it stops answering."""
        next_health = time.monotonic() + HEALTH_EVERY_S
        unanswered = 0
        while True:
            wait = next_health - time.monotonic()
            if self.settings.idle_stop_s:
                wait = min(wait, self._idle_wait())
            try:
                await asyncio.wait_for(asyncio.shield(child.exited), max(0.05, wait))
                break
            except TimeoutError:
                pass
            if child.ended is not None:
                continue  # being ended (stop, close): its exit comes next
            if self._is_idle():
                if self._child is child:
                    self._child = None
                idle = _duration(self.settings.idle_stop_s)
                self._set_state("stopped", f"idle for {idle}; it starts again at the next request")
                await child.end("idle")
                log.info("%s: process %d stopped, idle", SOURCE, child.proc.pid)
                return
            if time.monotonic() >= next_health:
                next_health = time.monotonic() + HEALTH_EVERY_S
                assert child.endpoints is not None
                unanswered = 0 if await _healthy(child.endpoints) else unanswered + 1
                if unanswered >= HEALTH_FAILURES:
                    child.unanswered = True
                    with contextlib.suppress(ProcessLookupError):
                        child.proc.kill()
        if child.ended is not None:
            return
        if self._child is child:
            self._child = None
        if child.unanswered:
            stopped = reasons.not_answering(HEALTH_FAILURES * HEALTH_EVERY_S)
        else:
            during = "during a request" if self._inflight or child.failed_call else ""
            stopped = reasons.exit_reason(child.proc.returncode or 0, during=during)
        self._failed(stopped, child.started)

    def _is_idle(self) -> bool:
        idle = self.settings.idle_stop_s
        return bool(idle) and not self._inflight and time.monotonic() - self._last_used >= idle

    def _idle_wait(self) -> float:
        if self._inflight:
            return self.settings.idle_stop_s
        return self._last_used + self.settings.idle_stop_s - time.monotonic()

    def _running_well(self, child: _Child) -> None:
        if child.running() and self._attention is not None:
            self._attention.clear(SOURCE)

    # -- state and attention --------------------------------------------------------------

    def _set_state(self, state: State, why: str) -> None:
        if (state, why) != (self._state, self._why):
            self._state, self._why, self._since = state, why, time.time()

    def _failed(self, stopped: reasons.Stopped, started: float) -> EngineUnavailable:
        """A child crashed or would not start: backoff, state, log and attention; the error
        for the caller waiting on a start."""
        if time.monotonic() - started >= HEALTHY_AFTER_S:
            self._failures = 0
        self._failures += 1
        retry_at: float | None = None
        if stopped.fatal:
            self._fatal = stopped
            self._set_state("unavailable", stopped.reason)
            log.warning("%s: %s; not started again: %s", SOURCE, stopped.reason, stopped.action)
        else:
            wait = backoff_s(FIRST_WAIT_S, self._failures, MAX_WAIT_S)
            self._next_start = time.monotonic() + wait
            retry_at = time.time() + wait
            self._set_state("crashed", stopped.reason)
            log.warning(
                "%s: %s; it starts again at the next request (after %.0f s)",
                SOURCE,
                stopped.reason,
                wait,
            )
        if self._attention is not None:
            self._attention.report(
                SOURCE, "", stopped.code, stopped.reason, action=stopped.action, retry_at=retry_at
            )
        return EngineUnavailable(
            stopped.reason, code=stopped.code, action=stopped.action, retry_at=retry_at
        )

    def _unavailable(self, exc: EngineUnavailable) -> None:
        if (self._state, self._why) != ("unavailable", str(exc)):  # said once, not every call
            log.warning("%s: %s", SOURCE, exc)
        self._set_state("unavailable", str(exc))
        if self._attention is not None:
            self._attention.report(SOURCE, "", exc.code, str(exc), action=exc.action)


def preflight(
    settings: BuiltinSettings,
    *,
    resolve: Resolve = explicit_paths,
    readings: Callable[[], hardware.Readings] = hardware.read,
) -> tuple[sizing.Plan, dict[str, ModelFile], dict[str, str]]:
    """Whether the engine can run here as set up, without starting anything (for `backend =
    "auto"`, `doctor` and `init`): the plan, the models' headers and the roles without a
    model; or EngineUnavailable with the reason and what to do. Reads a few small files."""
    files, missing = model_files(settings, resolve)
    found = readings()
    try:
        plan = sizing.plan(
            settings,
            files,
            cores=found.cores,
            flags=found.flags,
            machine=found.machine,
            available=found.available,
        )
    except sizing.NotRunnable as exc:
        raise EngineUnavailable(str(exc), code=f"engine_{exc.code}") from None
    return plan, files, missing


def _endpoints(
    ready: dict[str, Any], files: dict[str, ModelFile], key: str, missing: dict[str, str]
) -> Endpoints:
    def facts(role: str) -> ModelFacts | None:
        said = ready["models"].get(role)
        if said is None:
            return None
        return ModelFacts(
            role=role,
            url=str(said["url"]),
            alias=str(said["alias"]),
            name=files[role].name,
            path=files[role].path,
            n_ctx=int(said["n_ctx"]),
            n_ctx_train=int(said["n_ctx_train"]),
            n_embd=int(said["n_embd"]),
            tools=bool(said["tools"]),
        )

    return Endpoints(
        chat=facts("chat"),
        embed=facts("embed"),
        api_key=key,
        device=str(ready["device"]),
        threads=int(ready["threads"]),
        pid=int(ready["pid"]),
        missing=missing,
    )


async def _healthy(endpoints: Endpoints) -> bool:
    model = endpoints.chat or endpoints.embed
    if model is None:
        return False
    timeout = aiohttp.ClientTimeout(total=HEALTH_TIMEOUT_S)
    try:
        async with (
            aiohttp.ClientSession(timeout=timeout) as session,
            session.get(f"{model.root}/health") as response,
        ):
            return response.status == 200
    except (aiohttp.ClientError, TimeoutError):
        return False


def _duration(seconds: float) -> str:
    return f"{seconds / 60:.0f} min" if seconds >= 120 else f"{seconds:.0f} s"


def _retrieved(task: asyncio.Task[Endpoints]) -> None:
    """A start whose callers all went (cancelled) must not log 'exception never retrieved'."""
    if not task.cancelled():
        task.exception()
