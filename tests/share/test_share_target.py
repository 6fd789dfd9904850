"""POST /share without the service worker: the share target's own POST, saved by the daemon as
one capture with the same checks as /api/share, answered with a redirect to the page; from
another site it changes nothing; the same share arriving both ways is one capture."""

from __future__ import annotations

import dataclasses
import os
from datetime import datetime, timedelta
from typing import Any
from urllib.parse import parse_qs, urlsplit

import aiohttp
import pytest

from commonplace.capture.inbox import split_capture
from commonplace.config import ClipSettings, Settings
from commonplace.server.sent import SAME_SHARE_S, share_keys
from tests.server.conftest import OWNER, TS_NAME, ClientFactory, local_host, tailnet_headers
from tests.share.test_share_api import PDF, PNG, inbox, share_form, shared_files

# What Chrome sends with the POST it makes itself when the owner picks the page in the share
# sheet: no page started it, so Origin is "null" (or absent), with no Referer.
FROM_SHARE_SHEET = {
    "Origin": "null",
    "Sec-Fetch-Site": "none",
    "Sec-Fetch-Mode": "navigate",
    "Sec-Fetch-Dest": "document",
    "Sec-Fetch-User": "?1",
}


async def post_share(
    client: Any, form: aiohttp.FormData, headers: dict[str, str]
) -> aiohttp.ClientResponse:
    response: aiohttp.ClientResponse = await client.post(
        "/share", data=form, headers=headers, allow_redirects=False
    )
    return response


def redirect(response: aiohttp.ClientResponse) -> dict[str, str]:
    """The page address the daemon sends the browser to, as its query."""
    assert response.status == 303, response.status
    where = urlsplit(response.headers["Location"])
    assert where.path == "/" and not where.netloc
    return {k: v[0] for k, v in parse_qs(where.query).items()}


@pytest.mark.parametrize(
    "headers",
    [FROM_SHARE_SHEET, {k: v for k, v in FROM_SHARE_SHEET.items() if k != "Origin"}],
    ids=["origin-null", "no-origin"],
)
async def test_a_share_from_the_share_sheet_is_saved_as_one_capture(
    make_client: ClientFactory, web_settings: Settings, headers: dict[str, str]
) -> None:
    client = await make_client()
    before = inbox(web_settings)
    text = "The bit about climbing roses — prune in February.\nhttps://garden.example/roses"
    form = share_form(
        title="Climbing roses",
        text=text,
        url="",
        files=[("IMG_2041.png", PNG, "image/png"), ("catalogue.pdf", PDF, "application/pdf")],
    )
    query = redirect(await post_share(client, form, headers))
    [saved] = [p for p in inbox(web_settings) if p not in before]
    assert query["shared"] == "saved"
    assert query["path"] == saved.relative_to(web_settings.vault).as_posix()
    assert query["capture"].endswith(saved.stem)  # "<id>@<minute>": where it is filed, later
    meta, body = split_capture(saved.read_text(encoding="utf-8"))
    assert meta["via"] == "share"
    photo, pdf = shared_files(web_settings)
    assert photo.read_bytes() == PNG and pdf.read_bytes() == PDF
    rel = lambda p: p.relative_to(web_settings.vault).as_posix()  # noqa: E731
    assert body == f"![[{rel(photo)}]]\n![[{rel(pdf)}]]\n\nClimbing roses\n\n{text}\n"


async def test_a_share_posted_from_the_page_itself_is_saved(
    make_client: ClientFactory, web_settings: Settings
) -> None:
    client = await make_client()
    headers = {"Origin": f"http://{local_host(client)}", "Sec-Fetch-Site": "same-origin"}
    query = redirect(await post_share(client, share_form(text="from the page"), headers))
    assert query["shared"] == "saved"
    [saved] = inbox(web_settings)
    assert split_capture(saved.read_text())[1] == "from the page\n"


async def test_on_the_tailnet_the_owner_is_let_in_and_no_one_else(
    make_client: ClientFactory, web_settings: Settings
) -> None:
    client = await make_client()
    owner = await post_share(client, share_form(text="owner"), tailnet_headers(**FROM_SHARE_SHEET))
    assert redirect(owner)["shared"] == "saved"
    for login in ({}, {"Tailscale-User-Login": "someone-else@example.com"}):
        other = await post_share(
            client, share_form(text="other"), {"Host": TS_NAME, **FROM_SHARE_SHEET, **login}
        )
        assert other.status == 403
    assert len(inbox(web_settings)) == 1 and OWNER


@pytest.mark.parametrize(
    "headers",
    [
        # a form on another site, posted to the daemon
        {"Origin": "https://evil.example", "Sec-Fetch-Site": "cross-site"},
        {"Origin": "http://127.0.0.1:1", "Sec-Fetch-Site": "same-site"},  # another local port
        # a page that hides its origin (sandboxed frame, no-referrer): the browser still says
        # where the request came from
        {"Origin": "null", "Sec-Fetch-Site": "cross-site", "Sec-Fetch-Mode": "navigate"},
        # a script's fetch, not a navigation
        {"Origin": "null", "Sec-Fetch-Site": "none", "Sec-Fetch-Mode": "cors"},
        {"Origin": "null", "Sec-Fetch-Site": "none", "Sec-Fetch-Mode": "no-cors"},
        {},  # no browser at all (curl), and no token
        {"Referer": "https://evil.example/x", **FROM_SHARE_SHEET},  # a page behind it after all
    ],
    ids=lambda h: ",".join(f"{k}={v}" for k, v in h.items()) or "nothing",
)
async def test_from_anywhere_else_it_changes_nothing(
    make_client: ClientFactory, web_settings: Settings, headers: dict[str, str]
) -> None:
    client = await make_client()
    form = share_form(text="wire 500 pounds", files=("a.png", PNG, "image/png"))
    response = await post_share(client, form, headers)
    assert response.status == 403
    assert (await response.json())["error"]["code"] == "cross_origin"
    assert inbox(web_settings) == [] and shared_files(web_settings) == []


async def test_a_share_the_daemon_cannot_save_sends_the_page_the_reason(
    make_client: ClientFactory, web_settings: Settings
) -> None:
    settings = dataclasses.replace(web_settings, clip=ClipSettings(max_share_mb=0.1))
    client = await make_client(settings)
    big = b"\x89PNG\r\n\x1a\n" + os.urandom(200 * 1024)
    form = share_form(text="big", files=("big.png", big, "image/png"))
    query = redirect(await post_share(client, form, FROM_SHARE_SHEET))
    assert query["shared"] == "failed"
    assert "over 0.1 MB together ([clip] max_share_mb); nothing was saved" in query["why"]
    not_a_file = share_form(text="x", files=("run.sh", b"#!/bin/sh\nrm -rf ~\n", "image/png"))
    query = redirect(await post_share(client, not_a_file, FROM_SHARE_SHEET))
    assert query["shared"] == "failed" and "run.sh" in query["why"]
    assert inbox(settings) == [] and shared_files(settings) == []


async def test_only_the_share_targets_fields_are_read(
    make_client: ClientFactory, web_settings: Settings
) -> None:
    """id, via and captured are what the page adds when it sends a kept share; a share posted
    to /share carries only what the share sheet gave."""
    client = await make_client()
    form = share_form(text="just words", via="shortcut", id="share-0009-abcd", captured="x")
    redirect(await post_share(client, form, FROM_SHARE_SHEET))
    [saved] = inbox(web_settings)
    meta, _ = split_capture(saved.read_text())
    assert meta["via"] == "share" and "captured_original" not in meta


@pytest.mark.parametrize("server_first", [True, False], ids=["server-then-worker", "worker-first"])
async def test_the_same_share_through_the_worker_and_the_daemon_is_one_capture(
    make_client: ClientFactory, web_settings: Settings, server_first: bool
) -> None:
    """A retry: the share reached the daemon (no worker), and again the page's worker, which
    kept it with an id of its own and sent it to /api/share; or the other way round."""
    client = await make_client()
    files = [("IMG_2041.png", PNG, "image/png")]

    async def by_the_daemon() -> str:
        form = share_form(title="Roses", text="prune in February", url="", files=files)
        return redirect(await post_share(client, form, FROM_SHARE_SHEET))["path"]

    async def by_the_worker() -> str:
        form = share_form(
            title="Roses",
            text="prune in February",
            url="",
            id=f"share-{os.urandom(8).hex()}",
            captured=datetime.now().astimezone().isoformat(),
            via="share",
            files=files,
        )
        headers = {"Origin": f"http://{local_host(client)}"}
        response = await client.post("/api/share", data=form, headers=headers)
        assert response.status in (200, 201), await response.text()
        return str((await response.json())["path"])

    order = (by_the_daemon, by_the_worker) if server_first else (by_the_worker, by_the_daemon)
    paths = [await send() for send in order]
    assert paths[0] == paths[1]
    assert len(inbox(web_settings)) == 1 and len(shared_files(web_settings)) == 1


async def test_the_same_words_shared_again_later_are_a_new_capture(
    make_client: ClientFactory, web_settings: Settings
) -> None:
    client = await make_client()
    earlier = datetime.now().astimezone() - timedelta(seconds=3 * SAME_SHARE_S)
    form = share_form(text="https://garden.example/roses", captured=earlier.isoformat())
    response = await client.post(
        "/api/share", data=form, headers={"Origin": f"http://{local_host(client)}"}
    )
    assert response.status == 201
    query = redirect(
        await post_share(client, share_form(text="https://garden.example/roses"), FROM_SHARE_SHEET)
    )
    assert "repeat" not in query
    assert len(inbox(web_settings)) == 2  # the same words, 45 minutes apart: two captures


@pytest.mark.parametrize("start", [0.0, 899.9, 900.0, 1234.5, 1_767_225_599.0])
def test_arrivals_closer_than_the_window_match_and_far_apart_never(start: float) -> None:
    def matches(a: float, b: float) -> bool:
        return share_keys("c0ffee", b)[1] in share_keys("c0ffee", a)[0]

    for gap in (0.0, 1.0, SAME_SHARE_S / 2, SAME_SHARE_S - 0.1):
        assert matches(start, start + gap) and matches(start + gap, start)
    for gap in (2 * SAME_SHARE_S + 0.1, 3 * SAME_SHARE_S, 86_400.0):
        assert not matches(start, start + gap) and not matches(start + gap, start)
    assert not share_keys("c0ffee", start)[1].startswith("c0ffee")
    assert ":" in share_keys("c0ffee", start)[1]  # never the same as an id a client sends
