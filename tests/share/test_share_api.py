"""POST /api/share: a share from another app as ONE capture, words verbatim, files byte for byte;
sent as the page's share target sends it and as the iPhone Shortcut sends it, through the same
four checks as every capture, with the same limits."""

from __future__ import annotations

import dataclasses
import os
from pathlib import Path
from typing import Any

import aiohttp
import pytest

from commonplace.capture.inbox import split_capture
from commonplace.config import ClipSettings, Settings
from commonplace.server.api_share import shared_words
from commonplace.server.context import Services
from tests.push.resolver import FakeResolver
from tests.server.conftest import OWNER, TS_NAME, ClientFactory, tailnet_headers
from tests.share.conftest import Site, allow_site

PNG = b"\x89PNG\r\n\x1a\n" + os.urandom(3000)
PDF = b"%PDF-1.4\n1 0 obj<<>>endobj\n" + os.urandom(2000) + b"\n%%EOF\n"
ORIGIN = f"https://{TS_NAME}"


def share_form(
    **fields: str | tuple[str, bytes, str] | list[tuple[str, bytes, str]],
) -> aiohttp.FormData:
    """A multipart form as a browser or a Shortcut builds it: text fields, then files."""
    form = aiohttp.FormData()
    for name, value in fields.items():
        if isinstance(value, str):
            form.add_field(name, value)
            continue
        for filename, data, ctype in value if isinstance(value, list) else [value]:
            form.add_field(name, data, filename=filename, content_type=ctype)
    return form


def inbox(settings: Settings) -> list[Path]:
    return sorted((settings.vault / settings.folder("inbox")).glob("*.md"))


def shared_files(settings: Settings) -> list[Path]:
    return sorted(p for p in settings.vault.glob("Shared*") if p.is_file())


async def send(client: Any, form: aiohttp.FormData, **headers: str) -> aiohttp.ClientResponse:
    base = tailnet_headers(Origin=ORIGIN)
    base.update(headers)
    response: aiohttp.ClientResponse = await client.post("/api/share", data=form, headers=base)
    return response


def test_the_shared_pieces_are_kept_verbatim_once_each() -> None:
    link = "https://garden.example/roses"
    assert (
        shared_words("Roses", f"Pruning guide {link}", link) == f"Roses\n\nPruning guide {link}\n"
    )
    assert shared_words("", link, "") == f"{link}\n"  # Android: the link in `text`
    assert shared_words("Roses", "Roses", "") == "Roses\n"
    assert (
        shared_words("  Title  ", "line one\n  line two  ", "")
        == "  Title  \n\nline one\n  line two  \n"
    )


async def test_a_share_with_text_link_photo_and_pdf_is_one_capture_with_everything(
    make_client: ClientFactory, web_settings: Settings
) -> None:
    client = await make_client()
    before = inbox(web_settings)
    text = "Look at the climbing rose on page 2 — **really** good.\nhttps://garden.example/roses"
    form = share_form(
        title="Climbing roses",
        text=text,
        url="",
        id="share-0001-abcd",
        captured="",
        via="share",
        files=[("IMG_2041.png", PNG, "image/png"), ("catalogue.pdf", PDF, "application/pdf")],
    )
    response = await send(client, form)
    assert response.status == 201, await response.text()
    result = await response.json()
    new = [p for p in inbox(web_settings) if p not in before]
    assert len(new) == 1
    meta, body = split_capture(new[0].read_text(encoding="utf-8"))
    assert meta["via"] == "share"
    photo, pdf = result["files"]
    assert body == f"![[{photo}]]\n![[{pdf}]]\n\nClimbing roses\n\n{text}\n"
    assert (web_settings.vault / photo).read_bytes() == PNG
    assert (web_settings.vault / pdf).read_bytes() == PDF
    assert photo.endswith(".png") and pdf.endswith(".pdf")


async def test_a_share_sent_again_with_its_id_is_saved_once(
    make_client: ClientFactory, web_settings: Settings
) -> None:
    client = await make_client()
    before = inbox(web_settings)
    for _ in range(2):
        form = share_form(text="once", id="share-0002-abcd", files=("a.png", PNG, "image/png"))
        response = await send(client, form)
        assert response.status in (200, 201)
    assert len([p for p in inbox(web_settings) if p not in before]) == 1
    assert len(shared_files(web_settings)) == 1


async def test_the_iphone_shortcuts_request_is_accepted_as_documented(
    make_client: ClientFactory, web_settings: Settings
) -> None:
    """Exactly the request docs/how-to/share-from-phone.md shows: POST
    https://<name>.ts.net/api/share, header Origin: https://<name>.ts.net, a Form body with
    `text` (the Shortcut Input) and `via` = shortcut, and `files` when a file was shared."""
    client = await make_client()
    before = inbox(web_settings)
    form = share_form(
        text="https://www.bbc.co.uk/news/science-environment-67812345",
        via="shortcut",
        files=("IMG_0001.jpeg", b"\xff\xd8\xff\xe0" + os.urandom(500), "image/jpeg"),
    )
    response = await send(client, form)
    assert response.status == 201, await response.text()
    new = [p for p in inbox(web_settings) if p not in before]
    meta, body = split_capture(new[0].read_text(encoding="utf-8"))
    assert meta["via"] == "shortcut"
    assert body.endswith("\nhttps://www.bbc.co.uk/news/science-environment-67812345\n")
    assert body.startswith("![[Shared ")


async def test_a_shortcut_form_with_text_only_may_come_multipart_or_url_encoded(
    make_client: ClientFactory, web_settings: Settings
) -> None:
    client = await make_client()
    for multipart in (True, False):
        form = aiohttp.FormData(default_to_multipart=multipart)
        form.add_field("text", f"A thought from the iPhone ({multipart})")
        form.add_field("via", "shortcut")
        response = await send(client, form)
        assert response.status == 201, await response.text()
        body = split_capture((web_settings.vault / (await response.json())["path"]).read_text())[1]
        assert body == f"A thought from the iPhone ({multipart})\n"


@pytest.mark.parametrize(
    ("headers", "status"),
    [
        ({"Origin": ""}, 403),  # no Origin: not the page, and no token
        ({"Origin": "https://evil.example"}, 403),
        ({"Tailscale-User-Login": "someone-else@example.com"}, 403),
        ({"Host": "evil.example"}, 403),
    ],
)
async def test_a_share_passes_the_same_checks_as_every_capture(
    make_client: ClientFactory, web_settings: Settings, headers: dict[str, str], status: int
) -> None:
    client = await make_client()
    before = inbox(web_settings)
    sent = tailnet_headers(Origin=ORIGIN)
    sent.update(headers)
    sent = {k: v for k, v in sent.items() if v}
    response = await client.post("/api/share", data=share_form(text="hi"), headers=sent)
    assert response.status == status
    assert inbox(web_settings) == before


async def test_a_share_without_the_tailscale_login_is_refused(
    make_client: ClientFactory, web_settings: Settings
) -> None:
    client = await make_client()
    response = await client.post(
        "/api/share", data=share_form(text="hi"), headers={"Host": TS_NAME, "Origin": ORIGIN}
    )
    assert response.status == 403
    assert OWNER  # the owner is configured; only the header is missing


async def test_a_share_must_be_a_form(make_client: ClientFactory) -> None:
    client = await make_client()
    response = await client.post(
        "/api/share",
        json={"text": "hi"},
        headers=tailnet_headers(Origin=ORIGIN),
    )
    assert response.status in (403, 415)


async def test_files_over_the_limit_are_refused_and_nothing_is_saved(
    make_client: ClientFactory, web_settings: Settings
) -> None:
    settings = dataclasses.replace(web_settings, clip=ClipSettings(max_share_mb=0.1))
    client = await make_client(settings)
    before = inbox(settings)
    big = b"\x89PNG\r\n\x1a\n" + os.urandom(200 * 1024)
    response = await send(client, share_form(text="big", files=("big.png", big, "image/png")))
    assert response.status == 413
    assert "max_share_mb" in (await response.json())["error"]["message"]
    assert inbox(settings) == before and shared_files(settings) == []


async def test_words_over_the_capture_limit_are_refused(
    make_client: ClientFactory, web_settings: Settings
) -> None:
    client = await make_client()
    response = await send(client, share_form(text="x" * 100_001))
    assert response.status == 413


async def test_a_file_that_is_neither_image_nor_pdf_is_refused_and_nothing_is_saved(
    make_client: ClientFactory, web_settings: Settings
) -> None:
    client = await make_client()
    before = inbox(web_settings)
    form = share_form(
        text="two files",
        files=[("a.png", PNG, "image/png"), ("run.sh", b"#!/bin/sh\nrm -rf ~\n", "image/png")],
    )
    response = await send(client, form)
    assert response.status == 415
    assert inbox(web_settings) == before and shared_files(web_settings) == []


async def test_an_empty_share_is_refused(make_client: ClientFactory) -> None:
    client = await make_client()
    response = await send(client, share_form(title="", text="  ", url=""))
    assert response.status == 400


async def test_a_shared_link_with_fetch_page_keeps_the_pages_text(
    make_client: ClientFactory, web_settings: Settings, site: Site
) -> None:
    services = Services(
        page_resolver=FakeResolver({"news.example": ["127.0.0.1"]}), page_rule=allow_site
    )
    client = await make_client(services=services)
    link = f"http://news.example:{site.port}/p/article"
    response = await send(client, share_form(title="Roses", url=link, fetch_page="true"))
    assert response.status == 201
    result = await response.json()
    assert result["page"]["saved"] is True
    body = split_capture((web_settings.vault / result["path"]).read_text(encoding="utf-8"))[1]
    assert body.startswith(f"Roses\n\n{link}\n\n> Clipped from <{link}> on ")
    assert "Prune roses in late winter" in body
