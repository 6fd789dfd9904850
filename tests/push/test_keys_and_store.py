"""VAPID keys made once and kept private; subscriptions checked when they arrive."""

from __future__ import annotations

import stat
from pathlib import Path

import pytest

from commonplace.push import (
    BadSubscription,
    PushKeyError,
    SubscriptionStore,
    load_or_create_keys,
)
from commonplace.push.keys import b64url_decode
from commonplace.push.store import MAX_SUBSCRIPTIONS, parse_subscription
from tests.push.receiver import PushReceiver


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def test_keys_are_made_once_with_a_private_file(tmp_path: Path) -> None:
    keys = load_or_create_keys(tmp_path / "push")
    assert mode(keys.path) == 0o600
    raw = b64url_decode(keys.public_key)
    assert len(raw) == 65 and raw[0] == 4  # an uncompressed P-256 point
    assert load_or_create_keys(tmp_path / "push").public_key == keys.public_key


def test_a_key_file_readable_by_others_is_tightened(tmp_path: Path) -> None:
    keys = load_or_create_keys(tmp_path)
    keys.path.chmod(0o644)
    assert load_or_create_keys(tmp_path).public_key == keys.public_key
    assert mode(keys.path) == 0o600


def test_a_broken_key_file_is_an_error_that_says_what_to_do(tmp_path: Path) -> None:
    keys = load_or_create_keys(tmp_path)
    keys.path.write_text("not a key")
    with pytest.raises(PushKeyError, match="Delete the file"):
        load_or_create_keys(tmp_path)
    assert keys.path.read_text() == "not a key"  # never replaced behind the user's back


def good(sub_id: str = "phone") -> dict[str, object]:
    return PushReceiver(url="https://push.example.net").subscribe(sub_id)


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"endpoint": None}, "'endpoint' is missing"),
        ({"endpoint": "http://push.example.net/x"}, "must be an https:// URL"),
        ({"endpoint": "http://127.0.0.1:9/x"}, "must be an https:// URL"),
        ({"endpoint": "https://user:pw@push.example.net/x"}, "not a push service URL"),
        ({"endpoint": "https://push.example.net/" + "x" * 3000}, "longer than"),
        ({"keys": None}, "'keys'"),
        ({"keys": {"p256dh": "AAAA", "auth": "AAAAAAAAAAAAAAAAAAAAAA"}}, "p256dh"),
        ({"keys": {"p256dh": None, "auth": None}}, "p256dh"),
    ],
)
def test_bad_subscriptions_are_refused(change: dict[str, object], message: str) -> None:
    body = good() | change
    with pytest.raises(BadSubscription, match=message):
        parse_subscription(body)


def test_bad_auth_and_non_object() -> None:
    body = good()
    body["keys"] = dict(body["keys"], auth="c2hvcnQ")  # type: ignore[call-overload]
    with pytest.raises(BadSubscription, match="auth"):
        parse_subscription(body)
    with pytest.raises(BadSubscription, match="JSON object"):
        parse_subscription(["not", "an", "object"])


def test_http_loopback_only_when_allowed() -> None:
    body = PushReceiver(url="http://127.0.0.1:9").subscribe()
    with pytest.raises(BadSubscription):
        parse_subscription(body)
    assert parse_subscription(body, allow_http_loopback=True).endpoint == body["endpoint"]
    other = PushReceiver(url="http://192.168.1.5:9").subscribe()
    with pytest.raises(BadSubscription):
        parse_subscription(other, allow_http_loopback=True)


def test_store_adds_refreshes_removes_and_stays_private(tmp_path: Path) -> None:
    store = SubscriptionStore(tmp_path)
    first = parse_subscription(good())
    assert store.add(first) == 1
    assert store.add(first) == 1  # the same endpoint again replaces, not duplicates
    assert mode(store.path) == 0o600
    assert store.all()[0].endpoint == first.endpoint
    assert store.remove(first.endpoint) and not store.remove(first.endpoint)
    assert store.all() == []


def test_store_keeps_the_newest_few(tmp_path: Path) -> None:
    store = SubscriptionStore(tmp_path)
    subs = [parse_subscription(good(f"p{i}")) for i in range(MAX_SUBSCRIPTIONS + 3)]
    for sub in subs:
        store.add(sub)
    assert [s.endpoint for s in store.all()] == [s.endpoint for s in subs[3:]]


def test_a_corrupt_store_reads_as_empty(tmp_path: Path) -> None:
    store = SubscriptionStore(tmp_path)
    store.path.write_text("{not json")
    assert store.all() == []
