"""`commonplace tidy`: prints the proposal, what was kept and dropped (with reasons), and where
the note went; runs against whatever Ollama is configured (here, the fake)."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from commonplace.cli.main import cli
from commonplace.config import LeaseSettings
from commonplace.daemon.lease import VaultLease
from tests.fakes.ollama import FakeOllama
from tests.tidy.conftest import CAPTURES, answer

SHED = "2026-10-20 0805.md"
GOOD = answer(
    "Shed timber",
    tags=["#Garden", "shed roof"],
    links=["shed rebuild", "Nowhere"],
    todos=[{"text": "Order the timber from Jewson", "due": "2026-10-23"}],
)


@pytest.fixture
def env(vault: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("COMMONPLACE_VAULT", str(vault))
    monkeypatch.setenv("COMMONPLACE_TIMEZONE", "Europe/London")
    config = tmp_path / "commonplace.toml"
    config.write_text("[ollama]\nretries = 0\ntimeout_s = 5\n")
    monkeypatch.setenv("COMMONPLACE_CONFIG", str(config))
    (vault / "Inbox").mkdir()
    for name in (SHED, "2026-10-19 0742.md"):
        (vault / "Inbox" / name).write_bytes((CAPTURES / name).read_bytes())
    return vault


def test_dry_run_reports_and_writes_nothing(env: Path, fake_ollama_thread: FakeOllama) -> None:
    fake_ollama_thread.enqueue_chat(GOOD)
    result = CliRunner().invoke(cli, ["tidy", "--dry-run", f"Inbox/{SHED}"])
    assert result.exit_code == 0, result.output
    out = result.output
    assert '"title":"Shed timber"' in out  # the proposal as the model sent it
    assert "kept:       title 'Shed timber'" in out
    assert "tags garden" in out
    assert "links [[Shed Rebuild]]" in out
    assert "to-do Order the timber from Jewson (due 2026-10-23)" in out
    assert "dropped:    tag 'shed roof': is not a single word" in out
    assert "dropped:    link 'Nowhere': no note has that title" in out
    assert "dry run: nothing written" in out
    assert not (env / "Filed").exists()
    assert (env / "Inbox" / SHED).exists()


def test_once_files_every_capture_in_order(env: Path, fake_ollama_thread: FakeOllama) -> None:
    fake_ollama_thread.enqueue_chat(answer("Chess night"), GOOD)
    result = CliRunner().invoke(cli, ["tidy", "--once"])
    assert result.exit_code == 0, result.output
    assert "filed as Filed/2026-10-19 0742 Chess night.md" in result.output
    assert "filed as Filed/2026-10-20 0805 Shed timber.md" in result.output
    assert result.output.index("0742 Chess") < result.output.index("0805 Shed")
    assert list((env / "Inbox").iterdir()) == []
    assert len(list((env / "Filed").iterdir())) == 2


def test_garbage_answer_is_reported_and_the_capture_stays(
    env: Path, fake_ollama_thread: FakeOllama
) -> None:
    fake_ollama_thread.enqueue_chat("no json here")
    result = CliRunner().invoke(cli, ["tidy", str(env / "Inbox" / SHED)])
    assert result.exit_code == 1
    assert "not tidied: The model's answer could not be used: it was not JSON" in result.output
    assert (env / "Inbox" / SHED).exists()


@pytest.mark.parametrize(
    ("arg", "message"),
    [("Inbox/nope.md", "no such capture"), ("Home.md", "is not in the inbox folder")],
)
def test_bad_paths_are_clear_errors(
    env: Path, fake_ollama_thread: FakeOllama, arg: str, message: str
) -> None:
    result = CliRunner().invoke(cli, ["tidy", arg])
    assert result.exit_code == 1
    assert message in result.output


def test_ollama_down_is_one_clear_line(
    env: Path, dead_ollama_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OLLAMA_HOST", dead_ollama_url)
    result = CliRunner().invoke(cli, ["tidy", "--once"])
    assert result.exit_code == 1
    assert "Ollama is not answering" in result.output
    assert "Traceback" not in result.output
    assert len(list((env / "Inbox").iterdir())) == 2


def test_tidy_is_refused_while_another_computer_holds_the_lease(
    env: Path, tmp_path: Path, fake_ollama_thread: FakeOllama
) -> None:
    """Another computer's daemon tidies this synced vault: `tidy --once` here could file the
    same captures twice, so it says who tidies instead; a dry run still works."""
    other = VaultLease(env, tmp_path / "other-computer-data", LeaseSettings())
    assert other.check()
    result = CliRunner().invoke(cli, ["tidy", "--once"])
    assert result.exit_code != 0
    assert f"the daemon on {other.host} (pid {other.pid}) holds this vault's lease" in result.output
    assert len(list((env / "Inbox").iterdir())) == 2 and not (env / "Filed").exists()
    fake_ollama_thread.enqueue_chat(GOOD)
    assert CliRunner().invoke(cli, ["tidy", "--dry-run", f"Inbox/{SHED}"]).exit_code == 0
    other.release()  # a clean stop there: tidying here is fine again
    fake_ollama_thread.enqueue_chat(answer("Chess night"), GOOD)
    result = CliRunner().invoke(cli, ["tidy", "--once"])
    assert result.exit_code == 0, result.output


def test_tidy_without_once_says_it_keeps_watching_and_how_to_stop(
    env: Path, fake_ollama_thread: FakeOllama
) -> None:
    """`commonplace tidy` watched the inbox for ever, and said nothing until the index was up to
    date: a newcomer killed it after ten minutes. Now its first line, before anything slow, says
    what it does and how to stop; Ctrl-C ends it cleanly and says so."""
    import os
    import signal
    import subprocess
    import sys
    import time

    fake_ollama_thread.chat_handler = lambda body: answer("Chess night")
    proc = subprocess.Popen(
        [sys.executable, "-m", "commonplace", "tidy"],
        env={**os.environ, "OLLAMA_HOST": fake_ollama_thread.url},
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert proc.stdout is not None
        first = proc.stdout.readline()
        assert first.startswith(f"Tidying {env / 'Inbox'}: the captures in it now, then each new")
        assert "keeps running until you press Ctrl-C" in first
        assert "to tidy what is there now and stop, run: commonplace tidy --once" in first
        lines = [first]
        deadline = time.monotonic() + 60
        while "for new captures (Ctrl-C to stop)" not in lines[-1]:
            assert time.monotonic() < deadline and proc.poll() is None, lines
            lines.append(proc.stdout.readline())
        proc.send_signal(signal.SIGINT)  # what Ctrl-C sends
        out, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
    assert proc.returncode == 0, err
    assert "Stopped. New captures wait in the inbox" in out
    assert "Traceback" not in err
    readme = (Path(__file__).resolve().parents[2] / "README.md").read_text(encoding="utf-8")
    [row] = [line for line in readme.splitlines() if line.startswith("| `commonplace tidy")]
    assert row.startswith("| `commonplace tidy --once` |") and "until Ctrl-C" in row
