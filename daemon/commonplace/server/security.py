"""The four checks on every request, and the headers on every response.

The page is reached through `tailscale serve`, which proxies https://<name>.ts.net to the
loopback port and adds the caller's identity as `Tailscale-User-Login`. That header is worth
something only because nothing else can reach the loopback port and `tailscale serve` sets it
(and strips a forged one) on requests it proxies. So:

(a) the server listens on loopback unless configured otherwise (see daemon/run.py);
(b) the Host header must be the ts.net name or a local name with our port: a website that
    points its own name at 127.0.0.1 (DNS rebinding) sends its own name and is refused; and a
    local name is accepted only from a loopback peer (or with the API token), because any client
    can send `Host: localhost` when [web] host makes the port reachable from other computers;
(c) on the ts.net name the identity header must be there and be the owner, and the request must
    come from loopback (tailscale serve); on local names the header must be absent, because
    nothing legitimate sets it there;
(d) a state-changing request must say it comes from our own page (Origin, or Referer when a
    browser sends no Origin) and carry JSON (audio only where audio is uploaded), which a
    cross-site form can never do. One exception, on one path: the share target's POST to
    /share (share_target.py) is a form, and when the owner picks the page in the phone's share
    sheet the browser makes it itself, with no page behind it: `Origin: null` (or none), no
    Referer, `Sec-Fetch-Site: none`, `Sec-Fetch-Mode: navigate`. The browser sets the
    Sec-Fetch headers, and no page can make it send `none` (a form on any site says
    `same-origin`, `same-site` or `cross-site`), so that request is taken as the owner's own;
    from the page's own origin it passes as any change does, and from any other it is refused.

Requests from the Obsidian plugin come from the origin `app://obsidian.md` (desktop),
`capacitor://localhost` (iOS) or `http://localhost` / `https://localhost` (Android: the Capacitor
app's scheme), or with no Origin at all when the plugin uses Obsidian's `requestUrl`; they pass
(a)-(c) like any other; instead of (d) they need a bearer token on every request, any method:
the vault's token (`commonplace token`) or a paired device's own (plugin/devices.py, revocable), and
the daemon answers their CORS preflight. The plugin also names itself (`X-Commonplace-Client:
obsidian`), so a request through `requestUrl`, which carries no Origin, gets the same rule and not
the page's: the header can only add the token requirement, never lift a check. On the ts.net name
that is both: the owner's Tailscale login (c) and the token. Every other origin is checked as
above.

Pairing (plugin/pairing.py) has two sides. Asking to pair (PAIR_OPEN) needs no token, since getting
one is its point; it is taken only from Obsidian's origins or from a program (no Origin), only from
this computer's loopback or through the ts.net name as the owner, and never from a browser page
of another origin. Confirming (PAIR_OWNER) is the owner's: the phone page (with (d) as for every
change) or a program with the vault's own token (`commonplace plugin pair`), never a device
token and never Obsidian's origin, so a plugin cannot confirm itself.

A program on this computer that is not a browser (the MCP server) sends no Origin; it sends the
same token as `Authorization: Bearer`, which then stands in for (d). A browser cannot take that
path: it sends an Origin with every change, and a page elsewhere cannot add an Authorization
header without a CORS preflight, which is answered for Obsidian only. A request that carries a
token must carry the right one, whatever else it sends (401), and the paths in TOKEN_PATHS
(a change asked for by an outside client) always need it.

Before all of these, two refusals whatever the Host: a request marked `Tailscale-Funnel-Request`
came from the public internet through Tailscale Funnel (tailscale serve sets that header on every
funnelled request and sends no identity with it), and the page is for the owner's own devices
only; and a request with more than one `Tailscale-User-Login` did not come through tailscale
serve, which deletes every copy a client sent before setting its own.

`check_request` is a pure function of the request's facts, so every rule is tested directly.
"""

from __future__ import annotations

import ipaddress
import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from email.header import decode_header, make_header
from pathlib import Path
from urllib.parse import urlsplit

from aiohttp import web
from aiohttp.typedefs import Middleware

from commonplace.config import WebSettings
from commonplace.plugin.apitoken import read_token, token_matches
from commonplace.plugin.devices import DeviceTokens, token_hash
from commonplace.server.errors import error_response

log = logging.getLogger(__name__)

IDENTITY_HEADER = "Tailscale-User-Login"
FUNNEL_HEADER = "Tailscale-Funnel-Request"
LOCAL_NAMES = frozenset({"localhost", "127.0.0.1", "::1"})
UNSAFE_METHODS = frozenset({"POST", "PUT", "PATCH", "DELETE"})
UPLOAD_PATHS = frozenset(
    {"/api/transcribe", "/api/capture/photo", "/api/share"}
)  # recording, photo, share
UPLOAD_TYPES = ("audio/", "video/webm", "video/mp4", "multipart/form-data")
SHARE_PATHS = frozenset({"/api/share", "/share"})  # a share's form: the API, the share target
SHARE_TARGET = "/share"  # the manifest's share_target action (web/manifest.webmanifest)
FORM_TYPES = ("multipart/form-data", "application/x-www-form-urlencoded")
APP_ORIGIN = "app://obsidian.md"  # Obsidian desktop's window, where its plugins run
# Obsidian mobile is a Capacitor app: its web view's origin on iOS, and on Android (http, or
# https in newer Capacitor versions). Treated as APP_ORIGIN: in only with a token.
MOBILE_ORIGINS = ("capacitor://localhost", "http://localhost", "https://localhost")
OBSIDIAN_ORIGINS = frozenset({APP_ORIGIN, *MOBILE_ORIGINS})
CLIENT_HEADER = "X-Commonplace-Client"  # "obsidian": the plugin, whatever its transport
PAIR_OPEN = frozenset({"/api/pair/request", "/api/pair/poll"})  # the plugin, without a token
PAIR_OWNER = frozenset({"/api/pair/pending", "/api/pair/confirm", "/api/pair/deny"})
TOKEN_PATHS = frozenset({"/api/assistant/propose"})  # only with the token, from any origin
# The owner's own voice: answering the assistant's questions (a typed "yes" too) is for the
# phone page and `commonplace chat`, never for a program holding the token (an MCP client, an
# Obsidian plugin): they may ask (TOKEN_PATHS), not answer.
PAGE_ONLY = frozenset({"/api/assistant/answer", "/api/assistant/message"})
TOKEN_HINT = (
    "pair Obsidian again (Settings > Commonplace > Pair), or run 'commonplace token' and paste "
    "the token into the plugin's settings"
)
CORS_HEADERS = {
    "Access-Control-Allow-Methods": "GET, POST",
    "Access-Control-Allow-Headers": f"Authorization, Content-Type, {CLIENT_HEADER}",
    "Access-Control-Max-Age": "600",
}

CSP = (
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self'; "
    "connect-src 'self'; worker-src 'self'; manifest-src 'self'; "
    "object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"
)
SECURITY_HEADERS = {
    "Content-Security-Policy": CSP,
    "X-Content-Type-Options": "nosniff",
    "X-Frame-Options": "DENY",
    "Referrer-Policy": "same-origin",
    "Cross-Origin-Opener-Policy": "same-origin",
    "Cross-Origin-Resource-Policy": "same-origin",
    "Permissions-Policy": "microphone=(self), camera=(), geolocation=(), payment=(), usb=()",
}


@dataclass(frozen=True)
class RequestFacts:
    """What the checks look at, taken from the request by `facts_from`."""

    method: str
    path: str
    host: str  # the Host header as sent, "" when missing
    port: int  # the local port the request arrived on
    peer_loopback: bool  # the TCP peer is 127.0.0.0/8 or ::1
    identity: str | None = None  # Tailscale-User-Login
    identities: int = 0  # how many Tailscale-User-Login headers came (tailscale serve sends one)
    funnel: bool = False  # Tailscale-Funnel-Request present: from the public internet
    origin: str | None = None
    referer: str | None = None
    content_type: str = ""  # media type only, lower case
    authorization: str | None = None  # the Authorization header (Obsidian, the MCP server)
    client: str = ""  # X-Commonplace-Client, lower case ("obsidian": the plugin)
    fetch_site: str = ""  # Sec-Fetch-Site, lower case: set by the browser, never by a page
    fetch_mode: str = ""  # Sec-Fetch-Mode, lower case ("navigate": a page load or form post)

    @property
    def from_obsidian(self) -> bool:
        """Obsidian's window (its origin) or the plugin naming itself (requestUrl: no Origin)."""
        return self.origin in OBSIDIAN_ORIGINS or self.client == "obsidian"


@dataclass(frozen=True)
class Policy:
    ts_name: str = ""
    owner_login: str = ""
    extra_hosts: tuple[str, ...] = ()
    token_file: Path | None = None  # the plugin's token (None: APP_ORIGIN is always refused)
    devices_file: Path | None = None  # paired devices' token hashes (plugin/devices.py)

    @classmethod
    def from_settings(
        cls,
        web_settings: WebSettings,
        *,
        token_file: Path | None = None,
        devices_file: Path | None = None,
    ) -> Policy:
        return cls(
            ts_name=_clean_name(web_settings.ts_name),
            owner_login=web_settings.owner_login.strip(),
            extra_hosts=tuple(_clean_name(h) for h in web_settings.extra_hosts if h.strip()),
            token_file=token_file,
            devices_file=devices_file,
        )


@dataclass(frozen=True)
class Refusal:
    code: str  # funnel, bad_host, not_local, not_owner, cross_origin, content_type, (no|bad)_token
    reason: str  # one line for the log and the client; never request data beyond names
    status: int = 403  # 401 for a missing or wrong token


def split_host(host: str) -> tuple[str, int | None]:
    """'Name.ts.net' -> ('name.ts.net', None); '[::1]:8765' -> ('::1', 8765)."""
    host = host.strip().lower()
    if host.startswith("["):
        name, _, rest = host[1:].partition("]")
        port_text = rest[1:] if rest.startswith(":") else ""
    elif host.count(":") == 1:
        name, _, port_text = host.partition(":")
    else:
        name, port_text = host, ""
    port = int(port_text) if port_text.isdigit() and len(port_text) <= 5 else None
    if port_text and port is None:
        return "", None  # "host:abc": not a host we know
    return name.rstrip("."), port


def check_request(
    facts: RequestFacts,
    policy: Policy,
    token: str | None = None,
    devices: frozenset[str] = frozenset(),
) -> Refusal | None:
    """None if the request may proceed, else why not. Order: funnel and duplicated identity,
    then host, identity, pairing, origin, type.

    `token` is the vault's current API token (None when none was made) and `devices` the SHA-256
    of each paired device's token; they matter for requests from Obsidian, requests that carry a
    token, and TOKEN_PATHS."""
    if facts.funnel:
        return Refusal(
            "funnel",
            "requests from the public internet (Tailscale Funnel) are refused; "
            "the page is for your own devices: use tailscale serve, not funnel",
        )
    if facts.identities > 1:
        return Refusal("not_owner", f"more than one {IDENTITY_HEADER} header")
    name, port = split_host(facts.host)
    on_tailnet = bool(policy.ts_name) and name == policy.ts_name
    local = name in LOCAL_NAMES or name in policy.extra_hosts
    if not on_tailnet and not local:
        return Refusal("bad_host", f"Host {facts.host[:80]!r} is not one of this daemon's names")
    if local and port != facts.port:
        return Refusal("bad_host", f"Host {facts.host[:80]!r} does not name this daemon's port")
    if local and not facts.peer_loopback and not _brings_token(facts):
        # A local name is a claim any client can make: only this computer may make it.
        return Refusal(
            "not_local",
            f"Host {facts.host[:80]!r} is only served to this computer; from another device use "
            "the ts.net name through tailscale serve (programs: the API token)",
        )
    if on_tailnet:
        refusal = _check_owner(facts, policy)
        if refusal:
            return refusal
    elif facts.identity is not None:
        return Refusal(
            "not_owner",
            f"{IDENTITY_HEADER} is only accepted on {policy.ts_name or 'the ts.net name'}",
        )
    if facts.path in PAIR_OPEN:
        return _check_pair_open(facts, local=local)
    if facts.path in PAIR_OWNER:
        refusal = _check_pair_owner(facts, token)
        if refusal is not None or facts.authorization is not None:
            return refusal
    if facts.from_obsidian:
        return _check_app(facts, token, devices) or _page_only(facts)
    if facts.authorization is not None or facts.path in TOKEN_PATHS:
        refusal = _check_bearer(facts, token, devices)
        if refusal is None and facts.authorization is not None:
            refusal = _page_only(facts)
        if refusal is not None or (facts.origin is None and facts.referer is None):
            return refusal  # a program with the right token: the token stands in for (d)
    if facts.method.upper() in UNSAFE_METHODS:
        return _check_write(facts)
    return None


def _brings_token(facts: RequestFacts) -> bool:
    """Obsidian's origin or an Authorization header: the token is then checked, whoever sent
    it (an Obsidian or MCP client on another computer, when [web] host lets them in)."""
    return facts.from_obsidian or facts.authorization is not None


def token_valid(token: str | None, devices: frozenset[str], authorization: str | None) -> bool:
    """The vault's token or a paired device's (compared by its SHA-256)."""
    if token_matches(token, authorization):
        return True
    if not devices or not authorization:
        return False
    scheme, _, given = authorization.strip().partition(" ")
    return scheme.lower() == "bearer" and bool(given.strip()) and token_hash(given) in devices


def _check_pair_open(facts: RequestFacts, *, local: bool) -> Refusal | None:
    """Asking to pair: from Obsidian (or a program), on this computer or as the owner on the
    ts.net name (checked before), JSON. No token: getting one is the point."""
    if facts.origin is not None and facts.origin not in OBSIDIAN_ORIGINS:
        return Refusal("cross_origin", f"Origin {facts.origin[:80]!r} may not ask to pair")
    if local and not facts.peer_loopback:
        return Refusal(
            "not_local",
            "pairing is asked for on this computer, or from your phone through the ts.net name",
        )
    if facts.method.upper() == "OPTIONS" and facts.origin is not None:
        return None  # the preflight of such a request
    if facts.method.upper() != "POST":
        return Refusal("method", "pairing is asked for with POST")
    return _check_type(facts)


def _check_pair_owner(facts: RequestFacts, token: str | None) -> Refusal | None:
    """Confirming a pairing is the owner's: never Obsidian itself, never a device token."""
    if facts.from_obsidian:
        return Refusal(
            "owner_only",
            "a pairing is confirmed by the owner, on the phone page or with "
            "'commonplace plugin pair', not by the plugin",
        )
    if facts.authorization is None:
        return None  # the page: its own checks follow
    if not token_matches(token, facts.authorization):
        return Refusal(
            "owner_only",
            "a pairing is confirmed with the vault's own token ('commonplace plugin pair'), "
            "not with a device's",
            403,
        )
    if facts.method.upper() in UNSAFE_METHODS:
        return _check_type(facts)
    return None


def _page_only(facts: RequestFacts) -> Refusal | None:
    """A program with the right token still may not answer the assistant's questions."""
    if facts.path not in PAGE_ONLY:
        return None
    return Refusal(
        "page_only",
        "only the owner answers the assistant, on the phone page or in 'commonplace chat'; "
        "other programs may ask (POST /api/assistant/propose) but not answer",
    )


def wants_token(facts: RequestFacts) -> bool:
    """Whether the check needs the current token (read from its file only then)."""
    return facts.from_obsidian or facts.authorization is not None or facts.path in TOKEN_PATHS


def _check_bearer(
    facts: RequestFacts, token: str | None, devices: frozenset[str]
) -> Refusal | None:
    """A token sent by a program (the MCP server, the plugin through requestUrl) must be this
    vault's or a paired device's."""
    if token is None and not devices:
        return Refusal("no_token", "no API token has been made yet: run 'commonplace token'", 401)
    if not token_valid(token, devices, facts.authorization):
        what = "a wrong" if facts.authorization else "no"
        return Refusal(
            "bad_token",
            f"the request sent {what} token (a revoked device's, or not this vault's): "
            f"{TOKEN_HINT}",
            401,
        )
    if facts.method.upper() in UNSAFE_METHODS:
        return _check_type(facts)
    return None


def is_preflight(facts: RequestFacts) -> bool:
    """A CORS preflight from Obsidian: browsers never send credentials with one, so it is
    answered without the token; the request it announces needs the token."""
    return facts.origin in OBSIDIAN_ORIGINS and facts.method.upper() == "OPTIONS"


def _check_app(facts: RequestFacts, token: str | None, devices: frozenset[str]) -> Refusal | None:
    if is_preflight(facts):
        return None
    if token is None and not devices:
        return Refusal("no_token", f"no API token has been made yet: {TOKEN_HINT}", 401)
    if not token_valid(token, devices, facts.authorization):
        what = "a wrong" if facts.authorization else "no"
        return Refusal("bad_token", f"Obsidian sent {what} token: {TOKEN_HINT}", 401)
    if facts.method.upper() in UNSAFE_METHODS:
        return _check_type(facts)
    return None


def _check_owner(facts: RequestFacts, policy: Policy) -> Refusal | None:
    if not facts.peer_loopback:
        return Refusal("not_owner", "the ts.net name is only served through tailscale serve")
    if not policy.owner_login:
        return Refusal("not_owner", "set [web] owner_login to your Tailscale login to allow it")
    if not facts.identity:
        return Refusal("not_owner", f"no {IDENTITY_HEADER}: not proxied by tailscale serve")
    if facts.identity.strip().casefold() != policy.owner_login.casefold():
        return Refusal("not_owner", f"Tailscale user {facts.identity[:80]!r} is not the owner")
    return None


def opened_by_the_browser(facts: RequestFacts) -> bool:
    """The browser's own navigation, with no page behind it: how Chrome posts a share to the
    share target when the owner picks the page in the share sheet (see (d) above)."""
    return (
        facts.origin in (None, "null")
        and facts.referer is None
        and facts.fetch_site == "none"
        and facts.fetch_mode == "navigate"
    )


def _check_write(facts: RequestFacts) -> Refusal | None:
    if facts.path == SHARE_TARGET and opened_by_the_browser(facts):
        return _check_type(facts)
    source = facts.origin if facts.origin and facts.origin != "null" else facts.referer
    if not source:
        return Refusal(
            "cross_origin",
            "a change needs an Origin header naming this page (from a browser) or, from a "
            "script, Authorization: Bearer <the output of 'commonplace token'>",
        )
    parts = urlsplit(source)
    if parts.scheme not in ("http", "https") or not _same_host(parts.netloc, parts.scheme, facts):
        return Refusal("cross_origin", f"Origin {source[:80]!r} is not this page")
    return _check_type(facts)


def _check_type(facts: RequestFacts) -> Refusal | None:
    ctype = facts.content_type
    if ctype == "application/json":
        return None
    if facts.path in SHARE_PATHS:
        if ctype in FORM_TYPES:
            return None  # a share's form (api_share.py); (d)'s Origin check has been passed
        return Refusal(
            "content_type",
            f"content type {ctype[:60] or 'none'!r} is not a form (multipart/form-data)",
        )
    if facts.path in UPLOAD_PATHS and ctype.startswith(UPLOAD_TYPES):
        return None
    upload = " or a multipart form" if facts.path == "/api/capture/photo" else " or audio"
    allowed = "application/json" + (upload if facts.path in UPLOAD_PATHS else "")
    return Refusal("content_type", f"content type {ctype[:60] or 'none'!r} is not {allowed}")


def _same_host(netloc: str, scheme: str, facts: RequestFacts) -> bool:
    default = 443 if scheme == "https" else 80
    o_name, o_port = split_host(netloc)
    h_name, h_port = split_host(facts.host)
    return bool(o_name) and (o_name, o_port or default) == (h_name, h_port or default)


def _clean_name(name: str) -> str:
    return name.strip().lower().rstrip(".")


def facts_from(request: web.Request) -> RequestFacts:
    sockname = request.transport.get_extra_info("sockname") if request.transport else None
    port = int(sockname[1]) if isinstance(sockname, tuple) and len(sockname) >= 2 else 0
    return RequestFacts(
        method=request.method,
        path=request.path,
        host=request.headers.get("Host", ""),
        port=port,
        peer_loopback=is_loopback(request.remote),
        identity=decode_identity(request.headers.get(IDENTITY_HEADER)),
        identities=len(request.headers.getall(IDENTITY_HEADER, [])),
        funnel=FUNNEL_HEADER in request.headers,
        origin=request.headers.get("Origin"),
        referer=request.headers.get("Referer"),
        content_type=request.content_type.lower() if "Content-Type" in request.headers else "",
        authorization=request.headers.get("Authorization"),
        client=request.headers.get(CLIENT_HEADER, "").strip().lower(),
        fetch_site=request.headers.get("Sec-Fetch-Site", "").strip().lower(),
        fetch_mode=request.headers.get("Sec-Fetch-Mode", "").strip().lower(),
    )


def decode_identity(value: str | None) -> str | None:
    """tailscale serve sends a non-ASCII login RFC 2047 Q-encoded ('=?utf-8?q?...?=')."""
    if value is None or "=?" not in value:
        return value
    try:
        return str(make_header(decode_header(value)))
    except (ValueError, LookupError, UnicodeDecodeError):
        return value  # compared as sent: it will not match a real login


def is_loopback(host: str | None) -> bool:
    """A loopback address (or 'localhost'): only this computer can reach it."""
    if host == "localhost":
        return True
    try:
        return host is not None and ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]


def security_middleware(policy: Policy) -> Middleware:
    devices = DeviceTokens(policy.devices_file) if policy.devices_file is not None else None

    @web.middleware
    async def checks(request: web.Request, handler: Handler) -> web.StreamResponse:
        facts = facts_from(request)
        token = None
        hashes: frozenset[str] = frozenset()
        if wants_token(facts) and policy.token_file is not None:
            token = read_token(policy.token_file)  # each time: a rotation needs no restart
        if wants_token(facts) and devices is not None:
            hashes = devices.hashes()  # re-read when changed: a revocation needs no restart
        refusal = check_request(facts, policy, token, hashes)
        if refusal is not None:
            log.warning("refused %s %s: %s", request.method, request.path[:100], refusal.reason)
            response = error_response(refusal.status, refusal.code, refusal.reason)
            if refusal.status == 401:
                response.headers["WWW-Authenticate"] = "Bearer"
            return response
        if is_preflight(facts):
            return preflight_response(request)
        return await handler(request)

    return checks


def preflight_response(request: web.Request) -> web.Response:
    """204 for Obsidian's preflight: GET and POST, with Authorization and Content-Type."""
    response = web.Response(status=204, headers=CORS_HEADERS)
    if request.headers.get("Access-Control-Request-Private-Network") == "true":
        response.headers["Access-Control-Allow-Private-Network"] = "true"  # Chromium's PNA
    return response


async def add_security_headers(request: web.Request, response: web.StreamResponse) -> None:
    """on_response_prepare: runs for every response, streamed ones and errors included.

    Responses to Obsidian, desktop or mobile (refusals too, so the plugin can read why) name its
    origin as allowed;
    every other origin gets no CORS header, so a browser keeps other sites from reading them."""
    for name, value in SECURITY_HEADERS.items():
        response.headers.setdefault(name, value)
    origin = request.headers.get("Origin")
    if origin in OBSIDIAN_ORIGINS:
        response.headers["Access-Control-Allow-Origin"] = origin
        response.headers["Vary"] = "Origin"
    if request.path.startswith("/api/"):
        response.headers["Cache-Control"] = "no-store"
