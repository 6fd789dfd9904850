"""Settings' plain values: names, defaults, and the checks and conversions of one value
(a timezone, a keep_alive, an Ollama address) that a section or the loading applies.
"""

from __future__ import annotations

import math
import os
import re
import urllib.parse
from collections.abc import Mapping
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

import platformdirs

APP = "commonplace"


DEFAULT_OLLAMA_HOST = "http://127.0.0.1:11434"


DEFAULT_CHAT_MODEL = "qwen3.5:9b"


DEFAULT_EMBED_MODEL = "nomic-embed-text"


class ConfigError(Exception):
    """A setting is wrong; the message is one line the user can act on."""


def one_of(*values: str) -> dict[str, Any]:
    return {"choices": values}


def bounds(lo: float | None = None, hi: float | None = None) -> dict[str, Any]:
    return {"min": lo, "max": hi}


def local_timezone_name() -> str:
    """The computer's IANA zone name, so that 'due Friday' means the user's Friday."""
    tz = os.environ.get("TZ", "").lstrip(":")
    if tz and is_zone(tz):
        return tz
    try:
        target = str(Path("/etc/localtime").resolve())
    except OSError:
        target = ""
    if "zoneinfo/" in target:
        name = target.split("zoneinfo/", 1)[1]
        if is_zone(name):
            return name
    try:
        name = Path("/etc/timezone").read_text().strip()
    except OSError:
        name = ""
    return name if name and is_zone(name) else "UTC"


def is_zone(name: str) -> bool:
    try:
        ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError):
        return False
    return True


_GO_DURATION = re.compile(r"[-+]?(?:0|(?:(?:\d+\.?\d*|\.\d+)(?:ns|us|µs|μs|ms|s|m|h))+)")


def is_cloud_model(name: str) -> bool:
    """A model Ollama runs on ollama.com, not here: its tag is `cloud` or ends in `-cloud`
    (`gpt-oss:120b-cloud`, `kimi-k2:1t-cloud`, `gpt-oss:20b:cloud`), as Ollama's own
    `modelref.ParseRef` reads a name; Ollama sends such a request on, with the notes in it."""
    _, colon, suffix = name.strip().rpartition(":")
    suffix = suffix.strip().lower()
    return bool(colon) and (suffix == "cloud" or ("/" not in suffix and suffix.endswith("-cloud")))


def keep_alive_value(text: str) -> str | float | None:
    """What to send as Ollama's keep_alive, or None if Ollama would refuse it.

    Ollama parses a string with Go's time.ParseDuration, which needs a unit ("600" and "-1"
    are refused), and takes a JSON number as seconds: so a plain number is sent as a number.
    """
    text = text.strip()
    try:
        seconds = float(text)
    except ValueError:
        return text if _GO_DURATION.fullmatch(text) else None
    return seconds if math.isfinite(seconds) else None


def default_data_dir() -> Path:
    """The platform's data folder (platformdirs): $XDG_DATA_HOME/commonplace or
    ~/.local/share/commonplace on Linux, ~/Library/Application Support/commonplace on macOS,
    %LOCALAPPDATA%\\commonplace on Windows. Data kept by an earlier version in
    ~/.local/share/commonplace stays where it is: a data folder never moves silently."""
    current = platformdirs.user_data_path(APP, appauthor=False)
    legacy = Path.home() / ".local" / "share" / APP
    return legacy if not current.exists() and legacy.is_dir() else current


def default_config_path(env: Mapping[str, str]) -> Path:
    """commonplace.toml in the platform's config folder ($XDG_CONFIG_HOME honoured), or in
    ~/.config/commonplace where earlier versions looked, if only that one exists."""
    if env.get("XDG_CONFIG_HOME"):
        return Path(env["XDG_CONFIG_HOME"]) / APP / "commonplace.toml"
    current = platformdirs.user_config_path(APP, appauthor=False) / "commonplace.toml"
    legacy = Path.home() / ".config" / APP / "commonplace.toml"
    return legacy if not current.exists() and legacy.is_file() else current


def normalize_ollama_host(value: str) -> str:
    """Read OLLAMA_HOST the way the ollama client does: no scheme means port 11434,
    an explicit http:// or https:// without a port means 80 or 443."""
    value = value.strip().rstrip("/")
    scheme, sep, rest = value.partition("://")
    if not sep:
        scheme, rest, default_port = "http", value, 11434
    else:
        scheme = scheme.lower()
        default_port = 443 if scheme == "https" else 80
    host, slash, path = rest.partition("/")
    if ":" not in host.rsplit("]", 1)[-1]:
        host = f"{host}:{default_port}"
    return f"{scheme}://{host}{slash}{path}"


def ollama_host_problem(value: str) -> str | None:
    """Why `value` is no address of an Ollama, or None. What the ollama client reads passes
    ('localhost:11434', 'box', ':11434', 'https://box/ollama'); another scheme, a port that is
    no port or a space did too, and then every call failed as "Ollama is not answering"."""
    text = value.strip()
    scheme, sep, rest = text.partition("://")
    if sep and scheme.lower() not in ("http", "https"):
        return f"uses {scheme}://, and Ollama answers only http:// or https://"
    if sep and not rest.strip("/"):
        return "names no computer"
    if any(c.isspace() for c in text):
        return "has a space in it"
    try:
        port = urllib.parse.urlsplit(normalize_ollama_host(text)).port
    except ValueError:
        port = None
    if not port:
        return "has a port that is not a number from 1 to 65535"
    return None
