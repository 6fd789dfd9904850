"""`commonplace service`: the systemd unit and the launchd agent it writes, what it asks of
the service manager (fake `systemctl`, `loginctl` and `launchctl` on PATH record it), and that
uninstall removes exactly what install wrote."""

from __future__ import annotations

import os
import plistlib
import shutil
import subprocess
import sys
from datetime import datetime
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from commonplace.cli.main import cli
from commonplace.config import Settings
from commonplace.runtime import scheduler
from commonplace.runtime.statefile import write_json
from commonplace.service import launchd, systemd, tools
from commonplace.service.program import installed_program
from tests.fakes.service_tools import FakeTools, make_fake_tools


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    return home


@pytest.fixture
def fake(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> FakeTools:
    return make_fake_tools(tmp_path, monkeypatch)


@pytest.fixture
def config(settings: Settings, tmp_path: Path) -> Path:
    path = tmp_path / "commonplace.toml"
    path.write_text(f'vault = "{settings.vault}"\nflavor = "obsidian"\n', encoding="utf-8")
    return path


def service(config: Path, *args: str) -> Result:
    return CliRunner().invoke(cli, ["--config", str(config), "service", *args])


def files_under(root: Path) -> dict[str, bytes]:
    return {
        p.relative_to(root).as_posix(): p.read_bytes() if p.is_file() else b"/"
        for p in sorted(root.rglob("*"))
    }


def test_the_unit_passes_systemd_analyze_verify(
    config: Path, home: Path, tmp_path: Path, fake: FakeTools
) -> None:
    """`systemd-analyze verify` exits 0 for many mistakes (a bad Restart= value is a warning),
    so the test also wants it silent. --user needs a runtime folder: a private one here."""
    analyze = shutil.which("systemd-analyze")
    if analyze is None:
        pytest.skip("systemd-analyze is not installed (Debian's systemd package; make test)")
    result = service(config, "install", "--dry-run")
    assert result.exit_code == 0, result.output
    text = result.stdout
    assert text.startswith(systemd.MARK)
    unit = tmp_path / "verify" / "commonplace.service"
    unit.parent.mkdir()
    unit.write_text(text)
    runtime = tmp_path / "runtime"
    runtime.mkdir(mode=0o700)
    env = {**os.environ, "XDG_RUNTIME_DIR": str(runtime)}
    done = subprocess.run(
        [analyze, "--user", "verify", str(unit)], capture_output=True, text=True, env=env
    )
    assert (done.returncode, done.stderr, done.stdout) == (0, "", "")
    assert fake.calls() == []  # a dry run asks nothing of systemd
    assert not systemd.unit_path().exists()
    # The check can fail: the same file with a mistake in it does not pass.
    unit.write_text(text.replace("Restart=on-failure", "Restart=sometimes"))
    done = subprocess.run(
        [analyze, "--user", "verify", str(unit)], capture_output=True, text=True, env=env
    )
    assert "restart specifier" in done.stderr


def test_the_unit_runs_the_installed_program_with_its_config(
    config: Path, home: Path, fake: FakeTools
) -> None:
    text = service(config, "install", "--dry-run").stdout
    lines = text.splitlines()
    (exec_start,) = [line for line in lines if line.startswith("ExecStart=")]
    program = installed_program()
    assert Path(program[0]).is_absolute()
    assert exec_start.endswith(f"--config {config} run")
    assert "Restart=on-failure" in lines and "KillSignal=SIGTERM" in lines
    assert "WantedBy=default.target" in lines
    # The data folder and the log's place the install ran with go with it.
    assert f"Environment=COMMONPLACE_DATA={os.environ['COMMONPLACE_DATA']}" in lines
    assert f"Environment=XDG_STATE_HOME={os.environ['XDG_STATE_HOME']}" in lines


def test_quoting_survives_spaces_percent_and_dollar() -> None:
    assert systemd.quote("/home/a b/x") == '"/home/a b/x"'
    assert systemd.quote("100%$HOME") == "100%%$$HOME"
    assert systemd.quote('say "hi"') == '"say \\"hi\\""'


def test_install_enables_starts_and_says_when_it_runs_only_while_logged_in(
    config: Path, home: Path, fake: FakeTools, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(tools, "platform", lambda: "linux")
    result = service(config, "install")
    assert result.exit_code == 0, result.output
    unit = systemd.unit_path()
    assert unit.read_text().startswith(systemd.MARK)
    asked = fake.calls("systemctl")
    assert ["--user", "daemon-reload"] in asked
    assert ["--user", "enable", "commonplace.service"] in asked
    assert ["--user", "restart", "commonplace.service"] in asked
    assert fake.calls("loginctl")[0][:1] == ["show-user"]
    assert "runs only while you are logged in" in result.output
    assert "sudo loginctl enable-linger" in result.output

    monkeypatch.setenv("FAKE_LINGER", "yes")
    again = service(config, "install")  # installing again replaces its own unit
    assert again.exit_code == 0 and "only while you are logged in" not in again.output


def test_uninstall_removes_exactly_what_install_wrote(
    config: Path, home: Path, fake: FakeTools, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (home / "Library").mkdir()  # as on every Mac
    for where in ("linux", "darwin"):
        monkeypatch.setattr(tools, "platform", lambda where=where: where)
        before = files_under(tmp_path / "xdg-config") | files_under(home)
        assert service(config, "install").exit_code == 0
        assert files_under(tmp_path / "xdg-config") | files_under(home) != before
        result = service(config, "uninstall")
        assert result.exit_code == 0, result.output
        assert files_under(tmp_path / "xdg-config") | files_under(home) == before, where
    assert ["--user", "disable", "--now", "commonplace.service"] in fake.calls("systemctl")
    assert ["bootout", f"gui/{os.getuid()}/{launchd.LABEL}"] in fake.calls("launchctl")


def test_a_unit_not_written_by_commonplace_is_never_replaced_without_force(
    config: Path, home: Path, fake: FakeTools, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(tools, "platform", lambda: "linux")
    unit = systemd.unit_path()
    unit.parent.mkdir(parents=True)
    unit.write_text("[Service]\nExecStart=/usr/bin/something-else\n")
    result = service(config, "install")
    assert result.exit_code == 1 and "not written by commonplace" in result.output
    assert unit.read_text() == "[Service]\nExecStart=/usr/bin/something-else\n"
    assert service(config, "uninstall").exit_code == 1
    assert unit.exists() and fake.calls() == []
    assert service(config, "install", "--force").exit_code == 0
    assert unit.read_text().startswith(systemd.MARK)


def test_without_a_user_bus_the_unit_is_written_and_the_commands_are_given(
    config: Path, home: Path, fake: FakeTools, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(tools, "platform", lambda: "linux")
    monkeypatch.setenv("FAKE_RC", "1")
    result = service(config, "install")
    assert result.exit_code == 1
    assert "Failed to connect to bus" in result.output
    assert "systemctl --user enable --now commonplace.service" in result.output
    assert systemd.unit_path().exists()


def test_no_config_file_means_run_init_first(
    settings: Settings, home: Path, fake: FakeTools
) -> None:
    env = {"COMMONPLACE_VAULT": str(settings.vault)}
    result = CliRunner().invoke(cli, ["service", "install", "--dry-run"], env=env)
    assert result.exit_code == 1 and "commonplace init" in result.output


def test_the_launchd_agent_has_the_keys_and_loads_with_bootstrap(
    config: Path, home: Path, fake: FakeTools, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(tools, "platform", lambda: "darwin")
    monkeypatch.setattr(launchd, "log_dir", lambda: home / "Library" / "Logs" / "Commonplace")
    dry = service(config, "install", "--dry-run")
    assert dry.exit_code == 0, dry.output
    data = plistlib.loads(dry.stdout.encode())
    assert data["Label"] == launchd.LABEL
    args = data["ProgramArguments"]
    assert Path(args[0]).is_absolute() and args[-3:] == [str(config), "run", "--quiet-stderr"]
    assert data["RunAtLoad"] is True and data["KeepAlive"] == {"SuccessfulExit": False}
    logs = home / "Library" / "Logs" / "Commonplace"
    assert Path(data["StandardErrorPath"]).parent == logs
    assert Path(data["StandardOutPath"]).parent == logs
    assert data["EnvironmentVariables"]["COMMONPLACE_DATA"] == os.environ["COMMONPLACE_DATA"]

    result = service(config, "install")
    assert result.exit_code == 0, result.output
    plist = home / "Library" / "LaunchAgents" / f"{launchd.LABEL}.plist"
    assert plistlib.loads(plist.read_bytes()) == data
    assert ["bootstrap", f"gui/{os.getuid()}", str(plist)] in fake.calls("launchctl")
    assert "macOS guards" not in result.output  # this vault is in no guarded folder

    status = service(config, "status")
    assert "service: running, pid 4242, last exit code 0" in status.output


@pytest.mark.parametrize(
    ("where", "place"),
    [
        ("Documents/Notes", "your Documents folder"),
        ("Desktop/Vault", "your Desktop folder"),
        ("Library/Mobile Documents/iCloud~md~obsidian/Documents/Notes", "iCloud Drive"),
        ("Notes", None),
    ],
)
def test_macos_guarded_places_are_named(where: str, place: str | None, tmp_path: Path) -> None:
    assert launchd.protected_place(tmp_path / where, home=tmp_path) == place
    assert launchd.protected_place(Path("/Volumes/USB/Notes"), home=tmp_path) == "another disk"


def test_install_names_the_permission_for_a_vault_in_documents(
    settings: Settings, home: Path, fake: FakeTools, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(tools, "platform", lambda: "darwin")
    monkeypatch.setattr(launchd, "log_dir", lambda: home / "Library" / "Logs" / "Commonplace")
    vault = home / "Documents" / "Notes"
    shutil.copytree(settings.vault, vault)
    config = tmp_path / "docs.toml"
    config.write_text(f'vault = "{vault}"\n')
    result = service(config, "install")
    assert result.exit_code == 0, result.output
    assert "in your Documents folder, which macOS guards" in result.output
    assert "Files and Folders" in result.output and "Full Disk Access" in result.output
    assert str(Path(sys.executable).resolve()) in result.output  # the program to allow


def test_status_shows_the_service_and_the_daemons_summary(
    config: Path, home: Path, fake: FakeTools, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(tools, "platform", lambda: "linux")
    missing = service(config, "status")
    assert "service: not installed" in missing.output
    assert service(config, "install").exit_code == 0
    result = service(config, "status")
    assert result.exit_code == 0, result.output
    out = result.output
    assert "service: active (running), enabled at login" in out
    assert "pid 4242" in out
    assert "daemon: not running on this vault" in out
    assert "inbox: 0 capture(s) waiting" in out
    assert "last digest: never yet" in out and "last briefing: never yet" in out
    assert "log: " in out and "xdg-state" in out
    monkeypatch.setenv(
        "FAKE_SHOW", "ActiveState=failed\nSubState=failed\nUnitFileState=enabled\nResult=exit-code"
    )
    failed = service(config, "status").output
    assert "it failed (exit-code)" in failed and "journalctl --user -u commonplace" in failed


def test_windows_says_not_yet_and_gives_the_manual_way(
    config: Path, home: Path, fake: FakeTools, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(tools, "platform", lambda: "win32")
    result = service(config, "install")
    assert result.exit_code == 1
    assert "does not support Windows yet" in result.output
    assert "schtasks /Create /SC ONLOGON /TN Commonplace" in result.output


def test_status_does_not_take_the_schedulers_first_start_for_a_digest(
    settings: Settings, config: Path, home: Path, fake: FakeTools, monkeypatch: pytest.MonkeyPatch
) -> None:
    """At its first start the scheduler records the latest Sunday and 07:00 as a baseline (so
    no old digest is written): `status` must still say no digest or briefing was made yet."""
    monkeypatch.setattr(tools, "platform", lambda: "linux")
    scheduler.Scheduler(
        [
            scheduler.Job("digest", scheduler.weekly_at("sunday", "18:00", settings.tz), _never),
            scheduler.Job("briefing", scheduler.daily_at("07:00", settings.tz), _never),
        ],
        settings.data_path,
    ).missed()
    assert (settings.data_path / scheduler.STATE_FILE).is_file()  # the baseline was recorded
    out = service(config, "status").output
    assert "last digest: never yet" in out and "last briefing: never yet" in out, out
    write_json(
        settings.data_path / "digests.json",
        {
            "2026-W43": {
                "path": "Digests/2026-W43.md",
                "hash": "x",
                "written": "2026-10-25T18:00:01+00:00",
            }
        },
    )
    write_json(
        settings.data_path / "briefing.json",
        {"days": {"2026-10-26": {"text": "t", "made": "2026-10-26T07:00:02+00:00", "sent": None}}},
    )
    out = service(config, "status").output
    when = {
        k: datetime.fromisoformat(v).astimezone(settings.tz).strftime("%Y-%m-%d %H:%M")
        for k, v in (("d", "2026-10-25T18:00:01+00:00"), ("b", "2026-10-26T07:00:02+00:00"))
    }
    assert f"last digest: {when['d']}" in out and f"last briefing: {when['b']}" in out, out


async def _never(scheduled: datetime) -> None:
    raise AssertionError("a baseline runs nothing")
