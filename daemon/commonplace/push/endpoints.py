"""Where a push message may go: https, to a host on the public internet, nowhere else.

A subscription's endpoint is a URL the page sends, so without this rule a page (or anything
that can post to the API) could make the daemon send requests to the computer itself, the home
network, the tailnet or a cloud metadata service. The rule is applied twice:

- when a subscription arrives, its host is resolved and every address must be public
  (`check_endpoint_addresses`; a literal address is checked in store.check_endpoint);
- when a message is sent, through `public_session`: its resolver drops every address that is
  not public, so a name that has since been pointed at 10.0.0.5 (DNS rebinding) reaches nothing,
  and a redirect is never followed (push services answer directly; a redirect could point at a
  literal address that no resolver sees).

Tests run a push service on http://127.0.0.1 (`push.allow_http_loopback`, never set by a user):
that is the one exception, and only for a literal loopback address.
"""

from __future__ import annotations

import socket
from types import SimpleNamespace
from typing import Any
from urllib.parse import urlsplit

import aiohttp
from aiohttp.abc import AbstractResolver, ResolveResult

from commonplace.basics.net import non_public_reason, parse_ip
from commonplace.push.store import BadSubscription, check_endpoint


class NotPublic(OSError):
    """A push host that resolves only to addresses the daemon never sends to."""


class EndpointRefused(Exception):
    """A send that the rule stopped (a redirect, a non-public address); never retried."""


class LookupFailed(Exception):
    """The push service's name could not be resolved now (no network?); try again later."""


class PublicOnlyResolver(AbstractResolver):
    """Resolves with `inner` (the system's resolver by default) and keeps public addresses only."""

    def __init__(self, inner: AbstractResolver | None = None) -> None:
        self._inner = inner or aiohttp.ThreadedResolver()

    async def resolve(
        self, host: str, port: int = 0, family: socket.AddressFamily = socket.AF_INET
    ) -> list[ResolveResult]:
        found = await self._inner.resolve(host, port, family)
        kept = [r for r in found if _public(r["host"])]
        if not kept:
            reasons = sorted({f"{r['host']} {_reason(r['host'])}" for r in found})
            raise NotPublic(f"{host} resolves to no public address ({'; '.join(reasons)})")
        return kept

    async def close(self) -> None:
        await self._inner.close()


async def check_endpoint_addresses(
    endpoint: str, resolver: AbstractResolver, *, allow_http_loopback: bool = False
) -> None:
    """Refuse (BadSubscription) an endpoint whose host resolves to any non-public address;
    LookupFailed when the name cannot be resolved at all right now."""
    check_endpoint(endpoint, allow_http_loopback=allow_http_loopback)
    parts = urlsplit(endpoint)
    host = parts.hostname or ""
    if parse_ip(host) is not None:
        return  # a literal address: check_endpoint has judged it
    try:
        found = await resolver.resolve(host, parts.port or 443, socket.AF_UNSPEC)
    except OSError as exc:
        raise LookupFailed(
            f"could not look up {host} ({exc.strerror or exc}); is the computer online? "
            "Try again in a moment"
        ) from None
    for result in found:
        reason = _reason(result["host"])
        if reason:
            raise BadSubscription(
                f"'endpoint' host {host} resolves to {result['host']}, which {reason}; "
                "only push services on the public internet are accepted"
            )


def public_session(
    settings_timeout_s: float, resolver: AbstractResolver | None = None
) -> aiohttp.ClientSession:
    """A session that connects to public addresses only and follows no redirect."""
    trace = aiohttp.TraceConfig()
    trace.on_request_redirect.append(_refuse_redirect)
    return aiohttp.ClientSession(
        connector=aiohttp.TCPConnector(resolver=PublicOnlyResolver(resolver)),
        timeout=aiohttp.ClientTimeout(total=settings_timeout_s),
        trace_configs=[trace],
    )


async def _refuse_redirect(
    session: aiohttp.ClientSession, context: SimpleNamespace, params: Any
) -> None:
    target = params.response.headers.get("Location", "?")
    raise EndpointRefused(f"the push service redirected to {target[:100]}; redirects are refused")


def _public(address: str) -> bool:
    return _reason(address) is None


def _reason(address: str) -> str | None:
    ip = parse_ip(address)
    return "is not an address" if ip is None else non_public_reason(ip)
