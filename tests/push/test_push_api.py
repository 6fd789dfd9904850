"""The phone page's push endpoints, through the whole app and its security checks."""

from __future__ import annotations

from typing import Any

from aiohttp.test_utils import TestClient

from commonplace.config import Settings
from commonplace.llm import make_llm
from commonplace.push import SubscriptionStore, load_or_create_keys, push_folder
from commonplace.server import create_app
from commonplace.server.push_api import PUSH_RESOLVER
from tests.push.receiver import PushReceiver
from tests.push.resolver import FakeResolver

AiohttpClient = Any


async def client_for(settings: Settings, aiohttp_client: AiohttpClient) -> TestClient:
    app = create_app(settings, make_llm(settings))
    app[PUSH_RESOLVER] = FakeResolver({"fcm.example.net": ["142.250.200.10"]})  # no real DNS
    return await aiohttp_client(app)  # type: ignore[no-any-return]


def page_headers(client: TestClient) -> dict[str, str]:
    return {"Origin": f"http://127.0.0.1:{client.port}"}


async def test_key_subscribe_unsubscribe(
    push_settings: Settings, aiohttp_client: AiohttpClient
) -> None:
    client = await client_for(push_settings, aiohttp_client)
    response = await client.get("/api/push/key")
    assert response.status == 200
    key = (await response.json())["publicKey"]
    assert key == load_or_create_keys(push_folder(push_settings)).public_key

    sub = PushReceiver(url="https://fcm.example.net").subscribe()
    response = await client.post("/api/push/subscribe", json=sub, headers=page_headers(client))
    assert response.status == 201, await response.text()
    store = SubscriptionStore(push_folder(push_settings))
    assert [s.endpoint for s in store.all()] == [sub["endpoint"]]

    response = await client.post(
        "/api/push/unsubscribe", json={"endpoint": sub["endpoint"]}, headers=page_headers(client)
    )
    assert (await response.json()) == {"unsubscribed": True}
    assert store.all() == []


async def test_a_bad_subscription_gets_a_reason(
    push_settings: Settings, aiohttp_client: AiohttpClient
) -> None:
    client = await client_for(push_settings, aiohttp_client)
    body = {"endpoint": "http://evil.example/x", "keys": {"p256dh": "x", "auth": "y"}}
    response = await client.post("/api/push/subscribe", json=body, headers=page_headers(client))
    assert response.status == 400
    error = (await response.json())["error"]
    assert error["code"] == "bad_subscription" and "https://" in error["message"]
    assert SubscriptionStore(push_folder(push_settings)).all() == []


async def test_a_cross_site_subscribe_is_refused(
    push_settings: Settings, aiohttp_client: AiohttpClient
) -> None:
    client = await client_for(push_settings, aiohttp_client)
    sub = PushReceiver(url="https://fcm.example.net").subscribe()
    response = await client.post(
        "/api/push/subscribe", json=sub, headers={"Origin": "https://evil.example"}
    )
    assert response.status == 403
    assert SubscriptionStore(push_folder(push_settings)).all() == []
