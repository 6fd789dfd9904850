"""Where Ollama is (issue 16, item 6): `doctor` and the daemon's start-up warn about an Ollama
older than 0.5.0 (structured outputs) and about a plain-http Ollama outside this computer and
the tailnet. Names are resolved by a fake lookup: no test touches real DNS."""

from __future__ import annotations

import logging
import socket
from pathlib import Path

import pytest
from click.testing import CliRunner

from commonplace.cli.main import cli
from commonplace.config import Settings
from commonplace.daemon.run import warn_about_model
from commonplace.doctor.models import model_warning_checks
from commonplace.llm import ModelStatus, make_llm
from commonplace.llm.support import host_warning, parse_version, version_warnings
from commonplace.server.context import Services
from tests.fakes.ollama import FakeOllama
from tests.models import llm_for, with_model

NAMES = {
    "gpu-box": ["192.168.1.50"],
    "gpu-tail": ["100.80.1.1", "fd7a:115c:a1e0::1"],
    "mixed": ["100.80.1.1", "203.0.113.7"],
}


async def fake_lookup(host: str) -> list[str]:
    if host not in NAMES:
        raise socket.gaierror(socket.EAI_NONAME, "Name or service not known")
    return NAMES[host]


@pytest.mark.parametrize(
    ("text", "expected"),
    [("0.12.6", (0, 12, 6)), ("0.5.0-rc1", (0, 5, 0)), ("v0.9", (0, 9, 0)), ("", None)],
)
def test_parse_version(text: str, expected: tuple[int, int, int] | None) -> None:
    assert parse_version(text) == expected


def test_an_ollama_older_than_structured_outputs_is_warned_about(settings: Settings) -> None:
    plain = ""
    (warning,) = version_warnings(plain, "0.1.20")
    assert "0.1.20 is older than 0.5.0" in warning and "Update Ollama" in warning
    assert version_warnings(plain, "0.4.7")
    assert version_warnings(plain, "0.5.0") == []
    assert version_warnings(plain, "0.12.6") == []
    assert version_warnings(plain, "") == []  # unknown: nothing to say
    thinking = "off"
    (think,) = version_warnings(thinking, "0.6.1")
    assert "ignores [model] think = 'off'" in think and "0.9.0" in think
    assert version_warnings(thinking, "0.9.0") == []


@pytest.mark.parametrize(
    "host",
    [
        "http://127.0.0.1:11434",
        "http://localhost:11434",
        "http://[::1]:11434",
        "http://0.0.0.0:11434",
        "http://100.101.102.103:11434",  # a tailnet address: WireGuard encrypts it
        "http://[fd7a:115c:a1e0::5]:11434",
        "http://gpu.tail1234.ts.net:11434",
        "http://gpu-tail:11434",  # a MagicDNS short name that resolves into the tailnet
        "https://ollama.example.com",  # encrypted
    ],
)
async def test_hosts_that_keep_notes_on_this_computer_or_the_tailnet(host: str) -> None:
    assert await host_warning(host, fake_lookup) is None


@pytest.mark.parametrize(
    ("host", "says"),
    [
        ("http://192.168.1.50:11434", "crosses the network unencrypted"),
        ("http://gpu-box:11434", "crosses the network unencrypted"),  # resolves to the LAN
        ("http://mixed:11434", "crosses the network unencrypted"),  # one address outside
        ("http://203.0.113.7:11434", "crosses the network unencrypted"),
        ("http://nowhere:11434", "cannot be looked up"),
    ],
)
async def test_plain_http_outside_this_computer_and_the_tailnet_is_warned_about(
    host: str, says: str
) -> None:
    warning = await host_warning(host, fake_lookup)
    assert warning is not None and says in warning


async def test_doctor_shows_both_warnings(settings: Settings) -> None:
    s = with_model(settings, host="http://gpu-box:11434")
    status = ModelStatus(reachable=True, host=s.ollama.host, version="0.1.20", models=())
    lines = [c.line() for c in await model_warning_checks(s, status, fake_lookup)]
    assert len(lines) == 2 and all(line.startswith("warn ollama: ") for line in lines)
    assert "older than 0.5.0" in lines[0] and "unencrypted" in lines[1]
    here = with_model(s, host="http://127.0.0.1:1")
    ok = ModelStatus(reachable=True, host="", version="0.12.6")
    assert await model_warning_checks(here, ok, fake_lookup) == []


def test_doctor_command_warns_about_an_old_ollama(
    fake_ollama_thread: FakeOllama, vault: Path
) -> None:
    fake_ollama_thread.version = "0.1.20"
    result = CliRunner().invoke(cli, ["doctor"], env={"COMMONPLACE_VAULT": str(vault)})
    assert "warn ollama: Ollama 0.1.20 is older than 0.5.0" in result.output
    assert result.exit_code == 0  # a warning, not a failure


async def test_the_daemon_warns_at_start_up(
    settings: Settings,
    fake_ollama: FakeOllama,
    dead_ollama_url: str,
    caplog: pytest.LogCaptureFixture,
) -> None:
    fake_ollama.version = "0.1.20"
    old = with_model(settings, host=fake_ollama.url)
    services = Services(notes=["Dictation is off: ..."])
    with caplog.at_level(logging.WARNING, logger="commonplace.daemon.run"):
        await warn_about_model(old, make_llm(old), services)
    assert any("older than 0.5.0" in r.getMessage() for r in caplog.records)
    assert services.notes[0].startswith("Dictation") and "older than 0.5.0" in services.notes[1]

    # A plain-http Ollama on a LAN address (Ollama itself unreachable here: the check of the
    # address needs no answer from it).
    lan = with_model(settings, host="http://192.168.1.50:11434")
    services = Services()
    await warn_about_model(lan, llm_for(lan, host=dead_ollama_url), services)
    (note,) = services.notes
    assert "192.168.1.50" in note and "unencrypted" in note


async def test_the_daemon_says_at_start_up_that_a_cloud_model_gets_nothing(
    settings: Settings, fake_ollama: FakeOllama
) -> None:
    """A chat model that is a pulled cloud stub (Ollama would send it every note): the daemon
    refuses it (llm/client.py) and says so at start-up, in /api/state's notes."""
    fake_ollama.add_model("mine:latest", remote_host="https://ollama.com:443")
    ours = with_model(settings, host=fake_ollama.url, chat_model="mine")
    services = Services()
    await warn_about_model(ours, make_llm(ours), services)
    (note,) = services.notes
    assert "mine is a cloud model" in note and "https://ollama.com:443" in note
    assert "[model] chat_model" in note
