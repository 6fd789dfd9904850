"""Shared fixtures: isolated settings, a fresh copy of the sample vault, the fake Ollama.

The suite runs on two workers at once (`make test`: pytest-xdist) and must pass on a busy
machine (`make test-busy`). So every test: writes under tmp_path; binds port 0; sets HOME or
any other variable with monkeypatch (this file already isolates COMMONPLACE_*, OLLAMA_HOST,
XDG_CONFIG_HOME); uses a fresh account or name in a shared server (the session's Radicale is
one per worker); waits by polling with a generous bound (30-60 s) and never sleeps to wait;
and, when it is about a timeout, makes the thing time out never answer in time (a stall far
past the wait, a swallowed request, a held answer released by the test) so that load cannot
change the outcome. Tests that must not run beside each other share
`@pytest.mark.xdist_group("name")` (one worker runs a group). docs/explanation/tests.md says
more.
"""

from __future__ import annotations

import logging
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import settings as hypothesis_settings

from commonplace.config import Settings, load_settings
from tests.models import with_model

pytest_plugins = ["tests.fakes.pytest_plugin"]

# No per-example deadline: on a loaded 2-core machine an fsync can take 300 ms, and a property
# test should fail on a wrong result, not on a slow disk. Speed lives in the benchmarks.
hypothesis_settings.register_profile("commonplace", deadline=None)
hypothesis_settings.load_profile("commonplace")

REPO = Path(__file__).resolve().parents[1]
FIXTURE = REPO / "vault_fixture"


@pytest.fixture(autouse=True)
def _logging_as_it_was() -> Iterator[None]:
    """A command run in-process (`commonplace run`, `tidy`) sets the package logger's level and
    adds its log file; the next test on the same worker would then see other records (an INFO
    line where only a warning was expected) and write into a folder that is gone. Put back.
    Only file handlers are removed: pytest's own capture handlers come and go by themselves."""
    loggers = [logging.getLogger(), logging.getLogger("commonplace")]
    saved = [(lg.level, list(lg.handlers)) for lg in loggers]
    yield
    for lg, (level, handlers) in zip(loggers, saved, strict=True):
        lg.setLevel(level)
        for handler in lg.handlers[:]:
            if isinstance(handler, logging.FileHandler) and handler not in handlers:
                lg.removeHandler(handler)
                handler.close()


@pytest.fixture(autouse=True)
def _isolated_env(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """No test reads the developer's own config, vault or data folder."""
    for var in list(__import__("os").environ):
        if var.startswith("COMMONPLACE_") or var == "OLLAMA_HOST":
            monkeypatch.delenv(var)
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg-config"))
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "xdg-state"))  # the log, the discovery file
    monkeypatch.setenv("COMMONPLACE_DATA", str(tmp_path / "data"))
    # Ollama (the fake, where a test starts one): never `auto`, which would start the built-in
    # engine when no Ollama answers; the tests of `auto` and of the engine say so themselves.
    monkeypatch.setenv("COMMONPLACE_MODEL_BACKEND", "ollama")


@pytest.fixture
def vault(tmp_path: Path) -> Path:
    """A fresh copy of the sample vault (without the week's captures and calendar)."""
    dest = tmp_path / "vault"
    shutil.copytree(FIXTURE, dest, ignore=shutil.ignore_patterns("captures", "calendar"))
    return dest


@pytest.fixture
def settings(vault: Path, tmp_path: Path) -> Settings:
    """Settings for the sample vault, with fast retries and the fake Ollama's host if set."""
    base = load_settings(
        env={
            "COMMONPLACE_VAULT": str(vault),
            "COMMONPLACE_DATA": str(tmp_path / "data"),
            "COMMONPLACE_TIMEZONE": "Europe/London",
            "COMMONPLACE_MODEL_BACKEND": "ollama",
        }
    )
    return with_model(base, retries=1, backoff_s=0.01, timeout_s=5)
