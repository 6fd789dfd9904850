"""[digest] and [push] in commonplace.toml: good values load, bad ones say what is wrong."""

from __future__ import annotations

from pathlib import Path

import pytest

from commonplace.config import ConfigError, load_settings


def load(tmp_path: Path, toml: str):  # type: ignore[no-untyped-def]
    path = tmp_path / "commonplace.toml"
    path.write_text(toml)
    return load_settings(path, env={})


def test_defaults_and_values(tmp_path: Path) -> None:
    s = load(tmp_path, "")
    assert (s.digest.day, s.digest.time, s.digest.summary) == ("sunday", "18:00", True)
    assert s.push.contact.startswith("mailto:") and not s.push.allow_http_loopback
    s = load(
        tmp_path,
        '[digest]\nday = "monday"\ntime = "7:30"\n[push]\ncontact = "https://me.example"\n',
    )
    assert (s.digest.day, s.digest.time, s.push.contact) == ("monday", "7:30", "https://me.example")


@pytest.mark.parametrize(
    ("toml", "message"),
    [
        ('[digest]\ntime = "25:00"', "digest.time = '25:00' is not a time"),
        ('[digest]\nday = "someday"', "digest.day = 'someday' is not allowed"),
        ('[push]\ncontact = "me@example.org"', "must be 'mailto:you@example.com'"),
        ('[push]\ncontact = "mailto:me@localhost"', "Apple's push service rejects localhost"),
        ("[push]\nallow_http_loopback = true", "unknown key 'push.allow_http_loopback'"),
    ],
)
def test_bad_values_are_named(tmp_path: Path, toml: str, message: str) -> None:
    with pytest.raises(ConfigError, match=message.replace("(", r"\(").replace(".", r"\.")):
        load(tmp_path, toml)
