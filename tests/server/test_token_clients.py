"""A program on this computer that is not a browser (the MCP server) gets in with the vault's
token instead of a same-page Origin; a wrong token is refused whatever else the request says.

The decision as a table first (check_request is a pure function), then the real app."""

from __future__ import annotations

import json
from typing import Any

import pytest
from aiohttp.test_utils import TestClient

from commonplace.config import Settings
from commonplace.plugin.apitoken import get_or_create_token, rotate_token, token_path
from commonplace.server.security import Policy, RequestFacts, check_request
from tests.server.conftest import ClientFactory, local_host, write_headers

PORT = 8765
TOKEN = "the-vaults-token"
POLICY = Policy()


def facts(**kw: Any) -> RequestFacts:
    base: dict[str, Any] = {
        "method": "POST",
        "path": "/api/capture",
        "host": f"127.0.0.1:{PORT}",
        "port": PORT,
        "peer_loopback": True,
        "content_type": "application/json",
    }
    return RequestFacts(**(base | kw))


@pytest.mark.parametrize(
    ("kw", "token", "code"),
    [
        ({"authorization": f"Bearer {TOKEN}"}, TOKEN, None),  # the MCP server
        ({"authorization": f"Bearer {TOKEN}", "method": "GET"}, TOKEN, None),
        ({"authorization": "Bearer wrong"}, TOKEN, "bad_token"),
        ({"authorization": "Bearer wrong", "method": "GET"}, TOKEN, "bad_token"),
        ({"authorization": f"Basic {TOKEN}"}, TOKEN, "bad_token"),
        ({"authorization": f"Bearer {TOKEN}"}, None, "no_token"),  # none made yet
        ({"authorization": f"Bearer {TOKEN}", "content_type": "text/plain"}, TOKEN, "content_type"),
        ({}, TOKEN, "cross_origin"),  # no Origin and no token: as before
        # A token does not let a foreign page's Origin through, nor a foreign Host.
        (
            {"authorization": f"Bearer {TOKEN}", "origin": "https://evil.example"},
            TOKEN,
            "cross_origin",
        ),
        ({"authorization": f"Bearer {TOKEN}", "host": "evil.example"}, TOKEN, "bad_host"),
        # The page (same Origin, no token) is unchanged ...
        ({"origin": f"http://127.0.0.1:{PORT}"}, TOKEN, None),
        # ... except for a change an outside client asks for: only with the token.
        (
            {"origin": f"http://127.0.0.1:{PORT}", "path": "/api/assistant/propose"},
            TOKEN,
            "bad_token",
        ),
        ({"path": "/api/assistant/propose", "authorization": f"Bearer {TOKEN}"}, TOKEN, None),
        # From another computer (when [web] host lets it reach the port): only with the token.
        ({"authorization": f"Bearer {TOKEN}", "peer_loopback": False}, TOKEN, None),
        ({"authorization": "Bearer wrong", "peer_loopback": False}, TOKEN, "bad_token"),
        ({"origin": f"http://127.0.0.1:{PORT}", "peer_loopback": False}, TOKEN, "not_local"),
    ],
)
def test_the_decision(kw: dict[str, Any], token: str | None, code: str | None) -> None:
    refusal = check_request(facts(**kw), POLICY, token)
    assert (refusal.code if refusal else None) == code
    if code in ("bad_token", "no_token"):
        assert refusal is not None and refusal.status == 401
        assert "commonplace token" in refusal.reason


async def test_a_capture_with_the_token_and_no_origin_is_saved(
    make_client: ClientFactory, web_settings: Settings
) -> None:
    client: TestClient[Any, Any] = await make_client()
    path = token_path(web_settings.data_path)
    token = get_or_create_token(path)[0]
    body = json.dumps({"text": "from a program", "via": "mcp"})

    def sent_with(value: str) -> dict[str, str]:
        return {"Authorization": f"Bearer {value}", "Content-Type": "application/json"}

    saved = await client.post("/api/capture", data=body, headers=sent_with(token))
    assert saved.status == 201
    wrong = await client.post("/api/capture", data=body, headers=sent_with("not-it"))
    assert wrong.status == 401 and wrong.headers["WWW-Authenticate"] == "Bearer"
    wrong_read = await client.get("/api/state", headers=sent_with("not-it"))
    assert wrong_read.status == 401  # another vault's daemon answers nothing at all
    rotate_token(path)
    stale = await client.post("/api/capture", data=body, headers=sent_with(token))
    assert stale.status == 401  # the rotation counts at once, no restart
    page = await client.post("/api/capture", data=body, headers=write_headers(client))
    assert page.status == 201  # the phone page is untouched
    state = await client.get("/api/state", headers={"Host": local_host(client)})
    assert state.status == 200
