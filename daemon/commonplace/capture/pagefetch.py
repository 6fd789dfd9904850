"""Fetching a shared link's page, guarded: the daemon must never be a way into the owner's network.

A link comes from whatever the owner shared, so without a guard a page (or a message telling the
owner to share a link) could make the daemon read the computer itself, the home network, the
tailnet or a cloud metadata service, and file the answer in the vault. The rules:

- http and https only, on every hop;
- public addresses only, checked when the connection is made (the connector's resolver drops
  every address that is not public, as push/endpoints.py does for push services), so a name
  pointed at 10.0.0.5 after a check reaches nothing; a literal address in a link or a redirect,
  which no resolver sees, is checked by the same rule (net.non_public_reason) before it is tried;
- redirects followed by hand, at most MAX_REDIRECTS, each one checked like the first link;
- a size cap (read in chunks, never more than the cap), a total timeout, no cookies kept or
  sent, no proxy from the environment, and HTML or plain text only.

`reason` replaces net.non_public_reason and `resolver` the system's name lookup, for tests.
"""

from __future__ import annotations

import socket
from collections.abc import Callable
from dataclasses import dataclass
from urllib.parse import urljoin, urlsplit

import aiohttp
from aiohttp.abc import AbstractResolver, ResolveResult

from commonplace.basics.net import IPAddress, non_public_reason, parse_ip

MAX_REDIRECTS = 5
PAGE_TYPES = ("text/html", "application/xhtml+xml", "text/plain")
USER_AGENT = "Commonplace (a note-taking app saving a page its owner shared)"

Rule = Callable[[IPAddress], str | None]


class FetchRefused(Exception):
    """The page was not fetched, and will not be: the message says why (shown to the owner)."""


@dataclass(frozen=True)
class Page:
    url: str  # where the page was finally read (after redirects)
    text: str  # the body, decoded
    content_type: str


class GuardedResolver(AbstractResolver):
    """Resolves with `inner` and keeps only the addresses `reason` finds nothing against."""

    def __init__(self, reason: Rule, inner: AbstractResolver | None = None) -> None:
        self._reason = reason
        self._inner = inner or aiohttp.ThreadedResolver()

    async def resolve(
        self, host: str, port: int = 0, family: socket.AddressFamily = socket.AF_INET
    ) -> list[ResolveResult]:
        found = await self._inner.resolve(host, port, family)
        kept = [r for r in found if _why_not(r["host"], self._reason) is None]
        if not kept:
            found_why = {f"{r['host']} {_why_not(r['host'], self._reason)}" for r in found}
            why = "; ".join(sorted(found_why))
            raise FetchRefused(f"{host} has no public address ({why}); it was not fetched")
        return kept

    async def close(self) -> None:
        await self._inner.close()


def check_url(url: str, reason: Rule = non_public_reason) -> None:
    """Refuse a link that is not http(s), or whose host is a literal address that is not public."""
    try:
        parts = urlsplit(url)
        parts.port  # noqa: B018 (raises ValueError on a bad port)
    except ValueError:
        raise FetchRefused(f"{url[:100]!r} is not a web address") from None
    if parts.scheme not in ("http", "https"):
        raise FetchRefused(f"only http and https pages are fetched, not {parts.scheme or 'this'}:")
    host = parts.hostname or ""
    if not host:
        raise FetchRefused(f"{url[:100]!r} has no host name")
    ip = parse_ip(host)
    if ip is not None and (why := reason(ip)):
        raise FetchRefused(f"{host} {why}; it was not fetched")
    if ip is None and (host == "localhost" or host.endswith((".localhost", ".local", ".internal"))):
        raise FetchRefused(f"{host} is a local name; it was not fetched")


async def fetch_page(
    url: str,
    *,
    max_bytes: int,
    timeout_s: float,
    resolver: AbstractResolver | None = None,
    reason: Rule = non_public_reason,
) -> Page:
    """The page at `url` by the module's rules; FetchRefused with the reason otherwise (a
    timeout, a refused address, too large, not a page, an HTTP error)."""
    guard = GuardedResolver(reason, resolver)
    connector = aiohttp.TCPConnector(resolver=guard, use_dns_cache=False)
    session = aiohttp.ClientSession(
        connector=connector,
        cookie_jar=aiohttp.DummyCookieJar(),
        timeout=aiohttp.ClientTimeout(total=timeout_s),
        headers={"User-Agent": USER_AGENT, "Accept": "text/html, text/plain;q=0.8"},
        trust_env=False,
    )
    try:
        async with session:
            return await _follow(session, url, max_bytes, reason)
    except TimeoutError:
        raise FetchRefused(f"the page did not answer within {timeout_s:g} s") from None
    except aiohttp.ClientError as exc:
        raise FetchRefused(f"the page could not be read ({type(exc).__name__})") from None


async def _follow(session: aiohttp.ClientSession, url: str, max_bytes: int, reason: Rule) -> Page:
    for _ in range(MAX_REDIRECTS + 1):
        check_url(url, reason)
        async with session.get(url, allow_redirects=False) as response:
            if response.status in (301, 302, 303, 307, 308):
                target = response.headers.get("Location", "")
                if not target:
                    raise FetchRefused(f"the page redirected (HTTP {response.status}) nowhere")
                url = urljoin(url, target)
                continue
            if response.status != 200:
                raise FetchRefused(f"the page answered HTTP {response.status}")
            ctype = response.content_type.lower()
            if ctype not in PAGE_TYPES:
                raise FetchRefused(f"the link is not a web page ({ctype[:60]})")
            declared = response.content_length
            if declared is not None and declared > max_bytes:
                raise FetchRefused(_too_large(max_bytes))
            body = bytearray()
            async for chunk in response.content.iter_chunked(64 * 1024):
                body += chunk
                if len(body) > max_bytes:
                    raise FetchRefused(_too_large(max_bytes))
            charset = response.charset or "utf-8"
            try:
                text = bytes(body).decode(charset, errors="replace")
            except LookupError:
                text = bytes(body).decode("utf-8", errors="replace")
            return Page(str(response.url), text, ctype)
    raise FetchRefused(f"the page redirected more than {MAX_REDIRECTS} times")


def _too_large(max_bytes: int) -> str:
    return f"the page is over {max_bytes // 1024} KB ([clip] max_page_kb); it was not saved"


def _why_not(address: str, reason: Rule) -> str | None:
    ip = parse_ip(address)
    return "is not an address" if ip is None else reason(ip)
