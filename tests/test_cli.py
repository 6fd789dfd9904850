"""The command line as a user meets it: doctor, help, config errors, packaging."""

from __future__ import annotations

import logging
import os
import shlex
import subprocess
import sys
import zipfile
from collections.abc import Iterator
from pathlib import Path

import click
import pytest
from click.testing import CliRunner

from commonplace.cli.main import COMMANDS, cli
from commonplace.config import Settings
from commonplace.doctor.models import model_checks
from commonplace.llm import ModelStatus
from tests.fakes.ollama import FakeOllama
from tests.models import with_model

REPO = Path(__file__).resolve().parents[1]


def test_doctor_reports_each_check(fake_ollama_thread: FakeOllama, vault: Path) -> None:
    result = CliRunner().invoke(cli, ["doctor"], env={"COMMONPLACE_VAULT": str(vault)})
    lines = result.output.splitlines()
    assert [line.split(":")[0] for line in lines] == [
        "ok   version",
        "ok   config",
        "ok   vault",
        "ok   attachments",
        "ok   data folder",
        "ok   timezone",
        "ok   ollama",
        "ok   chat model",
        "ok   embedding model",
        "ok   lease",
        "ok   inbox",
        "ok   daemon",
        "ok   phone page",
        "ok   log",
        "ok   calendar",
        "ok   weather",
    ]
    assert "24 notes" in result.output
    assert result.exit_code == 0


def test_doctor_says_what_the_editors_exclusions_keep_out_of_search(
    fake_ollama_thread: FakeOllama, vault: Path
) -> None:
    (vault / ".obsidian").mkdir()
    (vault / ".obsidian/app.json").write_text('{"userIgnoreFilters": ["Recipes/", "/[bad/"]}')
    result = CliRunner().invoke(cli, ["doctor"], env={"COMMONPLACE_VAULT": str(vault)})
    assert "/[bad/" in result.output and "is not a regular expression" in result.output
    recipes = sum(1 for _ in (vault / "Recipes").glob("*.md"))
    assert recipes > 0
    assert (
        f"ok   excluded: {recipes} of 24 notes kept out of search by Obsidian's excluded files "
        "(.obsidian/app.json): 1 rule" in result.output
    )


def test_doctor_says_which_files_hold_words_it_does_not_read(
    fake_ollama_thread: FakeOllama, vault: Path
) -> None:
    env = {"COMMONPLACE_VAULT": str(vault)}
    assert "other formats" not in CliRunner().invoke(cli, ["doctor"], env=env).output
    (vault / "pages").mkdir()
    for name in ("Reading.org", "Garden.ORG"):
        (vault / "pages" / name).write_text("* Heading\n  words\n", encoding="utf-8")
    (vault / "Plans.canvas").write_text('{"nodes": []}', encoding="utf-8")
    (vault / ".trash").mkdir()  # an app folder is not the owner's pages: not counted
    (vault / ".trash/Old.org").write_text("* gone\n", encoding="utf-8")
    (vault / "Linked.org").symlink_to(vault / "pages/Reading.org")  # never followed
    result = CliRunner().invoke(cli, ["doctor"], env=env)
    assert (
        "warn other formats: 1 canvas (.canvas), 2 Org-mode pages (.org): Commonplace reads "
        "Markdown notes only, so their words are not searched, asked about or tidied"
    ) in result.output
    assert (vault / "pages/Reading.org").read_text(encoding="utf-8") == "* Heading\n  words\n"


def test_doctor_names_the_model_to_pull(fake_ollama_thread: FakeOllama, vault: Path) -> None:
    env = {"COMMONPLACE_VAULT": str(vault), "COMMONPLACE_CHAT_MODEL": "qwen3.5:4b"}
    result = CliRunner().invoke(cli, ["doctor"], env=env)
    assert "FAIL chat model: qwen3.5:4b is not pulled; run: ollama pull qwen3.5:4b" in result.output
    assert "ok   embedding model" in result.output
    assert result.exit_code == 1


def test_doctor_says_when_a_model_cannot_do_its_job(
    fake_ollama_thread: FakeOllama, vault: Path
) -> None:
    """Ollama's /api/show lists what each model can do: a pulled model in the wrong role fails
    here, in words naming the setting, before a capture or a search meets Ollama's refusal."""
    fake_ollama_thread.add_model("gemma3:4b", "completion", "vision")
    env = {
        "COMMONPLACE_VAULT": str(vault),
        "COMMONPLACE_CHAT_MODEL": "nomic-embed-text",
        "COMMONPLACE_EMBED_MODEL": "qwen3.5:9b",
    }
    result = CliRunner().invoke(cli, ["doctor"], env=env)
    assert (
        "FAIL chat model: nomic-embed-text is pulled but is not a chat model (Ollama lists it "
        "as: embedding); set [model] chat_model to one, e.g. qwen3.5:9b"
    ) in result.output
    assert (
        "FAIL embedding model: qwen3.5:9b is pulled but is not an embedding model (Ollama lists "
        "it as: completion, tools, thinking); set [model] embed_model to one, e.g. "
        "nomic-embed-text"
    ) in result.output
    assert result.exit_code == 1
    env = {"COMMONPLACE_VAULT": str(vault), "COMMONPLACE_CHAT_MODEL": "gemma3:4b"}
    result = CliRunner().invoke(cli, ["doctor"], env=env)
    assert (
        "warn chat model: gemma3:4b is pulled but cannot call tools, so the assistant cannot "
        "use it (tidy, ask and the digest can)"
    ) in result.output
    assert result.exit_code == 0


def test_doctor_fails_a_model_ollama_runs_elsewhere(
    fake_ollama_thread: FakeOllama, vault: Path
) -> None:
    fake_ollama_thread.add_model("mine:latest", remote_host="https://ollama.com:443")
    env = {"COMMONPLACE_VAULT": str(vault), "COMMONPLACE_CHAT_MODEL": "mine"}
    result = CliRunner().invoke(cli, ["doctor"], env=env)
    assert (
        "FAIL chat model: mine is a cloud model: Ollama sends its requests, with your notes, "
        "to https://ollama.com:443; pick a model that runs on this computer"
    ) in result.output
    assert result.exit_code == 1


def test_doctor_says_think_on_is_refused_by_a_model_that_cannot_think(
    settings: Settings,
) -> None:
    on = with_model(settings, chat_model="llama3.2:3b", think="on")
    status = ModelStatus(
        True, "http://x", version="0.12.6", models=("llama3.2:3b", "nomic-embed-text:latest")
    )
    caps = {"llama3.2:3b": ["completion", "tools"], "nomic-embed-text": ["embedding"]}
    names = {"chat_model": "llama3.2:3b", "embed_model": "nomic-embed-text"}
    chat, embed = model_checks(on, status, caps, **names)[1:]
    assert chat.level == "fail" and 'set [model] think = "off"' in chat.message
    assert embed.level == "ok"
    assert model_checks(on, status, **names)[1].level == "ok"  # an Ollama that does not say


def test_doctor_with_ollama_down(dead_ollama_url: str, tmp_path: Path) -> None:
    env = {"OLLAMA_HOST": dead_ollama_url, "COMMONPLACE_VAULT": str(tmp_path / "missing")}
    result = CliRunner().invoke(cli, ["doctor"], env=env)
    assert "FAIL vault:" in result.output
    assert f"FAIL ollama: Ollama is not answering at {dead_ollama_url}" in result.output
    assert result.exit_code == 1


def test_bad_config_is_one_line_not_a_traceback(tmp_path: Path) -> None:
    config = tmp_path / "c.toml"
    config.write_text('flavor = "roam"\n')
    result = CliRunner().invoke(cli, ["--config", str(config), "doctor"])
    assert result.exit_code == 1
    assert result.output.strip().startswith("Error:")
    assert "flavor = 'roam' is not allowed" in result.output
    assert "Traceback" not in result.output


def test_every_command_has_help_and_loads() -> None:
    runner = CliRunner()
    listing = runner.invoke(cli, ["--help"]).output
    for name in COMMANDS:
        assert name in listing
        command = cli.get_command(click.Context(cli), name)
        assert command is not None and command.help, f"command {name} has no help text"
        result = runner.invoke(cli, [name, "--help"])
        assert result.exit_code == 0, result.output


def test_help_does_not_import_the_index() -> None:
    code = "import sys; from commonplace.cli.main import main; sys.argv=['c','--help']\n"
    code += "try:\n    main()\nexcept SystemExit:\n    pass\nprint('lancedb' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip().endswith("False")


@pytest.mark.slow
def test_wheel_ships_the_phone_page_and_the_sample_vault(tmp_path: Path) -> None:
    """The wheel `make wheel` builds (the plugin built first: make test does)."""
    subprocess.run(
        [sys.executable, "-m", "hatchling", "build", "-t", "wheel", "-d", str(tmp_path)],
        cwd=REPO,
        check=True,
        capture_output=True,
        env={**os.environ, "COMMONPLACE_WHEEL_NEEDS_PLUGIN": "1"},  # as make wheel builds it
    )
    (wheel,) = tmp_path.glob("commonplace_vault-*.whl")  # the distribution's name
    names = set(zipfile.ZipFile(wheel).namelist())
    assert "commonplace/_data/web/index.html" in names
    for name in ("main.js", "manifest.json", "styles.css", "LICENSE"):  # the built plugin
        assert f"commonplace/_data/obsidian-bridge/{name}" in names
    assert any(n.endswith(".dist-info/licenses/LICENSE") for n in names)
    assert "commonplace/_data/vault_fixture/Home.md" in names
    assert "commonplace/prompts/__init__.py" in names
    assert any(n.startswith("commonplace/_data/vault_fixture/captures/") for n in names)


def test_doctor_shows_captures_waiting_and_marked(
    fake_ollama_thread: FakeOllama, vault: Path, tmp_path: Path
) -> None:
    from commonplace.config import load_settings
    from commonplace.tidy.state import TidyState

    (vault / "Inbox").mkdir()
    (vault / "Inbox" / "2026-10-19 0812.md").write_text("---\ncaptured: 2026-10-19T08:12\n---\nx\n")
    env = {"COMMONPLACE_VAULT": str(vault), "COMMONPLACE_DATA": str(tmp_path / "data")}
    settings = load_settings(env=env)
    TidyState(settings.data_path).garbage("Inbox/2026-10-19 0812.md", "h", "it was not JSON", 1)
    result = CliRunner().invoke(cli, ["doctor"], env=env)
    assert "ok   inbox: 1 capture(s) waiting to be tidied" in result.output
    assert "warn tidy: Inbox/2026-10-19 0812.md was not filed after 1 tries (it was not JSON)" in (
        result.output
    )


def test_doctor_shows_what_the_running_daemon_needs_attention_for(
    fake_ollama_thread: FakeOllama, vault: Path, tmp_path: Path
) -> None:
    import json
    import os
    import socket

    from commonplace.config import load_settings
    from commonplace.runtime.attention import Attention, attention_file
    from commonplace.runtime.lock import LOCK_NAME
    from commonplace.tidy.state import TidyState

    env = {"COMMONPLACE_VAULT": str(vault), "COMMONPLACE_DATA": str(tmp_path / "data")}
    settings = load_settings(env=env)
    result = CliRunner().invoke(cli, ["doctor"], env=env)
    assert "ok   daemon: not running on this vault" in result.output

    rel = "Inbox/2026-10-19 0812.md"
    TidyState(settings.data_path).garbage(rel, "h", "it was not JSON", 1)
    attention = Attention(attention_file(settings.data_path))
    attention.report("tidy", rel, "unusable_answers", "3 unusable answers", action="edit it")
    attention.report("job queue", "", "task_restarted", "stopped after an unexpected error")
    lock = {"host": socket.gethostname(), "pid": os.getpid(), "started": 0}
    (settings.data_path / LOCK_NAME).write_text(json.dumps(lock))
    result = CliRunner().invoke(cli, ["doctor"], env=env)
    assert "ok   daemon: running; 2 thing(s) need your attention:" in result.output
    assert f"warn tidy: {rel}: 3 unusable answers; edit it" in result.output
    assert "warn job queue: stopped after an unexpected error" in result.output
    assert "was not filed after" not in result.output  # the mark is said once, not twice


def test_doctor_says_once_what_many_captures_have_in_common(
    fake_ollama_thread: FakeOllama, vault: Path, tmp_path: Path
) -> None:
    """A chat model that answers garbage marks every capture: one line names them, not one
    line each (the sample's twenty made a screenful)."""
    import json
    import os
    import socket

    from commonplace.config import load_settings
    from commonplace.runtime.attention import Attention, attention_file
    from commonplace.runtime.lock import LOCK_NAME

    env = {"COMMONPLACE_VAULT": str(vault), "COMMONPLACE_DATA": str(tmp_path / "data")}
    settings = load_settings(env=env)
    attention = Attention(attention_file(settings.data_path))
    for minute in range(10, 30):
        rel = f"Inbox/2026-10-19 08{minute}.md"
        attention.report(
            "tidy", rel, "unusable_answers", "3 unusable answers", action=f"run: tidy '{rel}'"
        )
    lock = {"host": socket.gethostname(), "pid": os.getpid(), "started": 0}
    (settings.data_path / LOCK_NAME).write_text(json.dumps(lock))
    result = CliRunner().invoke(cli, ["doctor"], env=env)
    assert "ok   daemon: running; 20 thing(s) need your attention:" in result.output
    assert (
        "warn tidy: 20 files (Inbox/2026-10-19 0810.md, Inbox/2026-10-19 0811.md, "
        "Inbox/2026-10-19 0812.md and 17 more): 3 unusable answers; "
        "run: tidy 'Inbox/2026-10-19 0810.md' (the same for each file)"
    ) in result.output
    assert result.output.count("warn tidy") == 1


def test_without_a_vault_the_commands_point_at_the_sample_that_make_run_uses(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`make run` with no vault configured runs on a sample copy; a new user who then types
    `commonplace search` in another terminal is told how to reach it, not only to set a vault."""
    scratch = tmp_path / "commonplace-sample"
    monkeypatch.setattr("commonplace.firstrun.sample.sample_scratch", lambda: scratch)
    env = {"HOME": str(tmp_path / "home")}
    before = CliRunner().invoke(cli, ["search", "bread"], env=env)
    assert before.exit_code == 1
    assert "does not exist; run `commonplace init` (it finds your vault" in before.output
    (scratch / "Sample vault").mkdir(parents=True)
    after = CliRunner().invoke(cli, ["search", "bread"], env=env)
    assert after.exit_code == 1
    vault, data = shlex.quote(str(scratch / "Sample vault")), scratch / "data"
    assert f"export COMMONPLACE_VAULT={vault} COMMONPLACE_DATA={data}" in after.output


SampleRun = tuple[Path, dict[str, str], list[Path]]


@pytest.fixture
def sample_run(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[SampleRun]:
    """`make run`'s command on a scratch folder of its own, with the daemon itself replaced by
    one that records the vault it was given. `run` sets the commonplace logger to INFO for the
    process; put back afterwards, or the tests after these would see no DEBUG lines."""
    import commonplace.cli.run as run_cli

    scratch = tmp_path / "commonplace-sample"
    started: list[Path] = []
    monkeypatch.setattr("commonplace.firstrun.sample.sample_scratch", lambda: scratch)

    async def fake_daemon(settings: object) -> None:
        started.append(settings.vault)  # type: ignore[attr-defined]

    monkeypatch.setattr(run_cli, "run_daemon", fake_daemon)
    logger = logging.getLogger("commonplace")
    level = logger.level
    yield scratch, {"HOME": str(tmp_path / "home")}, started
    logger.setLevel(level)


def test_a_second_make_run_leaves_the_running_samples_vault_alone(sample_run: SampleRun) -> None:
    """A second `make run` replaced the sample vault under the daemon already running on it,
    deleting a capture sent a moment before; now it stops with what to do."""
    import json
    import os
    import socket
    import time

    from commonplace.config import load_settings

    scratch, env, started = sample_run
    first = CliRunner().invoke(cli, ["run", "--sample-if-unset"], env=env)
    assert first.exit_code == 0, first.output
    sample = scratch / "Sample vault"
    capture = sample / "Inbox" / "2026-12-01 0246.md"
    capture.write_text("ring the garage about the MOT\n")
    data = load_settings(
        env={"COMMONPLACE_VAULT": str(sample), "COMMONPLACE_DATA": str(scratch / "data")}
    ).data_path
    data.mkdir(parents=True, exist_ok=True)
    lock = {"host": socket.gethostname(), "pid": os.getpid(), "started": time.time(), "port": 8765}
    (data / "daemon.lock").write_text(json.dumps(lock))

    for fresh in ([], ["--fresh-sample"]):  # make run, and make run FRESH=1
        second = CliRunner().invoke(cli, ["run", "--sample-if-unset", *fresh], env=env)
        assert second.exit_code == 1
        assert f"already running on the sample vault (pid {os.getpid()}" in second.output
        assert "http://127.0.0.1:8765/" in second.output
        assert capture.read_text() == "ring the garage about the MOT\n"
    assert started == [sample]  # the others never started a daemon


def test_make_run_keeps_the_samples_copy_and_what_was_captured_in_it(
    sample_run: SampleRun,
) -> None:
    """Restarting `make run` deleted the capture a newcomer had made in the sample, without a
    word. Now the copy and its data folder are kept across restarts, and the run says so, and
    how to start over."""
    scratch, env, started = sample_run
    first = CliRunner().invoke(cli, ["run", "--sample-if-unset"], env=env)
    assert first.exit_code == 0, first.output
    sample = scratch / "Sample vault"
    assert f"using a fresh copy of the sample vault at {sample}" in first.output
    assert "make run keeps this copy, make run FRESH=1 starts over" in first.output
    capture = sample / "Inbox" / "2026-12-01 0246.md"
    capture.write_text("ring the garage about the MOT\n")
    kept = scratch / "data" / "vault-0123abcd" / "ask" / "answers.json"  # the index, the records
    kept.parent.mkdir(parents=True)
    kept.write_text('{"notes": {}}')
    (sample / "Home.md").unlink()  # a note the newcomer deleted stays deleted

    second = CliRunner().invoke(cli, ["run", "--sample-if-unset"], env=env)
    assert second.exit_code == 0, second.output
    assert f"going on with the sample vault at {sample}, as the last run left it" in (second.output)
    assert "(to start over from a fresh copy, deleting it: make run FRESH=1)" in second.output
    assert capture.read_text() == "ring the garage about the MOT\n"
    assert kept.is_file() and not (sample / "Home.md").exists()
    assert started == [sample, sample]


def test_make_run_fresh_starts_the_sample_over_and_says_so(sample_run: SampleRun) -> None:
    """FRESH=1: a fresh copy, and a fresh data folder with it (the data folder of the last run
    described the old copy: the Ask record counted a question answered in each run as an answer
    removed, and stopped answering it after three runs)."""
    scratch, env, started = sample_run
    first = CliRunner().invoke(cli, ["run", "--sample-if-unset"], env=env)
    assert first.exit_code == 0, first.output
    sample = scratch / "Sample vault"
    stale = scratch / "data" / "vault-0123abcd" / "ask" / "answers.json"
    stale.parent.mkdir(parents=True)
    stale.write_text('{"notes": {}}')
    (sample / "Inbox" / "left from last time.md").write_text("x\n")
    env["OLLAMA_HOST"] = "http://127.0.0.1:11435"
    result = CliRunner().invoke(cli, ["run", "--sample-if-unset", "--fresh-sample"], env=env)
    assert result.exit_code == 0, result.output
    said = f"Starting over (FRESH=1): a fresh copy of the sample vault at {sample}; the earlier"
    assert said in result.output
    assert not stale.exists() and (scratch / "data").is_dir()
    # The line for the other terminal carries the Ollama this run uses.
    assert f"COMMONPLACE_DATA={scratch / 'data'} OLLAMA_HOST=http://127.0.0.1:11435\n" in (
        result.output
    )
    assert not (sample / "Inbox" / "left from last time.md").exists()
    assert len(list((sample / "Inbox").iterdir())) == 20  # the sample week's captures again
    assert (sample / "Home.md").is_file()
    assert started == [sample, sample]


def test_a_sample_copy_cut_short_is_made_again(sample_run: SampleRun) -> None:
    """A copy without its record (the run was killed while copying) is not gone on with."""
    scratch, env, _ = sample_run
    sample = scratch / "Sample vault"
    (sample / "Inbox").mkdir(parents=True)  # half a copy, no data folder
    result = CliRunner().invoke(cli, ["run", "--sample-if-unset"], env=env)
    assert result.exit_code == 0, result.output
    assert "using a fresh copy of the sample vault" in result.output
    assert (sample / "Home.md").is_file()


@pytest.mark.parametrize(("fresh", "flag"), [("", False), ("0", False), ("1", True)])
def test_make_run_passes_fresh_on(fresh: str, flag: bool) -> None:
    """`make run FRESH=1` is `commonplace run --sample-if-unset --fresh-sample`."""
    import shutil

    if shutil.which("make") is None:
        pytest.skip("make is not installed")
    repo = Path(__file__).resolve().parents[1]
    args = ["make", "-n", "-C", str(repo), "run", *([f"FRESH={fresh}"] if fresh else [])]
    shown = subprocess.run(args, capture_output=True, text=True, check=True, timeout=60).stdout
    [line] = [x for x in shown.splitlines() if "commonplace run" in x]
    assert line.split()[-1] == ("--fresh-sample" if flag else "--sample-if-unset"), line


def test_the_samples_digest_shows_the_week_of_its_captures(
    sample_run: SampleRun, fake_ollama_thread: FakeOllama
) -> None:
    """`make run`'s sample held no capture (they stayed in vault_fixture/captures/), and its
    digest covered the week just past: "0 notes captured this week". Now its inbox holds the
    sample week's captures as they arrived, and `commonplace digest` on it, run from the
    other terminal as make run says, writes that week's digest."""
    import json

    from commonplace.firstrun.sample import sample_captures

    scratch, env, _ = sample_run
    result = CliRunner().invoke(cli, ["run", "--sample-if-unset"], env=env)
    assert result.exit_code == 0, result.output
    assert "'commonplace digest' on it writes that week's digest, 2026-W43" in result.output
    inbox = scratch / "Sample vault" / "Inbox"
    names = sorted(p.name for p in inbox.iterdir())
    assert names == [p.name for p in sample_captures()] and len(names) == 20
    first = (inbox / "2026-10-19 0742.md").read_text(encoding="utf-8")
    assert first.startswith("---\ncaptured: 2026-10-19T07:42\nvia: phone\n---\n")

    fake_ollama_thread.chat_handler = lambda body: json.dumps({"week": "A busy week.", "todos": ""})
    other_terminal = env | {
        "COMMONPLACE_VAULT": str(scratch / "Sample vault"),
        "COMMONPLACE_DATA": str(scratch / "data"),
        "OLLAMA_HOST": fake_ollama_thread.url,
    }
    digest = CliRunner().invoke(cli, ["digest"], env=other_terminal)
    assert digest.exit_code == 0, digest.output
    assert "The sample vault: the digest of the week its captures were written, 2026-W43" in (
        digest.output
    )
    assert "Notification: 20 notes captured this week." in digest.output
    note = (scratch / "Sample vault" / "Digests" / "2026-W43.md").read_text(encoding="utf-8")
    assert "# Week 43: 19–25 October 2026" in note
    assert "## Still in the inbox, not filed yet (20)" in note  # no model filed them here

    # Another data folder is not the sample's: the week just past, as for any vault.
    elsewhere = other_terminal | {"COMMONPLACE_DATA": str(scratch / "elsewhere")}
    dry = CliRunner().invoke(cli, ["digest", "--dry-run"], env=elsewhere)
    assert dry.exit_code == 0, dry.output
    assert "The sample vault" not in dry.output and "2026-W43" not in dry.output


def test_doctor_says_where_it_looked_for_the_config(
    fake_ollama_thread: FakeOllama, vault: Path, tmp_path: Path
) -> None:
    """A new user whose settings seemed ignored read only "no config file, defaults used"."""
    env = {"COMMONPLACE_VAULT": str(vault), "XDG_CONFIG_HOME": str(tmp_path / "cfg")}
    result = CliRunner().invoke(cli, ["doctor"], env=env)
    where = tmp_path / "cfg" / "commonplace" / "commonplace.toml"
    assert (
        f"ok   config: no config file at {where}; defaults used (`commonplace init`"
        in result.output
    )


@pytest.mark.parametrize(
    ("flavor", "make", "said"),
    [
        ("logseq", "docs/pages/A.md", "holds no pages/, journals/ or logseq/ folder"),
        ("obsidian", "logseq/config.edn", "is a Logseq graph (it holds logseq/config.edn)"),
    ],
)
def test_doctor_warns_when_the_vault_does_not_look_like_its_flavor(
    fake_ollama_thread: FakeOllama, tmp_path: Path, flavor: str, make: str, said: str
) -> None:
    """Pointed at the folder above a Logseq graph (the dev set's copy has one), doctor said ok
    and the daemon would have made pages/Inbox/ beside the graph."""
    vault = tmp_path / "v"
    (vault / make).parent.mkdir(parents=True)
    (vault / make).write_text("x\n")
    env = {
        "COMMONPLACE_VAULT": str(vault),
        "COMMONPLACE_FLAVOR": flavor,
        "COMMONPLACE_DATA": str(tmp_path / "data"),
    }
    result = CliRunner().invoke(cli, ["doctor"], env=env)
    (line,) = [line for line in result.output.splitlines() if said in line]
    assert line.startswith("warn vault: ")
    fine = tmp_path / "graph"
    for folder in ("pages", "journals", "logseq", ".obsidian"):
        (fine / folder).mkdir(parents=True)
    env["COMMONPLACE_VAULT"] = str(fine)
    assert "warn vault" not in CliRunner().invoke(cli, ["doctor"], env=env).output


def test_doctor_makes_no_data_folder(
    fake_ollama_thread: FakeOllama, vault: Path, tmp_path: Path
) -> None:
    """Each doctor run with another (or a mistyped) vault left an empty folder behind in
    ~/.local/share/commonplace."""
    data = tmp_path / "data"
    env = {"COMMONPLACE_VAULT": str(tmp_path / "NoSuchNotes"), "COMMONPLACE_DATA": str(data)}
    result = CliRunner().invoke(cli, ["doctor"], env=env)
    assert "FAIL vault: " in result.output and not data.exists()
    env["COMMONPLACE_VAULT"] = str(vault)
    result = CliRunner().invoke(cli, ["doctor"], env=env)
    assert "(not made yet: the daemon makes it at its first start)" in result.output
    assert not data.exists()
    (data / "x").mkdir(parents=True)
    (data / "x").chmod(0o500)
    env["COMMONPLACE_DATA"] = str(data / "x")
    try:
        result = CliRunner().invoke(cli, ["doctor"], env=env)
    finally:
        (data / "x").chmod(0o700)
    if os.geteuid() != 0:  # root writes anywhere
        assert "FAIL data folder: " in result.output


def test_doctor_warns_when_obsidian_makes_new_notes_in_the_inbox(
    fake_ollama_thread: FakeOllama, vault: Path
) -> None:
    """The start-up notes (log, /api/state, the phone page) say it too."""
    from commonplace.config import load_settings
    from commonplace.daemon.run import start_notes

    env = {"COMMONPLACE_VAULT": str(vault)}
    assert "new note" not in CliRunner().invoke(cli, ["doctor"], env=env).output
    (vault / ".obsidian").mkdir(exist_ok=True)
    (vault / ".obsidian/app.json").write_text(
        '{"newFileLocation": "folder", "newFileFolderPath": "Inbox"}', encoding="utf-8"
    )
    result = CliRunner().invoke(cli, ["doctor"], env=env)
    [line] = [x for x in result.output.splitlines() if x.startswith("warn obsidian:")]
    assert "every new note in Inbox/" in line
    assert line.removeprefix("warn obsidian: ") in start_notes(load_settings(env=env))


def test_run_takes_the_vault_and_the_port_in_place_of_the_config(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`run --vault --port` are checked as the config's values are: a port out of range is a
    usage error, and a data folder inside the given vault is refused before anything starts."""
    result = CliRunner().invoke(cli, ["run", "--vault", str(tmp_path), "--port", "70000"])
    assert result.exit_code == 2 and "70000" in result.output
    monkeypatch.setenv("COMMONPLACE_DATA", str(tmp_path / "inside" / ".data"))
    (tmp_path / "inside").mkdir()
    result = CliRunner().invoke(cli, ["run", "--vault", str(tmp_path / "inside"), "--port", "0"])
    assert result.exit_code == 1
    assert "is inside the vault" in result.output
    assert not (tmp_path / "inside" / ".data").exists()


def test_a_new_user_with_no_config_is_told_to_run_init(
    fake_ollama_thread: FakeOllama, tmp_path: Path
) -> None:
    """Installed, before `init`: doctor and run said to set 'vault' in a file that did not
    exist; the next step is `commonplace init`, which finds the vault and writes that file."""
    env = {
        "HOME": str(tmp_path / "home"),
        "XDG_CONFIG_HOME": str(tmp_path / "cfg"),
        "COMMONPLACE_VAULT": "",
        "OLLAMA_HOST": fake_ollama_thread.url,
    }
    doctor = CliRunner().invoke(cli, ["doctor"], env=env)
    assert "FAIL vault: " in doctor.output and "; run `commonplace init`" in doctor.output
    run = CliRunner().invoke(cli, ["run", "--port", "0"], env=env)
    assert run.exit_code != 0
    assert "does not exist; run `commonplace init` (it finds your vault" in run.output
    config = tmp_path / "mine.toml"
    config.write_text(f'vault = "{tmp_path / "gone"}"\n')
    named = CliRunner().invoke(cli, ["--config", str(config), "doctor"], env=env)
    assert f"not a folder; set 'vault' in {config} or COMMONPLACE_VAULT" in named.output
