"""The phone page's push endpoints: the daemon's public key, subscribe, unsubscribe.

The page asks for the key, calls PushManager.subscribe() with it, and posts the result of
PushSubscription.toJSON() here. The security middleware has already checked who is asking.
"""

from __future__ import annotations

import asyncio

import aiohttp
from aiohttp import web
from aiohttp.abc import AbstractResolver

from commonplace.push import BadSubscription, SubscriptionStore, load_or_create_keys, push_folder
from commonplace.push.endpoints import LookupFailed, check_endpoint_addresses
from commonplace.push.store import parse_subscription
from commonplace.server.context import SETTINGS
from commonplace.server.errors import ApiError, read_json

MAX_BODY = 8 * 1024  # a PushSubscription's JSON is well under 1 KB
PUSH_RESOLVER = web.AppKey("push_resolver", AbstractResolver)


async def push_key(request: web.Request) -> web.Response:
    folder = push_folder(request.app[SETTINGS])
    keys = await asyncio.to_thread(load_or_create_keys, folder)
    return web.json_response({"publicKey": keys.public_key})


async def subscribe(request: web.Request) -> web.Response:
    """Checked before it is kept: keys that parse, and an endpoint that is https on a public
    host (its name resolved now; push/endpoints.py checks again at every send)."""
    settings = request.app[SETTINGS]
    body = await read_json(request, MAX_BODY)
    allow = settings.push.allow_http_loopback
    try:
        sub = parse_subscription(body, allow_http_loopback=allow)
        await check_endpoint_addresses(sub.endpoint, _resolver(request), allow_http_loopback=allow)
    except BadSubscription as exc:
        raise ApiError(400, "bad_subscription", str(exc)) from None
    except LookupFailed as exc:
        raise ApiError(503, "push_lookup_failed", str(exc)) from None
    count = SubscriptionStore(push_folder(settings)).add(sub)
    return web.json_response({"subscribed": True, "subscriptions": count}, status=201)


async def unsubscribe(request: web.Request) -> web.Response:
    body = await read_json(request, MAX_BODY)
    endpoint = body.get("endpoint")
    if not isinstance(endpoint, str) or not endpoint:
        raise ApiError(400, "bad_subscription", "'endpoint' is missing")
    removed = SubscriptionStore(push_folder(request.app[SETTINGS])).remove(endpoint)
    return web.json_response({"unsubscribed": removed})


def _resolver(request: web.Request) -> AbstractResolver:
    """The name lookup for endpoints: the system's, unless a test put its own in the app."""
    resolver = request.app.get(PUSH_RESOLVER)
    return resolver if resolver is not None else aiohttp.ThreadedResolver()


def add_push_routes(app: web.Application) -> None:
    app.router.add_get("/api/push/key", push_key)
    app.router.add_post("/api/push/subscribe", subscribe)
    app.router.add_post("/api/push/unsubscribe", unsubscribe)
