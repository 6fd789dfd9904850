"""The install a user makes: the built wheel, installed as docs/how-to/install.md says, runs
from a folder of its own with no checkout anywhere on its path, and serves the phone page and the
Obsidian plugin.

The quick start's commands are read from the page and run, as far as they can run here: the
wheel is installed with `uv tool install` (what `pipx install` does: a virtualenv of its own, the
`commonplace` command linked into a bin folder) from uv's cache, offline, with constraints.txt;
the models are "pulled" into the fake Ollama; `init` runs; `service install --dry-run`
writes the unit it would install; the daemon is started as the service starts it
(`commonplace run`), and the page's address is opened over HTTP.

No test downloads anything: `make uv-cache` (which `make test` runs) fills the cache first, at
set-up. A warm install takes seconds where pip takes most of a minute
(docs/measurements/install.md).
"""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import signal
import subprocess
import sys
import tomllib
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest

from commonplace import __version__
from commonplace.basics.resources import PLUGIN_FILES
from commonplace.config import DEFAULT_CHAT_MODEL, DEFAULT_EMBED_MODEL
from tests.daemon_process import WAIT_S, port_of
from tests.fakes.ollama import FakeOllama, run_in_thread

REPO = Path(__file__).resolve().parents[1]
PAGE = REPO / "docs" / "how-to" / "install.md"
DIST_NAME = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]["name"]
UV = [sys.executable, "-m", "uv"]
MAX_COMMANDS = 8


def quick_start() -> list[str]:
    """The commands of the page's quick start (its first sh block), comments dropped."""
    text = PAGE.read_text(encoding="utf-8")
    section = text.split("## Quick start", 1)[1]
    block = re.search(r"```sh\n(.*?)```", section, re.S)
    assert block, "the quick start has no sh block"
    lines = [line.split("  #", 1)[0].strip() for line in block.group(1).splitlines()]
    return [line for line in lines if line]


def uv_cache() -> Path:
    """uv's cache: UV_CACHE_DIR, or the one `make uv-cache` fills beside the virtualenv."""
    cache = Path(os.environ.get("UV_CACHE_DIR") or Path(sys.prefix) / "uv-cache")
    if not (cache / "CACHEDIR.TAG").is_file():
        pytest.fail(f"uv's cache {cache} is not filled: run `make uv-cache` (make test does)")
    return cache


def clean_env(home: Path, cache: Path) -> dict[str, str]:
    """A new user's environment: a home of its own, no checkout on any path, the tool's bin."""
    keep = ("PATH", "LANG", "LC_ALL", "TMPDIR", "TZ", "SYSTEMROOT")
    env = {k: v for k, v in os.environ.items() if k in keep}
    env.update(
        HOME=str(home),
        XDG_CONFIG_HOME=str(home / ".config"),
        XDG_DATA_HOME=str(home / ".local" / "share"),
        XDG_STATE_HOME=str(home / ".local" / "state"),
        XDG_CACHE_HOME=str(home / ".cache"),
        UV_CACHE_DIR=str(cache),
        UV_TOOL_DIR=str(home / ".local" / "share" / "uv" / "tools"),
        UV_TOOL_BIN_DIR=str(home / ".local" / "bin"),
        COMMONPLACE_TIMEZONE="Europe/London",
    )
    env["PATH"] = f"{home / '.local' / 'bin'}{os.pathsep}{env.get('PATH', '')}"
    return env


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The wheel `make wheel` builds (the plugin must be built: `make plugin`)."""
    missing = [f for f in PLUGIN_FILES if not (REPO / "obsidian-bridge" / f).is_file()]
    if missing:
        pytest.fail(
            f"obsidian-bridge/{missing[0]} is not built: run `make plugin` (make test does)"
        )
    out = tmp_path_factory.mktemp("dist")
    subprocess.run(
        [sys.executable, "-m", "hatchling", "build", "-t", "wheel", "-d", str(out)],
        cwd=REPO,
        check=True,
        capture_output=True,
        timeout=300,
    )
    (built,) = out.glob("*.whl")
    return built


@pytest.fixture
def fake() -> Iterator[FakeOllama]:
    """A fake Ollama that has no model yet: the quick start pulls them."""
    model = FakeOllama(models=())
    with run_in_thread(model):
        yield model


def run(cmd: list[str], env: dict[str, str], cwd: Path) -> subprocess.CompletedProcess[str]:
    result = subprocess.run(cmd, env=env, cwd=cwd, capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, f"{shlex.join(cmd)}:\n{result.stdout}\n{result.stderr}"
    return result


def get(url: str) -> tuple[int, bytes, str]:
    with urllib.request.urlopen(url, timeout=30) as response:
        return response.status, response.read(), response.headers.get("Content-Type", "")


def test_the_quick_start_is_at_most_eight_commands_of_the_program_as_it_is() -> None:
    commands = quick_start()
    assert len(commands) <= MAX_COMMANDS, commands
    assert f"pipx install {DIST_NAME}" in commands
    pulled = {c.split()[-1] for c in commands if c.startswith("ollama pull ")}
    assert pulled == {DEFAULT_CHAT_MODEL, DEFAULT_EMBED_MODEL}
    assert any(c.startswith("commonplace init") for c in commands)
    assert "commonplace service install" in commands
    assert any("http://127.0.0.1:8765/" in c for c in commands)


@pytest.mark.slow
def test_the_installed_wheel_serves_the_phone_page_and_the_plugin_with_no_checkout(
    wheel: Path, fake: FakeOllama, tmp_path: Path
) -> None:
    home = tmp_path / "home"
    home.mkdir()
    away = tmp_path / "elsewhere"  # every command runs here, outside the repository
    away.mkdir()
    env = clean_env(home, uv_cache())
    env["OLLAMA_HOST"] = fake.url
    commands = quick_start()
    port = 0
    proc: subprocess.Popen[str] | None = None
    try:
        for line in commands:
            argv = shlex.split(line)
            if argv[:2] == ["pipx", "install"]:
                # What pipx does, with the wheel in place of the index's copy, offline.
                assert argv[2] == DIST_NAME
                cmd = [*UV, "tool", "install", "--offline", "--python", sys.executable]
                run([*cmd, "-c", str(REPO / "constraints.txt"), str(wheel)], env, away)
                program = home / ".local" / "bin" / "commonplace"
                assert program.exists()
                listed = run([str(program), "--help"], env, away).stdout
                for name in ("init", "service"):
                    assert re.search(rf"\n  {name} ", listed), f"no {name} command"
                check_installed(program, env, away, home)
            elif argv[:2] == ["ollama", "pull"]:
                fake.add_model(argv[2])
            elif argv[:2] == ["commonplace", "init"]:
                vault = Path(argv[argv.index("--vault") + 1].replace("~", str(home)))
                installed_sample(program, env, away, vault)
                run([str(program), *argv[1:]], env, away)
            elif argv[:3] == ["commonplace", "service", "install"]:
                unit = run([str(program), "service", "install", "--dry-run"], env, away).stdout
                assert f"ExecStart={program}" in unit, unit
                # The service runs `commonplace run`: started here as it would start it.
                proc = subprocess.Popen(
                    [str(program), "run", "--port", "0"],
                    env=env,
                    cwd=away,
                    stdout=subprocess.DEVNULL,
                    stderr=subprocess.PIPE,
                    text=True,
                )
                port = port_of(home / ".local" / "share" / "commonplace", proc, WAIT_S)
            elif "http://127.0.0.1:8765/" in line:
                assert proc is not None and port
                check_served(f"http://127.0.0.1:{port}")
            elif not line.startswith("curl "):  # installing Ollama itself: the fake stands in
                raise AssertionError(
                    f"the quick start has a command this test does not run: {line}"
                )
        assert proc is not None and port, "the quick start never started the daemon"
        doctor = subprocess.run(
            [str(program), "doctor"],
            env={**env, "COMMONPLACE_VAULT": str(vault)},
            cwd=away,
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert f"ok   version: commonplace {__version__}" in doctor.stdout, doctor.stdout
        assert f"ok   chat model: {DEFAULT_CHAT_MODEL}" in doctor.stdout, doctor.stdout
        assert f"ok   embedding model: {DEFAULT_EMBED_MODEL}" in doctor.stdout, doctor.stdout
    finally:
        log = stop(proc)
    assert str(REPO) not in log, log  # nothing at run time came from the checkout


def stop(proc: subprocess.Popen[str] | None) -> str:
    """SIGTERM, as a service manager stops it; its log. A clean stop exits 0."""
    if proc is None:
        return ""
    proc.send_signal(signal.SIGTERM)
    try:
        _, log = proc.communicate(timeout=60)
    except subprocess.TimeoutExpired:
        proc.kill()
        _, log = proc.communicate()
    assert proc.returncode == 0, log
    return log


def check_installed(program: Path, env: dict[str, str], away: Path, home: Path) -> None:
    """The program and every file it ships come from the tool's own folder."""
    assert run([str(program), "--version"], env, away).stdout.strip().endswith(__version__)
    python = program.resolve().parent / "python"
    script = (
        "import json, commonplace, commonplace.prompts as p; "
        "from commonplace.basics.resources import resource_dir, plugin_files; "
        "print(json.dumps([commonplace.__file__, str(resource_dir('web')), "
        "str(resource_dir('vault_fixture')), p.__path__[0], "
        "*map(str, plugin_files().values())]))"
    )
    paths = json.loads(run([str(python), "-c", script], env, away).stdout)
    tools = str(home / ".local" / "share" / "uv" / "tools")
    assert len(paths) == 4 + len(PLUGIN_FILES)
    assert all(p.startswith(tools) for p in paths), paths


def installed_sample(program: Path, env: dict[str, str], away: Path, vault: Path) -> None:
    """The vault of the quick start: a copy of the sample vault the wheel carries."""
    python = program.resolve().parent / "python"
    script = (
        "from commonplace.basics.resources import resource_dir; "
        "print(resource_dir('vault_fixture'))"
    )
    sample = Path(run([str(python), "-c", script], env, away).stdout.strip())
    shutil.copytree(sample, vault, ignore=shutil.ignore_patterns("captures", "calendar"))


def check_served(base: str) -> None:
    """The phone page, the API's version and the plugin's three files, over HTTP."""
    status, body, ctype = get(f"{base}/")
    assert status == 200 and ctype.startswith("text/html")
    assert b"manifest.webmanifest" in body
    _, state, _ = get(f"{base}/api/state")
    assert json.loads(state)["daemon"]["version"] == __version__
    for name in PLUGIN_FILES:
        status, body, _ = get(f"{base}/obsidian-plugin/{name}")
        assert status == 200
        assert body == (REPO / "obsidian-bridge" / name).read_bytes(), name
    _, manifest, _ = get(f"{base}/obsidian-plugin/manifest.json")
    assert json.loads(manifest)["id"] == "commonplace"
