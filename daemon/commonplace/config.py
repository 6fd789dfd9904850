"""Settings, read once from commonplace.toml and the environment, then passed down.

Every key has a default, so a missing file is fine; a wrong key or value is not: it stops the
program with one line that names the key, the bad value and what is allowed, because a typo that
is silently ignored is a setting the user believes in and does not have.
"""

from __future__ import annotations

import dataclasses
import hashlib
import math
import os
import re
import tomllib
import types
import urllib.parse
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Union, get_args, get_origin, get_type_hints
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

import platformdirs

from commonplace.vault.journals import journal_names

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

    inbox: str = field(
        default="Inbox", metadata={"doc": "Where captures land; everything saved here is filed."}
    )
    filed: str = field(default="Filed", metadata={"doc": "Where tidying writes filed notes."})
    ask: str = field(
        default="Ask", metadata={"doc": "Notes here are read for `?? ` questions to answer."}
    )
    digests: str = field(default="Digests", metadata={"doc": "Where the weekly digest goes."})


@dataclass(frozen=True)
class OllamaSettings:
    """Where Ollama is, which models it runs, and how each call to it is made."""

    host: str = field(
        default=DEFAULT_OLLAMA_HOST,
        metadata={
            "doc": "Ollama's address, in the forms Ollama accepts ('0.0.0.0', 'host:port', "
            "'https://box/ollama')."
        },
    )
    chat_model: str = field(
        default=DEFAULT_CHAT_MODEL,
        metadata={"doc": "The chat model tidy, Ask, the digest and the assistant use."},
    )
    embed_model: str = field(
        default=DEFAULT_EMBED_MODEL,
        metadata={"doc": "The embedding model the search index is built with."},
    )
    # For a model the profile table (llm/profiles.py) does not know or knows wrongly.
    embed_query_prefix: str = field(
        default="",
        metadata={
            "doc": "An embedding model's own query prefix, e.g. 'query: ' for E5 models; both "
            "prefixes empty keep the profile table's (or none)."
        },
    )
    embed_document_prefix: str = field(
        default="",
        metadata={"doc": "An embedding model's own document prefix, e.g. 'passage: '."},
    )
    timeout_s: float = field(
        default=180.0, metadata={**_range(1, 3600), "doc": "Longest wait for one chat call."}
    )
    embed_timeout_s: float = field(
        default=120.0,
        metadata={**_range(1, 3600), "doc": "Longest wait for one batch of embeddings."},
    )
    retries: int = field(
        default=2,
        metadata={
            **_range(0, 10),
            "doc": "Extra tries after a timeout or a connection failure.",
        },
    )
    backoff_s: float = field(
        default=1.0,
        metadata={**_range(0, 60), "doc": "First wait before a retry; it doubles each time."},
    )
    embed_batch: int = field(
        default=32, metadata={**_range(1, 1024), "doc": "Texts per embedding request."}
    )
    keep_alive: str = field(
        default="10m",
        metadata={
            "numbers_as_text": True,
            "doc": "How long Ollama keeps a model loaded after a call: a Go duration ('10m', "
            "'1h30m') or a number of seconds (negative: for ever).",
        },
    )
    num_ctx: int = field(
        default=0,
        metadata={
            **_range(0, 1_048_576),
            "doc": "Chat context in tokens; 0 sends none, so Ollama uses its own (4096 on a "
            "small GPU), and prompts are fitted to 4096.",
        },
    )
    think: str = field(
        default="off",
        metadata={
            **_choices("off", "on", ""),
            "doc": "Thinking models: 'off' answers at once (sent as think=false, which every "
            "model accepts), 'on' thinks first (refused by models that cannot), '' is the "
            "model's own default.",
        },
    )

    def __post_init__(self) -> None:
        if 0 < self.num_ctx < 512:
            raise ConfigError(
                f"ollama.num_ctx = {self.num_ctx} is too small; use 0 (Ollama's own) or 512+"
            )
        for key in ("chat_model", "embed_model"):
            name = getattr(self, key)
            if is_cloud_model(name):
                raise ConfigError(
                    f"ollama.{key} = {name!r} is one of Ollama's cloud models: Ollama would "
                    "send every note to ollama.com to run it; pick a model that runs on this "
                    "computer (e.g. qwen3.5:9b, nomic-embed-text)"
                )
        if keep_alive_value(self.keep_alive) is None:
            raise ConfigError(
                f"ollama.keep_alive = {self.keep_alive!r} is not a duration; use a number of "
                "seconds or a Go duration such as '10m', '1h30m' or '90s' (units: ns, us, ms, "
                "s, m, h)"
            )


@dataclass(frozen=True)
class WebSettings:
    """The phone page and the JSON API: where the daemon listens and whom it lets in."""

    host: str = field(
        default="127.0.0.1",
        metadata={
            "doc": "The address the server listens on; loopback only unless changed (other "
            "devices then need the API token)."
        },
    )
    port: int = field(
        default=8765,
        metadata={
            **_range(0, 65535),
            "doc": "The server's port; 0: any free port (logged, and kept in daemon.lock).",
        },
    )
    ts_name: str = field(
        default="",
        metadata={"doc": "The computer's name.tailnet.ts.net, for the phone page over Tailscale."},
    )
    owner_login: str = field(
        default="", metadata={"doc": "The Tailscale login allowed in on the ts_name."}
    )
    extra_hosts: tuple[str, ...] = field(
        default=(),
        metadata={"doc": "More Host names accepted like localhost (use with care)."},
    )
    max_json_kb: int = field(
        default=256,
        metadata={**_range(1, 65536), "doc": "Largest JSON request body, in KB."},
    )


@dataclass(frozen=True)
class ClipSettings:
    """A shared link's page (capture/clipping.py, capture/pagefetch.py): fetched only when asked,
    and guarded."""

    fetch_pages: bool = field(
        default=False,
        metadata={
            "doc": "Save the text of every linked page shared as a capture (a fetch tells the "
            "site your address and when you read it; the page's toggle asks for one capture)."
        },
    )
    max_page_kb: int = field(
        default=2048,
        metadata={**_range(16, 65536), "doc": "The largest web page fetched for its text, in KB."},
    )
    timeout_s: float = field(
        default=10.0,
        metadata={**_range(1, 120), "doc": "Seconds a page fetch may take before it is given up."},
    )
    max_share_mb: float = field(
        default=25.0,
        metadata={
            **_range(0.1, 500),
            "doc": "The largest total size of the files (photos, PDFs) in one share, in MB.",
        },
    )


@dataclass(frozen=True)
class SpeechSettings:
    """Dictation: whisper.cpp on this computer, never a cloud service."""

    whisper_model: str = field(
        default="",
        metadata={
            "doc": "Path of a whisper.cpp ggml model file, e.g. ~/models/ggml-base.en.bin; "
            "empty: no dictation."
        },
    )
    language: str = field(
        default="en", metadata={"doc": "The whisper language code of recordings, or 'auto'."}
    )
    threads: int = field(
        default=4, metadata={**_range(1, 64), "doc": "Threads whisper.cpp transcribes with."}
    )
    max_upload_mb: float = field(
        default=20.0,
        metadata={**_range(0.1, 500), "doc": "Largest recording upload, in MB (larger: 413)."},
    )
    max_seconds: float = field(
        default=300.0,
        metadata={
            **_range(1, 3600),
            "doc": "Longest recording, in seconds; the page stops recording at this length.",
        },
    )
    hint_names: int = field(
        default=60,
        metadata={
            **_range(0, 500),
            "doc": "Names of people and places from the vault in the dictation hint.",
        },
    )


@dataclass(frozen=True)
class IndexSettings:
    """The hybrid search index (index/): how it ranks, cuts notes and keeps up with the vault."""

    fusion: str = field(
        default="convex",
        metadata={
            **_choices("convex", "rrf"),
            "doc": "How the meaning and keyword rankings are combined: 'convex' (scores scaled "
            "and averaged) or 'rrf' (reciprocal rank fusion).",
        },
    )
    rrf_k: int = field(
        default=60,
        metadata={**_range(1, 10000), "doc": "The reciprocal rank fusion constant (fusion='rrf')."},
    )
    keyword_candidates: int = field(
        default=20,
        metadata={
            **_range(0, 1000),
            "doc": "Best whole-note keyword matches fused with the meaning ranking.",
        },
    )
    keyword_weight: float = field(
        default=1.0,
        metadata={
            **_range(0, 10),
            "doc": "Weight of the keyword ranking in the fusion (the meaning ranking's is 1).",
        },
    )
    # Measured to help MiniLM and to hurt all-mpnet-base-v2 (eval_suite/README.md, M2), so it
    # can be measured on the owner's model.
    hubness: bool = field(
        default=True,
        metadata={
            "doc": "The meaning side's hubness correction (CSLS, index/hubness.py); false: "
            "plain cosine."
        },
    )
    chunk_tokens: int = field(
        default=400,
        metadata={
            **_range(32, 8192),
            "doc": "Largest chunk, in (over-estimated) tokens; a model's own limit wins.",
        },
    )
    reconcile_minutes: float = field(
        default=10.0,
        metadata={
            **_range(0.1, 1440),
            "doc": "How often the index is compared with the vault (the periodic scan).",
        },
    )
    max_note_kb: int = field(
        default=2048,
        metadata={
            **_range(1, 1_000_000),
            "doc": "Larger note files are skipped (and the log says so).",
        },
    )
    embed_titles: bool = field(
        default=True, metadata={"doc": "Embed 'Title > Heading' with each chunk's text."}
    )
    compact_every: int = field(
        default=64,
        metadata={
            **_range(1, 100_000),
            "doc": "LanceDB writes between compactions and clean-ups.",
        },
    )
    vector_index_rows: int = field(
        default=2000,
        metadata={
            **_range(256, 100_000_000),
            "doc": "Chunks past which a LanceDB vector index (ANN) is built.",
        },
    )
    vector_process_idle_minutes: float = field(
        default=5.0,
        metadata={
            **_range(0, 1440),
            "doc": "The daemon's LanceDB process stops after this long without a search or a "
            "write (about 200 MB given back); 0 keeps LanceDB in the daemon's process.",
        },
    )
    exclude: tuple[str, ...] = field(
        default=(),
        metadata={
            "doc": "Notes kept out of search, in Obsidian's 'Excluded files' syntax: a path "
            "prefix such as 'Templates/', or '/regex/'; Obsidian's and Logseq's own exclusions "
            "are followed too."
        },
    )


@dataclass(frozen=True)
class AttachmentSettings:
    """PDFs and images in the vault: read, cached by content, indexed page by page."""

    enabled: bool = field(
        default=True, metadata={"doc": "Read the vault's PDFs and images into the search index."}
    )
    ocr: bool = field(
        default=True,
        metadata={"doc": "Read images and pages without a text layer by OCR (needs Tesseract)."},
    )
    ocr_languages: tuple[str, ...] = field(
        default=("eng",),
        metadata={"doc": "Tesseract languages to read with, e.g. ['eng', 'deu']."},
    )
    ocr_below_chars: int = field(
        default=50,
        metadata={
            **_range(0, 100_000),
            "doc": "A PDF page with fewer characters of text than this is read by OCR.",
        },
    )
    max_file_mb: float = field(
        default=200.0,
        metadata={**_range(0.1, 100_000), "doc": "Larger attachments are not read."},
    )
    max_pages: int = field(
        default=2000,
        metadata={**_range(1, 1_000_000), "doc": "Pages read from one PDF; the rest are not."},
    )
    max_seconds: float = field(
        default=300.0,
        metadata={
            **_range(1, 86_400),
            "doc": "Time one file may take to read; the pages read by then are kept.",
        },
    )
    max_pixels: int = field(
        default=100_000_000,
        metadata={
            **_range(1_000_000, 2_000_000_000),
            "doc": "Larger images are refused as decompression bombs; pages render below it.",
        },
    )
    max_memory_mb: int = field(
        default=2048,
        metadata={
            **_range(0, 1_000_000),
            "doc": "Memory the reading process may use (0: no limit); a bomb stops there.",
        },
    )
    max_photo_mb: float = field(
        default=20.0,
        metadata={**_range(0.1, 1000), "doc": "The largest photo the phone page takes."},
    )


@dataclass(frozen=True)
class AskSettings:
    """Answers from the notes (ask/): what the model is shown, and `?? ` questions in Ask notes."""

    passages: int = field(
        default=8, metadata={**_range(1, 50), "doc": "Passages given to the model."}
    )
    quiet_s: float = field(
        default=5.0,
        metadata={
            **_range(0, 600),
            "doc": "An Ask note must be unchanged this long before it is answered.",
        },
    )
    max_inserts: int = field(
        default=3,
        metadata={
            **_range(1, 100),
            "doc": "Times an answer is put back after it disappeared from its note.",
        },
    )
    source_chars: int = field(
        default=240,
        metadata={**_range(40, 4000), "doc": "Length of the passage shown under an answer."},
    )
    retry_s: float = field(
        default=60.0,
        metadata={
            **_range(1, 86400),
            "doc": "Wait before trying a question again after Ollama failed.",
        },
    )


@dataclass(frozen=True)
class TidySettings:
    """How captures in the inbox become filed notes (tidy/)."""

    after_filing: str = field(
        default="archive",
        metadata={
            **_choices("archive", "delete"),
            "doc": "'archive' keeps a copy of each filed capture in the data folder; 'delete' "
            "keeps none.",
        },
    )
    stable_s: float = field(
        default=2.0,
        metadata={**_range(0, 600), "doc": "A capture is read once unchanged this long."},
    )
    max_attempts: int = field(
        default=3,
        metadata={
            **_range(1, 100),
            "doc": "Unusable model answers in a row before a capture is marked.",
        },
    )
    retry_s: float = field(
        default=30.0,
        metadata={**_range(0, 3600), "doc": "First wait after a failure; waits double."},
    )
    retry_max_s: float = field(
        default=900.0,
        metadata={**_range(0, 86400), "doc": "The longest wait between tries."},
    )
    max_capture_kb: int = field(
        default=512,
        metadata={
            **_range(1, 1_000_000),
            "doc": "A larger capture file stays in the inbox, untouched, shown with the reason.",
        },
    )
    marked_retry_s: float = field(
        default=3600.0,
        metadata={
            **_range(1, 86400),
            "doc": "A marked capture is tried again after this, the wait doubling up to a day.",
        },
    )
    todo_format: str = field(
        default="plain",
        metadata={
            **_choices("plain", "tasks", "dataview"),
            "doc": "How a to-do's due date is written (Obsidian flavour): 'plain' (due "
            "2026-10-23), 'tasks' (the Tasks plugin's 📅 2026-10-23) or 'dataview' "
            "([due:: 2026-10-23]).",
        },
    )


@dataclass(frozen=True)
class LeaseSettings:
    """The vault lease (daemon/lease.py): which computer's daemon tidies and answers, when several
    computers sync one vault."""

    heartbeat_s: float = field(
        default=60.0,
        metadata={
            **_range(0.1, 3600),
            "doc": "How often the daemon that holds the vault's lease renews it.",
        },
    )
    stale_s: float = field(
        default=600.0,
        metadata={
            **_range(1, 86400),
            "doc": "A lease unchanged this long (by this computer's clock) is taken over; at "
            "least three heartbeats.",
        },
    )

    def __post_init__(self) -> None:
        if self.stale_s < 3 * self.heartbeat_s:
            raise ConfigError(
                f"lease.stale_s = {self.stale_s:g} must be at least three heartbeats "
                f"(3 x lease.heartbeat_s = {3 * self.heartbeat_s:g}), or a slow sync tool "
                "makes a working daemon look gone"
            )


WEEKDAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")


@dataclass(frozen=True)
class DigestSettings:
    """The weekly Digest note (digest/) and when the scheduler writes it."""

    enabled: bool = field(default=True, metadata={"doc": "false: the scheduler writes no digest."})
    day: str = field(
        default="sunday",
        metadata={
            **_choices(*WEEKDAYS),
            "any_case": True,
            "doc": "The day it is written ('Sunday' works too); it covers the last "
            "Monday-Sunday week whose Sunday has come.",
        },
    )
    time: str = field(default="18:00", metadata={"doc": "HH:MM in the configured timezone."})
    summary: bool = field(
        default=True,
        metadata={
            "doc": "Ask the model for a few sentences above the lists; false: no model call."
        },
    )

    def __post_init__(self) -> None:
        if not re.fullmatch(r"([01]?\d|2[0-3]):[0-5]\d", self.time):
            raise ConfigError(f"digest.time = {self.time!r} is not a time; use HH:MM, e.g. '18:00'")


@dataclass(frozen=True)
class PushSettings:
    """Web push (push/): who the push services may contact, and how hard to try."""

    contact: str = field(
        default="mailto:commonplace@example.com",
        metadata={
            "doc": "The VAPID contact (the 'sub' claim) push services see: a mailto: address "
            "or an https URL; Apple refuses localhost."
        },
    )
    retries: int = field(
        default=3,
        metadata={**_range(0, 10), "doc": "Extra tries after a failure (429, 5xx, network)."},
    )
    backoff_s: float = field(
        default=2.0,
        metadata={**_range(0, 600), "doc": "First wait before a retry; it doubles."},
    )
    timeout_s: float = field(
        default=10.0,
        metadata={**_range(1, 120), "doc": "Longest wait for one request to a push service."},
    )
    max_wait_s: float = field(
        default=60.0,
        metadata={
            **_range(0, 3600),
            "doc": "The longest Retry-After honoured; a service asking for more is not tried "
            "again that time.",
        },
    )
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
class McpSettings:
    """The MCP server (`commonplace mcp`) other AI clients use: where --http listens, how much
    of a note one read hands over."""

    port: int = field(
        default=8766,
        metadata={
            **_range(1, 65535),
            "doc": "`commonplace mcp --http` listens on 127.0.0.1 at this port.",
        },
    )
    max_read_chars: int = field(
        default=60_000,
        metadata={
            **_range(1000, 10_000_000),
            "doc": "read_note hands an MCP client at most this much of a note.",
        },
    )


@dataclass(frozen=True)
class AssistantSettings:
    """The assistant on the phone page (assistant/): the vault notes its tools read and change."""

    tasks_note: str = field(
        default="Tasks.md",
        metadata={"doc": "Where the assistant adds tasks; created on the first Yes that adds one."},
    )
    memory_note: str = field(
        default="Memory.md",
        metadata={"doc": "Lines the assistant keeps in mind; edit it by hand any time."},
    )

    def __post_init__(self) -> None:
        for key in ("tasks_note", "memory_note"):
            value = getattr(self, key).strip()
            if not value or ".." in Path(value).parts or Path(value).is_absolute():
                raise ConfigError(
                    f"assistant.{key} = {value!r} must be a note's path inside the vault"
                )


@dataclass(frozen=True)
class LimitSettings:
    """Expensive requests, per identity (the Tailscale login, or this computer): a burst of up
    to N is served at once, then one every 60/N seconds; past that the API answers 429 with
    Retry-After. A person typing never meets these; a script looping does."""

    asks_per_minute: int = field(
        default=10,
        metadata={
            **_range(1, 10_000),
            "doc": "Questions and assistant messages: a burst of this many, then one every 60/N s.",
        },
    )
    searches_per_minute: int = field(
        default=120,
        metadata={**_range(1, 100_000), "doc": "Searches and related-notes requests."},
    )
    transcriptions_per_minute: int = field(
        default=10,
        metadata={**_range(1, 10_000), "doc": "Recordings sent for dictation."},
    )
    model_wait_s: float = field(
        default=120.0,
        metadata={
            **_range(1, 3600),
            "doc": "How long a question from the page waits for the model while other work has it.",
        },
    )


@dataclass(frozen=True)
class CalendarSettings:
    """The assistant's calendar over CalDAV (calendar/). The password is never kept here: it is
    read from `password_file` or COMMONPLACE_CALDAV_PASSWORD when the calendar is used."""

    url: str = field(
        default="",
        metadata={
            "doc": "The CalDAV address, e.g. 'https://caldav.fastmail.com/dav/'; empty: no "
            "calendar."
        },
    )
    username: str = field(default="", metadata={"doc": "The CalDAV login."})
    password_file: str = field(
        default="",
        metadata={
            "doc": "A file holding the app password on its first line (or "
            "COMMONPLACE_CALDAV_PASSWORD, which wins)."
        },
    )
    read: tuple[str, ...] = field(
        default=(), metadata={"doc": "Calendar names to read; empty: all of the account's."}
    )
    write: str = field(
        default="",
        metadata={"doc": "The calendar new events go to; empty: the first one read."},
    )
    timeout_s: float = field(
        default=15.0,
        metadata={**_range(1, 300), "doc": "Longest wait for one calendar operation."},
    )

    def __post_init__(self) -> None:
        if self.url and not re.match(r"https?://[^/\s]+", self.url):
            raise ConfigError(
                f"calendar.url = {self.url!r} is not a web address; "
                "use the CalDAV address your provider gives, e.g. 'https://caldav.fastmail.com/'"
            )

    @property
    def configured(self) -> bool:
        return bool(self.url)


@dataclass(frozen=True)
class WeatherSettings:
    """The forecast from Open-Meteo (weather/): no key, only the place's coordinates."""

    latitude: float = field(
        default=0.0,
        metadata={**_range(-90, 90), "doc": "The place's latitude; 0 and 0: no forecast."},
    )
    longitude: float = field(
        default=0.0, metadata={**_range(-180, 180), "doc": "The place's longitude."}
    )
    place: str = field(
        default="", metadata={"doc": "The name shown with the forecast, e.g. 'Bristol'."}
    )
    url: str = field(
        default="https://api.open-meteo.com/v1/forecast",
        metadata={"doc": "Open-Meteo's forecast address."},
    )
    timeout_s: float = field(
        default=10.0,
        metadata={**_range(1, 120), "doc": "Longest wait for the forecast."},
    )

    @property
    def configured(self) -> bool:
        return (self.latitude, self.longitude) != (0.0, 0.0)


@dataclass(frozen=True)
class BriefingSettings:
    """The morning briefing (briefing/): pushed once a day, and shown in the Assistant view."""

    enabled: bool = field(
        default=True,
        metadata={"doc": "Write the briefing and push it to the phones that turned it on."},
    )
    time: str = field(default="07:00", metadata={"doc": "HH:MM in the configured timezone."})

    def __post_init__(self) -> None:
        if not re.fullmatch(r"([01]?\d|2[0-3]):[0-5]\d", self.time):
            raise ConfigError(
                f"briefing.time = {self.time!r} is not a time; use HH:MM, e.g. '07:00'"
            )


@dataclass(frozen=True)
class Settings:
    vault: Path = field(
        default=Path("~/Notes"),
        metadata={"doc": "The vault: Obsidian's vault folder or Logseq's graph folder."},
    )
    flavor: str = field(
        default="obsidian",
        metadata={
            **_choices("obsidian", "logseq"),
            "doc": "How the vault is written and read: 'obsidian' (also plain Markdown "
            "folders) or 'logseq'.",
        },
    )
    data_dir: Path = field(
        default_factory=lambda: default_data_dir(),
        metadata={
            "doc": "Where the index, state, keys and archive live, one sub-folder per vault; "
            "never inside the vault."
        },
    )
    timezone: str = field(
        default="",
        metadata={"doc": "An IANA zone such as 'Europe/London'; empty: the computer's own."},
    )
    folders: Folders = field(
        default_factory=Folders,
        metadata={"doc": "The daemon's folders inside the vault (Logseq: under the pages folder)."},
    )
    ollama: OllamaSettings = field(
        default_factory=OllamaSettings, metadata={"doc": "Ollama and its models."}
    )
    web: WebSettings = field(
        default_factory=WebSettings, metadata={"doc": "The phone page and the JSON API."}
    )
    index: IndexSettings = field(
        default_factory=IndexSettings, metadata={"doc": "The hybrid search index."}
    )
    attachments: AttachmentSettings = field(
        default_factory=AttachmentSettings,
        metadata={"doc": "PDFs and images in the vault, searched and cited by page."},
    )
    speech: SpeechSettings = field(
        default_factory=SpeechSettings, metadata={"doc": "Dictation with whisper.cpp."}
    )
    clip: ClipSettings = field(
        default_factory=ClipSettings,
        metadata={"doc": "Shared links: whether and how a linked page's text is saved."},
    )
    tidy: TidySettings = field(
        default_factory=TidySettings, metadata={"doc": "Captures becoming filed notes."}
    )
    ask: AskSettings = field(
        default_factory=AskSettings, metadata={"doc": "Answers from the notes."}
    )
    digest: DigestSettings = field(
        default_factory=DigestSettings, metadata={"doc": "The weekly digest."}
    )
    push: PushSettings = field(
        default_factory=PushSettings, metadata={"doc": "Web push notifications."}
    )
    lease: LeaseSettings = field(
        default_factory=LeaseSettings, metadata={"doc": "Several computers syncing one vault."}
    )
    assistant: AssistantSettings = field(
        default_factory=AssistantSettings, metadata={"doc": "The assistant's notes."}
    )
    mcp: McpSettings = field(
        default_factory=McpSettings, metadata={"doc": "The MCP server for other AI clients."}
    )
    limits: LimitSettings = field(
        default_factory=LimitSettings,
        metadata={"doc": "Rate limits per identity (your Tailscale login, or this computer)."},
    )
    calendar: CalendarSettings = field(
        default_factory=CalendarSettings, metadata={"doc": "The calendar, over CalDAV."}
    )
    weather: WeatherSettings = field(
        default_factory=WeatherSettings, metadata={"doc": "The forecast, from Open-Meteo."}
    )
    briefing: BriefingSettings = field(
        default_factory=BriefingSettings, metadata={"doc": "The morning briefing."}
    )
    # Not settable from the file: where the settings came from.
    config_path: Path | None = field(default=None, metadata={"internal": True})
    vault_configured: bool = field(default=False, metadata={"internal": True})

    def folder(self, key: str) -> str:
        """Vault-relative path of a daemon folder ('inbox', 'filed', 'ask', 'digests').

        In Logseq a plain name like 'Inbox' goes where Logseq puts the graph's pages
        ('pages/Inbox', or 'notes/Inbox' with `:pages-directory "notes"`: pages_folder); a
        name with a '/' is taken as given in both flavours.
        """
        name: str = getattr(self.folders, key).strip("/")
        if self.flavor == "logseq" and "/" not in name:
            return f"{self.pages_folder()}/{name}"
        return name

    def pages_folder(self) -> str:
        """In Logseq, the graph's pages directory: `:pages-directory` in logseq/config.edn,
        'pages' by default, read again when that file changes (vault/journals.py). Logseq
        writes every new page there, so the daemon's notes and namespace pages go there too.
        Empty in Obsidian."""
        return journal_names(self.vault).pages if self.flavor == "logseq" else ""

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
    vault_configured = "vault" in raw or bool(env.get("COMMONPLACE_VAULT"))
    for var, keys in ENV_OVERRIDES.items():
        if env.get(var):
            table = raw
            for key in keys[:-1]:
                table = table.setdefault(key, {})
            table[keys[-1]] = env[var]
    source = str(config_path) if config_path.exists() else "settings"
    settings: Settings = _build(Settings, raw, source, prefix="")
    problem = ollama_host_problem(settings.ollama.host)
    if problem:
        where = "OLLAMA_HOST" if env.get("OLLAMA_HOST") else f"{source}: ollama.host"
        raise ConfigError(
            f"{where} = {settings.ollama.host!r} {problem}; give Ollama's address, such as "
            "'localhost:11434' or 'http://127.0.0.1:11434'"
        )
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
