"""The supervisor (engine/process.py) with the real child and llama.cpp: started at first need,
started again after `kill -9` in the middle of a request, stopped when idle and with its owner,
and every failure told in words in attention.

Where the test is about how the supervisor takes a child's death at load (SIGILL, an exit),
the child is a few lines of Python that speak its protocol (a JSON line in, then dying): a fake
at the process boundary, so no model is loaded for nothing."""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import aiohttp
import pytest

from commonplace.config import BuiltinSettings
from commonplace.engine import hardware, process
from commonplace.engine.api import SOURCE, EngineUnavailable
from commonplace.engine.process import EngineProcess
from commonplace.runtime.attention import Attention
from tests.engine.conftest import THREADS

pytestmark = pytest.mark.xdist_group("engine")

WAIT_S = 60.0
X86_WITHOUT_AVX2 = frozenset({"sse4_2", "avx", "fma", "f16c", "bmi2"})


async def until(check: Callable[[], bool], what: str) -> None:
    deadline = time.monotonic() + WAIT_S
    while not check():
        assert time.monotonic() < deadline, f"not within {WAIT_S:.0f} s: {what}"
        await asyncio.sleep(0.05)


def gone(pid: int) -> bool:
    """The process has ended (a zombie waiting for a parent that is gone counts as ended)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    try:
        return "\nState:\tZ" in Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return True


def settings(model: Path, **more: object) -> BuiltinSettings:
    defaults = {"context": 512, "threads": THREADS}
    return BuiltinSettings(chat_model=str(model), **{**defaults, **more})  # type: ignore[arg-type]


async def chat(url: str, headers: dict[str, str], **body: object) -> aiohttp.ClientResponse:
    request = {"messages": [{"role": "user", "content": "Say hello."}], "max_tokens": 4, **body}
    async with (
        aiohttp.ClientSession(headers=headers) as session,
        session.post(f"{url}/chat/completions", json=request) as response,
    ):
        await response.read()
        return response


async def test_it_starts_at_first_need_and_once_for_callers_at_the_same_time(
    gguf: Callable[[str], Path],
) -> None:
    engine = EngineProcess(settings(gguf("gemma")))
    assert (engine.status().state, engine.pid, engine.starts) == ("stopped", None, 0)
    assert engine.status().line() == "built-in model · stopped: it starts at the first request"
    try:
        first, second, third = await asyncio.gather(*(engine.endpoints() for _ in range(3)))
        assert engine.starts == 1 and first.pid == second.pid == third.pid == engine.pid
        assert first.chat is not None and first.embed is None
        assert first.missing == {"embed": "no embedding model is set up for the built-in engine"}
        assert (first.chat.name, first.chat.n_ctx) == ("Gemma 3 270m", 512)
        assert engine.status().line() == "built-in model · CPU · 1 thread · loaded"
        assert (await chat(first.chat.url, first.headers())).status == 200
        assert await engine.check()
        assert (await engine.endpoints()).pid == first.pid and engine.starts == 1
    finally:
        await engine.close()
    assert gone(first.pid)
    assert engine.status().line().endswith("stopped: the daemon stopped")
    with pytest.raises(EngineUnavailable, match="stopping"):
        await engine.endpoints()


async def test_kill_9_in_the_middle_of_a_request_fails_that_call_and_the_next_one_works(
    gguf: Callable[[str], Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(process, "RUNNING_WELL_S", 1.0)
    attention = Attention()
    engine = EngineProcess(settings(gguf("gemma")), attention=attention)
    try:
        with pytest.raises(aiohttp.ClientError):
            async with (
                engine.use() as endpoints,
                aiohttp.ClientSession(headers=endpoints.headers()) as session,
            ):
                assert endpoints.chat is not None
                body = {
                    "messages": [{"role": "user", "content": "Tell me a long story."}],
                    "max_tokens": 400,
                    "ignore_eos": True,
                    "stream": True,
                }
                async with session.post(f"{endpoints.chat.url}/chat/completions", json=body) as r:
                    assert r.status == 200
                    await r.content.readline()  # it is answering: now it dies
                    os.kill(endpoints.pid, signal.SIGKILL)
                    await r.read()
        killed = endpoints.pid
        await until(lambda: engine.status().state == "crashed", "the crash is seen")
        entry = attention.get(SOURCE)
        assert entry is not None and entry.code == "engine_killed"
        assert entry.reason.startswith("its process was killed (SIGKILL) during a request")
        assert "run out of memory" in entry.reason and "starts again" in entry.action
        assert engine.status().line().split(" · ")[-1].startswith("crashed: its process was")

        again = await engine.endpoints()  # waits out the first backoff (1 s), then starts
        assert again.pid != killed and engine.starts == 2 and gone(killed)
        assert again.chat is not None
        assert (await chat(again.chat.url, again.headers())).status == 200
        assert engine.status().state == "loaded"
        await until(lambda: attention.get(SOURCE) is None, "running well clears attention")
    finally:
        await engine.close()


async def test_it_stops_when_idle_but_never_under_a_call(gguf: Callable[[str], Path]) -> None:
    engine = EngineProcess(settings(gguf("gemma"), idle_stop_s=1.0))
    try:
        async with engine.use() as endpoints:
            await asyncio.sleep(2.5)  # longer than idle_stop_s, with a call in flight
            assert engine.pid == endpoints.pid
        await until(lambda: engine.pid is None, "the idle stop")
        assert gone(endpoints.pid)
        assert engine.status().why == "idle for 1 s; it starts again at the next request"
        again = await engine.endpoints()
        assert again.pid != endpoints.pid and engine.starts == 2
    finally:
        await engine.close()
    assert gone(again.pid)


async def test_a_server_that_stops_answering_is_ended_and_said_so(
    gguf: Callable[[str], Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(process, "HEALTH_EVERY_S", 0.3)
    monkeypatch.setattr(process, "HEALTH_TIMEOUT_S", 0.5)
    attention = Attention()
    engine = EngineProcess(settings(gguf("gemma")), attention=attention)
    try:
        endpoints = await engine.endpoints()
        os.kill(endpoints.pid, signal.SIGSTOP)  # alive, and answering nothing
        await until(lambda: engine.status().state == "crashed", "the hung child is ended")
        assert gone(endpoints.pid)
        entry = attention.get(SOURCE)
        assert entry is not None and entry.code == "engine_not_answering"
        assert entry.reason.startswith("its server stopped answering (/health")
    finally:
        await engine.close()


def test_the_child_ends_with_its_owner_even_one_killed_with_sigkill(
    gguf: Callable[[str], Path], tmp_path: Path
) -> None:
    owner = tmp_path / "owner.py"
    owner.write_text(
        "import asyncio, sys\n"
        "from commonplace.config import BuiltinSettings\n"
        "from commonplace.engine.process import EngineProcess\n"
        "async def main():\n"
        "    settings = BuiltinSettings(chat_model=sys.argv[1], context=512, threads=1)\n"
        "    engine = EngineProcess(settings)\n"
        "    print((await engine.endpoints()).pid, flush=True)\n"
        "    await asyncio.sleep(3600)\n"
        "asyncio.run(main())\n"
    )
    proc = subprocess.Popen(
        [sys.executable, str(owner), str(gguf("gemma"))], stdout=subprocess.PIPE, text=True
    )
    assert proc.stdout is not None
    child = int(proc.stdout.readline())
    assert not gone(child)
    proc.kill()
    proc.wait()
    deadline = time.monotonic() + WAIT_S
    while not gone(child):
        assert time.monotonic() < deadline, "the child outlived its owner"
        time.sleep(0.05)


# -- refused before anything is loaded ----------------------------------------------------------


async def test_a_processor_without_avx2_is_refused_with_what_to_do_instead(
    gguf: Callable[[str], Path],
) -> None:
    attention = Attention()
    readings = hardware.Readings(cores=2, flags=X86_WITHOUT_AVX2, machine="x86_64", available=None)
    engine = EngineProcess(settings(gguf("gemma")), attention=attention, readings=lambda: readings)
    for _ in range(2):  # the second refusal is at once: no processor grows AVX2
        with pytest.raises(EngineUnavailable) as caught:
            await engine.endpoints()
        assert caught.value.code == "engine_cpu"
        assert "lacks AVX2" in str(caught.value) and "use Ollama" in str(caught.value)
        assert '[model] backend = "ollama"' in str(caught.value)
    assert engine.starts == 0 and engine.status().state == "unavailable"
    entry = attention.get(SOURCE)
    assert entry is not None and entry.code == "engine_cpu"


async def test_too_little_memory_is_refused_with_what_to_do_instead(
    gguf: Callable[[str], Path],
) -> None:
    attention = Attention()
    readings = hardware.Readings(cores=2, flags=None, machine="arm64", available=200_000_000)
    engine = EngineProcess(
        BuiltinSettings(chat_model=str(gguf("gemma"))),
        attention=attention,
        readings=lambda: readings,
    )
    with pytest.raises(EngineUnavailable) as caught:
        await engine.endpoints()
    said = str(caught.value)
    assert caught.value.code == "engine_memory" and engine.starts == 0
    assert "needs about 0.7 GB of free memory (Gemma 3 270m (0.3 GB))" in said
    assert "has 0.2 GB free" in said and "smaller model" in said and "Ollama" in said
    entry = attention.get(SOURCE)
    assert entry is not None and entry.reason == said


async def test_a_model_path_that_is_no_file_names_the_setting(tmp_path: Path) -> None:
    engine = EngineProcess(BuiltinSettings(chat_model=str(tmp_path / "nope.gguf")))
    with pytest.raises(EngineUnavailable, match=r"\[builtin\] chat_model = '.*nope.gguf' is not a"):
        await engine.endpoints()
    no_model = EngineProcess(BuiltinSettings())
    with pytest.raises(EngineUnavailable, match="no model is set up") as caught:
        await no_model.endpoints()
    assert "commonplace models get" in caught.value.action


async def test_the_model_stores_own_sentence_is_the_engines(gguf: Callable[[str], Path]) -> None:
    """The resolver is engine.store's find(): its error says which command fixes it."""

    def resolve(role: str, configured: str) -> Path | None:
        raise LookupError(f"the {role} model {configured} is not installed: `models get` it")

    attention = Attention()
    engine = EngineProcess(
        BuiltinSettings(chat_model="qwen3-4b"), resolve=resolve, attention=attention
    )
    with pytest.raises(EngineUnavailable) as caught:
        await engine.endpoints()
    assert str(caught.value) == "the chat model qwen3-4b is not installed: `models get` it"
    assert caught.value.code == "engine_model_missing" and engine.starts == 0
    entry = attention.get(SOURCE)
    assert entry is not None and entry.reason == str(caught.value)


# -- children that die at load: the protocol's fake ---------------------------------------------


def dying(runs: Path, how: str) -> list[str]:
    """A child that reads its plan, counts its run in `runs`, and dies `how`."""
    code = (
        "import os, resource, signal, sys\n"
        "resource.setrlimit(resource.RLIMIT_CORE, (0, 0))\n"
        "sys.stdin.readline()\n"
        "with open(sys.argv[1], 'a') as f: f.write('run\\n')\n"
        f"{how}\n"
    )
    return [sys.executable, "-c", code, str(runs)]


async def test_a_child_dying_of_sigill_at_load_is_told_and_never_tried_again(
    gguf: Callable[[str], Path], tmp_path: Path
) -> None:
    runs = tmp_path / "runs"
    attention = Attention()
    command = dying(runs, "os.kill(os.getpid(), signal.SIGILL)")
    engine = EngineProcess(settings(gguf("gemma")), attention=attention, command=command)
    for _ in range(2):
        with pytest.raises(EngineUnavailable) as caught:
            await engine.endpoints()
        assert caught.value.code == "engine_cpu" and caught.value.retry_at is None
        assert "(SIGILL) while loading its models" in str(caught.value)
        assert "needs AVX2" in str(caught.value) and "Ollama" in caught.value.action
    assert runs.read_text() == "run\n"  # tried once
    assert engine.status().state == "unavailable"
    entry = attention.get(SOURCE)
    assert entry is not None and entry.code == "engine_cpu" and entry.retry_at is None


async def test_crashes_at_load_are_tried_again_after_a_growing_wait(
    gguf: Callable[[str], Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(process, "WAIT_FOR_RESTART_S", 1.5)  # the first wait (1 s) is waited out
    runs = tmp_path / "runs"
    attention = Attention()
    engine = EngineProcess(
        settings(gguf("gemma")), attention=attention, command=dying(runs, "sys.exit(3)")
    )
    for _ in range(2):
        with pytest.raises(EngineUnavailable) as caught:
            await engine.endpoints()
        assert caught.value.code == "engine_crashed"
        assert str(caught.value) == "its process stopped (exit code 3) while loading its models"
    with pytest.raises(EngineUnavailable) as caught:  # now the wait is 2 s: refused at once
        await engine.endpoints()
    assert caught.value.code == "engine_waiting" and caught.value.retry_at is not None
    assert caught.value.retry_at > time.time() + 0.5
    assert runs.read_text() == "run\nrun\n"
    entry = attention.get(SOURCE)
    assert entry is not None and entry.count == 2 and entry.retry_at is not None
    await engine.close()


def test_preflight_says_whether_it_can_run_without_starting_anything(
    gguf: Callable[[str], Path],
) -> None:
    """What `backend = "auto"` and doctor ask before choosing the built-in engine."""
    plan, files, missing = process.preflight(settings(gguf("gemma")))
    assert [m.role for m in plan.models] == ["chat"] and files["chat"].name == "Gemma 3 270m"
    assert missing == {"embed": "no embedding model is set up for the built-in engine"}
    little = hardware.Readings(cores=1, flags=None, machine="arm64", available=1)
    with pytest.raises(EngineUnavailable) as caught:
        process.preflight(settings(gguf("gemma")), readings=lambda: little)
    assert caught.value.code == "engine_memory"


async def test_a_child_that_says_something_else_is_ended_not_waited_for(
    gguf: Callable[[str], Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(process, "STOP_WAIT_S", 0.5)
    runs = tmp_path / "runs"
    command = dying(runs, "print('hello', flush=True); import time; time.sleep(600)")
    engine = EngineProcess(settings(gguf("gemma")), command=command)
    with pytest.raises(EngineUnavailable, match="something other than its ready line"):
        await engine.endpoints()
    assert engine.pid is None and runs.read_text() == "run\n"
