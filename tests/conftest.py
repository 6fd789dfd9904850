"""Shared fixtures: isolated settings, a fresh copy of the sample vault, the fake Ollama."""

from __future__ import annotations

import dataclasses
import shutil
from pathlib import Path

import pytest
from hypothesis import settings as hypothesis_settings

from commonplace.config import Settings, load_settings

pytest_plugins = ["tests.fakes.pytest_plugin"]

# No per-example deadline: on a loaded 2-core machine an fsync can take 300 ms, and a property
# test should fail on a wrong result, not on a slow disk. Speed lives in the benchmarks.
hypothesis_settings.register_profile("commonplace", deadline=None)
hypothesis_settings.load_profile("commonplace")

REPO = Path(__file__).resolve().parents[1]
FIXTURE = REPO / "vault_fixture"


@pytest.fixture(autouse=True)
def _isolated_env(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """No test reads the developer's own config, vault or data folder."""
    for var in list(__import__("os").environ):
        if var.startswith("COMMONPLACE_") or var == "OLLAMA_HOST":
            monkeypatch.delenv(var)
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg-config"))
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "xdg-state"))  # the log, the discovery file
    monkeypatch.setenv("COMMONPLACE_DATA", str(tmp_path / "data"))


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
        }
    )
    return dataclasses.replace(
        base, ollama=dataclasses.replace(base.ollama, retries=1, backoff_s=0.01, timeout_s=5)
    )
