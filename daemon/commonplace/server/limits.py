"""Rate limits for the API's expensive requests, per identity, and a person's place in the
model's queue.

Put `@limited("asks")` on a handler that makes model calls (a question, an assistant message),
`@limited("searches")` (searches, related notes) or `@limited("transcriptions")` on the others.
Each (kind, identity) has a token bucket: a burst of up to N requests is served at once, then
one every 60/N seconds (N is `[limits] <kind>_per_minute`); past that the answer is 429 with
`Retry-After`, before the body is read or anything is computed. The handler then runs
`for_a_person()`: its model calls go through the one model queue (llm/gate.py) ahead of the
daemon's background work.
"""

from __future__ import annotations

import functools
import math
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

from aiohttp import web

from commonplace.config import LimitSettings
from commonplace.llm.gate import for_a_person
from commonplace.server.errors import ApiError
from commonplace.server.security import APP_ORIGIN, IDENTITY_HEADER, decode_identity

Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]
KINDS = {
    "asks": "asks_per_minute",
    "searches": "searches_per_minute",
    "transcriptions": "transcriptions_per_minute",
}
MAX_BUCKETS = 1000  # identities are few (the owner, this computer); a bound all the same
WHAT = {"asks": "questions", "searches": "searches", "transcriptions": "recordings"}


@dataclass
class _Bucket:
    tokens: float
    at: float  # clock time of the last update


class RateLimiter:
    """Token buckets per (kind, identity); a pure object with an injected clock."""

    def __init__(
        self, per_minute: dict[str, int], *, clock: Callable[[], float] = time.monotonic
    ) -> None:
        self.per_minute = per_minute
        self.clock = clock
        self._buckets: dict[tuple[str, str], _Bucket] = {}

    @classmethod
    def from_settings(cls, limits: LimitSettings, **kw: Callable[[], float]) -> RateLimiter:
        return cls({kind: getattr(limits, key) for kind, key in KINDS.items()}, **kw)

    def take(self, kind: str, who: str) -> float:
        """Spend one request: 0.0 when it may go ahead, else the seconds until it may."""
        size = self.per_minute[kind]
        rate = size / 60.0
        now = self.clock()
        bucket = self._buckets.get((kind, who))
        if bucket is None:
            if len(self._buckets) >= MAX_BUCKETS:
                self._forget_full(now)
            bucket = self._buckets[(kind, who)] = _Bucket(float(size), now)
        bucket.tokens = min(float(size), bucket.tokens + (now - bucket.at) * rate)
        bucket.at = now
        if bucket.tokens >= 1.0:
            bucket.tokens -= 1.0
            return 0.0
        return (1.0 - bucket.tokens) / rate

    def _forget_full(self, now: float) -> None:
        """Drop buckets that have refilled: they hold nothing a new one would not."""
        for key, bucket in list(self._buckets.items()):
            size = self.per_minute[key[0]]
            if bucket.tokens + (now - bucket.at) * size / 60.0 >= size:
                del self._buckets[key]


LIMITER = web.AppKey("rate_limiter", RateLimiter)


def identity(request: web.Request) -> str:
    """Who is asking, for the limits: the Tailscale login (the security checks have made sure
    it is the owner's), the Obsidian plugin (its token checked), or this computer."""
    login = decode_identity(request.headers.get(IDENTITY_HEADER))
    if login:
        return f"tailscale:{login.strip().casefold()}"
    if request.headers.get("Origin") == APP_ORIGIN:
        return "obsidian"
    return "this computer"


def limited(kind: str) -> Callable[[Handler], Handler]:
    if kind not in KINDS:
        raise ValueError(f"unknown limit {kind!r}; one of {', '.join(KINDS)}")

    def wrap(handler: Handler) -> Handler:
        @functools.wraps(handler)
        async def checked(request: web.Request) -> web.StreamResponse:
            limiter = request.app.get(LIMITER)
            if limiter is not None:
                wait = limiter.take(kind, identity(request))
                if wait > 0:
                    seconds = max(1, math.ceil(wait))
                    raise ApiError(
                        429,
                        "rate_limited",
                        f"Too many {WHAT[kind]} in a short time (at most "
                        f"{limiter.per_minute[kind]} a minute); try again in {seconds} s.",
                        headers={"Retry-After": str(seconds)},
                    )
            with for_a_person():
                return await handler(request)

        return checked

    return wrap
