"""The README stays true: its config file is valid, complete and shows the real defaults."""

from __future__ import annotations

import dataclasses
import re
import sys
import tomllib
from pathlib import Path
from typing import Any

import pytest

from commonplace.cli.main import COMMANDS
from commonplace.config import Settings, load_settings

README = (Path(__file__).resolve().parents[1] / "README.md").read_text(encoding="utf-8")


def readme_config() -> str:
    section = README.split("## Configuration", 1)[1]
    match = re.search(r"```toml\n(.*?)```", section, re.DOTALL)
    assert match, "the Configuration section has no toml block"
    return match.group(1)


def fields(obj: Any) -> dict[str, Any]:
    return {f.name: f for f in dataclasses.fields(obj) if not f.metadata.get("internal")}


def test_readme_config_loads_and_names_every_key(tmp_path: Path) -> None:
    path = tmp_path / "commonplace.toml"
    path.write_text(readme_config(), encoding="utf-8")
    load_settings(path, env={})  # valid: no unknown key, no bad value
    raw = tomllib.loads(readme_config())
    defaults = Settings()
    for name in fields(defaults):
        value = getattr(defaults, name)
        if dataclasses.is_dataclass(value):
            assert set(raw[name]) == set(fields(value)), f"[{name}] in the README is incomplete"
        else:
            assert name in raw, f"'{name}' is missing from the README's config"


def test_readme_config_shows_the_defaults(tmp_path: Path) -> None:
    raw = tomllib.loads(readme_config())
    defaults = Settings()
    for table, value in vars(defaults).items():
        if not dataclasses.is_dataclass(value):
            continue
        for key in fields(value):
            shown, actual = raw[table][key], getattr(value, key)
            if isinstance(actual, tuple):
                actual = list(actual)
            assert shown == actual, f"README shows {table}.{key} = {shown!r}, default is {actual!r}"


def test_readme_mentions_every_command() -> None:
    for name in COMMANDS:
        assert f"commonplace {name}" in README, f"README never shows `commonplace {name}`"


def readme_env_vars() -> dict[str, tuple[str, ...]]:
    """The environment variable named in each line's comment of the README's config block, and
    the setting on that line."""
    named: dict[str, tuple[str, ...]] = {}
    table: tuple[str, ...] = ()
    for line in readme_config().splitlines():
        if header := re.match(r"\[(\w+)\]", line):
            table = (header.group(1),)
        elif key := re.match(r"(\w+) = [^#]*#(.*)", line):
            for var in re.findall(r"\b(?:COMMONPLACE_[A-Z_]+|OLLAMA_HOST)\b", key.group(2)):
                named[var] = (*table, key.group(1))
    return named


def test_readme_config_names_each_environment_variable_on_its_setting() -> None:
    """`COMMONPLACE_TIMEZONE` worked but the README never said so; a variable named on the wrong
    line, or one the program no longer reads, would mislead the same way."""
    from commonplace.config import ENV_OVERRIDES

    secrets = {"COMMONPLACE_CALDAV_PASSWORD": ("calendar", "password_file")}  # read, not mapped
    assert readme_env_vars() == {**ENV_OVERRIDES, **secrets}


def test_readme_config_shows_the_top_level_defaults(monkeypatch: pytest.MonkeyPatch) -> None:
    """The tables' defaults were checked, the four keys above them were not."""
    from commonplace.config import default_data_dir

    monkeypatch.delenv("XDG_DATA_HOME", raising=False)
    raw = tomllib.loads(readme_config())
    defaults = Settings()
    assert Path(raw["vault"]) == defaults.vault
    assert (raw["flavor"], raw["timezone"]) == (defaults.flavor, defaults.timezone)
    if sys.platform.startswith("linux"):  # the README shows Linux's; the others are in the text
        assert Path(raw["data_dir"]).expanduser() == default_data_dir()
