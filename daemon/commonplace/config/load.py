"""Reading commonplace.toml and the environment into `Settings`: a wrong key or value stops
the program with one line naming the key, the bad value and what is allowed.
"""

from __future__ import annotations

import dataclasses
import os
import tomllib
import types
import urllib.parse
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Union, get_args, get_origin, get_type_hints

from commonplace.config.models import ALIASES
from commonplace.config.settings import ENV_OVERRIDES, Settings
from commonplace.config.values import (
    ConfigError,
    default_config_path,
    is_zone,
    normalize_ollama_host,
    ollama_host_problem,
)


def load_settings(path: Path | None = None, env: Mapping[str, str] | None = None) -> Settings:
    """Read the config file (explicit path, COMMONPLACE_CONFIG, or the user's config folder)."""
    env = os.environ if env is None else env
    explicit = path or (Path(env["COMMONPLACE_CONFIG"]) if env.get("COMMONPLACE_CONFIG") else None)
    config_path = (explicit or default_config_path(env)).expanduser()
    raw: dict[str, Any] = {}
    if config_path.exists():
        try:
            raw = tomllib.loads(config_path.read_text(encoding="utf-8"))
        except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
            raise ConfigError(f"{config_path}: not valid TOML: {exc}") from exc
    elif explicit is not None:
        raise ConfigError(f"{config_path}: no such config file")
    _refuse_secrets(raw, config_path)
    source = str(config_path) if config_path.exists() else "settings"
    moved = _move_aliases(raw, source)
    vault_configured = "vault" in raw or bool(env.get("COMMONPLACE_VAULT"))
    for var, keys in ENV_OVERRIDES.items():
        if env.get(var):
            table = raw
            for key in keys[:-1]:
                table = table.setdefault(key, {})
            table[keys[-1]] = env[var]
    try:
        settings: Settings = _build(Settings, raw, source, prefix="")
    except ConfigError as exc:
        message = str(exc)
        for old, new in moved:  # name the key as the file has it
            message = message.replace(f"model.{new} ", f"ollama.{old} (now model.{new}) ")
        raise ConfigError(message) from None
    problem = ollama_host_problem(settings.ollama.host)
    if problem:
        where = "OLLAMA_HOST" if env.get("OLLAMA_HOST") else f"{source}: ollama.host"
        raise ConfigError(
            f"{where} = {settings.ollama.host!r} {problem}; give Ollama's address, such as "
            "'localhost:11434' or 'http://127.0.0.1:11434'"
        )
    problem = base_url_problem(settings.openai.base_url, settings.openai.embed_base_url)
    if problem:
        raise ConfigError(f"{source}: {problem}")
    settings = dataclasses.replace(
        settings,
        vault=settings.vault.expanduser(),
        data_dir=settings.data_dir.expanduser(),
        config_path=config_path if config_path.exists() else None,
        vault_configured=vault_configured,
        ollama=dataclasses.replace(
            settings.ollama, host=normalize_ollama_host(settings.ollama.host)
        ),
    )
    _check(settings, source)
    return settings


def _refuse_secrets(raw: Mapping[str, Any], config_path: Path) -> None:
    """A password in the config file would be copied, synced and shown; say where it goes."""
    table = raw.get("calendar")
    if isinstance(table, Mapping) and "password" in table:
        raise ConfigError(
            f"{config_path}: calendar.password is not read from the config file; put the app "
            "password in a file of its own and set calendar.password_file to it, or set "
            "COMMONPLACE_CALDAV_PASSWORD"
        )
    table = raw.get("openai")
    if isinstance(table, Mapping) and "api_key" in table:
        raise ConfigError(
            f"{config_path}: openai.api_key is not read from the config file (it would be "
            "copied and synced with it); run `commonplace models key` to keep it in a file only "
            "you can read, or set openai.api_key_file or COMMONPLACE_OPENAI_API_KEY"
        )


def _move_aliases(raw: dict[str, Any], source: str) -> list[tuple[str, str]]:
    """[ollama] chat_model, embed_model, num_ctx, timeout_s, ... are read as [model]'s keys
    (models.ALIASES): configs written before there was a choice of server keep working. The
    same key set in both, to different values, is a mistake worth a line."""
    ollama = raw.get("ollama")
    moved: list[tuple[str, str]] = []
    if not isinstance(ollama, dict):
        return moved
    model = raw.setdefault("model", {})
    if not isinstance(model, dict):
        return moved  # _build says [model] must be a table
    for old, new in ALIASES.items():
        if old not in ollama:
            continue
        value = ollama.pop(old)
        if new in model and model[new] != value:
            raise ConfigError(
                f"{source}: ollama.{old} = {value!r} and model.{new} = {model[new]!r} differ; "
                f"keep model.{new} only (ollama.{old} is its old name)"
            )
        model[new] = value
        moved.append((old, new))
    return moved


def base_url_problem(*urls: str) -> str | None:
    """Why an [openai] address cannot be a server's, or None."""
    for url in urls:
        if not url:
            continue
        parts = urllib.parse.urlsplit(url.strip())
        if parts.scheme not in ("http", "https") or not parts.hostname:
            return (
                f"openai base_url {url!r} is not an http:// or https:// address; give the "
                "server's address with its /v1, such as 'http://127.0.0.1:1234/v1'"
            )
    return None


def _check(settings: Settings, source: str) -> None:
    """Checks that involve more than one value or the outside world."""
    if settings.timezone and not is_zone(settings.timezone):
        raise ConfigError(
            f"{source}: timezone = {settings.timezone!r} is not a known zone; "
            "use an IANA name such as 'Europe/London', or leave it empty for the computer's zone"
        )
    names = [n.strip("/") for n in dataclasses.astuple(settings.folders)]
    for key, name in zip(("inbox", "filed", "ask", "digests"), names, strict=True):
        if not name or ".." in Path(name).parts or Path(name).is_absolute():
            raise ConfigError(
                f"{source}: folders.{key} = {name!r} must be a folder name inside the vault"
            )
    if len(set(names)) != len(names):
        raise ConfigError(f"{source}: [folders] names must all differ, got {names}")
    vault = settings.vault.resolve()
    data = settings.data_dir.resolve()
    if data == vault or vault in data.parents:
        raise ConfigError(
            f"{source}: data_dir = '{settings.data_dir}' is inside the vault; "
            "the index and state must live outside it"
        )


def _build(cls: type[Any], table: Mapping[str, Any], source: str, prefix: str) -> Any:
    """Turn one TOML table into a frozen dataclass, rejecting unknown keys and wrong types."""
    if not isinstance(table, Mapping):
        raise ConfigError(f"{source}: [{prefix.rstrip('.')}] must be a table")
    fields = {f.name: f for f in dataclasses.fields(cls) if not f.metadata.get("internal")}
    hints = get_type_hints(cls)
    unknown = sorted(set(table) - set(fields))
    if unknown:
        allowed = ", ".join(sorted(fields))
        raise ConfigError(f"{source}: unknown key '{prefix}{unknown[0]}'; known keys: {allowed}")
    values: dict[str, Any] = {}
    for name, value in table.items():
        f = fields[name]
        key = f"{prefix}{name}"
        kind = hints[name]
        if isinstance(kind, type) and dataclasses.is_dataclass(kind):
            values[name] = _build(kind, value, source, prefix=f"{key}.")
            continue
        if f.metadata.get("numbers_as_text") and isinstance(value, int | float):
            value = str(value) if not isinstance(value, bool) else value
        values[name] = _coerce(kind, value, key, source)
        if f.metadata.get("any_case") and isinstance(values[name], str):
            values[name] = values[name].strip().lower()  # "Sunday" is sunday
        _validate(values[name], f.metadata, key, source)
    try:
        return cls(**values)
    except ConfigError as exc:  # a check in __post_init__: name the file too
        raise ConfigError(f"{source}: {exc}") from None


def _coerce(kind: Any, value: Any, key: str, source: str) -> Any:
    if get_origin(kind) in (Union, types.UnionType):
        kind = next(a for a in get_args(kind) if a is not type(None))
    bad = ConfigError(f"{source}: {key} = {value!r} is not valid; expected {_kind_name(kind)}")
    if kind is bool:
        if isinstance(value, bool):
            return value
        if isinstance(value, str) and value.lower() in ("true", "false", "1", "0", "yes", "no"):
            return value.lower() in ("true", "1", "yes")
        raise bad
    if kind in (int, float):
        if isinstance(value, bool):
            raise bad
        try:
            number = kind(value)
        except (TypeError, ValueError):
            raise bad from None
        if kind is int and isinstance(value, float) and not value.is_integer():
            raise bad
        return number
    if kind is str:
        if not isinstance(value, str):
            raise bad
        return value
    if kind is Path:
        if not isinstance(value, str) or not value.strip():
            raise bad
        return Path(value)
    if get_origin(kind) is tuple:
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            raise bad
        return tuple(value)
    raise bad  # pragma: no cover - a field type this loader does not know


def _kind_name(kind: Any) -> str:
    return {bool: "true or false", int: "a whole number", float: "a number", str: "a string"}.get(
        kind, "a path" if kind is Path else "a list of strings"
    )


def _validate(value: Any, meta: Mapping[str, Any], key: str, source: str) -> None:
    choices = meta.get("choices")
    if choices and value not in choices:
        allowed = " or ".join(repr(c) for c in choices)
        raise ConfigError(f"{source}: {key} = {value!r} is not allowed; use {allowed}")
    lo, hi = meta.get("min"), meta.get("max")
    if (lo is not None and value < lo) or (hi is not None and value > hi):
        raise ConfigError(f"{source}: {key} = {value!r} is out of range; allowed {lo} to {hi}")


def set_vault(settings: Settings) -> str:
    """What to do about a missing vault: a new user with no config file runs `init` (which
    finds the vault), not a hand-written key in a file that does not exist yet."""
    if settings.config_path is None:
        return (
            "run `commonplace init` (it finds your vault and writes the config), "
            "or set COMMONPLACE_VAULT"
        )
    return f"set 'vault' in {settings.config_path} or COMMONPLACE_VAULT"
