"""Sending one message to every subscribed phone, with pywebpush.

Each push service answers for its own phone: 201 is delivered, 404/410 means the subscription
is gone for good (removed here), 429 and 5xx are worth another try, anything else is logged
with the service's reason. A slow or failing service never holds up the others: every phone is
sent to at once, each with its own retries and waits.

A busy service says when to come back (`Retry-After`, seconds or an HTTP date). Trying sooner
only earns another refusal, so that wait is honoured, up to `[push] max_wait_s`; a service that
asks for longer is not tried again this time, and the delivery says why.
"""

from __future__ import annotations

import asyncio
import json
import logging
import time
from dataclasses import asdict, dataclass, replace
from email.utils import parsedate_to_datetime
from typing import TYPE_CHECKING, Any

import aiohttp
from aiohttp.abc import AbstractResolver

from commonplace.basics.backoff import backoff_s
from commonplace.config import Settings
from commonplace.push.endpoints import EndpointRefused, NotPublic, public_session
from commonplace.push.keys import load_or_create_keys
from commonplace.push.store import (
    BadSubscription,
    Subscription,
    SubscriptionStore,
    check_endpoint,
    push_folder,
)

if TYPE_CHECKING:
    from pywebpush import WebPushException

log = logging.getLogger(__name__)

# Push services must accept 4096 bytes of encrypted record (RFC 8030 §7.2); aes128gcm adds
# 86 bytes of header, 16 of tag and 1 of padding. 3000 bytes of JSON leaves a safe margin.
MAX_PAYLOAD_BYTES = 3000
TTL_S = 24 * 3600  # a phone that is off for a day still gets the digest


@dataclass(frozen=True)
class PushMessage:
    """What the service worker shows: it reads these four keys from the JSON payload."""

    title: str
    body: str
    tag: str = "commonplace"  # a newer message with the same tag replaces the older one
    url: str = "/"


@dataclass(frozen=True)
class Delivery:
    endpoint: str
    status: str  # "sent" | "gone" (removed) | "failed" | "refused" (not a public address)
    detail: str = ""

    @property
    def service(self) -> str:
        return _host(self.endpoint)


def _host(endpoint: str) -> str:
    """Logs name the push service, not the endpoint: its path identifies the phone."""
    return endpoint.split("/")[2] if endpoint.count("/") >= 2 else "?"


def encode_payload(message: PushMessage, limit: int = MAX_PAYLOAD_BYTES) -> bytes:
    """The message as UTF-8 JSON of at most `limit` bytes: the body is cut first, then the
    title, always on a character boundary and marked with '…'."""
    current = message
    for field in ("body", "title"):
        while len(data := _json(current)) > limit and getattr(current, field):
            text: str = getattr(current, field)
            keep = max(0, len(text.encode()) - (len(data) - limit) - len("…".encode()) - 1)
            cut = text.encode()[:keep].decode("utf-8", errors="ignore").rstrip()
            current = replace(current, **{field: f"{cut}…" if cut else ""})
    data = _json(current)
    if len(data) > limit:
        data = _json(replace(current, url="/", tag="commonplace"))
    return data


def _json(message: PushMessage) -> bytes:
    return json.dumps(asdict(message), ensure_ascii=False, separators=(",", ":")).encode()


async def send_to_all(
    settings: Settings, message: PushMessage, *, resolver: AbstractResolver | None = None
) -> list[Delivery]:
    """Send to every subscription at once; remove the ones the services say are gone.

    Every request goes through endpoints.public_session: public addresses only, no redirects
    (`resolver` replaces the system's name lookup, for tests)."""
    folder = push_folder(settings)
    store = SubscriptionStore(folder)
    subs = store.all()
    if not subs:
        return []
    keys = load_or_create_keys(folder)
    payload = encode_payload(message).decode()
    async with public_session(settings.push.timeout_s, resolver) as client:
        deliveries = await asyncio.gather(
            *(_send_one(settings, client, sub, payload, keys.private_key) for sub in subs)
        )
    for delivery in deliveries:
        if delivery.status == "gone":
            store.remove(delivery.endpoint)
            log.info("push: %s says the subscription is gone; removed it", delivery.service)
    return list(deliveries)


async def _send_one(
    settings: Settings,
    session: aiohttp.ClientSession,
    sub: Subscription,
    payload: str,
    private_key: Any,
) -> Delivery:
    # Imported here, not at start-up: pywebpush and its crypto stack are ~30 MB of an idle
    # daemon that sends a few notifications a week.
    from py_vapid import Vapid
    from pywebpush import WebPushException, webpush_async

    push = settings.push
    vapid = Vapid(private_key)
    detail = ""
    try:  # subscriptions stored before this rule existed are checked again here
        check_endpoint(sub.endpoint, allow_http_loopback=push.allow_http_loopback)
    except BadSubscription as exc:
        return _refused(sub, str(exc))
    for attempt in range(push.retries + 1):
        asked: float | None = None
        try:
            await webpush_async(
                subscription_info=sub.info(),
                data=payload,
                vapid_private_key=vapid,
                vapid_claims={"sub": push.contact},  # pywebpush adds aud and exp
                ttl=TTL_S,
                timeout=aiohttp.ClientTimeout(total=push.timeout_s),
                headers={"Urgency": "normal"},
                aiohttp_session=session,
            )
            return Delivery(sub.endpoint, "sent")
        except WebPushException as exc:
            status = exc.status_code
            if status in (404, 410):
                return Delivery(sub.endpoint, "gone", f"HTTP {status}")
            detail = f"HTTP {status}: {_reason(exc)}" if status else str(exc.message)
            retry = status is None or status == 429 or status >= 500
            asked = retry_after_s(_header(exc, "Retry-After"), time.time())
        except EndpointRefused as exc:
            return _refused(sub, str(exc))
        except aiohttp.ClientConnectorError as exc:
            if isinstance(exc.os_error, NotPublic):
                return _refused(sub, str(exc.os_error))
            detail, retry = f"{type(exc).__name__}: {exc}".rstrip(": "), True
        except (aiohttp.ClientError, TimeoutError, OSError) as exc:
            detail, retry = f"{type(exc).__name__}: {exc}".rstrip(": "), True
        if not retry or attempt == push.retries:
            break
        if asked is not None and asked > push.max_wait_s:
            detail += f" (the service asked to wait {asked:.0f} s; not tried again now)"
            break
        wait = max(backoff_s(push.backoff_s, attempt + 1), asked or 0.0)
        log.info("push to %s failed (%s); again in %.1f s", _host(sub.endpoint), detail, wait)
        await asyncio.sleep(wait)
    delivery = Delivery(sub.endpoint, "failed", detail)
    log.warning("push to %s failed after %d tries: %s", delivery.service, attempt + 1, detail)
    return delivery


def retry_after_s(value: str | None, now: float) -> float | None:
    """Seconds a `Retry-After` value asks for (RFC 9110: delay-seconds or an HTTP date), or
    None when there is none or it cannot be read."""
    if not value or not value.strip():
        return None
    text = value.strip()
    if text.isdigit():
        return float(text)
    try:
        when = parsedate_to_datetime(text)
    except (TypeError, ValueError, IndexError):
        return None
    if when.tzinfo is None:
        return None  # an HTTP date is always GMT; a date without a zone is not one
    return max(0.0, when.timestamp() - now)


def _header(exc: WebPushException, name: str) -> str | None:
    headers = getattr(exc.response, "headers", None)
    value = headers.get(name) if headers is not None else None
    return str(value) if value is not None else None


def _refused(sub: Subscription, why: str) -> Delivery:
    """Not sent, and not tried again: the endpoint is somewhere the daemon never sends to."""
    log.warning("push to %s refused: %s", _host(sub.endpoint), why)
    return Delivery(sub.endpoint, "refused", why)


def _reason(exc: WebPushException) -> str:
    """The service's reason, shortened; 403 is most often a 'sub' Apple does not accept."""
    text = str(exc.message).split("Response body:", 1)[-1].strip()[:200]
    if exc.status_code in (401, 403):
        text += " (check [push] contact in commonplace.toml: a real mailto: address)"
    return text
