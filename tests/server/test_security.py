"""The four checks: the pure decision first (a table), then real HTTP requests that must fail.

Each HTTP test is one request an attacker (or a misconfiguration) could send; it must get a
403 (or 413/400 for size and paths) with the JSON error shape and never reach a handler.
"""

from __future__ import annotations

import dataclasses
import ipaddress
import json
import logging
import re
import socket
from pathlib import Path
from typing import Any

import aiohttp
import pytest
from aiohttp.test_utils import TestServer
from yarl import URL

from commonplace.config import Settings
from commonplace.llm import make_llm
from commonplace.server import create_app
from commonplace.server.security import CSP, Policy, RequestFacts, check_request, split_host
from tests.server.conftest import (
    OWNER,
    TS_NAME,
    ClientFactory,
    local_host,
    tailnet_headers,
    write_headers,
)

POLICY = Policy(ts_name=TS_NAME, owner_login=OWNER)
PORT = 8765


def facts(**kw: Any) -> RequestFacts:
    base: dict[str, Any] = {
        "method": "GET",
        "path": "/api/state",
        "host": f"127.0.0.1:{PORT}",
        "port": PORT,
        "peer_loopback": True,
    }
    base.update(kw)
    return RequestFacts(**base)


ALLOWED = [
    facts(),
    facts(host=f"localhost:{PORT}"),
    facts(host=f"[::1]:{PORT}"),
    facts(host=TS_NAME, identity=OWNER),
    facts(host=TS_NAME.upper() + ".", identity=OWNER.upper()),  # names are case-insensitive
    facts(
        method="POST",
        path="/api/capture",
        host=TS_NAME,
        identity=OWNER,
        origin=f"https://{TS_NAME}",
        content_type="application/json",
    ),
    facts(
        method="POST",
        path="/api/capture",
        origin=f"http://127.0.0.1:{PORT}",
        content_type="application/json",
    ),
    facts(  # no Origin, but a same-page Referer
        method="POST",
        path="/api/capture",
        referer=f"http://127.0.0.1:{PORT}/",
        content_type="application/json",
    ),
    facts(
        method="POST",
        path="/api/transcribe",
        origin=f"http://127.0.0.1:{PORT}",
        content_type="audio/webm",
    ),
]

LOCAL = f"http://127.0.0.1:{PORT}"
EVIL = "https://evil.example"
JSON = "application/json"


def post(origin: str | None, ctype: str = JSON, **kw: Any) -> RequestFacts:
    return facts(method=kw.pop("method", "POST"), origin=origin, content_type=ctype, **kw)


REFUSED = [
    ("dns rebinding", facts(host=f"evil.example:{PORT}"), "bad_host"),
    ("no host", facts(host=""), "bad_host"),
    ("local name, other port", facts(host="127.0.0.1:9999"), "bad_host"),
    ("local name, no port", facts(host="localhost"), "bad_host"),
    ("lookalike ts name", facts(host=TS_NAME + ".evil.example", identity=OWNER), "bad_host"),
    ("identity on localhost", facts(identity=OWNER), "not_owner"),
    ("other login", facts(host=TS_NAME, identity="mallory@example.com"), "not_owner"),
    ("no identity on ts name", facts(host=TS_NAME), "not_owner"),
    (
        "ts name, not loopback",
        facts(host=TS_NAME, identity=OWNER, peer_loopback=False),
        "not_owner",
    ),
    ("cross-origin POST", post(EVIL), "cross_origin"),
    ("origin on another port", post("http://127.0.0.1:9999"), "cross_origin"),
    ("null origin", post("null"), "cross_origin"),
    ("no origin", post(None), "cross_origin"),
    ("form POST", post(LOCAL, "application/x-www-form-urlencoded"), "content_type"),
    ("text/plain POST", post(LOCAL, "text/plain"), "content_type"),
    ("audio to capture", post(LOCAL, "audio/webm", path="/api/capture"), "content_type"),
    ("DELETE cross-origin", post(EVIL, method="DELETE"), "cross_origin"),
    ("two identities", facts(host=TS_NAME, identity=OWNER, identities=2), "not_owner"),
    ("funnel, owner", facts(host=TS_NAME, identity=OWNER, identities=1, funnel=True), "funnel"),
    ("funnel, no identity", facts(host=TS_NAME, funnel=True), "funnel"),
    ("funnel on a local name", facts(funnel=True), "funnel"),
    # [web] host on a LAN address: any client there can send a local name, none may use it.
    ("127.0.0.1 from another computer", facts(peer_loopback=False), "not_local"),
    (
        "localhost from another computer",
        facts(host=f"localhost:{PORT}", peer_loopback=False),
        "not_local",
    ),
    (
        "a change from another computer",
        post(LOCAL, path="/api/capture", peer_loopback=False),
        "not_local",
    ),
]


@pytest.mark.parametrize("request_facts", ALLOWED)
def test_allowed(request_facts: RequestFacts) -> None:
    assert check_request(request_facts, POLICY) is None


@pytest.mark.parametrize(("name", "request_facts", "code"), REFUSED, ids=[r[0] for r in REFUSED])
def test_refused(name: str, request_facts: RequestFacts, code: str) -> None:
    refusal = check_request(request_facts, POLICY)
    assert refusal is not None, name
    assert refusal.code == code


def test_ts_name_without_owner_configured_is_refused() -> None:
    refusal = check_request(facts(host=TS_NAME, identity=OWNER), Policy(ts_name=TS_NAME))
    assert refusal is not None and "owner_login" in refusal.reason


def test_extra_hosts_are_local_names() -> None:
    policy = Policy(extra_hosts=("mybox.lan",))
    assert check_request(facts(host=f"mybox.lan:{PORT}"), policy) is None
    assert check_request(facts(host=f"mybox.lan:{PORT}", identity=OWNER), policy) is not None
    lan = check_request(facts(host=f"mybox.lan:{PORT}", peer_loopback=False), policy)
    assert lan is not None and lan.code == "not_local"


def lan_address() -> str | None:
    """This computer's address on its network (no packet is sent), or None without one."""
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
        try:
            probe.connect(("192.0.2.1", 9))
        except OSError:
            return None
        address = str(probe.getsockname()[0])
    return None if ipaddress.ip_address(address).is_loopback else address


async def test_a_lan_client_saying_localhost_reads_nothing(web_settings: Settings) -> None:
    """With [web] host = "0.0.0.0" the port is reachable from the network: a client there that
    sends `Host: localhost:<port>` is refused; the same request from this computer is served."""
    address = lan_address()
    if address is None:
        pytest.skip("this computer has no network address to come from")
    app = create_app(web_settings, make_llm(web_settings))
    async with TestServer(app, host="0.0.0.0") as server, aiohttp.ClientSession() as session:
        local = {"Host": f"localhost:{server.port}"}
        url = f"http://{address}:{server.port}/api/state"
        async with session.get(url, headers=local) as lan:
            assert lan.status == 403
            assert (await lan.json())["error"]["code"] == "not_local"
        search = f"http://{address}:{server.port}/api/search?q=shed"
        async with session.get(search, headers=local) as lan_search:
            assert lan_search.status == 403
        here = f"http://127.0.0.1:{server.port}/api/state"
        async with session.get(here, headers=local) as mine:
            assert mine.status == 200


@pytest.mark.parametrize(
    ("host", "expected"),
    [
        ("Example.COM", ("example.com", None)),
        ("127.0.0.1:8765", ("127.0.0.1", 8765)),
        ("[::1]:8765", ("::1", 8765)),
        ("name.ts.net.", ("name.ts.net", None)),
        ("host:abc", ("", None)),
    ],
)
def test_split_host(host: str, expected: tuple[str, int | None]) -> None:
    assert split_host(host) == expected


# -- over HTTP ------------------------------------------------------------------------------------


async def _refused(response: Any, status: int = 403) -> dict[str, Any]:
    assert response.status == status
    body = await response.json()
    assert set(body["error"]) == {"code", "message"}
    assert "Traceback" not in json.dumps(body)
    return body


async def test_wrong_host_dns_rebinding(
    make_client: ClientFactory, caplog: pytest.LogCaptureFixture
) -> None:
    client = await make_client()
    with caplog.at_level(logging.WARNING, logger="commonplace.server.security"):
        response = await client.get(
            "/api/state", headers={"Host": f"rebind.evil.example:{client.port}"}
        )
    body = await _refused(response)
    assert body["error"]["code"] == "bad_host"
    assert any("not one of this daemon's names" in r.getMessage() for r in caplog.records)


async def test_wrong_host_cannot_load_the_page_either(make_client: ClientFactory) -> None:
    client = await make_client()
    await _refused(await client.get("/", headers={"Host": "evil.example"}))


async def test_identity_header_on_localhost(make_client: ClientFactory) -> None:
    client = await make_client()
    response = await client.get("/api/state", headers={"Tailscale-User-Login": OWNER})
    assert (await _refused(response))["error"]["code"] == "not_owner"


async def test_identity_header_with_another_login(make_client: ClientFactory) -> None:
    client = await make_client()
    response = await client.get(
        "/api/state", headers=tailnet_headers(**{"Tailscale-User-Login": "mallory@example.com"})
    )
    assert (await _refused(response))["error"]["code"] == "not_owner"


@pytest.mark.parametrize(
    "logins", [(OWNER, "mallory@example.com"), ("mallory@example.com", OWNER), (OWNER, OWNER)]
)
async def test_two_identity_headers_are_refused(
    make_client: ClientFactory, logins: tuple[str, str]
) -> None:
    """tailscale serve deletes every Tailscale-User-Login a client sent and sets one: two of
    them mean the request did not come through it, whichever comes first."""
    client = await make_client()
    headers = [("Host", TS_NAME)] + [("Tailscale-User-Login", x) for x in logins]
    response = await client.get("/api/state", headers=headers)
    body = await _refused(response)
    assert body["error"]["code"] == "not_owner" and "more than one" in body["error"]["message"]


@pytest.mark.parametrize("value", ["?1", "true", ""])
async def test_a_funnel_request_is_refused(make_client: ClientFactory, value: str) -> None:
    """Through Tailscale Funnel, tailscale serve sends `Tailscale-Funnel-Request: ?1` and no
    identity; refused whatever else the request carries, the owner's login included."""
    client = await make_client()
    for headers in (
        tailnet_headers(**{"Tailscale-Funnel-Request": value}),
        {"Host": TS_NAME, "Tailscale-Funnel-Request": value},
        {"Tailscale-Funnel-Request": value},  # on the local name too
    ):
        response = await client.get("/api/state", headers=headers)
        assert (await _refused(response))["error"]["code"] == "funnel"
    page = await client.get("/", headers=tailnet_headers(**{"Tailscale-Funnel-Request": "?1"}))
    await _refused(page)


async def test_missing_identity_header_on_ts_name(make_client: ClientFactory) -> None:
    client = await make_client()
    response = await client.get("/api/state", headers={"Host": TS_NAME})
    assert (await _refused(response))["error"]["code"] == "not_owner"


async def test_owner_on_ts_name_is_served(make_client: ClientFactory) -> None:
    client = await make_client()
    response = await client.get("/api/state", headers=tailnet_headers())
    assert response.status == 200


async def test_non_ascii_owner_login_is_decoded(
    make_client: ClientFactory, web_settings: Settings
) -> None:
    owner = "zoë@example.com"
    s = dataclasses.replace(
        web_settings, web=dataclasses.replace(web_settings.web, owner_login=owner)
    )
    client = await make_client(s)
    encoded = "=?utf-8?q?zo=C3=AB=40example=2Ecom?="
    ok = await client.get(
        "/api/state", headers=tailnet_headers(**{"Tailscale-User-Login": encoded})
    )
    assert ok.status == 200
    other = "=?utf-8?q?zoe=40example=2Ecom?="
    refused = await client.get(
        "/api/state", headers=tailnet_headers(**{"Tailscale-User-Login": other})
    )
    assert refused.status == 403


async def test_cross_origin_post(make_client: ClientFactory, web_settings: Settings) -> None:
    client = await make_client()
    response = await client.post(
        "/api/capture",
        data=json.dumps({"text": "planted by a website"}),
        headers=write_headers(client, Origin="https://evil.example"),
    )
    assert (await _refused(response))["error"]["code"] == "cross_origin"
    assert not (web_settings.vault / "Inbox").exists()


async def test_a_script_without_origin_is_told_what_to_send(make_client: ClientFactory) -> None:
    """curl's POST with no Origin got "a change needs an Origin or Referer header", which says
    what is missing but not that a script sends the token instead."""
    client = await make_client()
    response = await client.post(
        "/api/capture", data=json.dumps({"text": "x"}), headers={"Content-Type": JSON}
    )
    message = (await _refused(response))["error"]["message"]
    assert "Origin" in message and "Authorization: Bearer" in message
    assert "commonplace token" in message


async def test_cross_origin_post_on_tailnet(make_client: ClientFactory) -> None:
    client = await make_client()
    response = await client.post(
        "/api/capture",
        data=json.dumps({"text": "x"}),
        headers=tailnet_headers(
            Origin="https://evil.example", **{"Content-Type": "application/json"}
        ),
    )
    assert (await _refused(response))["error"]["code"] == "cross_origin"


async def test_form_encoded_post(make_client: ClientFactory, web_settings: Settings) -> None:
    client = await make_client()
    response = await client.post(
        "/api/capture",
        data={"text": "from a form"},
        headers={"Origin": f"http://{local_host(client)}"},
    )
    assert (await _refused(response))["error"]["code"] == "content_type"
    assert not (web_settings.vault / "Inbox").exists()


async def test_oversized_body(make_client: ClientFactory, web_settings: Settings) -> None:
    client = await make_client()
    big = json.dumps({"text": "x" * (web_settings.web.max_json_kb * 1024 + 10)})
    response = await client.post("/api/capture", data=big, headers=write_headers(client))
    assert (await _refused(response, 413))["error"]["code"] == "too_large"
    assert not (web_settings.vault / "Inbox").exists()


async def test_oversized_chunked_body_without_length(
    make_client: ClientFactory, web_settings: Settings
) -> None:
    client = await make_client()
    limit = web_settings.web.max_json_kb * 1024

    async def chunks() -> Any:
        yield b'{"text": "'
        for _ in range(limit // 1024 + 2):
            yield b"y" * 1024
        yield b'"}'

    response = await client.post("/api/capture", data=chunks(), headers=write_headers(client))
    await _refused(response, 413)


@pytest.mark.parametrize(
    "path",
    [
        "../outside.md",
        "People/../../outside.md",
        "/etc/passwd",
        "..%2foutside.md",
        "~/outside.md",
        ".obsidian/workspace.json",
    ],
)
async def test_note_path_outside_the_vault(
    make_client: ClientFactory, web_settings: Settings, path: str
) -> None:
    (web_settings.vault.parent / "outside.md").write_text("SECRET outside the vault")
    client = await make_client()
    response = await client.get("/api/note", params={"path": path.replace("%2f", "/")})
    assert response.status in (400, 404)
    text = await response.text()
    assert "SECRET" not in text


async def test_symlink_out_of_the_vault(
    make_client: ClientFactory, web_settings: Settings, tmp_path: Path
) -> None:
    secret = tmp_path / "secret.md"
    secret.write_text("SECRET via symlink")
    (web_settings.vault / "People" / "Link.md").symlink_to(secret)
    client = await make_client()
    response = await client.get("/api/note", params={"path": "People/Link.md"})
    assert response.status == 400
    assert "SECRET" not in await response.text()


@pytest.mark.parametrize(
    "path", ["/../pyproject.toml", "/js/../../pyproject.toml", "/%2e%2e/pyproject.toml", "/.hidden"]
)
async def test_page_paths_cannot_leave_web(make_client: ClientFactory, path: str) -> None:
    client = await make_client()
    response = await client.get(URL(path, encoded=True))
    assert response.status in (403, 404)
    assert "[project]" not in await response.text()


async def test_security_headers_on_page_and_errors(make_client: ClientFactory) -> None:
    client = await make_client()
    for response in (await client.get("/"), await client.get("/api/nope")):
        assert response.headers["Content-Security-Policy"] == CSP
        assert response.headers["X-Content-Type-Options"] == "nosniff"
        assert response.headers["X-Frame-Options"] == "DENY"
    for part in ("default-src 'self'", "script-src 'self'", "img-src 'self'", "object-src 'none'",
                 "base-uri 'none'", "frame-ancestors 'none'"):  # fmt: skip
        assert part in CSP
    assert "unsafe-inline" not in CSP


async def test_page_has_no_inline_script(make_client: ClientFactory) -> None:
    client = await make_client()
    html = await (await client.get("/")).text()
    assert "<script>" not in html.replace(" ", "")
    assert 'script type="module" src="/js/app.js"' in html
    assert re.search(r"\son[a-z]+\s*=", html) is None  # no inline event handlers
    assert "style=" not in html
