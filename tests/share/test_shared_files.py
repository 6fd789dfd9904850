"""Shared files saved byte for byte in the editor's attachment folder, embedded as it embeds."""

from __future__ import annotations

import dataclasses
import json
import os
from datetime import datetime
from zoneinfo import ZoneInfo

import pytest

from commonplace.attachments.kinds import attachment_folder
from commonplace.capture.shared_files import (
    NotAShareableFile,
    SharedFile,
    embed_above,
    file_kind,
    save_shared_files,
)
from commonplace.config import Settings

WHEN = datetime(2026, 12, 2, 8, 15, tzinfo=ZoneInfo("Europe/London"))
JPEG = b"\xff\xd8\xff\xe0" + os.urandom(4000)


@pytest.mark.parametrize(
    ("data", "ext"),
    [
        (b"\xff\xd8\xff\xdb", "jpg"),
        (b"\x89PNG\r\n\x1a\n", "png"),
        (b"RIFF\x00\x00\x00\x00WEBPVP8 ", "webp"),
        (b"GIF89a", "gif"),
        (b"\x00\x00\x00\x18ftypheic", "heic"),
        (b"%PDF-1.7", "pdf"),
    ],
)
def test_the_kind_comes_from_the_bytes(data: bytes, ext: str) -> None:
    assert file_kind(data) == ext


@pytest.mark.parametrize("data", [b"#!/bin/sh\n", b"<html>", b"PK\x03\x04", b""])
def test_anything_else_is_refused(data: bytes) -> None:
    with pytest.raises(NotAShareableFile):
        file_kind(data)


@pytest.mark.parametrize(
    ("setting", "folder"),
    [
        (None, ""),
        ("/", ""),
        ("Attachments", "Attachments"),
        ("./", "Inbox"),
        ("./assets", "Inbox/assets"),
        ("../outside", ""),
    ],
)
def test_obsidians_attachment_folder_setting_is_followed(
    settings: Settings, setting: str | None, folder: str
) -> None:
    app = settings.vault / ".obsidian" / "app.json"
    app.parent.mkdir(exist_ok=True)
    app.write_text(json.dumps({} if setting is None else {"attachmentFolderPath": setting}))
    assert attachment_folder(settings.vault, "obsidian", near="Inbox") == folder


def test_files_are_saved_byte_for_byte_never_over_another(settings: Settings) -> None:
    files = (SharedFile("a.jpg", JPEG), SharedFile("b.jpg", JPEG))
    first = save_shared_files(settings, files, WHEN)
    again = save_shared_files(settings, files[:1], WHEN)
    paths = [s.path for s in first + again]
    assert len(set(paths)) == 3
    for path in paths:
        assert (settings.vault / path).read_bytes() == JPEG
    assert first[0].embed == f"![[{first[0].path}]]"
    assert embed_above(first, "my words\n") == (
        f"![[{first[0].path}]]\n![[{first[1].path}]]\n\nmy words\n"
    )


def test_logseq_embeds_the_asset_relative_to_the_inbox(settings: Settings) -> None:
    logseq = dataclasses.replace(settings, flavor="logseq")
    [saved] = save_shared_files(logseq, (SharedFile("x.pdf", b"%PDF-1.4 x"),), WHEN)
    assert saved.path == "assets/Shared PDF 2026-12-02 0815.pdf"
    inbox = logseq.folder("inbox")
    depth = inbox.count("/") + 1
    name = "Shared PDF 2026-12-02 0815.pdf"
    assert saved.embed == f"![{name}]({'../' * depth}assets/{name.replace(' ', '%20')})"
