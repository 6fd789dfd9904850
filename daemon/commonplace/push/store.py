"""The phones' push subscriptions, kept in the data folder as one small JSON file.

A subscription is what the browser's PushSubscription.toJSON() gives: an endpoint URL at the
browser's push service and two keys for encrypting to that browser. They are checked when they
arrive, so that a bad one is refused with a reason instead of failing at every digest.
"""

from __future__ import annotations

import ipaddress
import logging
import time
from collections.abc import Mapping
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from commonplace.config import Settings
from commonplace.push.keys import b64url_decode
from commonplace.statefile import read_json, write_json

log = logging.getLogger(__name__)

SUBSCRIPTIONS_FILE = "subscriptions.json"
MAX_SUBSCRIPTIONS = 20  # a few phones and browsers; the oldest go first
MAX_ENDPOINT = 2048


class BadSubscription(ValueError):
    """The page sent something that is not a usable push subscription."""


@dataclass(frozen=True)
class Subscription:
    endpoint: str
    p256dh: str
    auth: str
    added: float = 0.0

    def info(self) -> dict[str, Any]:
        """The shape pywebpush takes."""
        return {"endpoint": self.endpoint, "keys": {"p256dh": self.p256dh, "auth": self.auth}}


def push_folder(settings: Settings) -> Path:
    return settings.data_path / "push"


def parse_subscription(body: Any, *, allow_http_loopback: bool = False) -> Subscription:
    if not isinstance(body, Mapping):
        raise BadSubscription("expected a JSON object from PushSubscription.toJSON()")
    endpoint = body.get("endpoint")
    keys = body.get("keys")
    if not isinstance(endpoint, str) or not endpoint:
        raise BadSubscription("'endpoint' is missing")
    check_endpoint(endpoint, allow_http_loopback=allow_http_loopback)
    if not isinstance(keys, Mapping):
        raise BadSubscription("'keys' with 'p256dh' and 'auth' is missing")
    p256dh, auth = keys.get("p256dh"), keys.get("auth")
    if not isinstance(p256dh, str) or not _decodes_to(p256dh, 65, first=0x04):
        raise BadSubscription("'keys.p256dh' is not a P-256 public key (65 bytes, base64url)")
    if not isinstance(auth, str) or not _decodes_to(auth, 16):
        raise BadSubscription("'keys.auth' is not a 16-byte secret (base64url)")
    return Subscription(endpoint, p256dh, auth, time.time())


def check_endpoint(endpoint: str, *, allow_http_loopback: bool = False) -> None:
    """Push services are https; plain http is allowed only to loopback, and only in tests."""
    if len(endpoint) > MAX_ENDPOINT:
        raise BadSubscription(f"'endpoint' is longer than {MAX_ENDPOINT} characters")
    try:
        parts = urlsplit(endpoint)
        host = parts.hostname or ""
    except ValueError:
        raise BadSubscription("'endpoint' is not a URL") from None
    if parts.username or parts.password or not host:
        raise BadSubscription("'endpoint' is not a push service URL")
    if parts.scheme == "https":
        return
    if parts.scheme == "http" and allow_http_loopback and _is_loopback(host):
        return
    raise BadSubscription("'endpoint' must be an https:// URL at a push service")


def _is_loopback(host: str) -> bool:
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return host == "localhost"


def _decodes_to(text: str, size: int, first: int | None = None) -> bool:
    try:
        raw = b64url_decode(text)
    except (ValueError, TypeError):
        return False
    return len(raw) == size and (first is None or raw[0] == first)


class SubscriptionStore:
    """Load, change, save: each call reads the file, so the daemon and the CLI agree."""

    def __init__(self, folder: Path) -> None:
        self.path = folder / SUBSCRIPTIONS_FILE

    def all(self) -> list[Subscription]:
        raw = read_json(self.path)
        subs = []
        for item in raw if isinstance(raw, list) else []:
            try:
                subs.append(Subscription(**item))
            except TypeError:
                log.warning("%s: skipping a malformed entry", self.path)
        return subs

    def add(self, sub: Subscription) -> int:
        """Add or refresh a subscription; returns how many there are now."""
        subs = [s for s in self.all() if s.endpoint != sub.endpoint] + [sub]
        subs = subs[-MAX_SUBSCRIPTIONS:]
        self._save(subs)
        return len(subs)

    def remove(self, endpoint: str) -> bool:
        subs = self.all()
        kept = [s for s in subs if s.endpoint != endpoint]
        if len(kept) == len(subs):
            return False
        self._save(kept)
        return True

    def _save(self, subs: list[Subscription]) -> None:
        """Atomic and private: the auth secrets let anyone who has them push to the phone."""
        write_json(self.path, [asdict(s) for s in subs], private=True)
