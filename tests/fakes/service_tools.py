"""Fake `systemctl`, `loginctl` and `launchctl` on PATH: each records its arguments (one JSON
list a line) and answers the few questions `commonplace service` asks, as the real ones word
it. What they answer is set with environment variables (FAKE_*), so one test can play a
systemd without a user bus, lingering on or off, a failed unit."""

from __future__ import annotations

import json
import os
import stat
import sys
from pathlib import Path

import pytest

SCRIPT = r"""#!{python}
import json, os, sys
SHOW = '''ActiveState=active
SubState=running
UnitFileState=enabled
MainPID=4242
NRestarts=0
ActiveEnterTimestamp=Wed 2026-12-02 07:00:00 GMT'''
PRINT = '''gui/501/local.commonplace.daemon.run = {
	state = running
	pid = 4242
	last exit code = 0
}'''
TS_STATUS = json.dumps({
    "Version": "1.90.0",
    "BackendState": "Running",
    "Self": {"DNSName": "laptop.tail1234.ts.net.", "UserID": 7, "HostName": "laptop"},
    "User": {"7": {"ID": 7, "LoginName": "you@example.com", "DisplayName": "You"}},
    "MagicDNSSuffix": "tail1234.ts.net",
    "CertDomains": ["laptop.tail1234.ts.net"],
})
name = os.path.basename(sys.argv[0])
args = sys.argv[1:]
with open(os.environ["FAKE_CALLS"], "a") as f:
    f.write(json.dumps([name, *args]) + "\n")
rc = int(os.environ.get("FAKE_RC", "0"))
if rc:
    print(os.environ.get("FAKE_ERR", "Failed to connect to bus: No medium found"), file=sys.stderr)
    sys.exit(rc)
if name == "loginctl":
    print(os.environ.get("FAKE_LINGER", "no"))
elif name == "systemctl" and "is-active" in args:
    print(os.environ.get("FAKE_ACTIVE", "active"))
elif name == "systemctl" and "show" in args and "--value" in args:
    print(os.environ.get("FAKE_MAIN_PID", "0"))
elif name == "systemctl" and "show" in args:
    print(os.environ.get("FAKE_SHOW", SHOW))
elif name == "tailscale" and args[:2] == ["status", "--json"]:
    print(os.environ.get("FAKE_TS_STATUS", TS_STATUS))
elif name == "tailscale" and args[:3] == ["serve", "status", "--json"]:
    print(os.environ.get("FAKE_TS_SERVE", "{}"))
elif name == "launchctl" and args[:1] == ["print"]:
    print(PRINT)
"""


class FakeTools:
    def __init__(self, bin_dir: Path, calls: Path) -> None:
        self.bin_dir = bin_dir
        self.calls_file = calls

    def only_fakes(self, monkeypatch: pytest.MonkeyPatch) -> None:
        monkeypatch.setenv("PATH", str(self.bin_dir))

    def calls(self, name: str | None = None) -> list[list[str]]:
        if not self.calls_file.exists():
            return []
        found = [json.loads(line) for line in self.calls_file.read_text().splitlines()]
        return [c[1:] for c in found if name is None or c[0] == name]


def serve_config(port: int) -> str:
    """What `tailscale serve status --json` prints after `tailscale serve --bg <port>`."""
    return json.dumps(
        {
            "TCP": {"443": {"HTTPS": True}},
            "Web": {
                "laptop.tail1234.ts.net:443": {
                    "Handlers": {"/": {"Proxy": f"http://127.0.0.1:{port}"}}
                }
            },
        }
    )


def make_fake_tools(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, *, tailscale: bool = False
) -> FakeTools:
    """The fakes in a folder put first on PATH; `tailscale` only when asked. For its absence,
    `only_fakes` also takes the rest of PATH away (a real tailscale may be installed)."""
    bin_dir = tmp_path / "fake-bin"
    bin_dir.mkdir()
    for name in ("systemctl", "loginctl", "launchctl", *(("tailscale",) if tailscale else ())):
        path = bin_dir / name
        path.write_text(SCRIPT.replace("{python}", sys.executable))
        path.chmod(path.stat().st_mode | stat.S_IXUSR)
    calls = tmp_path / "fake-calls.jsonl"
    monkeypatch.setenv("FAKE_CALLS", str(calls))
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ.get('PATH', '')}")
    return FakeTools(bin_dir, calls)
