"""The sections for what the daemon talks to: the web server and its limits, web push, MCP,
the calendar and the weather (the model servers' are in models.py). Every key says what it
does in `metadata["doc"]`, which the reference is generated from.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from commonplace.config.values import (
    ConfigError,
    bounds,
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
            **bounds(0, 65535),
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
        metadata={**bounds(1, 65536), "doc": "Largest JSON request body, in KB."},
    )


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
        metadata={**bounds(0, 10), "doc": "Extra tries after a failure (429, 5xx, network)."},
    )
    backoff_s: float = field(
        default=2.0,
        metadata={**bounds(0, 600), "doc": "First wait before a retry; it doubles."},
    )
    timeout_s: float = field(
        default=10.0,
        metadata={**bounds(1, 120), "doc": "Longest wait for one request to a push service."},
    )
    max_wait_s: float = field(
        default=60.0,
        metadata={
            **bounds(0, 3600),
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
            **bounds(1, 65535),
            "doc": "`commonplace mcp --http` listens on 127.0.0.1 at this port.",
        },
    )
    max_read_chars: int = field(
        default=60_000,
        metadata={
            **bounds(1000, 10_000_000),
            "doc": "read_note hands an MCP client at most this much of a note.",
        },
    )


@dataclass(frozen=True)
class LimitSettings:
    """Expensive requests, per identity (the Tailscale login, or this computer): a burst of up
    to N is served at once, then one every 60/N seconds; past that the API answers 429 with
    Retry-After. A person typing never meets these; a script looping does."""

    asks_per_minute: int = field(
        default=10,
        metadata={
            **bounds(1, 10_000),
            "doc": "Questions and assistant messages: a burst of this many, then one every 60/N s.",
        },
    )
    searches_per_minute: int = field(
        default=120,
        metadata={**bounds(1, 100_000), "doc": "Searches and related-notes requests."},
    )
    transcriptions_per_minute: int = field(
        default=10,
        metadata={**bounds(1, 10_000), "doc": "Recordings sent for dictation."},
    )
    model_wait_s: float = field(
        default=120.0,
        metadata={
            **bounds(1, 3600),
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
        metadata={**bounds(1, 300), "doc": "Longest wait for one calendar operation."},
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
        metadata={**bounds(-90, 90), "doc": "The place's latitude; 0 and 0: no forecast."},
    )
    longitude: float = field(
        default=0.0, metadata={**bounds(-180, 180), "doc": "The place's longitude."}
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
        metadata={**bounds(1, 120), "doc": "Longest wait for the forecast."},
    )

    @property
    def configured(self) -> bool:
        return (self.latitude, self.longitude) != (0.0, 0.0)
