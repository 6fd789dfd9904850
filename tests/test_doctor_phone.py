"""`doctor`'s lines for the phone page (reachable from the phone, or only on this computer and
why), for a daemon running on another vault, and for the log file; Tailscale is a fake
`tailscale` on PATH answering as the real one does (ipn/ipnstate, ipn.ServeConfig)."""

from __future__ import annotations

import dataclasses
import json
import os
import socket
import time
from pathlib import Path

import pytest

from commonplace.config import Settings
from commonplace.doctor.checks import elsewhere_checks, log_checks, phone_checks
from commonplace.runtime.lock import LOCK_NAME
from tests.fakes.service_tools import make_fake_tools, serve_config


def with_tailnet(settings: Settings, ts_name: str = "laptop.tail1234.ts.net") -> Settings:
    web = dataclasses.replace(settings.web, ts_name=ts_name, owner_login="you@example.com")
    return dataclasses.replace(settings, web=web)


def line(settings: Settings) -> str:
    (check,) = phone_checks(settings)
    return check.line()


def test_without_tailscale_settings_the_page_is_on_this_computer_only(
    settings: Settings,
) -> None:
    shown = line(settings)
    assert shown.startswith("ok   phone page: only on this computer (http://127.0.0.1:8765/)")
    assert "ts_name and owner_login not set" in shown and "commonplace init" in shown


def test_reachable_from_the_phone_when_tailscale_serves_the_port(
    settings: Settings, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    make_fake_tools(tmp_path, monkeypatch, tailscale=True)
    monkeypatch.setenv("FAKE_TS_SERVE", serve_config(8765))
    assert line(with_tailnet(settings)) == (
        "ok   phone page: reachable from your phone at https://laptop.tail1234.ts.net/ "
        "(tailscale serve to port 8765; only you@example.com is let in)"
    )


@pytest.mark.parametrize(
    ("env", "ts_name", "said"),
    [
        (
            {"FAKE_TS_SERVE": serve_config(9999)},
            "laptop.tail1234.ts.net",
            "run: tailscale serve --bg 8765",
        ),
        ({"FAKE_TS_SERVE": "{}"}, "laptop.tail1234.ts.net", "does not pass https://laptop"),
        ({}, "desktop.tail1234.ts.net", "set ts_name = 'laptop.tail1234.ts.net'"),
        (
            {"FAKE_TS_STATUS": json.dumps({"BackendState": "Stopped", "Self": {}})},
            "laptop.tail1234.ts.net",
            "Tailscale is Stopped; run: tailscale up",
        ),
    ],
)
def test_only_on_this_computer_and_why(
    settings: Settings,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    env: dict[str, str],
    ts_name: str,
    said: str,
) -> None:
    make_fake_tools(tmp_path, monkeypatch, tailscale=True)
    for key, value in env.items():
        monkeypatch.setenv(key, value)
    shown = line(with_tailnet(settings, ts_name))
    assert shown.startswith("warn phone page: only on this computer"), shown
    assert said in shown


def test_ts_name_set_but_tailscale_not_installed(
    settings: Settings, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    make_fake_tools(tmp_path, monkeypatch).only_fakes(monkeypatch)
    shown = line(with_tailnet(settings))
    assert shown.startswith("warn phone page: only on this computer")
    assert "tailscale is not installed" in shown


def fake_lock(data: Path, vault: str, port: int) -> None:
    data.mkdir(parents=True)
    lock = {"host": socket.gethostname(), "pid": os.getpid(), "started": time.time()}
    (data / LOCK_NAME).write_text(json.dumps(lock | {"port": port, "vault": vault}))


def test_a_daemon_on_another_vault_is_noticed(settings: Settings) -> None:
    assert elsewhere_checks(settings) == []
    fake_lock(settings.data_dir / "Work-0123abcd", "/home/me/Work", 8765)
    (check,) = elsewhere_checks(settings)
    assert check.level == "warn"
    assert "running on /home/me/Work" in check.message and "holds port 8765" in check.message
    other = dataclasses.replace(settings, web=dataclasses.replace(settings.web, port=8770))
    (check,) = elsewhere_checks(other)
    assert check.level == "ok" and "also running on /home/me/Work" in check.message


def test_the_log_line_names_the_file(settings: Settings, tmp_path: Path) -> None:
    (check,) = log_checks(settings)
    assert str(tmp_path / "xdg-state" / "commonplace") in check.message
    assert "not written yet" in check.message and "commonplace logs" in check.message


def test_the_lock_names_its_vault_for_doctor_on_another(tmp_path: Path) -> None:
    from commonplace.runtime.lock import VaultLock, read_lock

    lock = VaultLock.acquire(tmp_path / "data", vault=tmp_path / "Notes")
    lock.record_port(8765)
    found = read_lock(tmp_path / "data" / LOCK_NAME)
    assert found is not None and found.vault == str(tmp_path / "Notes") and found.port == 8765
    lock.release()
