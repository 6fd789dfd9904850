"""Settings, read once from commonplace.toml and the environment, then passed down.

Every key has a default, so a missing file is fine; a wrong key or value is not: it stops the
program with one line that names the key, the bad value and what is allowed, because a typo that
is silently ignored is a setting the user believes in and does not have.
"""

from __future__ import annotations

import dataclasses
import hashlib
import os
import re
import tomllib
import types
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Union, get_args, get_origin, get_type_hints
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

APP = "commonplace"
DEFAULT_OLLAMA_HOST = "http://127.0.0.1:11434"
DEFAULT_CHAT_MODEL = "qwen3.5:9b"
DEFAULT_EMBED_MODEL = "nomic-embed-text"


class ConfigError(Exception):
    """A setting is wrong; the message is one line the user can act on."""


def _choices(*values: str) -> dict[str, Any]:
    return {"choices": values}


def _range(lo: float | None = None, hi: float | None = None) -> dict[str, Any]:
    return {"min": lo, "max": hi}


@dataclass(frozen=True)
class Folders:
    """Vault folder names; relative to the vault root."""

    inbox: str = "Inbox"
    filed: str = "Filed"
    ask: str = "Ask"
    digests: str = "Digests"


@dataclass(frozen=True)
class OllamaSettings:
    host: str = DEFAULT_OLLAMA_HOST
    chat_model: str = DEFAULT_CHAT_MODEL
    embed_model: str = DEFAULT_EMBED_MODEL
    timeout_s: float = field(default=180.0, metadata=_range(1, 3600))  # one chat call
    embed_timeout_s: float = field(default=120.0, metadata=_range(1, 3600))  # one embed batch
    retries: int = field(default=2, metadata=_range(0, 10))  # extra tries after a failure
    backoff_s: float = field(default=1.0, metadata=_range(0, 60))  # first retry wait, doubles
    embed_batch: int = field(default=32, metadata=_range(1, 1024))  # texts per /api/embed call
    keep_alive: str = "10m"  # how long Ollama keeps a model loaded after a call
    num_ctx: int = field(default=8192, metadata=_range(512, 262144))  # chat context, tokens
    # Thinking models reason before answering: "" leaves it to the model, "off" is faster.
    think: str = field(default="", metadata=_choices("", "on", "off"))


@dataclass(frozen=True)
class WebSettings:
    host: str = "127.0.0.1"
    port: int = field(default=8765, metadata=_range(1, 65535))
    ts_name: str = ""  # the computer's name.tailnet.ts.net, for the phone page
    owner_login: str = ""  # the Tailscale login allowed in
    extra_hosts: tuple[str, ...] = ()  # more Host names treated like localhost (use with care)
    max_json_kb: int = field(default=256, metadata=_range(1, 65536))  # one JSON request body


@dataclass(frozen=True)
class SpeechSettings:
    """Dictation: whisper.cpp on this computer, never a cloud service."""

    whisper_model: str = ""  # path to a ggml model file, e.g. ~/models/ggml-base.en.bin
    language: str = "en"  # whisper language code, or "auto"
    threads: int = field(default=4, metadata=_range(1, 64))
    max_upload_mb: float = field(default=20.0, metadata=_range(0.1, 500))  # one recording
    max_seconds: float = field(default=300.0, metadata=_range(1, 3600))  # one recording
    hint_names: int = field(default=60, metadata=_range(0, 500))  # names in the hint prompt


@dataclass(frozen=True)
class IndexSettings:
    fusion: str = field(default="convex", metadata=_choices("convex", "rrf"))
    rrf_k: int = field(default=60, metadata=_range(1, 10000))
    keyword_candidates: int = field(default=20, metadata=_range(0, 1000))  # BM25 notes fused in
    keyword_weight: float = field(default=1.0, metadata=_range(0, 10))  # of the keyword ranking
    chunk_tokens: int = field(default=400, metadata=_range(32, 8192))  # max tokens per chunk
    reconcile_minutes: float = field(default=10.0, metadata=_range(0.1, 1440))
    max_note_kb: int = field(default=2048, metadata=_range(1, 1_000_000))  # larger files skipped
    embed_titles: bool = True  # embed "title > heading" with each chunk's text
    compact_every: int = field(default=64, metadata=_range(1, 100_000))  # LanceDB writes
    vector_index_rows: int = field(default=2000, metadata=_range(256, 100_000_000))  # ANN past it


@dataclass(frozen=True)
class AskSettings:
    passages: int = field(default=8, metadata=_range(1, 50))  # passages given to the model
    quiet_s: float = field(default=5.0, metadata=_range(0, 600))  # Ask note unchanged this long
    max_inserts: int = field(default=3, metadata=_range(1, 100))  # re-inserts after reverts
    source_chars: int = field(default=240, metadata=_range(40, 4000))  # passage text under answers
    retry_s: float = field(default=60.0, metadata=_range(1, 86400))  # wait after a failed answer


@dataclass(frozen=True)
class TidySettings:
    """How captures in the inbox become filed notes (tidy/)."""

    after_filing: str = field(default="archive", metadata=_choices("archive", "delete"))
    stable_s: float = field(default=2.0, metadata=_range(0, 600))  # unchanged this long: ready
    max_attempts: int = field(default=3, metadata=_range(1, 100))  # garbage answers, then marked
    retry_s: float = field(default=30.0, metadata=_range(0, 3600))  # first wait after a failure
    retry_max_s: float = field(default=900.0, metadata=_range(0, 86400))  # waits double to this


WEEKDAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")


@dataclass(frozen=True)
class DigestSettings:
    """The weekly Digest note (digest/) and when the scheduler writes it."""

    enabled: bool = True
    day: str = field(default="sunday", metadata=_choices(*WEEKDAYS))
    time: str = "18:00"  # HH:MM in the configured timezone
    summary: bool = True  # ask the model for a few sentences above the lists

    def __post_init__(self) -> None:
        if not re.fullmatch(r"([01]?\d|2[0-3]):[0-5]\d", self.time):
            raise ConfigError(f"digest.time = {self.time!r} is not a time; use HH:MM, e.g. '18:00'")


@dataclass(frozen=True)
class PushSettings:
    """Web push (push/): who the push services may contact, and how hard to try."""

    # The VAPID 'sub' claim. Apple rejects '@localhost' addresses; use your own email if you like.
    contact: str = "mailto:commonplace@example.com"
    retries: int = field(default=3, metadata=_range(0, 10))  # extra tries after a failure
    backoff_s: float = field(default=2.0, metadata=_range(0, 600))  # first retry wait, doubles
    timeout_s: float = field(default=10.0, metadata=_range(1, 120))  # one request to a service
    # Tests run a push service on plain http://127.0.0.1; real ones are always https.
    allow_http_loopback: bool = field(default=False, metadata={"internal": True})

    def __post_init__(self) -> None:
        if not re.fullmatch(r"mailto:[^@\s]+@[^@\s]+|https://\S+", self.contact):
            raise ConfigError(
                f"push.contact = {self.contact!r} must be 'mailto:you@example.com' or an https URL"
            )
        if self.contact.lower().endswith(("@localhost", "://localhost")):
            raise ConfigError(
                f"push.contact = {self.contact!r}: Apple's push service rejects localhost; "
                "use a real email domain"
            )


@dataclass(frozen=True)
class Settings:
    vault: Path = Path("~/Notes")
    flavor: str = field(default="obsidian", metadata=_choices("obsidian", "logseq"))
    data_dir: Path = Path("~/.local/share/commonplace")
    timezone: str = ""  # empty: the computer's own timezone
    folders: Folders = field(default_factory=Folders)
    ollama: OllamaSettings = field(default_factory=OllamaSettings)
    web: WebSettings = field(default_factory=WebSettings)
    index: IndexSettings = field(default_factory=IndexSettings)
    speech: SpeechSettings = field(default_factory=SpeechSettings)
    tidy: TidySettings = field(default_factory=TidySettings)
    ask: AskSettings = field(default_factory=AskSettings)
    digest: DigestSettings = field(default_factory=DigestSettings)
    push: PushSettings = field(default_factory=PushSettings)
    # Not settable from the file: where the settings came from.
    config_path: Path | None = field(default=None, metadata={"internal": True})
    vault_configured: bool = field(default=False, metadata={"internal": True})

    def folder(self, key: str) -> str:
        """Vault-relative path of a daemon folder ('inbox', 'filed', 'ask', 'digests').

        Logseq only shows pages kept under pages/, so there a plain name like 'Inbox' means
        'pages/Inbox'; a name with a '/' is taken as given in both flavours.
        """
        name: str = getattr(self.folders, key).strip("/")
        if self.flavor == "logseq" and "/" not in name:
            return f"pages/{name}"
        return name

    def daemon_folders(self) -> tuple[str, ...]:
        """Vault-relative paths of the folders the daemon writes into."""
        return tuple(self.folder(k) for k in ("inbox", "filed", "ask", "digests"))

    @property
    def tz(self) -> ZoneInfo:
        return ZoneInfo(self.timezone) if self.timezone else ZoneInfo(local_timezone_name())

    @property
    def data_path(self) -> Path:
        """The data folder of this vault: one sub-folder per vault, never inside the vault."""
        resolved = self.vault.resolve()
        digest = hashlib.sha256(str(resolved).encode()).hexdigest()[:8]
        slug = re.sub(r"[^A-Za-z0-9._-]+", "-", resolved.name).strip("-") or "vault"
        return self.data_dir / f"{slug}-{digest}"


ENV_OVERRIDES: dict[str, tuple[str, ...]] = {
    "COMMONPLACE_VAULT": ("vault",),
    "COMMONPLACE_DATA": ("data_dir",),
    "COMMONPLACE_FLAVOR": ("flavor",),
    "COMMONPLACE_TIMEZONE": ("timezone",),
    "OLLAMA_HOST": ("ollama", "host"),
    "COMMONPLACE_CHAT_MODEL": ("ollama", "chat_model"),
    "COMMONPLACE_EMBED_MODEL": ("ollama", "embed_model"),
    "COMMONPLACE_WEB_HOST": ("web", "host"),
    "COMMONPLACE_WEB_PORT": ("web", "port"),
    "COMMONPLACE_WHISPER_MODEL": ("speech", "whisper_model"),
}


def local_timezone_name() -> str:
    """The computer's IANA zone name, so that 'due Friday' means the user's Friday."""
    tz = os.environ.get("TZ", "").lstrip(":")
    if tz and _is_zone(tz):
        return tz
    try:
        target = str(Path("/etc/localtime").resolve())
    except OSError:
        target = ""
    if "zoneinfo/" in target:
        name = target.split("zoneinfo/", 1)[1]
        if _is_zone(name):
            return name
    try:
        name = Path("/etc/timezone").read_text().strip()
    except OSError:
        name = ""
    return name if name and _is_zone(name) else "UTC"


def _is_zone(name: str) -> bool:
    try:
        ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError):
        return False
    return True


def default_config_path(env: Mapping[str, str]) -> Path:
    base = env.get("XDG_CONFIG_HOME") or str(Path.home() / ".config")
    return Path(base) / APP / "commonplace.toml"


def normalize_ollama_host(value: str) -> str:
    """Read OLLAMA_HOST the way the ollama client does: no scheme means port 11434,
    an explicit http:// or https:// without a port means 80 or 443."""
    value = value.strip().rstrip("/")
    scheme, sep, rest = value.partition("://")
    if not sep:
        scheme, rest, default_port = "http", value, 11434
    else:
        default_port = 443 if scheme == "https" else 80
    host, slash, path = rest.partition("/")
    if ":" not in host.rsplit("]", 1)[-1]:
        host = f"{host}:{default_port}"
    return f"{scheme}://{host}{slash}{path}"


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
    vault_configured = "vault" in raw or bool(env.get("COMMONPLACE_VAULT"))
    for var, keys in ENV_OVERRIDES.items():
        if env.get(var):
            table = raw
            for key in keys[:-1]:
                table = table.setdefault(key, {})
            table[keys[-1]] = env[var]
    source = str(config_path) if config_path.exists() else "settings"
    settings: Settings = _build(Settings, raw, source, prefix="")
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


def _check(settings: Settings, source: str) -> None:
    """Checks that involve more than one value or the outside world."""
    if settings.timezone and not _is_zone(settings.timezone):
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
        values[name] = _coerce(kind, value, key, source)
        _validate(values[name], f.metadata, key, source)
    return cls(**values)


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
