"""The phones' push subscriptions, kept in the data folder as one small JSON file.

A subscription is what the browser's PushSubscription.toJSON() gives: an endpoint URL at the
browser's push service and two keys for encrypting to that browser. They are checked when they
arrive, so that a bad one is refused with a reason instead of failing at every digest.
"""

from __future__ import annotations

import logging
import re
import time
from collections.abc import Mapping
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from commonplace.basics.net import non_public_reason, parse_ip
from commonplace.config import Settings
from commonplace.push.keys import b64url_decode
from commonplace.runtime.statefile import read_json, write_json

log = logging.getLogger(__name__)

SUBSCRIPTIONS_FILE = "subscriptions.json"
MAX_SUBSCRIPTIONS = 20  # a few phones and browsers; the oldest go first
MAX_ENDPOINT = 2048
P256_POINT_BYTES = 65  # 0x04, then x and y
AUTH_BYTES = 16
_B64URL = re.compile(r"[A-Za-z0-9_-]+={0,2}")


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
    """A subscription from PushSubscription.toJSON(), or BadSubscription saying what is wrong.

    The endpoint is checked here as text (and a literal address as an address); a name is
    resolved and checked by push/endpoints.py, which the API runs before storing it.
    """
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
    if not isinstance(p256dh, str) or not _is_p256_point(p256dh):
        raise BadSubscription(
            "'keys.p256dh' is not a P-256 public key (an uncompressed point on the curve, "
            "65 bytes, base64url)"
        )
    if not isinstance(auth, str) or len(_decode(auth) or b"") != AUTH_BYTES:
        raise BadSubscription(f"'keys.auth' is not a {AUTH_BYTES}-byte secret (base64url)")
    return Subscription(endpoint, p256dh, auth, time.time())


def check_endpoint(endpoint: str, *, allow_http_loopback: bool = False) -> None:
    """Push services are https on the public internet; plain http to a literal loopback
    address is allowed only in tests (`push.allow_http_loopback`)."""
    if len(endpoint) > MAX_ENDPOINT:
        raise BadSubscription(f"'endpoint' is longer than {MAX_ENDPOINT} characters")
    try:
        parts = urlsplit(endpoint)
        host = parts.hostname or ""
        parts.port  # noqa: B018 - raises ValueError for a port that is not a number
    except ValueError:
        raise BadSubscription("'endpoint' is not a URL") from None
    if parts.username or parts.password or not host:
        raise BadSubscription("'endpoint' is not a push service URL")
    ip = parse_ip(host)
    if allow_http_loopback and ip is not None and ip.is_loopback and parts.scheme == "http":
        return
    if parts.scheme != "https":
        raise BadSubscription("'endpoint' must be an https:// URL at a push service")
    if host.rstrip(".").lower() == "localhost" or host.lower().endswith(".localhost"):
        raise BadSubscription("'endpoint' names this computer; push services are public")
    reason = non_public_reason(ip) if ip is not None else None
    if reason:
        raise BadSubscription(
            f"'endpoint' address {host} {reason}; only push services on the public internet "
            "are accepted"
        )


def _is_p256_point(text: str) -> bool:
    from cryptography.hazmat.primitives.asymmetric import ec  # only when a phone subscribes

    raw = _decode(text)
    if raw is None or len(raw) != P256_POINT_BYTES or raw[0] != 0x04:
        return False
    try:
        ec.EllipticCurvePublicKey.from_encoded_point(ec.SECP256R1(), raw)
    except ValueError:
        return False
    return True


def _decode(text: str) -> bytes | None:
    """Strict base64url (the lenient decoder would drop stray characters and accept them)."""
    if not _B64URL.fullmatch(text):
        return None
    try:
        return b64url_decode(text.rstrip("="))
    except (ValueError, TypeError):
        return None


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
