"""Where push messages may go (issue 16, item 2): https on a public host, resolved when the
subscription arrives and again at every send; keys that parse. Names are resolved by a fake
resolver: no test touches real DNS."""

from __future__ import annotations

import base64
from typing import Any

import pytest
from aiohttp.test_utils import TestClient

from commonplace.config import Settings
from commonplace.llm import make_llm
from commonplace.push import PushMessage, SubscriptionStore, push_folder, send_to_all
from commonplace.push.endpoints import NotPublic, PublicOnlyResolver
from commonplace.push.store import BadSubscription, Subscription, parse_subscription
from commonplace.server import create_app
from commonplace.server.push_api import PUSH_RESOLVER
from tests.push.receiver import PushReceiver
from tests.push.resolver import FakeResolver

AiohttpClient = Any
PUBLIC = "142.250.200.10"  # an address on the public internet (never connected to here)
NAMES = {
    "fcm.googleapis.com": [PUBLIC, "2a00:1450:4009:81f::200a"],
    "private.example": ["192.168.1.20"],
    "mixed.example": [PUBLIC, "10.0.0.5"],
    "metadata.example": ["169.254.169.254"],
    "tailnet.example": ["100.101.102.103"],
    "loop.example": ["127.0.0.1"],
    "loop6.example": ["::1"],
    "mapped.example": ["::ffff:127.0.0.1"],
}
MESSAGE = PushMessage(title="Commonplace", body="test")


def subscription(endpoint: str) -> dict[str, Any]:
    body = PushReceiver(url="https://x.invalid").subscribe()
    return body | {"endpoint": endpoint}


async def client_for(
    settings: Settings, aiohttp_client: AiohttpClient, resolver: FakeResolver
) -> TestClient:
    app = create_app(settings, make_llm(settings))
    app[PUSH_RESOLVER] = resolver
    return await aiohttp_client(app)  # type: ignore[no-any-return]


async def post(client: TestClient, body: Any) -> tuple[int, dict[str, Any]]:
    response = await client.post(
        "/api/push/subscribe", json=body, headers={"Origin": f"http://127.0.0.1:{client.port}"}
    )
    return response.status, await response.json()


REFUSED_ENDPOINTS = [
    ("loopback address", "https://127.0.0.1/push/x", "loopback"),
    ("loopback name", "https://localhost/push/x", "names this computer"),
    ("loopback subdomain", "https://push.localhost/push/x", "names this computer"),
    ("ipv6 loopback", "https://[::1]/push/x", "loopback"),
    ("ipv4-mapped loopback", "https://[::ffff:127.0.0.1]/push/x", "loopback"),
    ("tailnet address", "https://100.100.100.100/push/x", "tailnet"),
    ("private 192.168", "https://192.168.1.1/push/x", "private network"),
    ("private 10/8", "https://10.1.2.3:8443/push/x", "private network"),
    ("metadata", "https://169.254.169.254/latest/meta-data/", "link-local"),
    ("ipv6 link-local", "https://[fe80::1]/push/x", "link-local"),
    ("ipv6 unique local", "https://[fd00::1]/push/x", "private network"),
    ("multicast", "https://224.0.0.251/push/x", "multicast"),
    ("reserved", "https://240.0.0.1/push/x", "reserved"),
    ("unspecified", "https://0.0.0.0/push/x", "unspecified"),
    ("name -> private", "https://private.example/push/x", "192.168.1.20"),
    ("name -> one private of two", "https://mixed.example/push/x", "10.0.0.5"),
    ("name -> metadata", "https://metadata.example/push/x", "link-local"),
    ("name -> tailnet", "https://tailnet.example/push/x", "tailnet"),
    ("name -> loopback", "https://loop.example/push/x", "loopback"),
    ("name -> ::1", "https://loop6.example/push/x", "loopback"),
    ("name -> mapped loopback", "https://mapped.example/push/x", "loopback"),
    ("plain http", "http://fcm.googleapis.com/push/x", "https://"),
    ("not a port", "https://fcm.googleapis.com:http/x", "not a URL"),
]


@pytest.mark.parametrize(
    ("name", "endpoint", "message"), REFUSED_ENDPOINTS, ids=[r[0] for r in REFUSED_ENDPOINTS]
)
async def test_endpoints_that_are_not_public_push_services_are_refused(
    push_settings: Settings, aiohttp_client: AiohttpClient, name: str, endpoint: str, message: str
) -> None:
    """push_settings allows http to loopback (the tests' push service); https to loopback, and
    every other class, is refused even so."""
    client = await client_for(push_settings, aiohttp_client, FakeResolver(NAMES))
    status, body = await post(client, subscription(endpoint))
    assert status == 400, (name, body)
    assert body["error"]["code"] == "bad_subscription"
    assert message in body["error"]["message"]
    assert SubscriptionStore(push_folder(push_settings)).all() == []


async def test_a_public_push_service_is_accepted(
    push_settings: Settings, aiohttp_client: AiohttpClient
) -> None:
    resolver = FakeResolver(NAMES)
    client = await client_for(push_settings, aiohttp_client, resolver)
    status, body = await post(client, subscription("https://fcm.googleapis.com/fcm/send/abc"))
    assert status == 201, body
    assert resolver.asked == ["fcm.googleapis.com"]
    assert [s.endpoint for s in SubscriptionStore(push_folder(push_settings)).all()] == [
        "https://fcm.googleapis.com/fcm/send/abc"
    ]


async def test_a_name_that_cannot_be_looked_up_is_503_not_stored(
    push_settings: Settings, aiohttp_client: AiohttpClient
) -> None:
    client = await client_for(push_settings, aiohttp_client, FakeResolver(NAMES))
    status, body = await post(client, subscription("https://nowhere.example/push/x"))
    assert status == 503 and body["error"]["code"] == "push_lookup_failed"
    assert "try again" in body["error"]["message"].lower()
    assert SubscriptionStore(push_folder(push_settings)).all() == []


def b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


BAD_KEYS = [
    ("p256dh not on the curve", {"p256dh": b64(b"\x04" + b"\x01" * 64)}, "P-256"),
    ("p256dh compressed", {"p256dh": b64(b"\x02" + b"\x01" * 32)}, "P-256"),
    ("p256dh too short", {"p256dh": b64(b"\x04" + b"\x01" * 10)}, "P-256"),
    ("p256dh not base64url", {"p256dh": "!!not*base64!!" * 6}, "P-256"),
    ("p256dh with stray characters", {"p256dh": None}, "P-256"),  # filled in below
    ("auth too short", {"auth": b64(b"x" * 15)}, "16-byte"),
    ("auth too long", {"auth": b64(b"x" * 17)}, "16-byte"),
    ("auth not base64url", {"auth": "%%%%%%%%%%%%%%%%%%%%%%"}, "16-byte"),
    ("auth not a string", {"auth": 12345}, "16-byte"),
]


@pytest.mark.parametrize(("name", "keys", "message"), BAD_KEYS, ids=[k[0] for k in BAD_KEYS])
async def test_keys_that_do_not_parse_are_refused(
    push_settings: Settings,
    aiohttp_client: AiohttpClient,
    name: str,
    keys: dict[str, Any],
    message: str,
) -> None:
    body = subscription("https://fcm.googleapis.com/fcm/send/abc")
    if keys == {"p256dh": None}:  # a valid key with characters the lenient decoder would drop
        valid = body["keys"]["p256dh"]
        keys = {"p256dh": valid[:10] + "*" + valid[10:]}
    body["keys"] = body["keys"] | keys
    client = await client_for(push_settings, aiohttp_client, FakeResolver(NAMES))
    status, answer = await post(client, body)
    assert status == 400, (name, answer)
    assert message in answer["error"]["message"]


def test_the_tests_http_loopback_exception_is_literal_loopback_only() -> None:
    local = PushReceiver(url="http://127.0.0.1:9").subscribe()
    assert parse_subscription(local, allow_http_loopback=True)
    for url in ("http://localhost:9", "http://192.168.1.5:9", "http://loop.example:9"):
        with pytest.raises(BadSubscription):
            parse_subscription(PushReceiver(url=url).subscribe(), allow_http_loopback=True)


# -- at send time ---------------------------------------------------------------------------------


def store_raw(settings: Settings, endpoint: str) -> None:
    """A subscription kept without the API's checks (an old file, or one edited by hand)."""
    keys = PushReceiver(url="https://x.invalid").subscribe()["keys"]
    sub = Subscription(endpoint, keys["p256dh"], keys["auth"], 0.0)
    SubscriptionStore(push_folder(settings)).add(sub)


async def test_a_name_that_now_resolves_to_a_private_address_is_not_sent_to(
    push_settings: Settings,
) -> None:
    store_raw(push_settings, "https://private.example/push/x")
    resolver = FakeResolver(NAMES)
    (delivery,) = await send_to_all(push_settings, MESSAGE, resolver=resolver)
    assert delivery.status == "refused"
    assert "192.168.1.20" in delivery.detail and "no public address" in delivery.detail
    assert resolver.asked == ["private.example"]  # asked once: refused, not retried


@pytest.mark.parametrize(
    "endpoint", ["https://169.254.169.254/latest/meta-data/", "https://[::1]/x", "http://10.0.0.1/"]
)
async def test_a_stored_literal_address_is_not_sent_to(
    push_settings: Settings, endpoint: str
) -> None:
    store_raw(push_settings, endpoint)
    (delivery,) = await send_to_all(push_settings, MESSAGE, resolver=FakeResolver(NAMES))
    assert delivery.status == "refused"


async def test_a_redirect_is_never_followed(
    push_settings: Settings, receiver: PushReceiver
) -> None:
    sub = parse_subscription(receiver.subscribe("phone"), allow_http_loopback=True)
    SubscriptionStore(push_folder(push_settings)).add(sub)
    receiver.subscribe("stolen")
    receiver.redirects["phone"] = f"{receiver.url}/push/stolen"
    (delivery,) = await send_to_all(push_settings, MESSAGE)
    assert delivery.status == "refused" and "redirect" in delivery.detail
    assert receiver.attempts["phone"] == 1 and receiver.attempts["stolen"] == 0


async def test_the_resolver_keeps_public_addresses_only() -> None:
    resolver = PublicOnlyResolver(FakeResolver(NAMES))
    kept = await resolver.resolve("mixed.example", 443)
    assert [r["host"] for r in kept] == [PUBLIC]
    with pytest.raises(NotPublic, match=r"192\.168\.1\.20"):
        await resolver.resolve("private.example", 443)
