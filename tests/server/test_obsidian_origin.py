"""Obsidian's origin (`app://obsidian.md`): in only with the token, on every route.

The plugin's requests pass the Host and identity checks like any other, then need
`Authorization: Bearer <token>` instead of a same-page Origin. Every other origin keeps the four
checks unchanged (tests/server/test_security.py); a few tests here check that nothing leaked.
"""

from __future__ import annotations

import stat
from pathlib import Path
from typing import Any

import pytest
from aiohttp import web
from aiohttp.test_utils import TestClient
from click.testing import CliRunner

from commonplace.cli.main import cli
from commonplace.config import Settings
from commonplace.llm import make_llm
from commonplace.plugin.apitoken import (
    get_or_create_token,
    read_token,
    rotate_token,
    token_matches,
    token_path,
)
from commonplace.server import create_app
from commonplace.server.security import (
    APP_ORIGIN,
    PAIR_OPEN,
    PAIR_OWNER,
    Policy,
    RequestFacts,
    check_request,
)
from tests.server.conftest import OWNER, TS_NAME, ClientFactory

PORT = 8765
TOKEN = "s3cret-token-for-tests"
EVIL = "https://evil.example"


def app_facts(**kw: Any) -> RequestFacts:
    base: dict[str, Any] = {
        "method": "GET",
        "path": "/api/state",
        "host": f"127.0.0.1:{PORT}",
        "port": PORT,
        "peer_loopback": True,
        "origin": APP_ORIGIN,
    }
    base.update(kw)
    return RequestFacts(**base)


BEARER = f"Bearer {TOKEN}"
POLICY = Policy(ts_name=TS_NAME, owner_login=OWNER)


# -- the decision, as a table -----------------------------------------------------------------

APP_ALLOWED = [
    ("GET with the token", app_facts(authorization=BEARER)),
    ("scheme in any case", app_facts(authorization=f"bearer {TOKEN}")),
    (
        "POST JSON with the token",
        app_facts(
            method="POST", path="/api/ask", authorization=BEARER, content_type="application/json"
        ),
    ),
    ("preflight needs no token", app_facts(method="OPTIONS", path="/api/ask")),
    (
        "through tailscale serve, as the owner",
        app_facts(host=TS_NAME, identity=OWNER, authorization=BEARER),
    ),
]

APP_REFUSED = [
    ("no token", app_facts(), "bad_token", 401),
    ("wrong token", app_facts(authorization="Bearer nope"), "bad_token", 401),
    ("token as Basic", app_facts(authorization=f"Basic {TOKEN}"), "bad_token", 401),
    ("token prefix only", app_facts(authorization=f"Bearer {TOKEN[:-1]}"), "bad_token", 401),
    (
        "POST without token",
        app_facts(method="POST", content_type="application/json"),
        "bad_token",
        401,
    ),
    (
        "POST a form, with the token",
        app_facts(method="POST", authorization=BEARER, content_type="text/plain"),
        "content_type",
        403,
    ),
    (
        "DNS rebinding still refused",
        app_facts(host="evil.example:8765", authorization=BEARER),
        "bad_host",
        403,
    ),
    ("identity on localhost", app_facts(identity=OWNER, authorization=BEARER), "not_owner", 403),
]


@pytest.mark.parametrize(("name", "request_facts"), APP_ALLOWED, ids=[a[0] for a in APP_ALLOWED])
def test_app_origin_allowed(name: str, request_facts: RequestFacts) -> None:
    assert check_request(request_facts, POLICY, TOKEN) is None, name


@pytest.mark.parametrize(
    ("name", "request_facts", "code", "status"), APP_REFUSED, ids=[r[0] for r in APP_REFUSED]
)
def test_app_origin_refused(name: str, request_facts: RequestFacts, code: str, status: int) -> None:
    refusal = check_request(request_facts, POLICY, TOKEN)
    assert refusal is not None, name
    assert (refusal.code, refusal.status) == (code, status)


def test_app_origin_without_any_token_made_says_how_to_make_one() -> None:
    refusal = check_request(app_facts(authorization="Bearer anything"), POLICY, None)
    assert refusal is not None and refusal.code == "no_token"
    assert "commonplace token" in refusal.reason


def test_a_bearer_token_changes_nothing_for_other_origins() -> None:
    """The token is not a key to the four checks: a cross-site POST stays cross-site."""
    evil_post = app_facts(
        method="POST", origin=EVIL, authorization=BEARER, content_type="application/json"
    )
    refusal = check_request(evil_post, POLICY, TOKEN)
    assert refusal is not None and refusal.code == "cross_origin"


@pytest.mark.parametrize(
    ("header", "ok"),
    [
        (BEARER, True),
        (f"  Bearer   {TOKEN}  ", True),
        (f"Bearer {TOKEN}x", False),
        ("Bearer ", False),
        ("", False),
        (None, False),
        (TOKEN, False),
        ("Bearer \udcff", False),  # undecodable bytes from the wire
    ],
)
def test_token_matches(header: str | None, ok: bool) -> None:
    assert token_matches(TOKEN, header) is ok


# -- the token file ---------------------------------------------------------------------------


def test_token_is_made_once_with_mode_0600(tmp_path: Path) -> None:
    path = token_path(tmp_path / "data")
    first, made = get_or_create_token(path)
    again, made_again = get_or_create_token(path)
    assert made and not made_again
    assert first == again == read_token(path)
    assert len(first) >= 40
    assert stat.S_IMODE(path.stat().st_mode) == 0o600


def test_rotate_replaces_the_token_and_keeps_0600(tmp_path: Path) -> None:
    path = token_path(tmp_path)
    old, _ = get_or_create_token(path)
    new = rotate_token(path)
    assert new != old and read_token(path) == new
    assert stat.S_IMODE(path.stat().st_mode) == 0o600


def test_a_token_file_readable_by_others_is_tightened(tmp_path: Path) -> None:
    path = token_path(tmp_path)
    path.write_text("abc\n")
    path.chmod(0o644)
    assert get_or_create_token(path) == ("abc", False)
    assert stat.S_IMODE(path.stat().st_mode) == 0o600


def test_an_empty_token_file_gets_a_token(tmp_path: Path) -> None:
    path = token_path(tmp_path)
    path.write_text("\n")
    token, made = get_or_create_token(path)
    assert made and read_token(path) == token


def test_token_command_prints_the_same_token_until_rotated(settings: Settings) -> None:
    env = {"COMMONPLACE_VAULT": str(settings.vault)}
    runner = CliRunner()
    first = runner.invoke(cli, ["token"], env=env)
    second = runner.invoke(cli, ["token"], env=env)
    rotated = runner.invoke(cli, ["token", "--rotate"], env=env)
    assert first.exit_code == second.exit_code == rotated.exit_code == 0, first.output
    assert first.stdout == second.stdout
    assert rotated.stdout != first.stdout
    assert rotated.stdout.strip() == read_token(token_path(settings.data_path))
    assert "old one no longer works" in rotated.stderr
    assert stat.S_IMODE(token_path(settings.data_path).stat().st_mode) == 0o600


# -- over HTTP --------------------------------------------------------------------------------


def routes(app: web.Application) -> list[tuple[str, str]]:
    """Every (method, path) the app serves, with a sample path for variable routes."""
    out: list[tuple[str, str]] = []
    for route in app.router.routes():
        if route.method in ("HEAD", "*"):
            continue
        info = route.resource.get_info() if route.resource else {}
        path = info.get("path") or (info.get("prefix", "") + "/index.html")
        if "formatter" in info:
            path = info["formatter"].replace("{", "").replace("}", "")
        out.append((route.method, path))
    return out


@pytest.fixture
def token(web_settings: Settings) -> str:
    return get_or_create_token(token_path(web_settings.data_path))[0]


def app_headers(client: TestClient[Any, Any], auth: str | None = None) -> dict[str, str]:
    headers = {"Origin": APP_ORIGIN, "Content-Type": "application/json"}
    if auth is not None:
        headers["Authorization"] = auth
    return headers


@pytest.mark.parametrize("auth", [None, "Bearer wrong-token", "Basic x"])
async def test_every_route_refuses_obsidian_without_the_right_token(
    make_client: ClientFactory, web_settings: Settings, token: str, auth: str | None
) -> None:
    client = await make_client()
    all_routes = routes(create_app(web_settings, make_llm(web_settings)))
    assert ("GET", "/api/state") in all_routes and ("POST", "/api/ask") in all_routes
    assert len(all_routes) >= 10
    for method, path in all_routes:
        if path in PAIR_OPEN | PAIR_OWNER:
            continue  # asking to pair needs no token; confirming is never Obsidian's (test_pairing)
        response = await client.request(method, path, headers=app_headers(client, auth), data="{}")
        assert response.status == 401, (method, path)
        body = await response.json()
        assert body["error"]["code"] == "bad_token"
        assert "commonplace token" in body["error"]["message"]
        assert response.headers["Access-Control-Allow-Origin"] == APP_ORIGIN  # readable
        assert response.headers["WWW-Authenticate"] == "Bearer"


async def test_before_any_token_is_made_obsidian_is_refused(make_client: ClientFactory) -> None:
    client = await make_client()
    response = await client.get("/api/state", headers=app_headers(client, "Bearer guess"))
    assert response.status == 401
    assert (await response.json())["error"]["code"] == "no_token"


async def test_with_the_token_obsidian_is_served(
    make_client: ClientFactory, web_settings: Settings, token: str
) -> None:
    client = await make_client()
    headers = app_headers(client, f"Bearer {token}")
    state = await client.get("/api/state", headers=headers)
    assert state.status == 200
    assert state.headers["Access-Control-Allow-Origin"] == APP_ORIGIN
    assert "Origin" in state.headers["Vary"]
    assert (await state.json())["daemon"]["vault"] == web_settings.vault.name
    # a change from Obsidian carries its own origin, not the daemon's: the token is what counts
    saved = await client.post("/api/capture", headers=headers, json={"text": "from obsidian"})
    assert saved.status == 201
    path = (await saved.json())["path"]
    assert (web_settings.vault / path).read_text(encoding="utf-8").endswith("from obsidian")


async def test_preflight_allows_the_authorization_header(
    make_client: ClientFactory, token: str
) -> None:
    client = await make_client()
    response = await client.options(
        "/api/ask",
        headers={
            "Origin": APP_ORIGIN,
            "Access-Control-Request-Method": "POST",
            "Access-Control-Request-Headers": "authorization,content-type",
            "Access-Control-Request-Private-Network": "true",
        },
    )
    assert response.status == 204
    assert response.headers["Access-Control-Allow-Origin"] == APP_ORIGIN
    allowed = {
        h.strip().lower() for h in response.headers["Access-Control-Allow-Headers"].split(",")
    }
    assert {"authorization", "content-type", "x-commonplace-client"} <= allowed
    assert "POST" in response.headers["Access-Control-Allow-Methods"]
    assert response.headers["Access-Control-Allow-Private-Network"] == "true"


async def test_preflight_on_a_wrong_host_is_refused(make_client: ClientFactory) -> None:
    client = await make_client()
    response = await client.options(
        "/api/ask", headers={"Origin": APP_ORIGIN, "Host": "rebind.evil.example"}
    )
    assert response.status == 403


async def test_rotation_takes_effect_without_a_restart(
    make_client: ClientFactory, web_settings: Settings, token: str
) -> None:
    client = await make_client()
    ok = await client.get("/api/state", headers=app_headers(client, f"Bearer {token}"))
    assert ok.status == 200
    new = rotate_token(token_path(web_settings.data_path))
    old = await client.get("/api/state", headers=app_headers(client, f"Bearer {token}"))
    assert old.status == 401
    fresh = await client.get("/api/state", headers=app_headers(client, f"Bearer {new}"))
    assert fresh.status == 200


async def test_other_origins_get_no_cors_headers(make_client: ClientFactory, token: str) -> None:
    client = await make_client()
    response = await client.get(
        "/api/state", headers={"Origin": EVIL, "Authorization": f"Bearer {token}"}
    )
    assert response.status == 200  # a GET passes the four checks, as before...
    assert "Access-Control-Allow-Origin" not in response.headers  # ...but EVIL cannot read it
    preflight = await client.options(
        "/api/ask", headers={"Origin": EVIL, "Access-Control-Request-Method": "POST"}
    )
    assert preflight.status != 204
    assert "Access-Control-Allow-Origin" not in preflight.headers
    post = await client.post(
        "/api/capture",
        headers={"Origin": EVIL, "Authorization": f"Bearer {token}"},
        json={"text": "x"},
    )
    assert post.status == 403
    assert (await post.json())["error"]["code"] == "cross_origin"
