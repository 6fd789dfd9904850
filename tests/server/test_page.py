"""The phone page's files: served with the right types, and the service worker's list is whole."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from commonplace.basics import resources
from commonplace.basics.resources import resource_dir
from tests.server.conftest import ClientFactory

WEB = resource_dir("web")


def shell_list() -> list[str]:
    source = (WEB / "sw.js").read_text()
    block = re.search(r"const SHELL = \[(.*?)\];", source, re.S)
    assert block is not None
    return re.findall(r'"([^"]+)"', block.group(1))


def test_every_script_is_in_the_offline_shell() -> None:
    scripts = {"/" + p.relative_to(WEB).as_posix() for p in WEB.glob("js/*.js")}
    assert scripts <= set(shell_list())


async def test_shell_files_are_served_with_their_types(make_client: ClientFactory) -> None:
    client = await make_client()
    expected = {".js": "text/javascript", ".css": "text/css", ".png": "image/png"}
    for path in [*shell_list(), "/sw.js"]:
        response = await client.get(path)
        assert response.status == 200, path
        assert response.headers["Cache-Control"] == "no-cache"
        suffix = "." + path.rsplit(".", 1)[-1] if "." in path.rsplit("/", 1)[-1] else ""
        if suffix in expected:
            assert response.content_type == expected[suffix], path


async def test_manifest_icons_exist(make_client: ClientFactory) -> None:
    client = await make_client()
    response = await client.get("/manifest.webmanifest")
    assert response.content_type == "application/manifest+json"
    manifest = json.loads(await response.text())
    assert manifest["start_url"] == "/" and manifest["display"] == "standalone"
    sizes = {icon["sizes"] for icon in manifest["icons"]}
    assert {"192x192", "512x512"} <= sizes
    for icon in manifest["icons"]:
        assert (await client.get(icon["src"])).status == 200


def test_no_note_text_goes_through_innerhtml() -> None:
    """Text from notes, answers and the daemon only ever enters the page as textContent."""
    for path in WEB.glob("js/*.js"):
        source = path.read_text()
        for forbidden in (
            "innerHTML",
            "outerHTML",
            "insertAdjacentHTML",
            "document.write",
            "eval(",
        ):
            assert forbidden not in source, f"{path.name} uses {forbidden}"


async def test_the_built_plugin_is_served_beside_the_page(
    make_client: ClientFactory, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An installed program has no checkout to copy the plugin from: the daemon serves the
    three files Obsidian loads, and only those."""
    folder = tmp_path / "obsidian-bridge"
    folder.mkdir()
    for name, text in {
        "main.js": "module.exports = {};",
        "manifest.json": '{"id": "commonplace"}',
        "styles.css": ".x {}",
        "main.ts": "source",
        "LICENSE": "MIT",
    }.items():
        (folder / name).write_text(text)
    monkeypatch.setattr(resources, "resource_dir", lambda name: folder)
    client = await make_client()
    types = {
        "main.js": "text/javascript",
        "manifest.json": "application/json",
        "styles.css": "text/css",
    }
    for name, ctype in types.items():
        response = await client.get(f"/obsidian-plugin/{name}")
        assert response.status == 200, name
        assert response.content_type == ctype
        assert await response.text() == (folder / name).read_text()
    for other in ("main.ts", "LICENSE", "../obsidian-bridge/main.ts", "%2e%2e/pyproject.toml"):
        assert (await client.get(f"/obsidian-plugin/{other}")).status == 404, other


def test_a_checkout_without_the_built_plugin_serves_none_of_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(resources, "resource_dir", lambda name: tmp_path)
    assert resources.plugin_files() == {}
