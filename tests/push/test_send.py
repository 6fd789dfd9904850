"""Sending through a push service on loopback that decrypts and checks like a real one."""

from __future__ import annotations

import asyncio
import dataclasses
import json
import logging
import time
from datetime import UTC, datetime
from email.utils import format_datetime

import pytest
from hypothesis import given
from hypothesis import settings as hsettings
from hypothesis import strategies as st

from commonplace.config import Settings
from commonplace.push import (
    MAX_PAYLOAD_BYTES,
    PushMessage,
    SubscriptionStore,
    encode_payload,
    load_or_create_keys,
    push_folder,
    send_to_all,
)
from commonplace.push.send import retry_after_s
from commonplace.push.store import parse_subscription
from tests.push.receiver import PushReceiver

MESSAGE = PushMessage(
    title="Weekly digest, week 43",
    body="20 notes captured this week. To do: 3 overdue, 7 due in the next seven days.",
    tag="digest-2026-W43",
    url="obsidian://open?vault=vault&file=Digests%2F2026-W43",
)


def subscribe(settings: Settings, receiver: PushReceiver, sub_id: str = "phone") -> str:
    sub = parse_subscription(receiver.subscribe(sub_id), allow_http_loopback=True)
    SubscriptionStore(push_folder(settings)).add(sub)
    return sub.endpoint


def endpoints(settings: Settings) -> list[str]:
    return [s.endpoint for s in SubscriptionStore(push_folder(settings)).all()]


async def test_the_phone_decrypts_the_message_and_the_vapid_header_checks_out(
    push_settings: Settings, receiver: PushReceiver
) -> None:
    subscribe(push_settings, receiver)
    (delivery,) = await send_to_all(push_settings, MESSAGE)
    assert delivery.status == "sent", receiver.rejected
    (got,) = receiver.received
    assert got.payload == {
        "title": MESSAGE.title,
        "body": MESSAGE.body,
        "tag": MESSAGE.tag,
        "url": MESSAGE.url,
    }
    assert got.vapid_key == load_or_create_keys(push_folder(push_settings)).public_key
    assert got.claims["aud"] == receiver.origin
    assert got.claims["sub"] == "mailto:owner@example.org"
    assert got.headers["ttl"] == "86400"
    assert got.headers["urgency"] == "normal"


@pytest.mark.parametrize("status", [404, 410])
async def test_a_gone_subscription_is_removed(
    push_settings: Settings, receiver: PushReceiver, status: int
) -> None:
    gone = subscribe(push_settings, receiver, "old-phone")
    kept = subscribe(push_settings, receiver, "phone")
    receiver.answer("old-phone", status)
    deliveries = {d.endpoint: d.status for d in await send_to_all(push_settings, MESSAGE)}
    assert deliveries == {gone: "gone", kept: "sent"}
    assert endpoints(push_settings) == [kept]
    assert receiver.attempts["old-phone"] == 1  # not retried


async def test_a_server_error_is_retried_then_logged(
    push_settings: Settings, receiver: PushReceiver, caplog: pytest.LogCaptureFixture
) -> None:
    endpoint = subscribe(push_settings, receiver)
    receiver.answer("phone", 500, 500, 500, 500)
    with caplog.at_level(logging.INFO, logger="commonplace.push.send"):
        (delivery,) = await send_to_all(push_settings, MESSAGE)
    assert delivery.status == "failed" and "HTTP 500" in delivery.detail
    assert receiver.attempts["phone"] == 3  # retries = 2
    assert endpoints(push_settings) == [endpoint]  # kept: the service may recover
    warnings = [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]
    assert any("failed after 3 tries" in w and "HTTP 500" in w for w in warnings)
    assert endpoint not in " ".join(r.getMessage() for r in caplog.records)  # host only


async def test_a_busy_service_is_tried_again_and_delivers(
    push_settings: Settings, receiver: PushReceiver
) -> None:
    subscribe(push_settings, receiver)
    receiver.answer("phone", 429, 503)
    (delivery,) = await send_to_all(push_settings, MESSAGE)
    assert delivery.status == "sent" and receiver.attempts["phone"] == 3
    assert len(receiver.received) == 1


async def test_retry_after_is_honoured_and_a_slow_service_delays_no_other(
    push_settings: Settings, receiver: PushReceiver
) -> None:
    """A 429 with Retry-After: 3 is tried again after 3 s, not after the 0.01 s backoff;
    meanwhile a healthy phone gets its message at once, and a stalled one delays nobody."""
    for sub_id in ("busy", "phone", "stalled"):
        subscribe(push_settings, receiver, sub_id)
    receiver.answer("busy", 429, headers={"Retry-After": "3"})  # room for a busy machine
    receiver.delays["stalled"] = 60.0  # far longer than the wait: it never answers in time
    settings = dataclasses.replace(  # a wait the others meet on a busy machine too
        push_settings, push=dataclasses.replace(push_settings.push, timeout_s=3.0, retries=1)
    )
    sending = asyncio.create_task(send_to_all(settings, MESSAGE))
    deadline = time.monotonic() + 30
    while not any(r.sub_id == "phone" for r in receiver.received):
        assert time.monotonic() < deadline, "the healthy phone got nothing"
        await asyncio.sleep(0.01)
    # It got its message while the busy one still waited out its Retry-After and the stalled
    # one still held its request open: neither delayed it.
    assert len(receiver.times["busy"]) <= 1 and not sending.done()
    deliveries = {d.endpoint.rsplit("/", 1)[1]: d for d in await sending}
    assert deliveries["busy"].status == "sent" and deliveries["phone"].status == "sent"
    assert deliveries["stalled"].status == "failed"
    first, second = receiver.times["busy"]
    assert second - first >= 3.0
    assert receiver.times["phone"][0] < second


async def test_a_retry_after_past_the_bound_is_not_waited_for(
    push_settings: Settings, receiver: PushReceiver
) -> None:
    subscribe(push_settings, receiver)
    receiver.answer("phone", 503, headers={"Retry-After": "3600"})
    started = time.monotonic()
    (delivery,) = await send_to_all(push_settings, MESSAGE)
    assert time.monotonic() - started < 30  # max_wait_s is 60: no hour-long wait, no early retry
    assert delivery.status == "failed" and receiver.attempts["phone"] == 1
    assert "asked to wait 3600 s" in delivery.detail


def test_retry_after_values() -> None:
    now = 1_800_000_000.0
    later = format_datetime(datetime.fromtimestamp(now + 30, UTC), usegmt=True)
    assert retry_after_s("6", now) == 6.0
    assert retry_after_s(" 0 ", now) == 0.0
    assert retry_after_s(later, now) == 30.0
    earlier = format_datetime(datetime.fromtimestamp(now - 30, UTC), usegmt=True)
    assert retry_after_s(earlier, now) == 0.0
    for bad in (None, "", "soon", "-5", "1.5", "Mon, 99 Foo 2026 00:00:00"):
        assert retry_after_s(bad, now) is None


async def test_a_refusal_is_not_retried(push_settings: Settings, receiver: PushReceiver) -> None:
    subscribe(push_settings, receiver)
    receiver.answer("phone", 403)
    (delivery,) = await send_to_all(push_settings, MESSAGE)
    assert delivery.status == "failed" and receiver.attempts["phone"] == 1
    assert "[push] contact" in delivery.detail


async def test_an_unreachable_service_fails_without_stopping_the_others(
    push_settings: Settings, receiver: PushReceiver, dead_ollama_url: str
) -> None:
    subscribe(push_settings, receiver)
    dead = PushReceiver(url=dead_ollama_url)  # a loopback port nobody listens on
    SubscriptionStore(push_folder(push_settings)).add(
        parse_subscription(dead.subscribe("x"), allow_http_loopback=True)
    )
    statuses = sorted(d.status for d in await send_to_all(push_settings, MESSAGE))
    assert statuses == ["failed", "sent"]


async def test_no_subscriptions_sends_nothing(push_settings: Settings) -> None:
    assert await send_to_all(push_settings, MESSAGE) == []


async def test_a_long_message_is_cut_to_fit(
    push_settings: Settings, receiver: PushReceiver
) -> None:
    subscribe(push_settings, receiver)
    long = PushMessage(title="Tïtle " * 200, body="Zoë’s café 🍰 " * 1000)
    (delivery,) = await send_to_all(push_settings, long)
    assert delivery.status == "sent", receiver.rejected
    (got,) = receiver.received
    assert got.payload["body"].endswith("…")
    assert got.payload["body"].startswith("Zoë’s café 🍰")
    assert (
        len(json.dumps(got.payload, ensure_ascii=False, separators=(",", ":")).encode())
        <= MAX_PAYLOAD_BYTES
    )
    assert got.size <= 4096


@hsettings(max_examples=150, deadline=None)
@given(
    title=st.text(max_size=400),
    body=st.text(max_size=6000),
    limit=st.integers(min_value=200, max_value=3000),
)
def test_payload_always_fits_and_stays_valid_json(title: str, body: str, limit: int) -> None:
    data = encode_payload(PushMessage(title=title, body=body), limit)
    assert len(data) <= limit
    decoded = json.loads(data.decode("utf-8"))
    assert body.startswith(decoded["body"].removesuffix("…").rstrip()) or decoded["body"] == body
