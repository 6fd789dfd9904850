"""Pairing the Obsidian plugin (plugin/pairing.py): the plugin asks and polls; the owner confirms.

POST /api/pair/request {device}      -> {id, code, expires_in}   the plugin, no token
POST /api/pair/poll {id}             -> {status, token?, device_id?} the plugin, no token
GET  /api/pair/pending               -> {requests: [{code, device, via, expires_in}]} the owner
POST /api/pair/confirm {code}        -> {device_id, device}        the owner
POST /api/pair/deny {code}           -> {denied: true}             the owner

Who may call which is decided in security.py (PAIR_OPEN, PAIR_OWNER), before these run.
"""

from __future__ import annotations

import logging

from aiohttp import web

from commonplace.plugin.devices import add_device, devices_path
from commonplace.plugin.pairing import Pairing, PairingRefused
from commonplace.server.context import SETTINGS
from commonplace.server.errors import ApiError, read_json
from commonplace.server.security import split_host

log = logging.getLogger(__name__)

PAIRING = web.AppKey("pairing", Pairing)
MAX_BODY = 4096


def add_pair_routes(app: web.Application) -> None:
    settings = app[SETTINGS]
    path = devices_path(settings.data_path)

    def issue(name: str) -> tuple[str, str]:
        device, token = add_device(path, name)
        return device.id, token

    app[PAIRING] = Pairing(issue)
    app.router.add_post("/api/pair/request", pair_request)
    app.router.add_post("/api/pair/poll", pair_poll)
    app.router.add_get("/api/pair/pending", pair_pending)
    app.router.add_post("/api/pair/confirm", pair_confirm)
    app.router.add_post("/api/pair/deny", pair_deny)


def _text(body: dict[str, object], key: str) -> str:
    value = body.get(key, "")
    if not isinstance(value, str):
        raise ApiError(400, "bad_request", f"'{key}' must be a string")
    return value


async def pair_request(request: web.Request) -> web.Response:
    body = await read_json(request, MAX_BODY)
    name, _ = split_host(request.headers.get("Host", ""))
    ts_name = request.app[SETTINGS].web.ts_name.strip().lower().rstrip(".")
    via = name if ts_name and name == ts_name else "this computer"
    try:
        req = request.app[PAIRING].request(_text(body, "device") or "Obsidian", via)
    except PairingRefused as exc:
        raise ApiError(
            429, "too_many_pairings", str(exc), headers={"Retry-After": str(exc.retry_after)}
        ) from None
    log.warning(
        "Obsidian asks to pair: %r (from %s) shows the code %s; if it is yours, confirm it on "
        "the phone page or with: commonplace plugin pair",
        req.device,
        req.via,
        req.shown_code(),
    )
    return web.json_response(
        {"id": req.id, "code": req.shown_code(), "expires_in": req.public(req.made)["expires_in"]}
    )


async def pair_poll(request: web.Request) -> web.Response:
    body = await read_json(request, MAX_BODY)
    status, token, device_id = request.app[PAIRING].poll(_text(body, "id"))
    answer: dict[str, object] = {"status": status}
    if token is not None:
        answer.update(token=token, device_id=device_id)
    return web.json_response(answer)


async def pair_pending(request: web.Request) -> web.Response:
    pairing = request.app[PAIRING]
    now = pairing.clock()
    return web.json_response({"requests": [r.public(now) for r in pairing.waiting()]})


async def pair_confirm(request: web.Request) -> web.Response:
    body = await read_json(request, MAX_BODY)
    req = request.app[PAIRING].confirm(_text(body, "code"))
    if req is None:
        raise ApiError(
            404, "no_such_pairing", "no pairing request with that code is waiting (expired?)"
        )
    log.warning("paired %r as device %s", req.device, req.device_id)
    return web.json_response({"device_id": req.device_id, "device": req.device})


async def pair_deny(request: web.Request) -> web.Response:
    body = await read_json(request, MAX_BODY)
    req = request.app[PAIRING].deny(_text(body, "code"))
    if req is None:
        raise ApiError(404, "no_such_pairing", "no pairing request with that code is waiting")
    log.warning("pairing of %r denied", req.device)
    return web.json_response({"denied": True})
