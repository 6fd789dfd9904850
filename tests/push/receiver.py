"""A web push service on loopback, as the tests' stand-in for FCM, Mozilla or Apple.

It does what a real one does with a message: checks the VAPID Authorization header (an ES256
JWT whose signature, audience, expiry and subject are verified here with `cryptography`,
not with py_vapid), refuses bodies over 4096 bytes, and, as the phone would, decrypts the
aes128gcm body (RFC 8291) with the subscription's own private key and auth secret. Tests can
script a status per subscription: 201 by default, or 404/410/429/500 to exercise the sender,
with headers (Retry-After) and a delay before answering (a slow service), or a redirect (which
the sender must never follow).
"""

from __future__ import annotations

import asyncio
import base64
import json
import os
import time
from collections import defaultdict, deque
from dataclasses import dataclass, field
from typing import Any

import http_ece
from aiohttp import web
from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.asymmetric.utils import encode_dss_signature

MAX_RECORD = 4096


def b64d(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def b64e(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


@dataclass
class Received:
    sub_id: str
    payload: dict[str, Any]
    claims: dict[str, Any]
    vapid_key: str  # the k= public key in the Authorization header
    headers: dict[str, str]  # names in lower case
    size: int  # encrypted body bytes


@dataclass
class PushReceiver:
    url: str = ""
    keys: dict[str, tuple[ec.EllipticCurvePrivateKey, bytes]] = field(default_factory=dict)
    script: dict[str, deque[tuple[int, dict[str, str]]]] = field(
        default_factory=lambda: defaultdict(deque)
    )
    attempts: dict[str, int] = field(default_factory=lambda: defaultdict(int))
    times: dict[str, list[float]] = field(default_factory=lambda: defaultdict(list))  # monotonic
    delays: dict[str, float] = field(default_factory=dict)  # seconds before answering
    received: list[Received] = field(default_factory=list)
    rejected: list[str] = field(default_factory=list)  # why a request was refused
    redirects: dict[str, str] = field(default_factory=dict)  # sub_id -> Location of a 307

    @property
    def origin(self) -> str:
        return self.url

    def subscribe(self, sub_id: str = "phone") -> dict[str, Any]:
        """A new browser subscription, as PushSubscription.toJSON() gives it."""
        private = ec.generate_private_key(ec.SECP256R1())
        auth = os.urandom(16)
        self.keys[sub_id] = (private, auth)
        public = private.public_key().public_bytes(
            serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint
        )
        return {
            "endpoint": f"{self.url}/push/{sub_id}",
            "expirationTime": None,
            "keys": {"p256dh": b64e(public), "auth": b64e(auth)},
        }

    def answer(self, sub_id: str, *statuses: int, headers: dict[str, str] | None = None) -> None:
        self.script[sub_id].extend((status, dict(headers or {})) for status in statuses)

    def app(self) -> web.Application:
        app = web.Application()
        app.router.add_post("/push/{sub_id}", self._push)
        return app

    async def _push(self, request: web.Request) -> web.Response:
        sub_id = request.match_info["sub_id"]
        self.attempts[sub_id] += 1
        self.times[sub_id].append(time.monotonic())
        body = await request.read()
        if sub_id in self.delays:
            await asyncio.sleep(self.delays[sub_id])
        if sub_id in self.redirects:
            return web.Response(status=307, headers={"Location": self.redirects[sub_id]})
        if sub_id not in self.keys:
            return web.Response(status=404)
        if self.script[sub_id]:
            status, headers = self.script[sub_id].popleft()
            if status != 201:
                return web.Response(status=status, text=f"scripted {status}", headers=headers)
        try:
            claims, key = self._check_vapid(request.headers.get("Authorization", ""))
        except (ValueError, KeyError, InvalidSignature) as exc:
            self.rejected.append(f"vapid: {exc!r}")
            return web.Response(status=401, text="bad VAPID")
        if len(body) > MAX_RECORD:
            self.rejected.append(f"too large: {len(body)}")
            return web.Response(status=413)
        if request.headers.get("Content-Encoding") != "aes128gcm":
            self.rejected.append("not aes128gcm")
            return web.Response(status=415)
        private, auth = self.keys[sub_id]
        headers = {k.lower(): v for k, v in request.headers.items()}
        plain = http_ece.decrypt(body, private_key=private, auth_secret=auth, version="aes128gcm")
        self.received.append(Received(sub_id, json.loads(plain), claims, key, headers, len(body)))
        return web.Response(status=201)

    def _check_vapid(self, header: str) -> tuple[dict[str, Any], str]:
        scheme, _, params = header.partition(" ")
        if scheme.lower() != "vapid":
            raise ValueError(f"scheme {scheme!r}")
        parts = dict(p.strip().split("=", 1) for p in params.split(","))
        token, key = parts["t"], parts["k"]
        head_b64, claims_b64, sig_b64 = token.split(".")
        sig = b64d(sig_b64)
        if len(sig) != 64:
            raise ValueError("signature is not 64 bytes")
        r, s = int.from_bytes(sig[:32], "big"), int.from_bytes(sig[32:], "big")
        public = ec.EllipticCurvePublicKey.from_encoded_point(ec.SECP256R1(), b64d(key))
        public.verify(
            encode_dss_signature(r, s),
            f"{head_b64}.{claims_b64}".encode(),
            ec.ECDSA(hashes.SHA256()),
        )
        head = json.loads(b64d(head_b64))
        claims: dict[str, Any] = json.loads(b64d(claims_b64))
        if head.get("alg") != "ES256":
            raise ValueError(f"alg {head.get('alg')!r}")
        if claims.get("aud") != self.origin:
            raise ValueError(f"aud {claims.get('aud')!r} is not {self.origin!r}")
        now = time.time()
        if not now < float(claims["exp"]) <= now + 24 * 3600:
            raise ValueError(f"exp {claims['exp']} is not within the next 24 hours")
        if not str(claims.get("sub", "")).startswith(("mailto:", "https://")):
            raise ValueError(f"sub {claims.get('sub')!r}")
        return claims, key
