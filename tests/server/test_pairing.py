"""Pairing the Obsidian plugin: asked from where a plugin may connect, confirmed by the owner
only, a token per device, revoked at once.

The rules (plugin/pairing.py, security.py) are tested as functions with an injected clock; then end
to end against the real aiohttp app on a real port: the plugin's requests as it sends them, the
phone page's confirm, `commonplace plugin pair` and `commonplace token list | revoke`.
"""

from __future__ import annotations

import asyncio
import json
import stat
from pathlib import Path
from typing import Any

import pytest
from aiohttp.test_utils import TestClient
from click.testing import CliRunner

from commonplace.cli.main import cli
from commonplace.config import Settings
from commonplace.plugin.apitoken import get_or_create_token, token_path
from commonplace.plugin.devices import add_device, devices_path, read_devices, revoke_device
from commonplace.plugin.discovery import (
    discovery_path,
    read_discovery,
    remove_discovery,
    write_discovery,
)
from commonplace.plugin.pairing import (
    EXPIRE_S,
    MAX_PER_WINDOW,
    MAX_WAITING,
    Pairing,
    PairingRefused,
)
from commonplace.server.security import (
    APP_ORIGIN,
    MOBILE_ORIGINS,
    Policy,
    RequestFacts,
    check_request,
)
from tests.server.conftest import OWNER, TS_NAME, ClientFactory, local_host, tailnet_headers

PORT = 8765
POLICY = Policy(ts_name=TS_NAME, owner_login=OWNER)
MASTER = "the-vaults-own-token"


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def issued() -> tuple[Pairing, Clock, list[str]]:
    clock = Clock()
    names: list[str] = []

    def issue(name: str) -> tuple[str, str]:
        names.append(name)
        return f"dev{len(names)}", f"token-{len(names)}"

    return Pairing(issue, clock=clock), clock, names


# -- the rules, with a clock ------------------------------------------------------------------


def test_a_confirmed_request_hands_its_token_once_to_the_holder_of_its_id() -> None:
    pairing, _, names = issued()
    req = pairing.request("Obsidian on macOS (Notes)", "this computer")
    assert len(req.code) == 6 and req.code.isdigit()
    assert req.shown_code() == f"{req.code[:3]} {req.code[3:]}"
    assert pairing.poll(req.id) == ("waiting", None, "")
    assert pairing.poll("someone-elses-guess") == ("expired", None, "")
    assert pairing.confirm(req.shown_code()) is req  # "123 456" or "123456": the digits count
    assert names == ["Obsidian on macOS (Notes)"]
    assert pairing.poll(req.id) == ("confirmed", "token-1", "dev1")
    assert pairing.poll(req.id) == ("expired", None, "")  # once
    assert pairing.confirm(req.code) is None  # nothing left to confirm


def test_a_request_expires_and_a_denied_one_is_told_so() -> None:
    pairing, clock, names = issued()
    old = pairing.request("a", "this computer")
    clock.now += EXPIRE_S
    assert pairing.confirm(old.code) is None
    assert pairing.poll(old.id)[0] == "expired"
    denied = pairing.request("b", "this computer")
    assert pairing.deny(denied.code) is denied
    assert pairing.poll(denied.id) == ("denied", None, "")
    assert names == []


def test_few_requests_may_wait_and_few_may_be_made_in_a_while() -> None:
    pairing, clock, _ = issued()
    waiting = [pairing.request(f"d{i}", "this computer") for i in range(MAX_WAITING)]
    assert len({r.code for r in waiting}) == MAX_WAITING  # codes never repeat among the waiting
    with pytest.raises(PairingRefused) as refused:
        pairing.request("one more", "this computer")
    assert "already waiting" in str(refused.value)
    assert 0 < refused.value.retry_after <= EXPIRE_S
    made = MAX_WAITING
    while made < MAX_PER_WINDOW:
        for r in pairing.waiting():
            pairing.deny(r.code)
        pairing.request(f"d{made}", "this computer")
        made += 1
    for r in pairing.waiting():
        pairing.deny(r.code)
    with pytest.raises(PairingRefused, match="pairing requests in"):
        pairing.request("flood", "this computer")
    clock.now += 601
    assert pairing.request("later", "this computer").status == "waiting"


def test_a_device_name_is_one_printable_line() -> None:
    pairing, _, _ = issued()
    req = pairing.request("evil\n\x1b[31mname" + "x" * 200, "this computer")
    assert "\n" not in req.device and "\x1b" not in req.device and len(req.device) <= 80


# -- who may ask and who may confirm ----------------------------------------------------------


def facts(**kw: Any) -> RequestFacts:
    base: dict[str, Any] = {
        "method": "POST",
        "path": "/api/pair/request",
        "host": f"127.0.0.1:{PORT}",
        "port": PORT,
        "peer_loopback": True,
        "origin": APP_ORIGIN,
        "content_type": "application/json",
    }
    base.update(kw)
    return RequestFacts(**base)


DEVICE = "device-token-value"
DEVICES = frozenset({__import__("hashlib").sha256(DEVICE.encode()).hexdigest()})

ALLOWED = [
    ("desktop Obsidian asks", facts()),
    ("requestUrl sends no Origin", facts(origin=None)),
    ("an iPhone through tailscale serve", facts(host=TS_NAME, identity=OWNER, origin=None)),
    ("Android's origin", facts(host=TS_NAME, identity=OWNER, origin="http://localhost")),
    ("the preflight of a mobile request", facts(method="OPTIONS", origin=MOBILE_ORIGINS[0])),
    ("the page lists the waiting", facts(method="GET", path="/api/pair/pending", origin=None)),
    (
        "the page confirms",
        facts(path="/api/pair/confirm", origin=f"http://127.0.0.1:{PORT}"),
    ),
    (
        "the owner's phone page confirms",
        facts(path="/api/pair/confirm", host=TS_NAME, identity=OWNER, origin=f"https://{TS_NAME}"),
    ),
    (
        "commonplace plugin pair, with the vault's token",
        facts(path="/api/pair/confirm", origin=None, authorization=f"Bearer {MASTER}"),
    ),
    (
        "a paired phone, token and login",
        facts(
            method="GET",
            path="/api/state",
            host=TS_NAME,
            identity=OWNER,
            origin="capacitor://localhost",
            authorization=f"Bearer {DEVICE}",
        ),
    ),
    (
        "a paired plugin through requestUrl",
        facts(
            method="GET",
            path="/api/search",
            origin=None,
            client="obsidian",
            authorization=f"Bearer {DEVICE}",
        ),
    ),
    ("requestUrl asks to pair", facts(origin=None, client="obsidian")),
]

REFUSED = [
    (
        "the plugin through requestUrl, unpaired",
        facts(method="GET", path="/api/state", origin=None, client="obsidian"),
        "bad_token",
    ),
    (
        "the plugin through requestUrl confirms itself",
        facts(path="/api/pair/confirm", origin=None, client="obsidian"),
        "owner_only",
    ),
    ("a web page asks", facts(origin="https://evil.example"), "cross_origin"),
    ("another computer asks", facts(peer_loopback=False), "not_local"),
    ("the tailnet, not the owner", facts(host=TS_NAME, identity="x@y.z"), "not_owner"),
    ("the tailnet, no login", facts(host=TS_NAME, origin=None), "not_owner"),
    ("a GET", facts(method="GET"), "method"),
    ("not JSON", facts(content_type="text/plain"), "content_type"),
    ("Obsidian confirms itself", facts(path="/api/pair/confirm"), "owner_only"),
    (
        "a device token confirms",
        facts(path="/api/pair/confirm", origin=None, authorization=f"Bearer {DEVICE}"),
        "owner_only",
    ),
    (
        "a device token lists",
        facts(
            method="GET", path="/api/pair/pending", origin=None, authorization=f"Bearer {DEVICE}"
        ),
        "owner_only",
    ),
    (
        "a cross-site form confirms",
        facts(path="/api/pair/confirm", origin="https://evil.example"),
        "cross_origin",
    ),
    (
        "a mobile origin without a token",
        facts(
            method="GET",
            path="/api/state",
            host=TS_NAME,
            identity=OWNER,
            origin="capacitor://localhost",
        ),
        "bad_token",
    ),
    (
        "a device token on the ts.net name without the login",
        facts(method="GET", path="/api/state", host=TS_NAME, authorization=f"Bearer {DEVICE}"),
        "not_owner",
    ),
    (
        "a revoked device",
        facts(method="GET", path="/api/state", origin=None, authorization="Bearer revoked-one"),
        "bad_token",
    ),
]


@pytest.mark.parametrize("name,request_facts", ALLOWED, ids=[a[0] for a in ALLOWED])
def test_allowed(name: str, request_facts: RequestFacts) -> None:
    assert check_request(request_facts, POLICY, MASTER, DEVICES) is None


@pytest.mark.parametrize("name,request_facts,code", REFUSED, ids=[r[0] for r in REFUSED])
def test_refused(name: str, request_facts: RequestFacts, code: str) -> None:
    refusal = check_request(request_facts, POLICY, MASTER, DEVICES)
    assert refusal is not None and refusal.code == code, refusal


# -- devices and the discovery file -----------------------------------------------------------


def test_devices_keep_only_hashes_with_mode_0600(tmp_path: Path) -> None:
    path = devices_path(tmp_path)
    device, token = add_device(path, "Phone")
    assert token not in path.read_text()
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert [d.id for d in read_devices(path)] == [device.id]
    assert revoke_device(path, device.id) == device
    assert read_devices(path) == [] and revoke_device(path, device.id) is None


def test_discovery_file_is_outside_the_vault_and_holds_no_token(
    settings: Settings, tmp_path: Path
) -> None:
    path = write_discovery(settings.vault, "0.0.0.0", 9123, "laptop.tail1.ts.net")
    assert path == discovery_path(settings.vault)
    assert path.is_relative_to(tmp_path / "xdg-state" / "commonplace" / "daemons")
    assert not path.is_relative_to(settings.vault)
    found = read_discovery(settings.vault)
    assert found is not None and found["url"] == "http://127.0.0.1:9123"
    assert found["tailnet_url"] == "https://laptop.tail1.ts.net"
    assert set(found) == {"url", "vault", "pid", "version", "tailnet_url"}
    remove_discovery(path)
    assert not path.exists()


# -- end to end, on a real port ---------------------------------------------------------------


def obsidian(client: TestClient[Any, Any], **extra: str) -> dict[str, str]:
    return {"Origin": APP_ORIGIN, "Content-Type": "application/json", **extra}


async def ask_to_pair(client: TestClient[Any, Any], **headers: str) -> dict[str, Any]:
    response = await client.post(
        "/api/pair/request",
        data=json.dumps({"device": "Obsidian on Linux (Notes)"}),
        headers=headers or obsidian(client),
    )
    assert response.status == 200, await response.text()
    body: dict[str, Any] = await response.json()
    return body


async def test_pairing_on_the_phone_page_then_revoked(
    make_client: ClientFactory, web_settings: Settings, caplog: pytest.LogCaptureFixture
) -> None:
    client = await make_client()
    asked = await ask_to_pair(client)
    assert asked["code"] in caplog.text  # the log names the code, and what to run
    assert "commonplace plugin pair" in caplog.text
    assert asked["id"] not in caplog.text
    poll = await client.post("/api/pair/poll", json={"id": asked["id"]}, headers=obsidian(client))
    assert (await poll.json()) == {"status": "waiting"}

    state = await (await client.get("/api/state")).json()
    assert state["pairing_waiting"] == 1
    pending = await (await client.get("/api/pair/pending")).json()
    assert [r["code"] for r in pending["requests"]] == [asked["code"]]
    assert "id" not in pending["requests"][0]

    # Obsidian cannot confirm its own request
    own = await client.post(
        "/api/pair/confirm", json={"code": asked["code"]}, headers=obsidian(client)
    )
    assert own.status == 403
    # the page confirms
    page = {"Origin": f"http://{local_host(client)}", "Content-Type": "application/json"}
    confirmed = await client.post("/api/pair/confirm", json={"code": asked["code"]}, headers=page)
    assert confirmed.status == 200, await confirmed.text()
    device_id = (await confirmed.json())["device_id"]

    poll = await client.post("/api/pair/poll", json={"id": asked["id"]}, headers=obsidian(client))
    got = await poll.json()
    assert got["status"] == "confirmed" and got["device_id"] == device_id
    bearer = {"Authorization": f"Bearer {got['token']}"}
    served = await client.get("/api/state", headers={"Origin": APP_ORIGIN, **bearer})
    assert served.status == 200
    assert served.headers["Access-Control-Allow-Origin"] == APP_ORIGIN
    again = await client.post("/api/pair/poll", json={"id": asked["id"]}, headers=obsidian(client))
    assert (await again.json()) == {"status": "expired"}  # the token is handed over once

    # revoked with the CLI while the daemon runs: refused from the next request on
    env = {"COMMONPLACE_VAULT": str(web_settings.vault)}
    listed = CliRunner().invoke(cli, ["token", "list"], env=env)
    assert (
        listed.exit_code == 0
        and device_id in listed.output
        and "Obsidian on Linux" in listed.output
    )
    revoked = CliRunner().invoke(cli, ["token", "revoke", device_id], env=env)
    assert revoked.exit_code == 0, revoked.output
    refused = await client.get("/api/state", headers={"Origin": APP_ORIGIN, **bearer})
    assert refused.status == 401
    assert "pair" in (await refused.json())["error"]["message"].lower()


async def test_plugin_pair_confirms_by_code_and_the_phone_pairs_over_the_tailnet(
    make_client: ClientFactory, web_settings: Settings
) -> None:
    client = await make_client()
    get_or_create_token(token_path(web_settings.data_path))
    write_discovery(web_settings.vault, "127.0.0.1", client.port)  # as `commonplace run` does

    # a phone: through tailscale serve, as the owner, with Obsidian mobile's origin
    phone = tailnet_headers(Origin="capacitor://localhost", **{"Content-Type": "application/json"})
    preflight = await client.options(
        "/api/pair/request",
        headers={
            **tailnet_headers(Origin="capacitor://localhost"),
            "Access-Control-Request-Method": "POST",
            "Access-Control-Request-Headers": "content-type",
        },
    )
    assert preflight.status == 204
    assert preflight.headers["Access-Control-Allow-Origin"] == "capacitor://localhost"
    asked = await ask_to_pair(client, **phone)

    env = {"COMMONPLACE_VAULT": str(web_settings.vault)}
    wrong = await asyncio.to_thread(
        CliRunner().invoke, cli, ["plugin", "pair", "--code", "000 000", "--wait", "0"], env=env
    )
    assert wrong.exit_code != 0 and asked["code"] in wrong.output
    done = await asyncio.to_thread(
        CliRunner().invoke, cli, ["plugin", "pair", "--code", asked["code"], "--wait", "0"], env=env
    )
    assert done.exit_code == 0, done.output
    assert f"from {TS_NAME}" in done.output

    got = await (
        await client.post("/api/pair/poll", json={"id": asked["id"]}, headers=phone)
    ).json()
    token = got["token"]
    with_both = tailnet_headers(Origin="capacitor://localhost", Authorization=f"Bearer {token}")
    ok = await client.get("/api/state", headers=with_both)
    assert ok.status == 200
    assert ok.headers["Access-Control-Allow-Origin"] == "capacitor://localhost"
    # the device token alone is not enough on the ts.net name: the owner's login is needed too
    no_login = {
        "Host": TS_NAME,
        "Origin": "capacitor://localhost",
        "Authorization": f"Bearer {token}",
    }
    assert (await client.get("/api/state", headers=no_login)).status == 403
    # and the login alone is not enough for Obsidian's origin
    no_token = tailnet_headers(Origin="capacitor://localhost")
    assert (await client.get("/api/state", headers=no_token)).status == 401


async def test_plugin_pair_says_what_to_do_when_nothing_waits(
    make_client: ClientFactory, web_settings: Settings
) -> None:
    client = await make_client()
    write_discovery(web_settings.vault, "127.0.0.1", client.port)
    env = {"COMMONPLACE_VAULT": str(web_settings.vault)}
    result = await asyncio.to_thread(
        CliRunner().invoke, cli, ["plugin", "pair", "--wait", "0"], env=env
    )
    assert result.exit_code != 0
    assert "Settings > Commonplace" in result.output


async def test_plugin_pair_asks_and_a_no_denies(
    make_client: ClientFactory, web_settings: Settings
) -> None:
    client = await make_client()
    write_discovery(web_settings.vault, "127.0.0.1", client.port)
    env = {"COMMONPLACE_VAULT": str(web_settings.vault)}
    asked = await ask_to_pair(client)
    no = await asyncio.to_thread(
        CliRunner().invoke, cli, ["plugin", "pair", "--wait", "0"], env=env, input="n\n"
    )
    assert no.exit_code == 0, no.output
    assert f"showing the code {asked['code']}? [y/N]" in no.output and "Denied" in no.output
    poll = await client.post("/api/pair/poll", json={"id": asked["id"]}, headers=obsidian(client))
    assert (await poll.json()) == {"status": "denied"}
    assert read_devices(devices_path(web_settings.data_path)) == []

    again = await ask_to_pair(client)
    yes = await asyncio.to_thread(
        CliRunner().invoke, cli, ["plugin", "pair", "--wait", "0"], env=env, input="y\n"
    )
    assert yes.exit_code == 0 and "Paired 'Obsidian on Linux (Notes)'" in yes.output
    poll = await client.post("/api/pair/poll", json={"id": again["id"]}, headers=obsidian(client))
    assert (await poll.json())["status"] == "confirmed"
