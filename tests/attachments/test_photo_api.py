"""POST /api/capture/photo: the photo saved byte for byte in the attachment folder, the capture
embedding it above the typed words, once per id, with clear refusals."""

from __future__ import annotations

import dataclasses
import io
import json
from pathlib import Path
from typing import Any

import aiohttp
from PIL import Image

from commonplace.attachments.kinds import attachment_folder
from commonplace.attachments.pictures import embedded_targets
from commonplace.attachments.save import save_attachment
from commonplace.capture.inbox import read_capture
from commonplace.config import Settings
from tests.attachments import makefiles
from tests.server.conftest import ClientFactory, local_host


def jpeg(text: str = "receipt 42.50 hardware store") -> bytes:
    buf = io.BytesIO()
    makefiles.picture(text).convert("RGB").save(buf, format="JPEG", quality=90)
    return buf.getvalue()


def form(photo: bytes | None, **fields: str) -> aiohttp.FormData:
    data = aiohttp.FormData()
    for name, value in fields.items():
        data.add_field(name, value)
    if photo is not None:
        data.add_field("photo", photo, filename="IMG_0001.JPG", content_type="image/jpeg")
    return data


def headers(client: Any) -> dict[str, str]:
    return {"Origin": f"http://{local_host(client)}"}


async def test_a_photo_with_words_is_saved_byte_for_byte_and_embedded_above_them(
    make_client: ClientFactory, web_settings: Settings
) -> None:
    vault = web_settings.vault
    (vault / ".obsidian").mkdir(exist_ok=True)
    (vault / ".obsidian/app.json").write_text(json.dumps({"attachmentFolderPath": "Attachments"}))
    client = await make_client()
    photo = jpeg()
    response = await client.post(
        "/api/capture/photo",
        data=form(photo, text="Receipt for the shelf brackets", id="photo-abc123"),
        headers=headers(client),
    )
    assert response.status == 201, await response.text()
    body = await response.json()
    assert body["photo"].startswith("Attachments/Photo ") and body["photo"].endswith(".jpg")
    assert (vault / body["photo"]).read_bytes() == photo
    capture = read_capture(vault, body["path"], web_settings.tz)
    assert capture.body == f"![[{body['photo']}]]\n\nReceipt for the shelf brackets\n"
    assert capture.via == "phone"

    again = await client.post(
        "/api/capture/photo",
        data=form(photo, text="Receipt for the shelf brackets", id="photo-abc123"),
        headers=headers(client),
    )
    assert again.status == 200 and (await again.json())["path"] == body["path"]
    assert len(list((vault / "Attachments").iterdir())) == 1


async def test_a_photo_alone_is_a_capture(
    make_client: ClientFactory, web_settings: Settings
) -> None:
    client = await make_client()
    response = await client.post("/api/capture/photo", data=form(jpeg()), headers=headers(client))
    assert response.status == 201
    body = await response.json()
    assert "/" not in body["photo"]  # no attachment folder set: the vault's root, as Obsidian
    capture = read_capture(web_settings.vault, body["path"], web_settings.tz)
    assert capture.body == f"![[{body['photo']}]]\n"


async def test_a_photo_over_the_limit_is_refused_with_what_to_do(
    make_client: ClientFactory, web_settings: Settings
) -> None:
    settings = dataclasses.replace(
        web_settings, attachments=dataclasses.replace(web_settings.attachments, max_photo_mb=0.1)
    )
    client = await make_client(settings)
    big = b"\xff\xd8\xff" + b"0" * 200_000
    response = await client.post("/api/capture/photo", data=form(big), headers=headers(client))
    assert response.status == 413
    message = (await response.json())["error"]["message"]
    assert "the photo is over 0.1 MB ([attachments] max_photo_mb); nothing was saved" in message
    assert not list((settings.vault / "Inbox").glob("*.md"))


async def test_words_over_the_capture_limit_are_refused_as_a_typed_capture_is(
    make_client: ClientFactory, web_settings: Settings
) -> None:
    """The photo route skipped `[tidy] max_capture_kb`: the photo was saved, then the capture
    refused with another error (400 bad_capture), leaving the photo behind. Now the words pass
    the check typed and shared captures pass, before anything is saved, with the same 413."""
    small = dataclasses.replace(
        web_settings, tidy=dataclasses.replace(web_settings.tidy, max_capture_kb=1)
    )
    client = await make_client(small)
    words = "é" * 600  # 600 characters, 1200 bytes
    typed = await client.post(
        "/api/capture",
        data=json.dumps({"text": words}),
        headers={**headers(client), "Content-Type": "application/json"},
    )
    photo = await client.post(
        "/api/capture/photo", data=form(jpeg(), text=words), headers=headers(client)
    )
    assert (photo.status, typed.status) == (413, 413)
    assert (await photo.json())["error"] == (await typed.json())["error"]
    assert (await photo.json())["error"]["message"] == "a capture is limited to 1 KB"
    assert not (small.vault / "Inbox").exists()
    assert list(small.vault.glob("Photo *")) == []  # no photo left behind (the vault's root)


async def test_what_is_not_a_picture_is_refused(
    make_client: ClientFactory, web_settings: Settings
) -> None:
    client = await make_client()
    response = await client.post(
        "/api/capture/photo", data=form(b"%PDF-1.4 not a photo"), headers=headers(client)
    )
    assert response.status == 415
    assert "JPEG, PNG or WebP" in (await response.json())["error"]["message"]
    no_photo = form(None, text="x")
    no_photo.add_field("other", b"x", filename="x.bin")  # a form, but no photo in it
    response = await client.post("/api/capture/photo", data=no_photo, headers=headers(client))
    assert response.status == 400


def test_the_attachment_folder_follows_the_editor(settings: Settings, tmp_path: Path) -> None:
    vault = settings.vault
    (vault / ".obsidian").mkdir(exist_ok=True)
    app = vault / ".obsidian/app.json"
    for setting, folder in [
        ("/", ""),
        ("./", "Inbox"),
        ("./files", "Inbox/files"),
        ("Files/Pictures", "Files/Pictures"),
        ("../outside", ""),
    ]:
        app.write_text(json.dumps({"attachmentFolderPath": setting}))
        assert attachment_folder(vault, "obsidian", near="Inbox") == folder
    assert attachment_folder(vault, "logseq", near="pages/Inbox") == "assets"


def test_a_logseq_capture_embeds_its_asset_relative_to_the_inbox(settings: Settings) -> None:
    import datetime as dt

    logseq = dataclasses.replace(settings, flavor="logseq")
    saved = save_attachment(logseq, jpeg(), "jpg", dt.datetime(2026, 12, 2, 8, 5))
    assert saved.path == "assets/Photo 2026-12-02 0805.jpg"
    assert saved.embed == "![Photo 2026-12-02 0805.jpg](../../assets/Photo%202026-12-02%200805.jpg)"
    assert embedded_targets(saved.embed, "pages/Inbox") == [saved.path]
    second = save_attachment(logseq, jpeg("other"), "jpg", dt.datetime(2026, 12, 2, 8, 5))
    assert second.path == "assets/Photo 2026-12-02 0805 2.jpg"  # never over the first
    assert Image.open(logseq.vault / saved.path).format == "JPEG"
